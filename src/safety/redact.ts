// The one place secrets are redacted: posted text, outputs, the logs
// artifact and the scrub of the work folder all go through here.
//
// An agent that wants a key out does not print it as it is: it encodes it.
// Besides each exact value, the forms a shell one-liner gives and that can be
// recognised without guessing are redacted too: base64 (standard and
// URL-safe, at each of the three byte alignments, so the value is found
// inside a longer encoded text such as `x-access-token:TOKEN`, padded or
// not), hex (lower and upper case), URL encoding (of the reserved characters,
// and of every byte) and the reversed string. Anything split, spaced,
// encoded twice, encrypted or retold is beyond any redaction (docs/security.md,
// "Encoded secrets").
//
// A shell wraps what it encodes (`base64` at 76 columns, `xxd -p` at 60)
// and an agent can space a value out, so the long needles are also looked
// for in the text with its white space left out, and hex needles in the hex
// columns of dump lines (`xxd`, `hexdump -C`), whose lines go whole.
//
// Matching is one scan per needle (String.indexOf) over the text and over
// each of those two views of it (each built in one pass), then the found
// spans are merged and each replaced by `***`: linear in the text for a
// fixed set of needles, whatever the text holds.
import { Transform, type TransformCallback } from 'node:stream'

export const REDACTED = '***'
/** Shorter values are not secrets worth the false hits. */
const MIN_VALUE = 4
/** Encoded forms only for values this long: a short core would hit at random. */
const MIN_ENCODED = 8

/** Shapes of provider keys and GitHub tokens, redacted even when not given. */
const KEY_PATTERNS = [
  /sk-ant-[A-Za-z0-9_-]{8,}/g,
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\bxai-[A-Za-z0-9_-]{16,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g
]

/** Each secret, and each line of a multi-line one, trimmed, deduplicated. */
function secretValues(secrets: readonly string[]): string[] {
  const all = secrets.flatMap((s) => [s, ...s.split(/\r?\n/)])
  return [...new Set(all.map((v) => v.trim()))].filter(
    (v) => v.length >= MIN_VALUE
  )
}

/**
 * The base64 characters that depend on `bytes` alone when they sit at
 * `align` (0, 1 or 2) bytes past a multiple of three in the encoded text.
 * Characters that mix in a neighbour's bits, and padding, are left out, so
 * the core is found whatever surrounds the value.
 */
export function base64Core(bytes: Buffer, align: 0 | 1 | 2): string {
  const encoded = Buffer.concat([Buffer.alloc(align), bytes]).toString('base64')
  const first = Math.ceil((8 * align) / 6)
  const end = Math.floor((8 * (align + bytes.length)) / 6)
  return encoded.slice(first, end)
}

/** The encoded forms of one value that redaction recognises. */
export function secretForms(value: string): string[] {
  const forms = [value]
  const bytes = Buffer.from(value, 'utf8')
  if (bytes.length < MIN_ENCODED) return forms
  for (const align of [0, 1, 2] as const) {
    const core = base64Core(bytes, align)
    forms.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'))
  }
  const hex = bytes.toString('hex')
  forms.push(hex, hex.toUpperCase())
  forms.push(encodeURIComponent(value))
  const everyByte = hex.replace(/../g, '%$&')
  forms.push(everyByte, everyByte.toUpperCase())
  forms.push([...value].reverse().join(''))
  return [...new Set(forms)]
}

/** Every string to redact for these secrets, longest first. */
export function redactionNeedles(secrets: readonly string[]): string[] {
  const needles = secretValues(secrets).flatMap(secretForms)
  return [...new Set(needles)]
    .filter((n) => n.length >= MIN_VALUE)
    .sort((a, b) => b.length - a.length)
}

/** Sorted, merged [start, end) spans where any needle occurs. */
export function matchSpans(
  text: string,
  needles: string[]
): Array<[number, number]> {
  const spans: Array<[number, number]> = []
  for (const needle of needles) {
    for (
      let at = text.indexOf(needle);
      at !== -1;
      at = text.indexOf(needle, at + 1)
    )
      spans.push([at, at + needle.length])
  }
  return mergeSpans(spans)
}

/** Needles this long are also matched with white space left out. */
const MIN_SQUEEZED = 16

/** The text without white space, and where each kept character was. */
function squeezed(text: string): { text: string; at: Int32Array } {
  const at = new Int32Array(text.length)
  const kept: string[] = []
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    // Space, tab, line feed, vertical tab, form feed, carriage return.
    if (c === 32 || (c >= 9 && c <= 13)) continue
    at[kept.length] = i
    kept.push(text[i] as string)
  }
  return { text: kept.join(''), at }
}

/**
 * A hex dump line: an offset, then hex groups (`xxd`: `0000: 736b 2d70`,
 * `hexdump -C`: `00000000  73 6b 2d 70`), then the printable column. A
 * group ends at a blank, so the column's first letters are not taken for one.
 */
const DUMP_LINE =
  /^[ \t]*[0-9A-Fa-f]{4,16}:?((?:[ \t]{1,2}[0-9A-Fa-f]{2,8}(?=[ \t\r]|$))+)/

/**
 * The hex columns of the dump lines, joined, and for each of their
 * characters the [start, end) of the line it came from.
 */
