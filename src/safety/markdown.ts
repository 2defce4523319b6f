// Text-safety helpers for everything the action posts to GitHub. Pure.
//
// LLM text is posted as markdown, so it must not ping people, leak keys,
// link issues, hide where a link goes, load images or break the page around
// it. The sanitiser keeps code as it is (an `@` in a decorator must survive
// copy-paste) and makes code unambiguous instead: fences are re-emitted at
// column 0 (so no list or quote can swallow them), backticks that open no
// same-line code span are escaped (so GitHub cannot pair them differently),
// and raw HTML in prose is shown as text (so no `<details>`, `<!--`, `<img>`
// or `<pre>` can hide, fake or unbalance what follows). In prose, links and
// images become their text followed by the URL, every other `[` is escaped
// (no reference links or definitions), issue references (`#1`, `GH-1`) get a
// zero-width space, issue and pull request URLs become code, and character
// references that spell any of that are shown as written.
//
// Every step is linear in the length of the text: answers are hostile and
// may be a megabyte of whatever is slowest.
import { unlinkLine } from './markdown-links.js'
import {
  codeSpanFor,
  completesIssueRef,
  defuseReference,
  issueUrlAt,
  referenceAt,
  ZWSP
} from './markdown-refs.js'
import {
  codeSpans,
  fenceOpener,
  longestRun,
  openDetails,
  openFence,
  rewriteProse,
  splitBlocks,
  type Block
} from './markdown-scan.js'
import { redactSecrets } from './redact.js'

