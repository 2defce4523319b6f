// Judges a run from what MassGen left behind. Exit code 0 proves nothing:
// MassGen exits 0 when every agent failed and on its own timeout
// (docs/massgen-0.1.97.md).
import type { RunFiles } from './log-files.js'
import { contextOverflowOf } from './context-overflow.js'
import {
  activityText,
  modelActivity,
  type ModelActivity
} from './model-activity.js'
import type { AgentStatus } from '../run/status-file.js'
import type {
  AgentPlan,
  AgentResult,
  Decision,
  Outcome,
  RunResult
} from '../core/types.js'

export interface RunFacts {
  question: string
  agents: AgentPlan[]
  exitCode: number | null
  signal: NodeJS.Signals | null
  /** Our own deadline fired. */
  timedOut: boolean
  /** The job was cancelled while MassGen ran. */
  cancelled: boolean
  /** MassGen was stopped because its estimated cost reached `max-cost`. */
  costLimit?: CostLimitStop
  maxDurationSeconds: number
  logDir?: string
  files: RunFiles
  /** Error lines MassGen printed when it rejected the config (exit 1). */
  configErrors: string[]
  /**
   * MassGen was told to skip its final presentation (its config's
   * skip_final_presentation): it then names no winner in status.json.
   */
  withoutPresentation?: boolean
  /** Our own wall-clock measure, used when status.json has none. */
  wallSeconds: number
  /** When MassGen ended (ms since the epoch), for its models' activity. */
  endedAtMs?: number
}

interface CostLimitStop {
  maxCost: number
  /** The estimate that reached the cap, as read while the run went. */
  seenCost?: number
}

export function judgeRun(facts: RunFacts): RunResult {
  const status = facts.files.status
  const agents = facts.agents.map((plan) => agentResult(plan, facts.files))
  const named = status?.results?.winner ?? undefined
  const reused =
    named || !facts.withoutPresentation ? undefined : reusedWinner(agents)
  const winner = named ?? reused?.id
  // Without a presentation the final answer is the winner's own.
  const finalAnswer = reused ? reused.answer : facts.files.finalAnswer
  const base: RunResult = {
    outcome: 'failed',
    question: facts.question,
    exitCode: facts.exitCode,
    ...(facts.signal ? { signal: facts.signal } : {}),
    agents,
    votes: status?.results?.votes ?? {},
    elapsedSeconds: status?.meta?.elapsed_seconds ?? round(facts.wallSeconds),
    cost: costOf(status?.costs?.total_estimated_cost, facts.costLimit),
    inputTokens: status?.costs?.total_input_tokens,
    outputTokens: status?.costs?.total_output_tokens,
    logDir: facts.logDir,
    statusFile: facts.files.statusFile,
    phase: status?.coordination?.phase,
    ...(facts.files.reads ? { filesRead: facts.files.reads } : {}),
    ...(winner ? { winner, decision: decisionOf(agents) } : {}),
    ...(winner && finalAnswer !== undefined
      ? {
          winnerAnswer: finalAnswer,
          ...(reused ? {} : { answerFile: facts.files.finalAnswerFile })
        }
      : {})
  }
  const [outcome, reason] = outcomeOf(facts, base)
  return {
    ...base,
    outcome,
    ...(reason ? { reason } : {}),
    ...configErrors(facts, outcome)
  }
}

function configErrors(facts: RunFacts, outcome: Outcome) {
  return outcome === 'config-error' ? { configErrors: facts.configErrors } : {}
}

