// Links and images in LLM text become plain text with their URL in sight:
// `[Click here](https://evil)` reads `Click here (https://evil)` and
// `![x](https://tracker/pixel.png)` reads `x (https://tracker/pixel.png)`,
// so no link hides where it goes and no image loads. This is for
// readability only: the sanitiser (markdown.ts) then escapes every `[` left
// in prose, so whatever this misses (reference links, odd forms) shows as
// written instead of linking. Pure and linear: brackets and parentheses are
// paired once per line, with stacks.
import { codeSpans, isAsciiPunct, rewriteProse } from './markdown-scan.js'

interface Pairs {
  /** `[` index -> its `]`. */
  brackets: Map<number, number>
  /** `(` index -> its `)`. */
  parens: Map<number, number>
}

/** Pairs brackets and parentheses in prose (code spans and escapes skipped). */
function pairUp(line: string): Pairs {
  const brackets = new Map<number, number>()
  const parens = new Map<number, number>()
  const openBrackets: number[] = []
  const openParens: number[] = []
  const spans = codeSpans(line)
  let span = 0
  let i = 0
  while (i < line.length) {
    const next = spans[span]
    if (next && i === next[0]) {
      i = next[1]
      span++
      continue
    }
    const c = line[i]
    if (c === '\\') i += isAsciiPunct(line[i + 1]) ? 1 : 0
    else if (c === '[') openBrackets.push(i)
    else if (c === '(') openParens.push(i)
    else if (c === ']') {
      const open = openBrackets.pop()
      if (open !== undefined) brackets.set(open, i)
    } else if (c === ')') {
      const open = openParens.pop()
      if (open !== undefined) parens.set(open, i)
    }
    i++
  }
  return { brackets, parens }
}

interface Link {
  /** Index of the `]` that ends the text. */
  close: number
  /** Index just past the `)` that ends the destination. */
  end: number
  url: string
}

const isSpace = (c: string | undefined) =>
  c === ' ' || c === '\t' || c === '\n' || c === '\r'
/** Never in a destination we unlink (brackets also keep scans apart). */
const NOT_IN_URL = new Set(['[', ']', '<', '>', '`'])

/**
 * The inline link whose text starts with the `[` at `open`, if it is one:
 * `[text](url)` or `[text](url "title")` (titles are hidden text: dropped).
 * Destinations and titles stop at brackets, so no scan here reaches into
 * another link's: all of them together read the line once.
 */
function linkAt(line: string, open: number, pairs: Pairs): Link | undefined {
  const close = pairs.brackets.get(open)
  if (close === undefined || line[close + 1] !== '(') return undefined
  const end = pairs.parens.get(close + 1)
  if (end === undefined) return undefined
  let i = close + 2
  while (i < end && isSpace(line[i])) i++
  const start = i
  while (i < end && !isSpace(line[i]) && !NOT_IN_URL.has(line[i] as string)) i++
  if (i === start) return undefined
  const url = line.slice(start, i)
  while (i < end && isSpace(line[i])) i++
  if (i < end) {
    const quote = line[i] as string
    const closing = quote === '(' ? ')' : quote
    if (quote !== '"' && quote !== "'" && quote !== '(') return undefined
    i++
    while (i < end && line[i] !== closing && !NOT_IN_URL.has(line[i] as string))
      i++
    if (i >= end || line[i] !== closing) return undefined
    i++
    while (i < end && isSpace(line[i])) i++
    if (i !== end) return undefined
  }
  return { close, end: end + 1, url }
}

/** True when the link text says nothing the URL does not. */
function onlyUrl(line: string, open: number, close: number, url: string) {
  const length = close - open - 1
  // Bounded looks: nested link texts must not be read again and again.
  if (length <= 64 && !line.slice(open + 1, close).trim()) return true
  return length === url.length && line.startsWith(url, open + 1)
}

/** Inline links and images of one line as text followed by `(url)`. */
export function unlinkLine(line: string): string {
  if (!line.includes('](')) return line
  const pairs = pairUp(line)
  // `]` index -> what replaces `](url "title")`.
  const tails = new Map<number, Link>()
  return rewriteProse(line, (c, at) => {
    const tail = c === ']' ? tails.get(at) : undefined
    if (tail) return [` (${tail.url})`, tail.end - at]
    const image = c === '!' && line[at + 1] === '['
    if (c !== '[' && !image) return undefined
    const open = image ? at + 1 : at
    const link = linkAt(line, open, pairs)
    if (!link) return undefined
    // Nothing to show but the URL: show it once.
    if (onlyUrl(line, open, link.close, link.url))
      return [link.url, link.end - at]
    tails.set(link.close, link)
    return ['', open + 1 - at]
  })
}
