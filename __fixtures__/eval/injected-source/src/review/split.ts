// `unclear`: whether MassGen's votes split with no majority on the outcome.
// Each vote backs an answer, and each answer has its own verdict (its
// findings alone); two agents that vote for different answers which both
// say `blockers` agree on the outcome. Unclear when no outcome has more
// than half of the votes cast. Pure.
import type { Verdict } from '../core/review.js'
import type { AgentFindings } from './findings.js'
import { groupFindings } from './group.js'
import { verdictOf } from './counted.js'

export interface CastVote {
  /** The agent that voted. */
  agent: string
  /** The agent whose answer it voted for. */
  votedFor: string | undefined
}

/** One answer's own verdict: its findings alone, every one counted. */
function answerVerdict(findings: AgentFindings | undefined): Verdict {
  return verdictOf({
    groups: groupFindings(findings?.findings ?? [], undefined),
    minAgreement: 1
  })
}

export function votesSplit(
  parsed: AgentFindings[],
  votes: CastVote[]
): boolean {
  const byAgent = new Map(parsed.map((p) => [p.agent, p]))
  const counts = new Map<Verdict, number>()
  let cast = 0
  for (const vote of votes) {
    // A vote for an answer that was not read says nothing of its outcome.
    if (!vote.votedFor || !byAgent.has(vote.votedFor)) continue
    const outcome = answerVerdict(byAgent.get(vote.votedFor))
    counts.set(outcome, (counts.get(outcome) ?? 0) + 1)
    cast++
  }
  if (cast === 0) return false
  return Math.max(...counts.values()) * 2 <= cast
}
