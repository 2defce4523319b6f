// A small, separate reading of posted markdown for the tests: where fenced
// code and same-line code spans are, and what is left as prose. Written
// apart from src/markdown-scan.ts so the tests do not trust the code they
// check.

export interface Reading {
  /** Prose lines with code spans removed. */
  prose: string[]
  /** The fence still open at the end, if any. */
  unclosedFence: string | undefined
}

export function read(markdown: string): Reading {
  const prose: string[] = []
  let fence: { char: string; length: number } | undefined
  for (const line of markdown.split('\n')) {
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line)
    if (fence) {
      const run = m?.[1]
      if (
        run &&
        run[0] === fence.char &&
        run.length >= fence.length &&
        /^[ \t]*$/.test(m[2] ?? '')
      )
        fence = undefined
      continue
    }
    if (m && !(m[1]?.startsWith('`') && (m[2] ?? '').includes('`'))) {
      fence = { char: (m[1] as string)[0] as string, length: m[1]!.length }
      continue
    }
    prose.push(withoutSpans(line))
  }
  return {
    prose,
    unclosedFence: fence ? fence.char.repeat(fence.length) : undefined
  }
}

/** Removes `code spans` that close on the same line; escapes outside them. */
function withoutSpans(line: string): string {
  let out = ''
  let i = 0
  while (i < line.length) {
    const c = line[i] as string
    if (c === '\\' && i + 1 < line.length) {
      out += line.slice(i, i + 2)
      i += 2
      continue
    }
    if (c !== '`') {
      out += c
      i++
      continue
    }
    let n = 0
    while (line[i + n] === '`') n++
    const closer = new RegExp(`(?<!\`)\`{${n}}(?!\`)`, 'g')
    closer.lastIndex = i + n
    const m = closer.exec(line)
    if (m && !line.slice(i + n, m.index).includes('|')) {
      out += ' '
      i = m.index + n
    } else {
      out += line.slice(i, i + n)
      i += n
    }
  }
  return out
}

/** `@name` that GitHub would link, in prose. */
export function liveMentions(markdown: string): string[] {
  const found: string[] = []
  for (const line of read(markdown).prose) {
    // What GitHub shows: backslash escapes and `@` entities resolved, in
    // one left-to-right pass (an escaped `&` starts no entity).
    const decoded = line.replace(
      /\\([!-/:-@[-`{-~])|&(?:#0*64|#x0*40|commat);/gi,
      (all: string, escaped: string | undefined) =>
        escaped === undefined ? '@' : escaped === '&' ? '\0' : escaped
    )
    for (const m of decoded.matchAll(/(?:^|[^A-Za-z0-9])(@[A-Za-z0-9][\w-]*)/g))
      found.push(m[1] as string)
  }
  return found
}

/** Opened minus closed `<details>` in prose; -1 if a close comes first. */
export function detailsBalance(markdown: string): number {
  let open = 0
  for (const line of read(markdown).prose) {
    const shown = line.replace(/\\[!-/:-@[-`{-~]/g, ' ')
    for (const m of shown.matchAll(/<(\/?)details(?=[\s>/]|$)/gi)) {
      if (m[1]) {
        if (open === 0) return -1
        open--
      } else open++
    }
  }
  return open
}
