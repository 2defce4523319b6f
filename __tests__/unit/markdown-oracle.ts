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

/** `spanMark` stands in for each code span in the prose lines. */
export function read(markdown: string, spanMark = ' '): Reading {
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
    prose.push(withoutSpans(line, spanMark))
  }
  return {
    prose,
    unclosedFence: fence ? fence.char.repeat(fence.length) : undefined
  }
}

/** Removes `code spans` that close on the same line; escapes outside them. */
function withoutSpans(line: string, spanMark: string): string {
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
      out += spanMark
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

/**
 * What GitHub shows of a prose line: backslash escapes and the character
 * references that matter here resolved, in one left-to-right pass.
 */
function shown(line: string): string {
  const named: Record<string, string> = {
    num: '#',
    commat: '@',
    lsqb: '[',
    lbrack: '[',
    amp: '&',
    lt: '<',
    gt: '>'
  }
  return line.replace(
    /\\([!-/:-@[-`{-~])|&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z]+);/g,
    (all: string, escaped?: string, ref?: string) => {
      if (escaped !== undefined) return escaped === '[' ? '\0' : escaped
      if (!ref) return all
      if (ref[0] !== '#') return named[ref] ?? all
      const hex = ref[1] === 'x' || ref[1] === 'X'
      return String.fromCodePoint(
        parseInt(ref.slice(hex ? 2 : 1), hex ? 16 : 10)
      )
    }
  )
}

/** Issue references and issue URLs GitHub would link (and so backlink), in prose. */
export function liveReferences(markdown: string): string[] {
  const found: string[] = []
  for (const line of read(markdown).prose) {
    // GitHub links nothing inside <code> either.
    const text = shown(line.replace(/<code>[^<]*<\/code>/g, ' '))
    for (const m of text.matchAll(
      /(?:^|[^A-Za-z0-9_])((?:[\w.-]+\/[\w.-]+)?#\d+|GH-\d+)/gi
    ))
      found.push(m[1] as string)
    for (const m of text.matchAll(
      /github\.com\/[\w.-]+\/[\w.-]+\/(?:issues|pulls?|discussions)\/\d+/gi
    ))
      found.push(m[0])
  }
  return found
}

/**
 * Markdown links, images, reference links and definitions in prose: any `[`
 * GitHub would read as one (escaped ones excepted; a task-list box is a
 * checkbox).
 */
export function liveBrackets(markdown: string): string[] {
  const found: string[] = []
  for (const line of read(markdown).prose) {
    const text = shown(line).replace(
      /^(\s*(?:[-+*]|\d+[.)])\s+)\[[ xX]\]/,
      '$1'
    )
    const at = text.indexOf('[')
    if (at >= 0) found.push(text.slice(Math.max(0, at - 10), at + 30))
  }
  return found
}

/** Raw HTML tags in prose (GitHub would render them). */
export function liveHtml(markdown: string): string[] {
  const found: string[] = []
  // A code span after a tag is text after it, as much as an escape.
  for (const line of read(markdown, '\u0001').prose) {
    // An escaped character is text, never the start of a tag.
    const text = line.replace(/\\[!-/:-@[-`{-~]/g, '__')
    for (const m of text.matchAll(/<[A-Za-z!?/][^\s>]*/g)) {
      const br =
        /^<br$/i.test(m[0]) && text.slice(m.index).trim() !== m[0] + '>'
      if (!br) found.push(m[0])
    }
  }
  return found
}
