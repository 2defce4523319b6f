// Review across pushes, what earlier runs left, read back. Pure. The commit
// the token's last review of a tag was anchored to, the findings its own
// threads hold, and whether this run reviews the whole pull request or only
// the change since that commit.
//
// Everything read back is hostile: only a thread the token opened, whose
// first line is this tag's finding marker, names an earlier finding; its
// headline is parsed by a bounded pattern, and a thread it does not fit is
// still carried (never dropped), with what could not be read left blank.
import type { PostedText } from '../github/review.js'
import type { ReviewThread } from '../github/review-threads.js'
import type { EarlierFinding, ReviewScope, Severity } from '../core/review.js'
import {
  commentMarker,
  reviewedMarker,
  safeTag
} from '../github/review-markers.js'

/**
 * The commit of the last review the token itself posted for `tag`: a review
 * (not a comment) whose body's last line is the marker. The commit is the
 * one GitHub recorded for the review, never a text anyone wrote.
 */
export function lastReviewedCommit(
  texts: PostedText[],
  tag: string
): string | undefined {
  const marker = reviewedMarker(tag)
  let best: { id: number; commit: string } | undefined
  for (const t of texts) {
    if (!t.ours || !t.reviewedCommit || !Number.isSafeInteger(t.id)) continue
    const lines = t.body.trimEnd().split('\n')
    if (lines[lines.length - 1]?.trim() !== marker) continue
    if (!best || t.id > best.id) best = { id: t.id, commit: t.reviewedCommit }
  }
  return best?.commit
}

const SEVERITY_OF: Record<string, Severity> = {
  '🔴 Blocker': 'blocker',
  '🟠 Concern': 'concern',
  '🟡 Nit': 'nit'
}

/** The headline inlineCommentBody writes (render.ts), bounded. */
const HEADLINE =
  /^\*\*(🔴 Blocker|🟠 Concern|🟡 Nit)\*\* · (\d{1,3})\/(\d{1,3}) agents? \([^\n]{0,2000}?\): \*\*([^\n]{1,1000})\*\*$/

/** The title as escapeTableCell wrote it, its backslash escapes undone. */
function unescaped(title: string): string {
  return title.replace(/\\(.)/g, '$1').slice(0, 300)
}

/** This tag's open findings among the threads: the token's own, unresolved. */
export function earlierFindings(
  threads: ReviewThread[],
  tag: string
): EarlierFinding[] {
  const wanted = safeTag(tag)
  const out: EarlierFinding[] = []
  for (const t of threads) {
    if (!t.ours || t.isResolved) continue
    const marker = commentMarker(t.body)
    if (!marker || marker.tag !== wanted) continue
    const second = t.body.split('\n', 2)[1]?.trim() ?? ''
    const m = HEADLINE.exec(second)
    out.push({
      threadId: t.id,
      commentId: t.firstCommentId,
      url: t.url,
      file: t.path,
      line: t.line,
      originalLine: t.originalLine,
      outdated: t.isOutdated,
      answered: t.answered,
      fingerprint: marker.fingerprint,
      ...(m
        ? {
            severity: SEVERITY_OF[m[1] as string],
            raisedBy: Number(m[2]),
            of: Number(m[3])
          }
        : {}),
      title: m ? unescaped(m[4] as string) : ''
    })
  }
  return out
}

interface ScopeFacts {
  /** `review-scope`. */
  requested: 'incremental' | 'full'
  /** `/massgen review --full` on the pull request. */
  askedFull: boolean
  lastReviewed: string | undefined
  head: string
  /** The comparison of lastReviewed with head, when one was made. */
  comparison?:
    | { status: 'ahead' | 'diverged' | 'behind' | 'identical' }
    | { status: 'unknown'; why: string }
}

/** Full or incremental, and why. */
export function decideScope(f: ScopeFacts): ReviewScope {
  if (f.requested === 'full')
    return { kind: 'full', reason: "review-scope is 'full'" }
  if (f.askedFull)
    return { kind: 'full', reason: 'a full review was asked for (--full)' }
  if (!f.lastReviewed)
    return { kind: 'full', reason: 'the first review of this pull request' }
  const since = f.lastReviewed.slice(0, 12)
  if (f.lastReviewed === f.head)
    return {
      kind: 'full',
      reason: `the head ${since} is the commit reviewed last (a re-run)`
    }
  const c = f.comparison
  if (!c || c.status === 'unknown')
    return {
      kind: 'full',
      reason: `the commit reviewed last (${since}) cannot be found${c ? ` (${c.why})` : ''}`
    }
  if (c.status !== 'ahead')
    return {
      kind: 'full',
      reason: `the head no longer contains the commit reviewed last (${since}: ${c.status}; a force push or rebase)`
    }
  return {
    kind: 'incremental',
    since: f.lastReviewed,
    reason: `the changes since ${since}, the commit reviewed last`
  }
}

/** `/massgen review --full`: the flag as a word of the command. */
export function asksFullReview(question: string): boolean {
  return /(^|\s)--full(\s|$)/.test(question.slice(0, 2000))
}
