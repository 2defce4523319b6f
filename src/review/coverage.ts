// No silent pass over unread code: a review that did not read every changed
// file (left out by a pattern, over the diff budget, past GitHub's files
// list, over `max-changed-files`), or that had fewer readable findings
// blocks than `min-agreement`, cannot say `pass`: its verdict is
// `incomplete`, which `fail-on` fails on. Files `allow-unread` matches are
// listed but do not hold the verdict. Pure.
import type { Coverage, UnreadFile, Verdict } from '../core/review.js'

/** Unread files `allow-unread` does not excuse (an unnamed rest never is). */
export function heldUnread(coverage: Coverage | undefined): UnreadFile[] {
  return (coverage?.unread ?? []).filter((u) => !u.allowed)
}

/** How many changed files each held-unread entry stands for. */
function fileCount(entries: readonly UnreadFile[]): number {
  return entries.reduce((n, u) => n + (u.unnamed ?? 1), 0)
}

/** What the review read besides code: the findings blocks, the earlier findings. */
interface Readable {
  agentsWithBlock: number
  minAgreement: number
  earlierUnread?: boolean
}

/**
 * The verdict once what was not read is counted: blockers stand; anything
 * short of them is `incomplete` when code went unread, too few agents
 * gave a readable findings block to reach `min-agreement`, or the earlier
 * findings could not all be read (one still standing may be missing).
 */
export function coveredVerdict(
  verdict: Verdict,
  coverage: Coverage | undefined,
  readable: Readable
): Verdict {
  if (verdict === 'blockers') return verdict
  const unread = heldUnread(coverage).length > 0
  const tooFew = readable.agentsWithBlock < readable.minAgreement
  return unread || tooFew || readable.earlierUnread ? 'incomplete' : verdict
}

/** Why the verdict is `incomplete`, in one sentence. */
export function incompleteReason(
  coverage: Coverage | undefined,
  readable: Readable
): string {
  const held = fileCount(heldUnread(coverage))
  const parts = [
    held ? `${held} changed file(s) were not read by the review` : '',
    readable.agentsWithBlock < readable.minAgreement
      ? `${readable.agentsWithBlock} agent(s) gave a readable findings block, fewer than min-agreement (${readable.minAgreement})`
      : '',
    readable.earlierUnread
      ? 'the earlier findings could not all be read, so one still open may be missing'
      : ''
  ].filter(Boolean)
  return parts.join('; ')
}

/** `N of M changed files read; K not read (J allowed by allow-unread)`. */
export function coverageLine(coverage: Coverage): string {
  const notRead = fileCount(coverage.unread)
  const allowed = fileCount(coverage.unread.filter((u) => u.allowed))
  const read = Math.max(0, coverage.changed - notRead)
  return (
    `${read} of ${coverage.changed} changed file(s) read by the review; ${notRead} not read` +
    (allowed ? ` (${allowed} of them allowed by allow-unread)` : '')
  )
}
