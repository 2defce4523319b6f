// The first line a pull request's author reads: the review's outcome in
// words and counts, then what the push did to the earlier findings. Pure.
// Every count comes from the rules the verdict uses (review/counted.ts,
// review/standing.ts), so the line never says more or less than the gate.
import type { ReviewReport, Severity } from '../core/review.js'
import { raisesAgain } from './earlier.js'
import { incompleteReason } from './coverage.js'
import {
  gatingFindings,
  standingFindings,
  standingSeverity
} from './standing.js'

const plural = (n: number, one: string, many = `${one}s`): string =>
  `${n} ${n === 1 ? one : many}`

/** `confirmed by 2 of 3 models`, `by 2 to 3 of 3`, `each by 3 of 3`. */
function backing(support: number[], of: number, verb: string): string {
  if (!support.length) return ''
  const low = Math.min(...support)
  const high = Math.max(...support)
  const models = `of ${plural(of, 'model')}`
  if (low === high)
    return `${support.length > 1 ? 'each ' : ''}${verb} by ${low} ${models}`
  return `${verb} by ${low} to ${high} ${models}`
}

/** One severity's counted findings, this run's and the standing earlier ones. */
function severityPhrase(
  report: ReviewReport,
  severity: Severity
): string | undefined {
  const thisRun = gatingFindings(report).filter((g) => g.severity === severity)
  const earlier = standingFindings(report).filter(
    (f) => standingSeverity(f) === severity
  )
  const total = thisRun.length + earlier.length
  if (total === 0) return undefined
  const voted = thisRun.every((g) => g.vote)
  const support = thisRun.map((g) =>
    g.vote ? g.vote.confirmed : g.agents.length
  )
  const parts = [
    backing(support, report.agentCount, voted ? 'confirmed' : 'raised'),
    earlier.length ? `${earlier.length} left open by an earlier review` : ''
  ].filter(Boolean)
  return `${plural(total, severity)}${parts.length ? ` (${parts.join('; ')})` : ''}`
}

/** The counted blockers and concerns in words, or undefined when none. */
function countedPhrase(report: ReviewReport): string | undefined {
  const phrases = (['blocker', 'concern'] as const)
    .map((s) => severityPhrase(report, s))
    .filter((p): p is string => p !== undefined)
  return phrases.length ? phrases.join(' and ') : undefined
}

/**
 * The review's first line (a heading): the verdict in words, what counts
 * and by how many models it was confirmed; for `unclear` and `incomplete`,
 * why.
 */
export function verdictHeadline(
  report: ReviewReport,
  tagSuffix: string
): string {
  const counted = countedPhrase(report)
  const title = `MassGen review${tagSuffix}`
  const also = counted ? `; what counts: ${counted}` : ''
  switch (report.verdict) {
    case 'blockers':
      return `### 🔴 ${title}: ${counted ?? 'blockers'} to fix before merging`
    case 'concerns':
      return `### 🟠 ${title}: no blockers; ${counted ?? 'concerns'} to consider`
    case 'pass': {
      const nits = gatingFindings(report).filter((g) => g.severity === 'nit')
      return (
        `### ✅ ${title}: no blockers or concerns from ${plural(report.agentCount, 'model')}` +
        (nits.length ? ` (${plural(nits.length, 'nit')})` : '')
      )
    }
    case 'unclear':
      return `### ❔ ${title} unclear: the models' votes split with no majority on the outcome${also}`
    case 'incomplete':
      return `### ⚠️ ${title} incomplete: ${incompleteReason(report.coverage, report)}, so it cannot pass${also}`
  }
}

/**
 * On a later push: how many earlier findings this push fixed, how many
 * still stand, and how many of this run's counted findings are new.
 */
export function sincePushLine(report: ReviewReport): string {
  const earlier = report.earlier ?? []
  if (!earlier.length) return ''
  const fixed = earlier.filter((e) => e.status === 'fixed').length
  const dismissed = earlier.filter((e) => e.status === 'dismissed').length
  const stand = earlier.filter(
    (e) =>
      (e.status === 'carried' || e.status === 'confirmed') &&
      e.finding.counted !== false
  ).length
  const fresh = gatingFindings(report).filter(
    (g) =>
      g.severity !== 'nit' && !earlier.some((e) => raisesAgain(g, e.finding))
  ).length
  return (
    `**Since the last review:** this push fixed ${plural(fixed, 'earlier finding')}; ` +
    `${stand} still stand${stand === 1 ? 's' : ''}` +
    (dismissed ? `; ${dismissed} dismissed by a maintainer` : '') +
    `; ${plural(fresh, 'new finding')} count${fresh === 1 ? 's' : ''}.`
  )
}

/** What did not count, so the quieter rows below are accounted for. */
export function notCountedLine(report: ReviewReport): string {
  const counted = new Set(gatingFindings(report))
  const quiet = report.groups.filter((g) => !counted.has(g)).length
  if (!quiet) return ''
  // A vote missing ballots holds the verdict (coverage.ts): said beside it.
  const effect = report.unvoted?.some((u) => u.holds)
    ? 'the ones whose vote is missing ballots hold the verdict at incomplete'
    : 'they do not change the verdict'
  return `<sub>${plural(quiet, 'more finding')} did not count (too few models raised or confirmed ${quiet === 1 ? 'it' : 'them'}): listed in small type, ${effect}.</sub>`
}
