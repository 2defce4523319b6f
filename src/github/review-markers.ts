// The hidden markers of the review's texts. Pure. A finding's (the first
// line of its inline comment, or the end of its line in a review body) and a
// review's own (the last line of its body: the tag's review, at the commit
// GitHub records for it). Only text the action writes carries one: every
// generated text goes through defuseMarkers.
import type { FindingGroup } from '../core/review.js'
import { defuseStickyMarkers } from './sticky-marker.js'

const FINDING_MARKER = 'massgen-action:finding'
const DEFUSED_FINDING_MARKER = 'massgen-action\u2236finding'
/** The hidden last line of a review body: this tag's review (earlier.ts). */
const REVIEWED_MARKER = 'massgen-action:reviewed'
const DEFUSED_REVIEWED_MARKER = 'massgen-action\u2236reviewed'

export function reviewedMarker(tag: string): string {
  return `<!-- ${REVIEWED_MARKER} tag=${safeTag(tag)} -->`
}

export function safeTag(tag: string): string {
  return tag.replace(/[^A-Za-z0-9._-]/g, '_').replace(/-{2,}/g, '-')
}

/** The hidden marker of one finding: its tag, fingerprint and title words. */
export function findingMarker(tag: string, group: FindingGroup): string {
  return `<!-- ${FINDING_MARKER} tag=${safeTag(tag)} fp=${group.fingerprint} -->`
}

interface MarkerFields {
  tag: string
  fingerprint: string
}

const MARKER_RE =
  /<!-- massgen-action:finding tag=([A-Za-z0-9._-]{1,64}) fp=([0-9a-f]{16}) -->/

/** The marker that is the whole first line of an inline comment. */
export function commentMarker(body: string): MarkerFields | undefined {
  const end = body.indexOf('\n')
  const first = (end < 0 ? body : body.slice(0, end)).trimEnd()
  const m = new RegExp(`^${MARKER_RE.source}$`).exec(first)
  return m ? { tag: m[1] as string, fingerprint: m[2] as string } : undefined
}

/** The markers that end lines of a review body (one per finding listed). */
export function bodyMarkers(body: string): MarkerFields[] {
  const ending = new RegExp(`${MARKER_RE.source}$`)
  return body
    .split('\n')
    .map((line) => ending.exec(line.trimEnd()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ tag: m[1] as string, fingerprint: m[2] as string }))
}

/** Any marker name in generated text is broken (same length, looks alike). */
export function defuseMarkers(text: string): string {
  let out = defuseStickyMarkers(text)
  if (out.includes(FINDING_MARKER))
    out = out.split(FINDING_MARKER).join(DEFUSED_FINDING_MARKER)
  if (out.includes(REVIEWED_MARKER))
    out = out.split(REVIEWED_MARKER).join(DEFUSED_REVIEWED_MARKER)
  return out
}
