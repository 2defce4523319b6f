// Just enough of a markdown reader for the sanitiser and the truncator:
// fenced code blocks (CommonMark rules, top level only) and code spans that
// open and close on one line. It does not have to agree with GitHub on every
// input: the sanitiser (markdown.ts) rewrites text so that what this reader
// calls code is what GitHub calls code, and treats everything else as prose.

interface Fence {
  char: '`' | '~'
  length: number
  /** Spaces before the opener (0-3). */
  indent: number
  info: string
}

export type Block =
  | { kind: 'text'; lines: string[] }
  | { kind: 'code'; fence: Fence; lines: string[]; closed: boolean }

const OPENER = /^( {0,3})(`{3,}|~{3,})(.*)$/
const CLOSER = /^ {0,3}(`{3,}|~{3,})[ \t]*$/

/** The fence this line opens, if it is a fence opener (CommonMark 4.5). */
export function fenceOpener(line: string): Fence | undefined {
  const m = OPENER.exec(line)
  if (!m) return undefined
  const run = m[2] as string
  const char = run[0] as '`' | '~'
  const info = m[3] as string
  // A backtick fence's info string may not contain a backtick.
  if (char === '`' && info.includes('`')) return undefined
  return {
    char,
    length: run.length,
    indent: (m[1] as string).length,
    info: info.trim()
  }
}

function closesFence(line: string, fence: Fence): boolean {
  const m = CLOSER.exec(line)
  const run = m?.[1]
  return !!run && run[0] === fence.char && run.length >= fence.length
}

/** Splits text into prose and fenced code; an unclosed fence runs to the end. */
export function splitBlocks(text: string): Block[] {
  const lines = text.split('\n')
  const blocks: Block[] = []
  let prose: string[] = []
  let i = 0
  while (i < lines.length) {
    const line = lines[i] as string
    i++
    const fence = fenceOpener(line)
    if (!fence) {
      prose.push(line)
      continue
    }
    if (prose.length) blocks.push({ kind: 'text', lines: prose })
    prose = []
    const body: string[] = []
    let closed = false
    while (i < lines.length) {
      const inner = lines[i] as string
      i++
      if (closesFence(inner, fence)) {
        closed = true
        break
      }
      body.push(inner)
    }
    blocks.push({ kind: 'code', fence, lines: body, closed })
  }
  if (prose.length) blocks.push({ kind: 'text', lines: prose })
  return blocks
}

/** Fence still open at the end of `text`, if any. */
export function openFence(text: string): Fence | undefined {
  let fence: Fence | undefined
  for (const line of text.split('\n')) {
    if (fence) {
      if (closesFence(line, fence)) fence = undefined
    } else {
      fence = fenceOpener(line)
    }
  }
  return fence
}