function outcomeOf(facts: RunFacts, result: RunResult): [Outcome, string?] {
  const status = facts.files.status
  if (facts.cancelled)
    return ['cancelled', 'The job was cancelled while MassGen was running.']
  // Checked before the deadline: a stop for cost may run into it.
  if (facts.costLimit) {
    const cost = result.cost ?? facts.costLimit.seenCost
    return [
      'cost-limit',
      `Cost limit reached: MassGen's estimated cost ` +
        `${cost === undefined ? '' : `($${cost.toFixed(4)}) `}reached max-cost ` +
        `($${facts.costLimit.maxCost}) and MassGen was stopped; the answers so far are shown.`
    ]
  }
  if (facts.timedOut) {
    return [
      'timeout',
      `MassGen did not finish within max-duration (${facts.maxDurationSeconds} s) ` +
        `and was stopped; partial results are shown.${activityOf(facts)}`
    ]
  }
  if (status?.finish_reason === 'timeout') {
    return [
      'timeout',
      `MassGen's orchestrator timeout (${facts.maxDurationSeconds} s) ended the run` +
        `${status.finish_reason_details ? `: ${status.finish_reason_details}` : ''}.${activityOf(facts)}`
    ]
  }
  if (facts.exitCode === 1 && !facts.logDir) {
    return ['config-error', 'MassGen rejected the configuration (exit code 1).']
  }
  if (facts.signal) return ['failed', `MassGen was killed by ${facts.signal}.`]
  if (facts.exitCode !== 0) {
    return [
      'failed',
      `MassGen exited with code ${facts.exitCode ?? 'unknown'}${errorSummary(result)}.`
    ]
  }
  if (!facts.logDir)
    return [
      'failed',
      'MassGen exited 0 but printed no LOG_DIR and left no log folder.'
    ]
  if (!status) {
    return [
      'failed',
      facts.files.statusUnreadable
        ? 'MassGen exited 0 but its status.json is not valid JSON.'
        : `MassGen exited 0 but wrote no status.json${errorSummary(result)}.`
    ]
  }
  if (
    !result.winner &&
    status.is_complete !== true &&
    facts.wallSeconds >= facts.maxDurationSeconds
  ) {
    // Its own timeout with no answer to present: exit 0 and a status.json
    // left `in_progress` (seen with a real model, issue 44), not a failure.
    return [
      'timeout',
      `MassGen's own timeout (${facts.maxDurationSeconds} s) ended the run with no answer from any agent ` +
        `(its status.json was left ${status.finish_reason ?? 'unfinished'})${errorSummary(result)}.${activityOf(facts)}`
    ]
  }
  if (!result.winner) {
    return [
      'failed',
      `MassGen exited 0 but chose no winner${errorSummary(result)}.`
    ]
  }
  // A winner MassGen named only on stdout (reusedWinner) comes with a
  // status.json left `in_progress`: its votes said who.
  const named = !!status.results?.winner
  if (
    named &&
    (status.is_complete !== true || status.finish_reason !== 'completed')
  ) {
    return [
      'failed',
      `MassGen exited 0 but the run is not complete (finish_reason: ` +
        `${status.finish_reason ?? 'missing'}).`
    ]
  }
  if (
    result.decision?.kind === 'no-votes' &&
    result.agents.length > 1 &&
    result.agents.every((a) => a.error)
  ) {
    // MassGen 0.1.97 names a winner even then (seen with a real model)
    return [
      'failed',
      `MassGen named ${result.winner} the winner, but no agent voted${errorSummary(result)}.`
    ]
  }
  if (result.winnerAnswer === undefined) {
    return ['failed', `The winner ${result.winner}'s answer file is missing.`]
  }
  return ['success']
}

/**
 * The winner of a run MassGen finished without a final presentation
 * (plan/config.ts IDLE_PRESENTATION): it reuses the winner's answer, names
 * the winner only on stdout and leaves status.json `in_progress` with no
 * winner. Its coordination ends once every agent has voted; the winner is
 * then chosen by MassGen's own rule (final_presentation_runner.py
 * determine_final_agent_from_votes): the most votes, a tie to the first of
 * them in the config's order, among the agents whose answer was read. A
 * run where an agent has not voted ended some other way and keeps its
 * judgement (no winner: failed, or its timeout).
 */
function reusedWinner(agents: AgentResult[]): AgentResult | undefined {
  if (agents.length === 0) return undefined
  if (agents.some((a) => a.status !== 'voted' || !a.votedFor || a.error))
    return undefined
  const answered = agents.filter((a) => a.answer !== undefined)
  const top = Math.max(0, ...answered.map((a) => a.votesReceived))
  return answered.find((a) => a.votesReceived === top)
}

