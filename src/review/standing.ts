// What counts for the verdict across pushes. Pure. A review's verdict,
// `fail-on`, check run, annotations, SARIF and outputs cover this run's
// counted findings and every earlier finding that still stands: carried
// forward (its lines did not change) or raised again, with the severity it
// had. An earlier finding stops counting only when it is fixed (its lines
// changed and no agent raised it again, earlier.ts) or dismissed (a person
// with write access resolved its thread, context/earlier-resolutions.ts).
// One this run raises again and counts at the same severity or higher is
// counted once, as this run's; one a person with write access dismissed
// stays dismissed when an agent raises it again (no new thread is opened
// for it, so no one could dismiss it twice).
import type {
  EarlierFinding,
  EarlierOutcome,
  FindingGroup,
  Severity,
  Verdict
} from '../core/review.js'
import { RANK } from './group.js'
import { countedFindings } from './counted.js'
import { raisesAgain } from './earlier.js'

/** A group of this run that raises again a finding a person with write access dismissed. */
export function raisesDismissed(
  group: FindingGroup,
  earlier: readonly EarlierOutcome[] | undefined
): boolean {
  // Never a more severe finding than the one dismissed: a dismissed nit does
  // not hide a blocker that happens to look like it.
  return (earlier ?? []).some(
    (o) =>
      o.status === 'dismissed' &&
      raisesAgain(group, o.finding) &&
      RANK[group.severity] <= RANK[standingSeverity(o.finding)]
  )
}

/** This run's counted findings the verdict counts: none a person dismissed. */
export function gatingFindings<G extends FindingGroup>(report: {
  groups: readonly G[]
  minAgreement: number
  earlier?: readonly EarlierOutcome[]
}): G[] {
  return countedFindings(report).filter(
    (g) => !raisesDismissed(g, report.earlier)
  )
}

/** An earlier marker without its facts (an older release's) counts as a blocker. */
export function standingSeverity(finding: EarlierFinding): Severity {
  return finding.severity ?? 'blocker'
}

/** The earlier findings that still count, beside this run's counted ones. */
export function standingFindings(report: {
  groups: readonly FindingGroup[]
  minAgreement: number
  earlier?: readonly EarlierOutcome[]
}): EarlierFinding[] {
  const counted = countedFindings(report)
  return (report.earlier ?? [])
    .filter((o) => o.status === 'carried' || o.status === 'confirmed')
    .map((o) => o.finding)
    .filter((f) => f.counted !== false)
    .filter(
      (f) =>
        !counted.some(
          (g) =>
            raisesAgain(g, f) && RANK[g.severity] >= RANK[standingSeverity(f)]
        )
    )
}

/**
 * This run's verdict with the earlier findings that still stand: a standing
 * blocker makes `blockers` and a standing concern `concerns`, over a `pass`
 * and over an `unclear` split alike: a split on this push's answers says
 * nothing of a finding an earlier run confirmed, and `unclear` fails only
 * when `fail-on` names it, so it must not hide a concern that counts.
 */
export function verdictAcrossPushes(
  thisRun: Verdict,
  standing: readonly EarlierFinding[]
): Verdict {
  const has = (s: Severity) => standing.some((f) => standingSeverity(f) === s)
  if (thisRun === 'blockers' || has('blocker')) return 'blockers'
  if ((thisRun === 'pass' || thisRun === 'unclear') && has('concern'))
    return 'concerns'
  return thisRun
}

/** Counted blockers and concerns: this run's and the standing earlier ones. */
export function countsBySeverity(report: {
  groups: readonly FindingGroup[]
  minAgreement: number
  earlier?: readonly EarlierOutcome[]
}): Record<Severity, number> {
  const severities = [
    ...gatingFindings(report).map((g) => g.severity),
    ...standingFindings(report).map(standingSeverity)
  ]
  const count = (s: Severity) => severities.filter((x) => x === s).length
  return {
    blocker: count('blocker'),
    concern: count('concern'),
    nit: count('nit')
  }
}
