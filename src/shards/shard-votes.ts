// A shard's finding vote, tallied again by the aggregate. The shard ran the
// round on its own runner (agents never run in the aggregate job, which
// holds the token) and its record carries each agent's raw ballot; the rest
// is the aggregate's own work: the finding ids (its own grouping of the
// shard's accepted findings, in the order the shard put them to the vote),
// the ballots read with parseVotes against those ids only, and every
// confirmation's evidence, looked for in the aggregate's own diff (never in
// anything the record claims). A shard whose round did not run (skipped,
// failed, finding-vote off) gives no votes: its findings count by their
// raisers, as one run's do when its round is skipped.
import type { FindingGroup, VoteRound } from '../core/review.js'
import { excerptsFor, type DiffLines } from '../review/excerpt.js'
import type { RoundVote } from '../review/merged-votes.js'
import { groupedFindings } from '../review/post.js'
import {
  MAX_VOTED_FINDINGS,
  parseVotes,
  tallyVotes,
  voteId,
  type AgentVotes
} from '../review/vote.js'
import { shardAgent, type AcceptedRecord, type ShardRecord } from './record.js'

export interface ShardVotes {
  /** Each finding group its round voted on, with the vote tallied here. */
  votes: RoundVote[]
  ballots: AgentVotes[]
  /** Findings its round voted on, as counted here. */
  findings: number
}

/** The groups a shard's round voted on, in its order; none when it did not run. */
export function votedGroups(accepted: AcceptedRecord): FindingGroup[] {
  const { record, entry } = accepted
  const round = record.vote
  if (!round?.ran || round.ballots.length === 0) return []
  const winner = record.winner ? shardAgent(entry.id, record.winner) : undefined
  const { groups } = groupedFindings(accepted.answers, entry.files, winner)
  return groups.slice(0, Math.min(round.findings, MAX_VOTED_FINDINGS))
}

/** The files a shard's round voted on findings of: the code its votes quote. */
export function votedFiles(voted: readonly FindingGroup[]): string[] {
  return [...new Set(voted.map((g) => g.anchor.file))]
}

export function shardVotes(
  accepted: AcceptedRecord,
  /** The groups its round voted on (votedGroups), grouped once. */
  voted: FindingGroup[],
  /**
   * The pull request's diff, its lines read once for every shard
   * (excerpt.ts), with the files it shows nothing of read at the head.
   */
  diff: DiffLines,
  prTexts: readonly string[]
): ShardVotes | undefined {
  const { entry } = accepted
  const round = accepted.record.vote
  if (!round?.ran || round.ballots.length === 0) return undefined
  const ids = new Set(voted.map((_, i) => voteId(i)))
  const ballots = round.ballots.map((b) =>
    parseVotes(shardAgent(entry.id, b.agent), b.text, ids)
  )
  // The shard's round asks every agent of its run: the record's votes
  // name them, the ones whose ballot never came back too.
  const asked = accepted.record.votes.map((v) => shardAgent(entry.id, v.agent))
  const tally = tallyVotes(
    voted,
    ballots,
    excerptsFor(voted, diff, undefined),
    prTexts,
    asked
  )
  return {
    votes: voted.flatMap((g) => {
      const vote = tally.get(g)
      return vote ? [{ members: g.members, vote }] : []
    }),
    ballots,
    findings: voted.length
  }
}

/** A reviewed shard: its record's vote and what was tallied of it here. */
interface VotedShard {
  id: string
  round: ShardRecord['vote']
  votes: ShardVotes | undefined
}

const sum = (values: Array<number | undefined>): number | undefined =>
  values.some((v) => v !== undefined)
    ? values.reduce<number>((a, v) => a + (v ?? 0), 0)
    : undefined

/**
 * What the shards' rounds did together, for the review's vote note:
 * undefined when no shard asked for a vote. Its words are the aggregate's:
 * a record's own reasons go to its shard's section, escaped.
 */
export function roundsTogether(
  shards: readonly VotedShard[]
): VoteRound | undefined {
  const asked = shards.filter((s) => s.round !== undefined)
  if (asked.length === 0) return undefined
  const ran = asked.filter((s) => s.votes !== undefined)
  const measured = {
    seconds: ran.length
      ? Math.max(...ran.map((s) => s.round?.seconds ?? 0))
      : undefined,
    inputTokens: sum(ran.map((s) => s.round?.inputTokens)),
    outputTokens: sum(ran.map((s) => s.round?.outputTokens)),
    cost: sum(asked.map((s) => s.round?.cost))
  }
  const defined = Object.fromEntries(
    Object.entries(measured).filter(([, v]) => v !== undefined)
  ) as Partial<typeof measured>
  return {
    ran: ran.length > 0,
    ...(ran.length === 0
      ? {
          skipped: `no shard's vote ran (${asked.map((s) => s.id).join(', ')})`
        }
      : {}),
    findings: ran.reduce((n, s) => n + (s.votes?.findings ?? 0), 0),
    answers: {},
    byShard: true,
    ...defined
  }
}