/**
 * A run that ran out of time: whether its models still answered near the
 * end (a slow model) or not (a hang), as a sentence after the reason.
 */
function activityOf(facts: RunFacts): string {
  const activity = timeoutActivity(facts)
  return activity ? ` ${activityText(activity)}` : ''
}

/** The models' activity over the run, when MassGen left its events and the end is known. */
function timeoutActivity(facts: RunFacts): ModelActivity | undefined {
  const times = facts.files.replies
  if (!times || facts.endedAtMs === undefined) return undefined
  return modelActivity(
    times,
    facts.endedAtMs,
    facts.agents.map((a) => a.id)
  )
}

/**
 * What the votes decided: a tie or no vote at all is not a consensus, even
 * when MassGen names a winner (its tie-break, or its fallback).
 */
function decisionOf(agents: AgentResult[]): Decision {
  // one agent has no one to agree or tie with
  if (agents.length < 2) return { kind: 'consensus' }
  const top = Math.max(0, ...agents.map((a) => a.votesReceived))
  if (top === 0 || !agents.some((a) => a.votedFor)) return { kind: 'no-votes' }
  const leaders = agents.filter((a) => a.votesReceived === top)
  return leaders.length > 1
    ? { kind: 'tie', agents: leaders.map((a) => a.id), votes: top }
    : { kind: 'consensus' }
}

function errorSummary(result: RunResult): string {
  const failed = result.agents.filter((a) => a.error)
  if (failed.length === 0) return ''
  const all =
    failed.length === result.agents.length
      ? 'every agent failed'
      : 'agents failed'
  return `: ${all} (${failed.map((a) => `${a.id}: ${failureOf(a)}`).join('; ')})`
}

/** An agent's error, its cause first when that is a request over its model's context. */
function failureOf(agent: AgentResult): string {
  return agent.contextOverflow !== undefined
    ? `its request was over its model's context; ${agent.error ?? ''}`
    : (agent.error ?? '')
}

/**
 * The agents status.json names, when the plan is not known (the post step
 * of a cancelled run reads what the main step left).
 */
export function agentsFromStatus(files: RunFiles): AgentResult[] {
  return Object.keys(files.status?.agents ?? {}).map((id) =>
    agentResult({ id }, files)
  )
}

/** One agent's result: the one mapping of status.json and the log files. */
function agentResult(
  plan: Pick<AgentPlan, 'id'> & Partial<AgentPlan>,
  files: RunFiles
): AgentResult {
  const status: AgentStatus | undefined = files.status?.agents?.[plan.id]
  const vote = files.votes[plan.id]
  const label = status?.latest_answer_label ?? undefined
  const votedFor = status?.vote_cast?.voted_for_agent ?? vote?.voted_for
  const reason = vote?.voted_for === votedFor ? vote?.reason : undefined
  const votes = files.status?.results?.votes ?? {}
  const answer = files.answers[plan.id]
  return {
    id: plan.id,
    ...(plan.backend ? { backend: plan.backend } : {}),
    ...(plan.model ? { model: plan.model } : {}),
    ...(label ? { answerLabel: label } : {}),
    status: status?.status ?? 'unknown',
    votesReceived: votesFor(plan.id, label, votes, files),
    ...(votedFor ? { votedFor } : {}),
    ...(votedFor
      ? { voteReason: reason ?? status?.vote_cast?.reason_preview }
      : {}),
    ...(agentError(status) ? { error: agentError(status) } : {}),
    ...overflowOf(status, files.apiErrors?.[plan.id]),
    ...(answer !== undefined ? { answer } : {}),
    answerCount: status?.answer_count ?? 0
  }
}

/**
 * Votes are keyed by answer label; an agent's votes are those for any of its
 * labels (`agent1.1`, `agent1.2`, ...). The label's prefix `agentN` maps to
 * the agent through the agents' own latest labels.
 */