/** `@` written as an entity still renders, and pings, as `@`. */
const AT_ENTITY = /&(?:#0*64|#x0*40|commat);/iy
const URL_START = /https?:\/\//gi
const URL_END = /[\s<>`"')\]&]/g
/** Lines with none of these need no change. */
const NEEDS_WORK = /[`<@&[#]|gh-\d|github\.com/i
/** A task-list box (`- [ ] item`): a checkbox, not a link; left alone. */
const TASK_BOX = /^(\s*(?:[-+*]|\d{1,9}[.)])\s+)\[[ xX]\](?=\s|$)/

/** A fence of backticks longer than any backtick run in `text` (at least 3). */
export function fenceFor(text: string): string {
  return '`'.repeat(Math.max(3, longestRun(text, '`') + 1))
}

/**
 * Stops `@user` and `@org/team` from pinging anyone. Code (fenced blocks and
 * same-line code spans) is left as it is; see the file comment for the
 * normalisation that makes that safe. Raw HTML in prose is escaped too, as an
 * HTML block can hide a fence from the parser.
 */
export function neutralizeMentions(text: string): string {
  const blocks = splitBlocks(text.replace(/\r\n?/g, '\n'))
  return blocks.flatMap(emitBlock).join('\n')
}

/** Everything LLM-written goes through this before it is posted. */
export function safeMarkdown(text: string, secrets: readonly string[]): string {
  return neutralizeMentions(redactSecrets(text, secrets))
}

function emitBlock(block: Block): string[] {
  if (block.kind === 'text') return block.lines.map(sanitizeLine)
  const { char, indent, info } = block.fence
  // CommonMark strips the opener's indent from the content lines.
  const body = block.lines.map((l) =>
    l.slice(Math.min(indent, l.length - l.trimStart().length))
  )
  const joined = body.join('\n')
  const length = Math.max(block.fence.length, longestRun(joined, char) + 1)
  const fence = char.repeat(length)
  return [info ? `${fence}${info}` : fence, ...body, fence]
}

function sanitizeLine(line: string): string {
  if (!NEEDS_WORK.test(line)) return line
  // First what GitHub decodes: `&#64;` shows as `@` (so it becomes one, to be
  // neutralised like any other), and references spelling `#`, brackets or
  // letters are shown as written.
  const decoded = line.includes('&')
    ? rewriteProse(line, (c, at) =>
        c === '&'
          ? (atEntity(line, at) ?? defuseReference(line, at))
          : undefined
      )
    : line
  const plain = unlinkLine(decoded)
  const urls = urlRanges(plain)
  const taskBox = TASK_BOX.exec(plain)?.[1]?.length
  const lastText = plain.trimEnd().length
  return rewriteProse(plain, (c, at) => {
    if (c === '`') return ['\\`', 1]
    if (c === '<')
      return isTagStart(plain, at, lastText) ? ['&lt;', 1] : undefined
    if (c === '@') return [neutralAt(plain, at, urls), 1]
    if (c === '&') {
      // Kept whole, so nothing below breaks a reference apart.
      const ref = referenceAt(plain, at)
      return ref ? [ref, ref.length] : undefined
    }
    if (c === '[') return at === taskBox ? undefined : ['\\[', 1]
    if (completesIssueRef(plain, at)) return [ZWSP + c, 1]
    const url = issueUrlAt(plain, at)
    return url ? [codeSpanFor(plain, at, url), url.length] : undefined
  })
}

function atEntity(line: string, at: number): [string, number] | undefined {
  AT_ENTITY.lastIndex = at
  const m = AT_ENTITY.exec(line)
  return m ? ['@', m[0].length] : undefined
}

/**
 * `<` that would start raw HTML (a tag, comment, declaration). `lastText`
 * is where the line's trailing blanks start.
 */
function isTagStart(line: string, i: number, lastText: number): boolean {
  if (!/[A-Za-z/!?]/.test(line[i + 1] ?? '')) return false
  // An inline `<br>` (table cells use it) is harmless; alone on a line it
  // would open an HTML block.
  const br = /<br\s*\/?>/iy
  br.lastIndex = i
  return !(br.exec(line) && br.lastIndex < lastText)
}

/** What to write for the `@` at `i`. */
function neutralAt(line: string, i: number, urls: UrlCursor): string {
  while (urls.next < urls.at.length && urls.at[urls.next]![1] <= i) urls.next++
  const url = urls.at[urls.next]
  if (url && url[0] < i) return '%40'
  if (line[i + 1] === ZWSP || isEmailAt(line, i)) return '@'
  return '@' + ZWSP
}

/**
 * `name@host`: GitHub does not treat an `@` after a letter or digit as a
 * mention, as long as nothing (emphasis, an autolink ending there) splits
 * the text node before it. So the word before must be a plain address part
 * that starts after a space or an opening bracket or quote.
 */
function isEmailAt(line: string, i: number): boolean {
  let j = i
  while (j > 0 && /[A-Za-z0-9.+-]/.test(line[j - 1] as string)) j--
  if (j === i || !/[A-Za-z0-9]/.test(line[i - 1] as string)) return false
  if (/^www\./i.test(line.slice(j, i))) return false
  return j === 0 || /[\s(,;:"'\u200B]/.test(line[j - 1] as string)
}

/**
 * Ranges of bare URLs: an `@` inside one becomes `%40`, a valid path. Starts
 * increase and ends never decrease, so one cursor walks them.
 */
interface UrlCursor {
  at: Array<[number, number]>
  next: number
}

function urlRanges(line: string): UrlCursor {
  const ranges: Array<[number, number]> = []
  let end = -1
  for (const m of line.matchAll(URL_START)) {
    // A URL that starts before the last one ended ends where it did: no new
    // search, or `https://https://...` would read the rest once per start.
    if (m.index >= end) {
      URL_END.lastIndex = m.index
      end = URL_END.exec(line)?.index ?? line.length
    }
    ranges.push([m.index, end])
  }
  return { at: ranges, next: 0 }
}

/**
 * Each run of blanks that holds a line break becomes one space. (A regex
 * with blanks on both sides of the break would read a long run of spaces
 * once per space.)
 */
function oneLine(text: string): string {
  if (!/[\r\n]/.test(text)) return text
  return text.replace(/\s+/g, (run) => (/[\r\n]/.test(run) ? ' ' : run))
}

/**
 * Plain text for one table cell (or any single-line markdown spot): one line,
 * no pipes, backticks, raw HTML, links, references or pings. Nothing in it
 * is code, so every mention is neutralised.
 */
export function escapeTableCell(text: string): string {
  const flat = oneLine(text)
  const out: string[] = []
  for (let i = 0; i < flat.length; i++) {
    const c = flat[i] as string
    AT_ENTITY.lastIndex = i
    const entity = c === '&' ? AT_ENTITY.exec(flat)?.[0] : undefined
    const url = issueUrlAt(flat, i)
    if (c === '@' || entity) {
      out.push(isEmailAt(flat, i) ? '@' : '@' + ZWSP)
      i += (entity?.length ?? 1) - 1
    } else if (c === '&') {
      const [ref, length] = defuseReference(flat, i) ?? ['&', 1]
      out.push(ref)
      i += length - 1
    } else if (url) {
      out.push(codeSpanFor(flat, i, url))
      i += url.length - 1
    } else if (c === '\\' || c === '|' || c === '`' || c === '[')
      out.push('\\' + c)
    else if (c === '<') out.push('&lt;')
    else if (completesIssueRef(flat, i)) out.push(ZWSP + c)
    else out.push(c)
  }
  return out.join('')
}

/** Text for raw HTML (a `<summary>`): escaped, one line, no pings or references. */
export function escapeHtmlText(text: string): string {
  const flat = oneLine(text)
  const out: string[] = []
  for (let i = 0; i < flat.length; i++) {
    const c = flat[i] as string
    const url = issueUrlAt(flat, i)
    if (url) {
      out.push(`<code>${url}</code>`)
      i += url.length - 1
    } else if (c === '&') out.push('&amp;')
    else if (c === '<') out.push('&lt;')
    else if (c === '>') out.push('&gt;')
    else if (c === '@') out.push('@' + ZWSP)
    else if (completesIssueRef(flat, i)) out.push(ZWSP + c)
    else out.push(c)
  }
  return out.join('')
}

/**
 * Cuts markdown to at most `maxChars` characters, note included. The cut
 * falls at a line or word boundary, never inside a surrogate pair, an entity,
 * a tag or a code span; an open code fence and open `<details>` are closed,
 * then the note follows. Text that fits is returned unchanged.
 */
export function truncateMarkdown(
  text: string,
  maxChars: number,
  note: string
): string {
  if (text.length <= maxChars) return text
  for (const suffix of note ? [`\n\n${note}`, ''] : ['']) {
    const budget = maxChars - suffix.length
    if (budget < 0) continue
    const attempt = (limit: number): string | undefined => {
      const prefix = text.slice(0, safeCut(text, limit))
      const out = prefix + closersFor(prefix)
      return out.length <= budget ? out : undefined
    }
    let best = attempt(budget)
    if (best === undefined) {
      // Closers grow with the prefix: find the longest prefix that fits.
      let lo = 0
      let hi = budget - 1
      while (lo <= hi) {
        const mid = Math.floor((lo + hi) / 2)
        const out = attempt(mid)
        if (out === undefined) hi = mid - 1
        else {
          if (best === undefined || out.length > best.length) best = out
          lo = mid + 1
        }
      }
    }
    if (best !== undefined) return best ? best + suffix : suffix.trimStart()
  }
  return ''
}

function closersFor(prefix: string): string {
  const fence = openFence(prefix)
  let out = ''
  if (fence) {
    out += (prefix.endsWith('\n') ? '' : '\n') + fence.char.repeat(fence.length)
  }
  return out + '\n</details>'.repeat(openDetails(prefix))
}

function safeCut(text: string, limit: number): number {
  if (limit >= text.length) return text.length
  if (limit <= 0) return 0
  let cut = limit
  const lineSlack = Math.min(2000, Math.max(80, Math.floor(limit / 5)))
  const nl = text.lastIndexOf('\n', cut - 1)
  const space = Math.max(
    text.lastIndexOf(' ', cut - 1),
    text.lastIndexOf('\t', cut - 1)
  )
  if (nl > 0 && nl >= cut - lineSlack) cut = nl
  else if (space > 0 && space >= cut - 200) cut = space
  // Not inside a surrogate pair, an entity or a tag.
  if (/[\uD800-\uDBFF]/.test(text[cut - 1] ?? '')) cut--
  const tail = text.slice(Math.max(0, cut - 200), cut)
  const broken = /(?:&#?[A-Za-z0-9]{0,32}|<\/?[A-Za-z][^<>\n]*|<)$/.exec(tail)
  if (broken) cut -= broken[0].length
  return outsideCodeSpan(text, cut)
}

/** Moves a cut that falls inside a same-line code span to before it. */
function outsideCodeSpan(text: string, cut: number): number {
  const start = text.lastIndexOf('\n', cut - 1) + 1
  const before = text.slice(0, start)
  if (openFence(before)) return cut
  const end = text.indexOf('\n', cut)
  const line = text.slice(start, end < 0 ? text.length : end)
  if (fenceOpener(line)) return cut
  for (const [s, e] of codeSpans(line)) {
    if (start + s < cut && cut < start + e) return start + s
  }
  return cut
}
