// The hidden markers of the review's texts. Pure. A finding's (the first
// line of its inline comment, or the end of its line in a review body) and a
// review's own (the last line of its body: the tag's review, at the commit
// GitHub records for it). Only text the action writes carries one: every
// generated text goes through defuseMarkers.
import type { FindingGroup, Severity } from '../core/review.js'
import { defuseStickyMarkers } from './sticky-marker.js'

const FINDING_MARKER = 'massgen-action:finding'
const DEFUSED_FINDING_MARKER = 'massgen-action\u2236finding'
/** The hidden last line of a review body: this tag's review (earlier.ts). */
const REVIEWED_MARKER = 'massgen-action:reviewed'
const DEFUSED_REVIEWED_MARKER = 'massgen-action\u2236reviewed'

/**
 * The last line of the tag's review, with the base commit the pull request
 * had when it was reviewed: a later run reviews only the change since when
 * the base still holds that commit (context/earlier-record.ts).
 */
export function reviewedMarker(
  tag: string,
  baseSha?: string,
  outside = 0
): string {
  const base =
    baseSha && /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(baseSha)
      ? ` base=${baseSha}`
      : ''
  const left = outside > 0 ? ` outside=${Math.min(outside, 999)}` : ''
  return `<!-- ${REVIEWED_MARKER} tag=${safeTag(tag)}${base}${left} -->`
}

/**
 * The tag's review marker as a whole line: the base it records, if any, and
 * how many counted findings it left outside review threads (outside).
 */
export function readReviewedMarker(
  line: string,
  tag: string
): { base?: string; outside?: number } | undefined {
  const m =
    /^<!-- massgen-action:reviewed tag=([A-Za-z0-9._-]{1,64})(?: base=([0-9a-f]{40}(?:[0-9a-f]{24})?))?(?: outside=(\d{1,3}))? -->$/.exec(
      line.trim()
    )
  if (!m || m[1] !== safeTag(tag)) return undefined
  return {
    ...(m[2] ? { base: m[2] } : {}),
    ...(m[3] ? { outside: Number(m[3]) } : {})
  }
}

export function safeTag(tag: string): string {
  return tag.replace(/[^A-Za-z0-9._-]/g, '_').replace(/-{2,}/g, '-')
}

/**
 * A finding's facts as the action wrote them, for a later run to read back
 * (never from the human headline): its severity, whether the verdict
 * counted it, how many agents backed it of how many read, and its title.
 */
export interface FindingFacts {
  severity: Severity
  counted: boolean
  agreed: number
  of: number
  title: string
}

/** The most characters of a title a marker holds. */
const MARKER_TITLE_CHARS = 300

/**
 * The hidden marker of one finding: its tag, fingerprint and, given its
 * facts, those too (the title base64url-encoded: no `-->`, no line break).
 */
export function findingMarker(
  tag: string,
  group: FindingGroup,
  facts?: Omit<FindingFacts, 'severity'>
): string {
  const head = `${FINDING_MARKER} tag=${safeTag(tag)} fp=${group.fingerprint}`
  if (!facts) return `<!-- ${head} -->`
  const n = (v: number) => Math.max(0, Math.min(999, Math.trunc(v)))
  const title = Buffer.from(
    [...facts.title].slice(0, MARKER_TITLE_CHARS).join(''),
    'utf8'
  ).toString('base64url')
  return (
    `<!-- ${head} sev=${group.severity} counted=${facts.counted ? 'yes' : 'no'} ` +
    `agree=${n(facts.agreed)}/${n(facts.of)} title=${title} -->`
  )
}

interface MarkerFields {
  tag: string
  fingerprint: string
  /** Absent from the markers of releases before the facts were written. */
  facts?: FindingFacts
}

const MARKER_RE =
  /<!-- massgen-action:finding tag=([A-Za-z0-9._-]{1,64}) fp=([0-9a-f]{16})(?: sev=(blocker|concern|nit) counted=(yes|no) agree=(\d{1,3})\/(\d{1,3}) title=([A-Za-z0-9_-]{0,1600}))? -->/

/** A title read back: valid UTF-8, one line, no control characters. */
function decodedTitle(encoded: string): string | undefined {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(
      Buffer.from(encoded, 'base64url')
    )
  } catch {
    return undefined
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(text)) return undefined
  return [...text].slice(0, MARKER_TITLE_CHARS).join('')
}

function fieldsOf(m: RegExpExecArray): MarkerFields {
  const fields = { tag: m[1] as string, fingerprint: m[2] as string }
  if (m[3] === undefined) return fields
  const title = decodedTitle(m[7] ?? '')
  if (title === undefined) return fields
  return {
    ...fields,
    facts: {
      severity: m[3] as Severity,
      counted: m[4] === 'yes',
      agreed: Number(m[5]),
      of: Number(m[6]),
      title
    }
  }
}

/** The marker that is the whole first line of an inline comment. */
export function commentMarker(body: string): MarkerFields | undefined {
  const end = body.indexOf('\n')
  const first = (end < 0 ? body : body.slice(0, end)).trimEnd()
  const m = new RegExp(`^${MARKER_RE.source}$`).exec(first)
  return m ? fieldsOf(m) : undefined
}

/** The markers that end lines of a review body (one per finding listed). */
export function bodyMarkers(body: string): MarkerFields[] {
  const ending = new RegExp(`${MARKER_RE.source}$`)
  return body
    .split('\n')
    .map((line) => ending.exec(line.trimEnd()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map(fieldsOf)
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
