// The vote round of `review: inline` (`finding-vote: true`): once the agents
// have answered, their findings are grouped and put back to all of them in
// a second MassGen run, in MassGen's quick mode (`--quick`: one answer per
// agent, each on its own with no peer's answer injected, no refinement, no
// final presentation), which is the shape of a ballot. The question is
// vote.ts's; reading the votes back is the review's (post.ts withVotes).
// This file decides whether the round runs, within what is left of the
// run's time and cost, and keeps its answers and what it cost.
import type { RunResult, Settings } from '../core/types.js'
import { excerptsFor } from './excerpt.js'
import { groupedFindings } from './post.js'
import { reviewAnswers } from './review.js'
import type { VoteRound } from '../core/review.js'
import { MAX_VOTED_FINDINGS, voteQuestion } from './vote.js'
import type { StageLog } from '../core/log.js'

/** Less time than this left after the answers: no vote (it would time out). */
export const MIN_VOTE_SECONDS = 60

/** What the round may spend: the rest of max-duration and of max-cost. */
export interface RoundLimits {
  seconds: number
  cost?: number
}

/** Runs MassGen once more, quick mode, on the question. */
export type RunRound = (
  question: string,
  limits: RoundLimits
) => Promise<RunResult>

function skipped(why: string, findings = 0): VoteRound {
  return { ran: false, skipped: why, findings, answers: {} }
}

/** Whether the run's review asks for a vote at all. */
export function wantsVote(settings: Settings, result: RunResult): boolean {
  return (
    mayVote(settings) &&
    result.outcome === 'success' &&
    result.pullRequest !== undefined
  )
}

/** Whether a vote round may follow the answers at all (known before they run). */
export function mayVote(settings: Settings): boolean {
  return settings.review === 'inline' && settings.findingVote
}

export async function voteRound(
  first: RunResult,
  settings: Settings,
  spent: { seconds: number },
  run: RunRound,
  log: StageLog
): Promise<VoteRound> {
  const pr = first.pullRequest
  if (!pr) return skipped('the run is not about a pull request')
  const { groups } = groupedFindings(
    reviewAnswers(first),
    pr.files,
    first.winner
  )
  if (groups.length === 0) return skipped('there were no findings')
  const voted = groups.slice(0, MAX_VOTED_FINDINGS)
  const seconds = Math.floor(settings.maxDurationSeconds - spent.seconds)
  if (seconds < MIN_VOTE_SECONDS)
    return skipped(
      `only ${Math.max(0, seconds)} s of max-duration were left after the answers`,
      voted.length
    )
  const cost =
    settings.maxCost === undefined
      ? undefined
      : settings.maxCost - (first.cost ?? 0)
  if (cost !== undefined && cost <= 0)
    return skipped('max-cost was spent by the answers', voted.length)
  const question = voteQuestion(
    voted,
    excerptsFor(voted, pr.diff, settings.contextPath)
  )
  const asked = question.count
  log.info(
    `Finding vote: ${asked} finding(s) put to ${first.agents.length} agent(s) in a second MassGen run (quick mode).`
  )
  const round = await run(question.text, {
    seconds,
    ...(cost !== undefined ? { cost } : {})
  })
  const answers: Record<string, string> = {}
  for (const agent of round.agents)
    if (agent.answer !== undefined) answers[agent.id] = agent.answer
  const ran = Object.keys(answers).length > 0
  const measured = {
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
  log.info(
    `Finding vote: MassGen ${round.outcome} in ${measured.seconds ?? '?'} s, ` +
      `${measured.inputTokens ?? '?'} input + ${measured.outputTokens ?? '?'} output tokens, ` +
      `${Object.keys(answers).length} answer(s).`
  )
  if (!ran) {
    log.warning(
      `The vote on the findings gave no answers (MassGen ${round.outcome}); the raisers alone count.`
    )
    return {
      ...skipped(`MassGen ended '${round.outcome}' with no answers`, asked),
      ...measured
    }
  }
  // The rest (over the question's size) keep their raisers' word alone.
  return { ran: true, findings: asked, answers, ...measured }
}
