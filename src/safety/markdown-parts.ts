// The pieces every posted text is built of: a table cell, a line of HTML, a
// code block, a link. Every dynamic string is redacted and escaped here, where
// it is placed; the report (report/) and the review (review/) both use them.
import { escapeHtmlText, escapeTableCell, fenceFor } from './markdown.js'
import { redactSecrets } from './redact.js'
import { clip } from '../core/text.js'

/** One redacted, escaped, single-line markdown cell. */
export function cell(
  text: string | undefined,
  secrets: readonly string[],
  max = 160
): string {
  if (text === undefined || text.trim() === '') return '—'
  return escapeTableCell(clip(redactSecrets(text, secrets).trim(), max))
}

/** Redacted text for raw HTML such as `<summary>`. */
export function htmlText(
  text: string,
  secrets: readonly string[],
  max = 160
): string {
  return escapeHtmlText(clip(redactSecrets(text, secrets), max))
}

/** Arbitrary text (errors, logs) shown verbatim: a fence nothing inside can close. */
export function codeBlock(
  text: string,
  secrets: readonly string[],
  max = 4000
): string {
  const body = clip(redactSecrets(text, secrets), max).replace(/\r\n?/g, '\n')
  const fence = fenceFor(body)
  return `${fence}text\n${body}\n${fence}`
}

/** A markdown link, or nothing when the URL is not a plain http(s) URL. */
export function link(label: string, url: string | undefined): string {
  return url && /^https?:\/\/[^\s()<>[\]`]+$/.test(url)
    ? `[${label}](${url})`
    : ''
}
