// The text of a comment, a title or a file as a reader sees it on GitHub:
// characters that render as nothing and HTML comments (which GitHub does not
// render) are removed, so hidden text cannot ride along with what a person
// wrote and saw. Pure, and total: the text is hostile and any string gives a
// result.

// Characters that render as nothing but still reach a model: format
// characters (zero-width space/joiners, bidi controls, BOM, soft hyphen, tag
// characters) and lone surrogates by category; then controls other than
// tab/newline/CR, the combining grapheme joiner, Hangul fillers and
// variation selectors by code point.
const FORMAT = /^[\p{Cf}\p{Cs}]$/u
function invisible(ch: string): boolean {
  const cp = ch.codePointAt(0) ?? 0
  return (
    FORMAT.test(ch) ||
    (cp < 0x20 && cp !== 0x09 && cp !== 0x0a && cp !== 0x0d) ||
    (cp >= 0x7f && cp <= 0x9f) ||
    [0x034f, 0x115f, 0x1160, 0x3164, 0xffa0].includes(cp) ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    (cp >= 0xe0100 && cp <= 0xe01ef)
  )
}

/** Remove characters a reader cannot see. */
export function stripInvisible(text: string): string {
  const lines = text.replace(/[\u2028\u2029]/g, '\n')
  return Array.from(lines, (ch) => (invisible(ch) ? '' : ch)).join('')
}

/**
 * Remove HTML comments, which GitHub does not render, so hidden text cannot
 * ride along with a visible command. An unterminated comment hides the rest.
 * Removing one comment can join the text around it into a new `<!--`
 * (`<!<!-- x -->-- y -->`): the output is checked as it grows, so that one
 * opens too. One pass, linear in the length: a comment body is hostile and
 * may be a megabyte of `<!--`.
 */
export function stripHtmlComments(text: string): string {
  if (!text.includes('<!--')) return text
  const out: number[] = []
  const closers = new CloserFinder(text)
  let i = 0
  while (i < text.length) {
    out.push(text.charCodeAt(i++))
    const n = out.length
    if (
      n >= 4 &&
      out[n - 1] === DASH &&
      out[n - 2] === DASH &&
      out[n - 3] === BANG &&
      out[n - 4] === LT
    ) {
      out.length = n - 4
      i = closers.after(i)
    }
  }
  return fromCodes(out)
}

const LT = 0x3c
const BANG = 0x21
const DASH = 0x2d

/**
 * Where the comment opened before `from` ends: just past the first `-->` or
 * `--!>` at or after `from`, or the end of the text. Each search resumes
 * where the last one stopped, so all of them together read the text once.
 */
class CloserFinder {
  private arrow = -1
  private bang = -1
  constructor(private readonly text: string) {}

  after(from: number): number {
    if (this.arrow !== Infinity && this.arrow < from)
      this.arrow = this.find('-->', from)
    if (this.bang !== Infinity && this.bang < from)
      this.bang = this.find('--!>', from)
    if (this.arrow <= this.bang)
      return Math.min(this.text.length, this.arrow + 3)
    return Math.min(this.text.length, this.bang + 4)
  }

  private find(closer: string, from: number): number {
    const at = this.text.indexOf(closer, from)
    return at < 0 ? Infinity : at
  }
}

/** UTF-16 code units back to a string, in chunks the call stack can take. */
function fromCodes(codes: number[]): string {
  const parts: string[] = []
  for (let i = 0; i < codes.length; i += 8192)
    parts.push(String.fromCharCode(...codes.slice(i, i + 8192)))
  return parts.join('')
}

/** The text of a comment as a reader sees it. */
export function visibleText(body: string): string {
  return stripHtmlComments(stripInvisible(body))
}
