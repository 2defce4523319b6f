// Which findings count: the one rule the verdict, `fail-on`, the inline
// comments and anything else that gates on the review (a check run) share.
// Pure.
//
// With the vote (vote.ts) the tally's written rules say (tally.ts): weighed
// ballots, evidence from the code over none, the pull request's own text
// set aside. Without the vote (turned off, or the round gave no result) the
// raisers alone say: at least `min-agreement` agents raised it.
import type { Severity } from '../core/review.js'
import { RANK } from './group.js'
import type { FailOn, FindingGroup, Verdict } from '../core/review.js'
import { groupCounts } from './tally.js'

/** The agents that back a finding: its confirmations, or its raisers. */
function support(group: FindingGroup): number {
  return group.vote ? group.vote.confirmed : group.agents.length
}

/**
 * Whether the verdict counts this finding (tally.ts). A group several
 * rounds voted on counts when one round's own votes (with the others'
 * confirmations) count it: another shard can add support to a finding,
 * never take it away.
 */
export function isCounted(group: FindingGroup, minAgreement: number): boolean {
  return groupCounts(group, minAgreement)
}

/** The findings the verdict counts (and a check run annotates). */
export function countedFindings<G extends FindingGroup>(report: {
  groups: readonly G[]
  minAgreement: number
}): G[] {
  return report.groups.filter((g) => isCounted(g, report.minAgreement))
}

/**
 * The consensus over the counted findings: any blocker makes `blockers`,
 * else any concern `concerns`; nits pass.
 */
export function verdictOf(report: {
  groups: readonly FindingGroup[]
  minAgreement: number
}): Verdict {
  const counted = countedFindings(report)
  if (counted.some((g) => g.severity === 'blocker')) return 'blockers'
  if (counted.some((g) => g.severity === 'concern')) return 'concerns'
  return 'pass'
}

/**
 * Whether the verdict crosses the `fail-on` gate; `unclear` only when
 * `fail-on` names it (failOnUnclear).
 */
export function gateFails(
  verdict: Verdict,
  failOn: FailOn,
  failOnUnclear = false
): boolean {
  if (verdict === 'unclear') return failOnUnclear
  // Unread code fails any gate: it could hold the blocker (review/coverage.ts).
  if (verdict === 'incomplete') return failOn !== 'never'
  if (failOn === 'blocker') return verdict === 'blockers'
  if (failOn === 'concern') return verdict !== 'pass'
  return false
}

/** Whether a finding is at least as severe as `min-severity`. */
export function atLeast(severity: Severity, min: Severity): boolean {
  return RANK[severity] >= RANK[min]
}

/** Backing x severity: the strongest findings get the inline comments. */
function strength(group: FindingGroup): number {
  return support(group) * RANK[group.severity]
}

/** Strongest first, then most severe, then by place: the report's order. */
export function byStrength(a: FindingGroup, b: FindingGroup): number {
  return (
    strength(b) - strength(a) ||
    RANK[b.severity] - RANK[a.severity] ||
    a.lead.file.localeCompare(b.lead.file) ||
    a.lead.line - b.lead.line
  )
}
