// No silent pass over unread code: a review that did not read every changed
// file (left out by a pattern, over the diff budget, past GitHub's files
// list, over `max-changed-files`), that had fewer readable findings blocks
// than `min-agreement`, or whose vote on a finding is missing ballots that
// could have counted it (tally.ts rule 8), cannot say `pass`: its verdict is
// `incomplete`, which `fail-on` fails on. Files `allow-unread` matches are
// listed but do not hold the verdict. Pure.
import type {
  Coverage,
  Severity,
  UnreadFile,
  UnvotedFinding,
  Verdict
} from '../core/review.js'

/** Unread files `allow-unread` does not excuse (an unnamed rest never is). */
export function heldUnread(coverage: Coverage | undefined): UnreadFile[] {
  return (coverage?.unread ?? []).filter((u) => !u.allowed)
}

/** How many changed files each held-unread entry stands for. */
function fileCount(entries: readonly UnreadFile[]): number {
  return entries.reduce((n, u) => n + (u.unnamed ?? 1), 0)
}

/** What the review read besides code: the findings blocks, the earlier findings, the votes. */
interface Readable {
  agentsWithBlock: number
  minAgreement: number
  earlierUnread?: boolean
  /** Findings whose missing ballots hold the verdict (holdsVerdict). */
  unvoted?: readonly UnvotedFinding[]
}

/** The verdict a counted finding of this severity gives at least. */
const VERDICT_OF: Partial<Record<Severity, Verdict>> = {
  blocker: 'blockers',
  concern: 'concerns'
}

/**
 * Whether a finding whose vote is missing ballots holds the verdict: only
 * when counting it would change the verdict, so a blocker unless the
 * verdict is `blockers` already, a concern when it is neither `blockers`
 * nor `concerns`, never a nit (nits make no verdict). This is the narrowest
 * rule that closes the hole at the verdict itself: the verdict is an output
 * of its own and the check run's, the same whatever `fail-on` says (as for
 * unread code), so a rule read off `fail-on` would still say `pass` for a
 * blocker whose ballots were lost under the default `fail-on: never`. The
 * price: with `fail-on: blocker`, a pass whose concern lost its ballots
 * fails the gate, where a counted concern would not have.
 */
export function holdsVerdict(
  verdict: Verdict,
  finding: Pick<UnvotedFinding, 'severity'>
): boolean {
  const would = VERDICT_OF[finding.severity]
  if (!would || verdict === 'blockers') return false
  return !(would === 'concerns' && verdict === 'concerns')
}

/**
 * The verdict once what was not read is counted: blockers stand; anything
 * short of them is `incomplete` when code went unread, too few agents
 * gave a readable findings block to reach `min-agreement`, the earlier
 * findings could not all be read (one still standing may be missing), or
 * a finding's vote is missing ballots that could have counted it.
 */
export function coveredVerdict(
  verdict: Verdict,
  coverage: Coverage | undefined,
  readable: Readable
): Verdict {
  if (verdict === 'blockers') return verdict
  const unread = heldUnread(coverage).length > 0
  const tooFew = readable.agentsWithBlock < readable.minAgreement
  const unvoted = (readable.unvoted ?? []).some((u) => u.holds)
  return unread || tooFew || readable.earlierUnread || unvoted
    ? 'incomplete'
    : verdict
}

/** `the vote on 1 blocker is missing 2 ballot(s)` and the like. */
function unvotedReason(all: readonly UnvotedFinding[]): string {
  // Only those that hold the verdict are why it is incomplete.
  const unvoted = all.filter((u) => u.holds)
  if (unvoted.length === 0) return ''
  const of = (s: Severity) => unvoted.filter((u) => u.severity === s).length
  const kinds = (['blocker', 'concern'] as const)
    .map((s) => (of(s) ? `${of(s)} ${s}${of(s) === 1 ? '' : 's'}` : ''))
    .filter(Boolean)
    .join(' and ')
  const ballots = unvoted.reduce((n, u) => n + u.agents.length, 0)
  return `the vote on ${kinds} is missing ${ballots} ballot(s) that could have confirmed ${unvoted.length === 1 ? 'it' : 'them'} (not back, or unreadable)`
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
      : '',
    unvotedReason(readable.unvoted ?? [])
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