function dumpHex(text: string): { text: string; lines: Int32Array } {
  const parts: string[] = []
  const lines: number[] = []
  let start = 0
  while (start <= text.length) {
    const nl = text.indexOf('\n', start)
    const end = nl === -1 ? text.length : nl
    // Offsets and groups are short: the test needs only the line's head.
    const m = DUMP_LINE.exec(text.slice(start, Math.min(end, start + 256)))
    const hex = m?.[1]?.replace(/[ \t]/g, '') ?? ''
    if (hex) {
      parts.push(hex)
      for (let i = 0; i < hex.length; i++) lines.push(start, end)
    }
    if (nl === -1) break
    start = nl + 1
  }
  return { text: parts.join(''), lines: Int32Array.from(lines) }
}

function isHex(needle: string): boolean {
  return /^[0-9A-Fa-f]+$/.test(needle)
}

/** Every span where a needle occurs: as written, wrapped or spaced, or in a dump. */
function findSpans(text: string, needles: string[]): Array<[number, number]> {
  const spans = matchSpans(text, needles)
  const long = needles.filter((n) => n.length >= MIN_SQUEEZED)
  if (long.length === 0 || !/\s/.test(text)) return spans
  const view = squeezed(text)
  for (const [start, end] of matchSpans(view.text, long))
    spans.push([view.at[start] ?? 0, (view.at[end - 1] ?? 0) + 1])
  const hexNeedles = long.filter(isHex)
  if (hexNeedles.length > 0 && text.includes('\n')) {
    const dump = dumpHex(text)
    for (const [start, end] of matchSpans(dump.text, hexNeedles))
      spans.push([
        dump.lines[2 * start] ?? 0,
        dump.lines[2 * (end - 1) + 1] ?? 0
      ])
  }
  return mergeSpans(spans)
}

function mergeSpans(spans: Array<[number, number]>): Array<[number, number]> {
  const sorted = [...spans].sort((a, b) => a[0] - b[0])
  const merged: Array<[number, number]> = []
  for (const span of sorted) {
    const last = merged[merged.length - 1]
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1])
    else merged.push([span[0], span[1]])
  }
  return merged
}

function replaceSpans(text: string, spans: Array<[number, number]>): string {
  if (spans.length === 0) return text
  const out: string[] = []
  let from = 0
  for (const [start, end] of spans) {
    out.push(text.slice(from, start), REDACTED)
    from = end
  }
  out.push(text.slice(from))
  return out.join('')
}

function redactWith(text: string, needles: string[]): string {
  let out = replaceSpans(text, findSpans(text, needles))
  for (const p of KEY_PATTERNS) out = out.replace(p, REDACTED)
  // A needle holding `***` could be rebuilt by a replacement; each round
  // shortens the text, so this ends.
  while (needles.some((n) => out.includes(n)))
    out = replaceSpans(out, matchSpans(out, needles))
  return out
}

/**
 * Replaces each secret of 4 or more characters (and each line of a
 * multi-line one), and the encoded forms of those of 8 or more, with `***`;
 * then anything shaped like a provider key or GitHub token.
 */
export function redactSecrets(
  text: string,
  secrets: readonly string[]
): string {
  return redactWith(text, redactionNeedles(secrets))
}

/** True when the text holds a secret in any recognised form. */
export function holdsSecret(text: string, needles: string[]): boolean {
  return findSpans(text, needles).length > 0
}

/** The needles as byte strings (latin1: one char per byte), for raw files. */
export function byteNeedles(secrets: readonly string[]): string[] {
  return redactionNeedles(secrets).map((n) =>
    Buffer.from(n, 'utf8').toString('latin1')
  )
}

function isTokenChar(ch: string | undefined): boolean {
  return ch !== undefined && /[\w-]/.test(ch)
}

/**
 * Redacts secrets from a byte stream in bounded memory. Bytes are read as
 * latin1 (one char per byte, so any file passes through unchanged) and the
 * needles are matched in their UTF-8 bytes' latin1 form. A tail of each chunk
 * is held back so a secret split across two chunks is still found.
 */
export function redactingStream(secrets: readonly string[]): Transform {
  const needles = byteNeedles(secrets)
  // Held back: the longest needle spaced out (twice its length, plus a
  // dump's offsets and printable column), and at least a token's length.
  const keep = Math.max(256, ...needles.map((v) => 4 * v.length))
  let carry = ''
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      const text = carry + chunk.toString('latin1')
      const cut = cutPoint(text, keep, needles)
      carry = text.slice(cut)
      done(null, Buffer.from(redactWith(text.slice(0, cut), needles), 'latin1'))
    },
    flush(done: TransformCallback) {
      const rest = carry
      carry = ''
      done(null, Buffer.from(redactWith(rest, needles), 'latin1'))
    }
  })
}

/** Where to split a chunk: never inside a token or a found secret. */
function cutPoint(text: string, keep: number, needles: string[]): number {
  let cut = Math.max(0, text.length - keep)
  // Do not split a token (a key is one): back up to a separator, unless the
  // token is longer than we hold back anyway.
  const floor = Math.max(0, cut - keep)
  let c = cut
  while (c > floor && isTokenChar(text[c - 1])) c--
  if (c > floor || floor === 0 || !isTokenChar(text[c - 1])) cut = c
  // A secret across the cut goes whole to the next round. Only a chain of
  // overlapping matches longer than `keep` (a value repeating itself) is cut
  // through, so the held tail stays bounded.
  for (const [start, end] of findSpans(text, needles)) {
    if (start < cut && end > cut && start >= cut - keep) return start
    if (start >= cut) break
  }
  return cut
}
