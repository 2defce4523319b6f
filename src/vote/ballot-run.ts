// The vote round's MassGen: the round the plan stage planned for the ballot
// (plan/run-plan.ts planVote), run with the answers' installation, guard and
// read container: each agent answers the ballot once, on its own, and the
// run ends (plan/config.ts BALLOT_RUN: no MassGen vote, no final
// presentation). No live view: the comment keeps the answers' last view
// until the report.
import * as core from '@actions/core'
import type { ProcessRunner } from '../core/process.js'
import type { RunResult } from '../core/types.js'
import type { RoundLimits } from '../plan/run-plan.js'
import { massgenLaunch } from '../prepare/launch.js'
import type { ReadyRun } from '../prepare/ready.js'
import { writeConfig } from '../prepare/run-config.js'
import { ProgressTracker } from '../run/progress.js'
import { watchMassgen } from '../run/watch-massgen.js'
import { judgeOutcome } from '../results/judge-outcome.js'
import type { WarmBallot } from './warm-ballot.js'

/** The answers' round as it was run: what the vote round runs again. */
export interface AnswersRound {
  readonly ready: ReadyRun
  readonly workDir: string
  readonly runner: ProcessRunner
  /** MassGen's log folder, the answers' and the vote round's. */
  readonly logBase: string
  /** The ballot run's MassGen, started beside the answers (warm-ballot.ts). */
  readonly warm?: WarmBallot
}

export async function ballotRun(
  answers: AnswersRound,
  question: string,
  limits: RoundLimits
): Promise<RunResult> {
  const { workDir, runner, logBase, ready, warm } = answers
  const { installation, guardDir, reading } = ready
  const { settings, round } = ready.config.planVote(question, limits)
  writeConfig(settings, round)
  const launch = await massgenLaunch(
    settings,
    { workDir, runner, guardDir, ...(reading ? { reading } : {}) },
    installation,
    round
  )
  const tracker = new ProgressTracker({
    minIntervalMs: 20_000,
    now: Date.now,
    log: (line) => core.info(line)
  })
  const watched = await watchMassgen(settings, warm?.runner(runner) ?? runner, {
    launch,
    workDir,
    logBase,
    agents: round.plan.agents,
    tracker,
    // The last MassGen of the run: its read container goes too.
    keepReadContainer: false
  })
  tracker.close()
  return judgedByBallots(
    judgeOutcome(settings, question, round.plan, watched.outcome, {
      logBase,
      costAtStop: watched.costAtStop
    })
  )
}

/**
 * The ballot run judged by its ballots, not by a winner: with its vote
 * skipped MassGen names none (results/results.ts calls a run without one
 * failed), and the action needs none. A run MassGen ended on its own (exit
 * 0, no signal) with every agent's ballot read succeeded; anything else
 * (a timeout, the cost cap, a crash, a ballot missing) keeps its judgement.
 */
export function judgedByBallots(run: RunResult): RunResult {
  if (run.outcome !== 'failed' || run.exitCode !== 0 || run.signal) return run
  const missing = run.agents.filter((agent) => agent.answer === undefined)
  if (run.agents.length === 0 || missing.length > 0) return run
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { reason, ...judged } = run
  return { ...judged, outcome: 'success' }
}
