// The ballot of `review: inline` with `finding-vote: true`: once the agents
// have answered, their findings are grouped and the question put back to all
// of them is written here (the question's text is vote.ts's), within what is
// left of the run's time and cost. The vote stage runs it (vote/vote-round.ts);
// reading the votes back is the review's (post.ts withVotes).
import type { RunResult, Settings } from '../core/types.js'
import type { VoteRound } from '../core/review.js'
import type { RoundLimits } from '../plan/run-plan.js'
import { excerptsFor } from './excerpt.js'
import { groupedFindings } from './post.js'
import { reviewAnswers } from './review.js'
import { MAX_VOTED_FINDINGS, voteQuestion } from './vote.js'

/** Less time than this left after the answers: no vote (it would time out). */
const MIN_VOTE_SECONDS = 60

/** The question put to the agents in the vote round, and its bounds. */
export interface FindingsBallot {
  readonly question: string
  /** Findings on it (at most MAX_VOTED_FINDINGS; the rest keep their raisers' word). */
  readonly count: number
  readonly voters: number
  readonly limits: RoundLimits
}

type BallotOrSkip =
  { readonly ballot: FindingsBallot } | { readonly skipped: VoteRound }

/** Whether a vote round may follow the answers at all (known before they run). */
export function votesOnFindings(settings: Settings): boolean {
  return settings.review === 'inline' && settings.findingVote
}

/** Whether a vote round can follow: asked for, with max-duration over its minimum. */
export function voteRoundPossible(settings: Settings): boolean {
  return (
    votesOnFindings(settings) && settings.maxDurationSeconds >= MIN_VOTE_SECONDS
  )
}

/** Whether these answers are ones to vote on: a successful review of a pull request. */
export function answersToVoteOn(result: RunResult): boolean {
  return result.outcome === 'success' && result.pullRequest !== undefined
}

export function skippedVote(why: string, findings = 0): VoteRound {
  return { ran: false, skipped: why, findings, answers: {} }
}

/** The ballot, or why there is none; never throws (a failed ballot skips the vote). */
export function findingsBallot(
  first: RunResult,
  settings: Settings,
  /** Seconds of max-duration the answers took. */
  spentSeconds: number
): BallotOrSkip {
  try {
    return ballotOf(first, settings, spentSeconds)
  } catch (error) {
    return {
      skipped: skippedVote(
        `the findings could not be put to a vote (${String(error)})`
      )
    }
  }
}

function ballotOf(
  first: RunResult,
  settings: Settings,
  spentSeconds: number
): BallotOrSkip {
  const pr = first.pullRequest
  if (!pr)
    return { skipped: skippedVote('the run is not about a pull request') }
  const { groups } = groupedFindings(
    reviewAnswers(first),
    pr.files,
    first.winner
  )
  if (groups.length === 0)
    return { skipped: skippedVote('there were no findings') }
  const voted = groups.slice(0, MAX_VOTED_FINDINGS)
  const seconds = Math.floor(settings.maxDurationSeconds - spentSeconds)
  if (seconds < MIN_VOTE_SECONDS)
    return {
      skipped: skippedVote(
        `only ${Math.max(0, seconds)} s of max-duration were left after the answers`,
        voted.length
      )
    }
  const cost =
    settings.maxCost === undefined
      ? undefined
      : settings.maxCost - (first.cost ?? 0)
  if (cost !== undefined && cost <= 0)
    return {
      skipped: skippedVote('max-cost was spent by the answers', voted.length)
    }
  const question = voteQuestion(
    voted,
    excerptsFor(voted, pr.diff, settings.contextPath)
  )
  return {
    ballot: {
      question: question.text,
      count: question.count,
      voters: first.agents.length,
      limits: { seconds, ...(cost !== undefined ? { cost } : {}) }
    }
  }
}