function votesFor(
  id: string,
  label: string | undefined,
  votes: Record<string, number>,
  files: RunFiles
): number {
  const prefix = label?.split('.')[0]
  if (prefix) {
    return Object.entries(votes)
      .filter(([key]) => key.split('.')[0] === prefix)
      .reduce((sum, [, count]) => sum + count, 0)
  }
  // No label in status.json: count the recorded vote files instead.
  return Object.values(files.votes).filter((v) => v.voted_for === id).length
}

/**
 * The recorded error, with the last API error among its retries: 0.1.97
 * records only "failed to use workflow tools" for an agent whose requests
 * failed, or nothing at all when every agent failed.
 */
function agentError(status: AgentStatus | undefined): string | undefined {
  const attempts = status?.reliability?.enforcement_attempts ?? []
  const apiErrors = attempts.filter(
    (a) => a.reason === 'api_error' && a.error_message
  )
  const last = apiErrors[apiErrors.length - 1]?.error_message
  const api = last ? `last API error: ${last}` : undefined
  if (status?.error)
    return [massgenErrorText(status.error), api].filter(Boolean).join('; ')
  return api
}

/** The context overflow among the agent's API errors (status.json's, then events.jsonl's). */
function overflowOf(
  status: AgentStatus | undefined,
  fromEvents: readonly string[] = []
): { contextOverflow?: string } {
  const attempts = status?.reliability?.enforcement_attempts ?? []
  const recorded = attempts
    .filter((a) => a.reason === 'api_error')
    .map((a) => a.error_message ?? '')
  const found = contextOverflowOf([...recorded, ...fromEvents])
  return found === undefined ? {} : { contextOverflow: found }
}

function massgenErrorText(error: { type?: string; message?: string }): string {
  const text = [error.type, error.message].filter(Boolean).join(': ')
  return text || 'error'
}

/**
 * The final status.json may lag the estimate the cap saw (an interrupted
 * MassGen does not rewrite it): the larger figure is the truer one.
 */
function costOf(
  final: number | undefined,
  stop: CostLimitStop | undefined
): number | undefined {
  const seen = stop?.seenCost
  if (final === undefined) return seen
  return seen === undefined ? final : Math.max(final, seen)
}

/**
 * Whether the agents read any of the pull request's files: its context
 * folder (diff.patch, changed-files.tsv) or a changed file. Undefined when it
 * is not known (no pull request, or no record of the agents' tool calls).
 */
export function readThePullRequest(result: RunResult): boolean | undefined {
  const pr = result.pullRequest
  if (!pr || !result.filesRead) return undefined
  const paths = Object.values(result.filesRead).flat()
  return paths.some(
    (p) =>
      /(^|\/)pr-context\//.test(p) ||
      pr.files.some((f) => p === f || p.endsWith(`/${f}`))
  )
}

/** Time, cost and tokens of a step: both MassGen runs, the answers and the vote on findings. */
export interface RunTotals {
  readonly seconds?: number
  readonly cost?: number
  readonly inputTokens?: number
  readonly outputTokens?: number
}

/**
 * The step's totals: the vote on findings is a second MassGen run whose
 * time, tokens and cost count as much as the answers' (with a real model it
 * was 44 % of the time and 57 % of the tokens, issue 44). The result keeps
 * each run's own figures (a matrix review adds them per shard).
 */
export function runTotals(result: RunResult): RunTotals {
  const vote = result.findingVote
  const sum = (a?: number, b?: number) =>
    a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0)
  const seconds = sum(result.elapsedSeconds, vote?.seconds)
  return {
    ...(seconds !== undefined ? { seconds: round(seconds) } : {}),
    ...optional('cost', sum(result.cost, vote?.cost)),
    ...optional('inputTokens', sum(result.inputTokens, vote?.inputTokens)),
    ...optional('outputTokens', sum(result.outputTokens, vote?.outputTokens))
  }
}

function optional<K extends string>(key: K, value: number | undefined) {
  return value === undefined ? {} : ({ [key]: value } as Record<K, number>)
}

function round(seconds: number): number {
  return Math.round(seconds * 10) / 10
}
