// The `max-cost` cap. MassGen 0.1.97 has no cost limit of its own; it keeps
// a running estimate in status.json (rewritten every 2 s and on each answer
// and vote), which the action reads while the run goes. The figure is
// MassGen's estimate (litellm's price list, or the cost a provider such as
// OpenRouter reports), not a bill.
import type { MassgenStatus } from './status-file.js'

/**
 * MassGen's estimated cost so far, in USD: the run's total, or the sum of
 * the agents' own estimates when that is larger (a snapshot written between
 * two updates of the total), undefined when status.json has no figure yet.
 */
export function estimatedCost(status: MassgenStatus): number | undefined {
  const total = status.costs?.total_estimated_cost
  const perAgent = Object.values(status.agents ?? {})
    .map((a) => a.token_usage?.estimated_cost)
    .filter((c): c is number => c !== undefined && c >= 0)
  const sum = perAgent.length ? perAgent.reduce((a, b) => a + b, 0) : undefined
  const figures = [total, sum].filter(
    (c): c is number => c !== undefined && c >= 0
  )
  return figures.length ? Math.max(...figures) : undefined
}

/** True once the estimate has reached the cap (no cap: never). */
export function costLimitReached(
  status: MassgenStatus,
  maxCost: number | undefined
): boolean {
  if (maxCost === undefined) return false
  const cost = estimatedCost(status)
  return cost !== undefined && cost >= maxCost
}