export function isAsciiPunct(c: string | undefined): boolean {
  return c !== undefined && /^[!-/:-@[-`{-~]$/.test(c)
}

function runLength(line: string, at: number, char = '`'): number {
  let end = at
  while (line[end] === char) end++
  return end - at
}

/** Longest run of `char` anywhere in `text`. */
export function longestRun(text: string, char: string): number {
  let best = 0
  for (let i = text.indexOf(char); i >= 0; i = text.indexOf(char, i)) {
    const n = runLength(text, i, char)
    best = Math.max(best, n)
    i += n
  }
  return best
}

/**
 * Code spans that open and close on this line, as [start, end) ranges with
 * their backticks. Spans holding a `|` are left out: in a table row GitHub
 * splits cells before it looks for code.
 */
export function codeSpans(line: string): Array<[number, number]> {
  if (!line.includes('`')) return []
  // Closers are maximal backtick runs (escapes do not apply inside code).
  const runs = new Map<number, { at: number[]; next: number }>()
  for (let i = line.indexOf('`'); i >= 0; i = line.indexOf('`', i)) {
    const n = runLength(line, i)
    const entry = runs.get(n) ?? { at: [], next: 0 }
    entry.at.push(i)
    runs.set(n, entry)
    i += n
  }
  const closerFrom = (n: number, from: number): number | undefined => {
    const entry = runs.get(n)
    if (!entry) return undefined
    while (
      entry.next < entry.at.length &&
      (entry.at[entry.next] as number) < from
    )
      entry.next++
    return entry.at[entry.next]
  }
  // Pipes before each index, so "does this span hold a `|`" costs O(1):
  // checking with a slice made long lines of unpaired runs quadratic.
  const pipesBefore = new Uint32Array(line.length + 1)
  for (let k = 0; k < line.length; k++)
    pipesBefore[k + 1] = (pipesBefore[k] as number) + (line[k] === '|' ? 1 : 0)
  const hasPipe = (from: number, to: number) =>
    (pipesBefore[to] as number) > (pipesBefore[from] as number)
  const spans: Array<[number, number]> = []
  let i = 0
  while (i < line.length) {
    const c = line[i]
    if (c === '\\') {
      i += isAsciiPunct(line[i + 1]) ? 2 : 1
      continue
    }
    if (c !== '`') {
      i++
      continue
    }
    const n = runLength(line, i)
    const close = closerFrom(n, i + n)
    if (close !== undefined && !hasPipe(i + n, close)) {
      spans.push([i, close + n])
      i = close + n
    } else {
      i += n
    }
  }
  return spans
}

const DETAILS_TAG = /<(\/?)details(?=[\s>/]|$)/gi

/**
 * A line that starts an HTML block of CommonMark's kind 6 (block-level
 * tags), which runs to the next blank line as raw HTML.
 */
const HTML_BLOCK_START = new RegExp(
  '^ {0,3}</?(?:address|article|aside|base|basefont|blockquote|body|caption|' +
    'center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|' +
    'figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|' +
    'legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|' +
    'param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|' +
    'track|ul)(?=[\\s/>]|$)',
  'i'
)

/** Open `<details>` left after these lines, counting prose only. */
export function openDetails(text: string): number {
  let open = 0
  let fence: Fence | undefined
  let htmlBlock = false
  for (const line of text.split('\n')) {
    if (fence) {
      if (closesFence(line, fence)) fence = undefined
      continue
    }
    if (htmlBlock) htmlBlock = line.trim() !== ''
    else {
      fence = fenceOpener(line)
      if (fence) continue
      htmlBlock = HTML_BLOCK_START.test(line)
    }
    if (!/<\/?details/i.test(line)) continue
    // In an HTML block every tag is a tag: no code spans, no escapes.
    const prose = htmlBlock ? line : withoutCodeSpans(line)
    for (const m of prose.matchAll(DETAILS_TAG))
      open = m[1] ? Math.max(0, open - 1) : open + 1
  }
  return open
}

/** The line without its code spans and escaped characters (markdown prose). */
function withoutCodeSpans(line: string): string {
  const parts: string[] = []
  let from = 0
  for (const [start, end] of codeSpans(line)) {
    parts.push(line.slice(from, start))
    from = end
  }
  parts.push(line.slice(from))
  // `\<details>` is text.
  return parts.join('').replace(/\\[!-/:-@[-`{-~]/g, '  ')
}

/** Replacement text and the number of characters it replaces. */
type Rewrite = (c: string, at: number) => [string, number] | undefined

/**
 * Rewrites the prose of one line; code spans and backslash escapes stay as
 * they are. A rewrite may replace several characters, never a backtick.
 */
export function rewriteProse(line: string, rewrite: Rewrite): string {
  const spans = codeSpans(line)
  const out: string[] = []
  let from = 0
  let span = 0
  let i = 0
  while (i < line.length) {
    // Spans a rewrite stepped over are done with.
    while (
      spans[span] !== undefined &&
      (spans[span] as [number, number])[0] < i
    )
      span++
    const next = spans[span]
    if (next && i === next[0]) {
      i = next[1]
      span++
      continue
    }
    const c = line[i] as string
    if (c === '\\') {
      // `\@` renders as `@`, so only skip escapes of other characters.
      i += isAsciiPunct(line[i + 1]) && line[i + 1] !== '@' ? 2 : 1
      continue
    }
    const change = rewrite(c, i)
    if (!change) {
      i++
      continue
    }
    out.push(line.slice(from, i), change[0])
    i += change[1]
    from = i
  }
  out.push(line.slice(from))
  return out.join('')
}
