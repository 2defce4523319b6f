// Review across pushes, what earlier runs left, read back. Pure. The commit
// the token's last review of a tag was anchored to, the findings its own
// threads hold, and whether this run reviews the whole pull request or only
// the change since that commit.
//
// Everything read back is hostile: only a thread the token opened, whose
// first line is this tag's finding marker, names an earlier finding; its
// facts are the marker's (never its prose), and a marker without them (an
// older release's) is still carried, with what could not be read left
// blank. A thread someone else resolved is still read: whether that
// resolution counts is context/earlier-resolutions.ts's to say.
import type { PostedText } from '../github/review.js'
import type { ReviewThread } from '../github/review-threads.js'
import type { EarlierFinding, ReviewScope } from '../core/review.js'
import {
  commentMarker,
  readReviewedMarker,
  safeTag
} from '../github/review-markers.js'

/** The token's last review of a tag: its commit, and the base it recorded. */
export interface LastReview {
  commit: string
  /** Absent on a review an older release posted. */
  base?: string
  /**
   * Counted findings (not nits) it left outside review threads: in its body
   * or the summary only, where no thread tracks them across pushes.
   */
  outside?: number
}

/**
 * The commit of the last review the token itself posted for `tag`: a review
 * (not a comment) whose body's last line is the marker. The commit is the
 * one GitHub recorded for the review, never a text anyone wrote.
 */
export function lastReview(
  texts: PostedText[],
  tag: string
): LastReview | undefined {
  let best: (LastReview & { id: number }) | undefined
  for (const t of texts) {
    if (!t.ours || !t.reviewedCommit || !Number.isSafeInteger(t.id)) continue
    const lines = t.body.trimEnd().split('\n')
    const marker = readReviewedMarker(lines[lines.length - 1] ?? '', tag)
    if (!marker) continue
    if (!best || t.id > best.id)
      best = { id: t.id, commit: t.reviewedCommit, ...marker }
  }
  if (!best) return undefined
  return {
    commit: best.commit,
    ...(best.base ? { base: best.base } : {}),
    ...(best.outside ? { outside: best.outside } : {})
  }
}

/** The commit of the token's last review of `tag` (lastReview's). */
export function lastReviewedCommit(
  texts: PostedText[],
  tag: string
): string | undefined {
  return lastReview(texts, tag)?.commit
}

/**
 * This tag's findings among the threads: the token's own, open or resolved
 * by someone else (the token's own resolution is of a fixed finding).
 */
export function earlierFindings(
  threads: ReviewThread[],
  tag: string
): EarlierFinding[] {
  const wanted = safeTag(tag)
  const out: EarlierFinding[] = []
  for (const t of threads) {
    if (!t.ours || (t.isResolved && t.resolvedByUs)) continue
    const marker = commentMarker(t.body)
    if (!marker || marker.tag !== wanted) continue
    const facts = marker.facts
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
      ...(facts
        ? {
            severity: facts.severity,
            raisedBy: facts.agreed,
            of: facts.of,
            counted: facts.counted
          }
        : {}),
      title: facts?.title ?? '',
      // Pending until its worth is judged (earlier-resolutions.ts).
      ...(t.isResolved
        ? {
            resolution: {
              by: t.resolvedBy,
              worth: 'ignored' as const,
              why: 'not yet checked'
            }
          }
        : {})
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
  comparison?: Compared
  /** Why the earlier findings could not all be read, when they could not. */
  unread?: string
  /** Counted findings the last review left outside threads (LastReview). */
  outside?: number
  /** The base the last review recorded, and the pull request's base now. */
  base?: { then: string | undefined; now: string; comparison?: Compared }
}

type Compared =
  | { status: 'ahead' | 'diverged' | 'behind' | 'identical' }
  | { status: 'unknown'; why: string }

/**
 * Why the base does not vouch for an incremental review, or undefined when
 * it does: the base the last review recorded is the base now or one of its
 * ancestors (the base branch moved forward). A retargeted or rewritten base
 * may bring code the last review never saw into the pull request's diff.
 */
function baseDoubt(base: ScopeFacts['base']): string | undefined {
  if (!base) return undefined
  if (!base.then)
    return 'the last review did not record the base it was made against'
  if (base.then === base.now.toLowerCase()) return undefined
  const c = base.comparison
  if (c?.status === 'ahead') return undefined
  const why = !c
    ? 'it was not compared'
    : c.status === 'unknown'
      ? `it cannot be compared: ${c.why}`
      : `the base now does not contain it (${c.status}): retargeted or rewritten`
  return `the base changed since the last review (${base.then.slice(0, 12)}; ${why})`
}

/** Full or incremental, and why. */
export function decideScope(f: ScopeFacts): ReviewScope {
  if (f.requested === 'full')
    return { kind: 'full', reason: "review-scope is 'full'" }
  if (f.askedFull)
    return { kind: 'full', reason: 'a full review was asked for (--full)' }
  if (f.unread !== undefined)
    return {
      kind: 'full',
      reason: `the earlier findings could not all be read (${f.unread})`
    }
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
  const doubt = baseDoubt(f.base)
  if (doubt) return { kind: 'full', reason: doubt }
  if (f.outside)
    return {
      kind: 'full',
      reason: `the last review left ${f.outside} counted finding(s) outside review threads (its body or the summary), which only a whole review checks again`
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
