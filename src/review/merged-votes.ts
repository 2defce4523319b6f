// Votes cast in rounds of their own, onto the groups of one review. A
// matrix review's shards each put their own findings to their own agents
// (src/shards/shard-votes.ts tallies each round again), and the review's
// grouping may put findings of several shards in one group (two question
// shards on one file): such a group carries the union of the votes its
// findings got, one vote an agent, for the report. What counts it is each
// round on its own (byRound, counted.ts): that round's votes with the other
// rounds' confirmations, so a hostile shard that raises a look-alike of
// another shard's finding and rejects it in its own ballots takes no support
// from the real one (its agents never saw it); it can only add some. A finding no round voted on (its shard's
// round was skipped, or it was past the round's cap: never put to a vote,
// unlike a ballot that was asked for and did not come back, which confirms
// nothing, vote.ts tallyVotes) stands as its raiser's confirmation; a group none
// of whose findings was voted on has no vote, and its raisers alone count
// (counted.ts). Pure.
import type {
  Finding,
  FindingGroup,
  FindingVote,
  Vote
} from '../core/review.js'
import { voteOf } from './tally.js'

/** One group a round voted on: its findings and the vote they got. */
export interface RoundVote {
  members: readonly Finding[]
  vote: FindingVote
}

/** A finding's value, whoever parsed it: what its round's vote is found by. */
function findingKey(f: Finding): string {
  return JSON.stringify([
    f.agent,
    f.file,
    f.line,
    f.startLine ?? null,
    f.severity,
    f.title,
    f.explanation,
    f.suggestion ?? null
  ])
}

/** A ballot over a raiser's standing finding over an abstention. */
function weight(v: Vote): number {
  if (v.ballot === 'abstain') return 0
  return v.implicit ? 1 : 2
}

/** A raiser no round asked: its finding is its confirmation. */
function standing(agent: string): Vote {
  return {
    agent,
    ballot: 'confirm',
    reason: '',
    evidence: 'none',
    implicit: true
  }
}

/** One vote an agent: the weightiest, the earlier round's on a tie. */
function oneEach(votes: readonly Vote[]): Vote[] {
  const best = new Map<string, Vote>()
  for (const v of votes) {
    const held = best.get(v.agent)
    if (!held || weight(v) > weight(held)) best.set(v.agent, v)
  }
  return [...best.values()]
}

/** The confirmations the group's other rounds gave: support, never a veto. */
function othersConfirmations(
  voted: readonly RoundVote[],
  own: RoundVote
): Vote[] {
  return voted
    .filter((r) => r !== own)
    .flatMap((r) => r.vote.votes)
    .filter((v) => v.ballot === 'confirm')
}

/** The agents a round asked that gave no vote on its finding (tally.ts rule 8). */
function missingOf(round: RoundVote): Pick<FindingVote, 'missing'> {
  return round.vote.missing ? { missing: round.vote.missing } : {}
}

export function mergeRoundVotes(
  groups: readonly FindingGroup[],
  rounds: readonly RoundVote[]
): FindingGroup[] {
  const roundOf = new Map<string, RoundVote>()
  for (const round of rounds)
    for (const m of round.members)
      if (!roundOf.has(findingKey(m))) roundOf.set(findingKey(m), round)
  return groups.map((group) => {
    const found = group.members.map((m) => roundOf.get(findingKey(m)))
    const voted = [
      ...new Set(found.filter((r): r is RoundVote => r !== undefined))
    ]
    if (voted.length === 0) return group
    const unasked = group.members
      .filter((_, i) => found[i] === undefined)
      .map((m) => standing(m.agent))
    const union = voteOf(
      oneEach([...voted.flatMap((r) => r.vote.votes), ...unasked])
    )
    const [only] = voted
    if (voted.length === 1 && only)
      return { ...group, vote: { ...union, ...missingOf(only) } }
    const byRound = voted.map((own) => ({
      ...voteOf(
        oneEach([
          ...own.vote.votes,
          ...othersConfirmations(voted, own),
          ...unasked
        ])
      ),
      // Whose severity this round's own count backs (tally.ts, rule 6).
      raisers: own.members.map((m) => m.agent),
      ownVotes: own.vote.votes,
      ...missingOf(own)
    }))
    return { ...group, vote: { ...union, byRound } }
  })
}
