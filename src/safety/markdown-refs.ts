// What GitHub turns into links after it renders markdown: character
// references that spell characters GitHub acts on, issue and pull request
// references (`#123`, `owner/repo#123`, `GH-123`) and issue or pull request
// URLs, which all create backlinks on the issue they name. Pure helpers for
// the sanitiser (markdown.ts); each looks at a bounded stretch of text, so
// calling them at every character keeps the sanitiser linear.

/** Zero-width space: invisible, and GitHub's patterns stop at it. */
export const ZWSP = '\u200B'

/** A character reference as CommonMark reads one (the `;` is required). */
const REFERENCE =
  /&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{0,31});/y

/** HTML5 named references to ASCII characters (names are case-sensitive). */
const NAMED_ASCII: Record<string, string> = {
  Tab: '\t',
  NewLine: '\n',
  excl: '!',
  quot: '"',
  QUOT: '"',
  num: '#',
  dollar: '$',
  percnt: '%',
  amp: '&',
  AMP: '&',
  apos: "'",
  lpar: '(',
  rpar: ')',
  ast: '*',
  midast: '*',
  plus: '+',
  comma: ',',
  period: '.',
  sol: '/',
  colon: ':',
  semi: ';',
  lt: '<',
  LT: '<',
  equals: '=',
  gt: '>',
  GT: '>',
  quest: '?',
  commat: '@',
  lsqb: '[',
  lbrack: '[',
  bsol: '\\',
  rsqb: ']',
  rbrack: ']',
  Hat: '^',
  lowbar: '_',
  UnderBar: '_',
  grave: '`',
  DiacriticalGrave: '`',
  lcub: '{',
  lbrace: '{',
  verbar: '|',
  vert: '|',
  VerticalLine: '|',
  rcub: '}',
  rbrace: '}',
  fjlig: 'fj'
}

/** Characters a reference may spell: GitHub acts on none of them in text. */
const HARMLESS = new Set(['&', '<', '>', '"', "'", ' ', '\t', '\n', '\r'])

/** The ASCII text a reference stands for, or undefined for anything else. */
function asciiOf(reference: string): string | undefined {
  const body = reference.slice(1, -1)
  if (body[0] !== '#') return NAMED_ASCII[body]
  const hex = body[1] === 'x' || body[1] === 'X'
  const code = parseInt(body.slice(hex ? 2 : 1), hex ? 16 : 10)
  return code > 0 && code < 0x80 ? String.fromCharCode(code) : undefined
}

/** The character reference starting at `at`, if one does. */
export function referenceAt(text: string, at: number): string | undefined {
  REFERENCE.lastIndex = at
  return REFERENCE.exec(text)?.[0]
}

/**
 * A reference that spells ASCII GitHub could act on after rendering (`&#35;1`
 * is `#1`, `&lsqb;` a bracket) is shown as written: its `&` becomes `&amp;`
 * and the rest (`#35;`) is left to be read on like any text. Others
 * (`&amp;`, `&nbsp;`, `&mdash;`) are kept whole. Undefined when no reference
 * starts at `at`.
 */
export function defuseReference(
  text: string,
  at: number
): [string, number] | undefined {
  const ref = referenceAt(text, at)
  if (ref === undefined) return undefined
  const ascii = asciiOf(ref)
  const harmless =
    ascii === undefined || [...ascii].every((c) => HARMLESS.has(c))
  return harmless ? [ref, ref.length] : ['&amp;', 1]
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9'
}

/**
 * True when the digit at `at` would complete an issue reference: it follows
 * `#` (`#1`, `owner/repo#1`) or `GH-`. A zero-width space before the digit
 * breaks the reference and reads the same.
 */
export function completesIssueRef(text: string, at: number): boolean {
  if (!isDigit(text[at])) return false
  if (text[at - 1] === '#') return true
  return at >= 3 && text.slice(at - 3, at).toLowerCase() === 'gh-'
}

const GITHUB_HEAD = /(?:https?:\/\/)?(?:www\.)?github\.com\//iy
const ISSUE_URL =
  /(?:https?:\/\/)?(?:www\.)?github\.com\/[\w.-]{1,100}\/[\w.-]{1,100}\/(?:issues|pulls?|discussions)\/\d{1,12}[\w/#?=%.~+-]{0,2000}/iy

/**
 * The issue, pull request or discussion URL on github.com starting at `at`,
 * if one does. Its characters never include a backtick, `|` or `&`.
 */
export function issueUrlAt(text: string, at: number): string | undefined {
  const c = text[at]
  if (
    c !== 'h' &&
    c !== 'H' &&
    c !== 'w' &&
    c !== 'W' &&
    c !== 'g' &&
    c !== 'G'
  )
    return undefined
  GITHUB_HEAD.lastIndex = at
  if (!GITHUB_HEAD.test(text)) return undefined
  ISSUE_URL.lastIndex = at
  return ISSUE_URL.exec(text)?.[0]
}

/**
 * `url` as a code span: shown in full, and neither a link nor a reference.
 * A zero-width space keeps it from merging with a backtick or a backslash
 * next to it.
 */
export function codeSpanFor(text: string, at: number, url: string): string {
  const before = text[at - 1] === '`' || text[at - 1] === '\\' ? ZWSP : ''
  const after = text[at + url.length] === '`' ? ZWSP : ''
  return `${before}\`${url}\`${after}`
}
