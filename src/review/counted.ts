// The findings the verdict counts, read in one place: the check run's
// annotations, the SARIF file and the gate's message all take them from
// here, so a narrower rule (a vote on each finding) changes them together.
import type { ReviewedGroup, ReviewReport } from '../core/review.js'

/** Today: the groups at least `min-agreement` agents raised. */
export function countedFindings(report: ReviewReport): ReviewedGroup[] {
  return report.groups.filter((g) => g.agents.length >= report.minAgreement)
}
