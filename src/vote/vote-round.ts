// The vote on the findings: the ballot (review/ballot.ts) put to the agents
// in a second MassGen run (ballot-run.ts), its answers kept by agent with
// what the round cost. Reading the votes back is the review's (post.ts
// withVotes).
import type { StageLog } from '../core/log.js'
import type { VoteRound } from '../core/review.js'
import type { RunResult } from '../core/types.js'
import { skippedVote, type FindingsBallot } from '../review/ballot.js'
import { ballotRun, type AnswersRound } from './ballot-run.js'

/** The vote round's answers, or why there are none; never throws. */
export async function voteRound(
  ballot: FindingsBallot,
  answers: AnswersRound,
  log: StageLog
): Promise<VoteRound> {
  log.info(
    `Finding vote: ${ballot.count} finding(s) put to ${ballot.voters} agent(s) in a second MassGen run (one ballot each).`
  )
  try {
    return votesOf(
      ballot,
      await ballotRun(answers, ballot.question, ballot.limits),
      log
    )
  } catch (error) {
    log.warning(`The vote on the findings failed: ${String(error)}`)
    return skippedVote('the vote round failed', ballot.count)
  }
}

function votesOf(
  ballot: FindingsBallot,
  round: RunResult,
  log: StageLog
): VoteRound {
  const byAgent: Record<string, string> = {}
  for (const agent of round.agents)
    if (agent.answer !== undefined) byAgent[agent.id] = agent.answer
  const given = Object.keys(byAgent).length
  const measured = measuredOf(round)
  log.info(
    `Finding vote: MassGen ${round.outcome} in ${measured.seconds ?? '?'} s, ` +
      `${measured.inputTokens ?? '?'} input + ${measured.outputTokens ?? '?'} output tokens, ` +
      `${given} answer(s).`
  )
  if (given === 0) {
    log.warning(
      `The vote on the findings gave no answers (MassGen ${round.outcome}); the raisers alone count.`
    )
    return {
      ...skippedVote(
        `MassGen ended '${round.outcome}' with no answers`,
        ballot.count
      ),
      ...measured
    }
  }
  // The rest (over the ballot's size) keep their raisers' word alone.
  return {
    ran: true,
    findings: ballot.count,
    answers: byAgent,
    asked: round.agents.map((agent) => agent.id),
    ...measured
  }
}

/** What the round took, as far as MassGen measured it. */
function measuredOf(
  round: RunResult
): Pick<VoteRound, 'seconds' | 'inputTokens' | 'outputTokens' | 'cost'> {
  return {
    ...(round.elapsedSeconds !== undefined
      ? { seconds: round.elapsedSeconds }
      : {}),
    ...(round.inputTokens !== undefined
      ? { inputTokens: round.inputTokens }
      : {}),
    ...(round.outputTokens !== undefined
      ? { outputTokens: round.outputTokens }
      : {}),
    ...(round.cost !== undefined ? { cost: round.cost } : {})
  }
}
