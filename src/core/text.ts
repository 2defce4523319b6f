// Plain-text helpers every stage uses: one name per concept.

/** Cuts text to `max` characters with an ellipsis, never mid-pair. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text
  let cut = Math.max(0, max - 1)
  if (/[\uD800-\uDBFF]/.test(text[cut - 1] ?? '')) cut--
  return text.slice(0, cut) + '…'
}

/** A bad input value shown in an error: one line, at most 80 characters. */
export function showValue(value: string): string {
  return clip(value.replace(/\s+/g, ' '), 80)
}

/** The first line of a text (a command's error output), cut to `max`. */
export function firstLine(text: string, max = 300): string {
  return clip(text.trim().split('\n')[0]?.trim() ?? '', max)
}

/** What an unknown thrown value says. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** The first `max` bytes of a text as UTF-8, never half a character. */
export function clipBytes(text: string, max: number): string {
  const bytes = Buffer.from(text, 'utf8')
  if (bytes.length <= max) return text
  return decodeHead(bytes.subarray(0, Math.max(0, max)))
}

/** The last `max` bytes of a text as UTF-8, never half a character. */
export function clipBytesFromEnd(text: string, max: number): string {
  const bytes = Buffer.from(text, 'utf8')
  if (bytes.length <= max) return text
  return bytes
    .subarray(bytes.length - Math.max(0, max))
    .toString('utf8')
    .replace(/^\uFFFD+/, '')
}

/** The first bytes of a UTF-8 text, without the character the cut split. */
export function decodeHead(bytes: Buffer): string {
  return bytes.toString('utf8').replace(/\uFFFD+$/, '')
}

const C_ESCAPES = new Map(
  Object.entries({
    n: '\n',
    t: '\t',
    r: '\r',
    a: '\x07',
    b: '\b',
    f: '\f',
    v: '\v',
    '\\': '\\',
    '"': '"'
  })
)

/**
 * A text written with C-style escapes, as git quotes unusual file names
 * (`caf\303\251`) and getfacl writes whitespace, backslashes and control
 * bytes (`\040`): a three-digit octal escape is one byte of UTF-8, `\n`,
 * `\\`, `\"` and their kin their character; any other backslash stays.
 */
export function unescapeC(text: string): string {
  const bytes: number[] = []
  const chars = [...text]
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] ?? ''
    if (ch !== '\\') {
      bytes.push(...Buffer.from(ch, 'utf8'))
      continue
    }
    const octal = /^[0-7]{3}/.exec(chars.slice(i + 1, i + 4).join(''))
    if (octal) {
      bytes.push(parseInt(octal[0], 8) & 0xff)
      i += 3
      continue
    }
    const escaped = C_ESCAPES.get(chars[i + 1] ?? '')
    if (escaped === undefined) {
      bytes.push(...Buffer.from(ch, 'utf8'))
      continue
    }
    bytes.push(...Buffer.from(escaped, 'utf8'))
    i++
  }
  return Buffer.from(bytes).toString('utf8')
}

/** `: <first line>` of a command's error output, or '' when it said nothing. */
export function stderrDetail(text: string): string {
  const line = firstLine(text)
  return line ? `: ${line}` : ''
}
