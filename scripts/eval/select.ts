// Which of a run's findings each configuration reports (docs/evaluation.md,
// "What each configuration is"). Pure. The action's findings output holds
// every grouped finding with its raisers and, after the vote, its
// confirmations; the consensus and the vote are both read from the same run,
// so they score the same answers.
import type { ReportedFinding } from './score.ts'

/** One item of the action's `findings` output (action.yml). */
export interface ActionFinding extends ReportedFinding {
  severity: string
  title?: string
  agreement: number
  confirmed: number | null
  rejected: number | null
  pr_text_only: boolean | null
  posted: string
}

export interface ReviewLimits {
  minAgreement: number
  minSeverity: 'blocker' | 'concern' | 'nit'
  maxInline: number
}

const RANK: Record<string, number> = { nit: 1, concern: 2, blocker: 3 }

/** The consensus: the grouped findings at least min-agreement agents raised. */
export function consensusOf(
  all: readonly ActionFinding[],
  limits: ReviewLimits
): ActionFinding[] {
  return all.filter((f) => f.agreement >= limits.minAgreement)
}

/**
 * The consensus after the vote, as the action counts it (src/review/counted.ts):
 * confirmed by at least min-agreement agents, more confirmed than rejected,
 * not backed by the pull request's own text alone; a finding past the
 * vote's cap keeps its raisers' word. undefined when the vote gave no
 * result on any finding (the round failed): that is no score of the vote.
 */
export function votedOf(
  all: readonly ActionFinding[],
  limits: ReviewLimits
): ActionFinding[] | undefined {
  if (all.length > 0 && all.every((f) => f.confirmed === null)) return undefined
  return all.filter((f) =>
    f.confirmed === null
      ? f.agreement >= limits.minAgreement
      : f.confirmed >= limits.minAgreement &&
        f.confirmed > (f.rejected ?? 0) &&
        f.pr_text_only !== true
  )
}

/** Inline comments the run posted. */
export function postedInline(all: readonly ActionFinding[]): number {
  return all.filter((f) => f.posted === 'inline').length
}

/**
 * Inline comments the consensus would have posted without the vote: its
 * findings at min-severity or above, at most max-inline-comments (a
 * finding whose line is not in the diff would go to the review's body
 * instead; the run that voted cannot tell which).
 */
export function consensusInline(
  all: readonly ActionFinding[],
  limits: ReviewLimits
): number {
  const shown = consensusOf(all, limits).filter(
    (f) => (RANK[f.severity] ?? 0) >= (RANK[limits.minSeverity] ?? 0)
  ).length
  return Math.min(shown, limits.maxInline)
}
