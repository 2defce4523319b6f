// The run proper, once the event says to run, stage by stage: the context
// read, the round planned from it, everything before MassGen starts
// (prepare/ready.ts), MassGen run under the deadline with live progress, the
// result judged from what it left behind, and the vote on the findings.
import * as core from '@actions/core'
import * as path from 'node:path'
import type { ProcessRunner } from '../core/process.js'
import type { RunResult, Settings } from '../core/types.js'
import type { RunDecision } from '../event/intake.js'
import type { GitHubApi } from '../github/api.js'
import { gatherContext } from '../context/run-context.js'
import { planRound } from '../plan/run-plan.js'
import { massgenLaunch } from '../prepare/launch.js'
import { removeReadContainer } from '../prepare/read-container.js'
import { readyRun, type Planned, type ReadyRun } from '../prepare/ready.js'
import { writeConfig } from '../prepare/run-config.js'
import { ProgressTracker } from '../run/progress.js'
import { watchMassgen } from '../run/watch-massgen.js'
import { judgeOutcome } from '../results/judge-outcome.js'
import {
  mayVote,
  voteRound,
  wantsVote,
  type RoundLimits
} from '../review/vote-round.js'
import { liveView } from '../report/live-view.js'
import type { Destination } from '../report/report.js'

export async function execute(
  settings: Settings,
  decision: RunDecision,
  dest: Destination,
  workDir: string,
  runner: ProcessRunner,
  /** The head commit checked before the run (head-check.ts), if any. */
  reviewedHead?: string,
  /** What the plan reads GitHub with (the pull request, the conversation). */
  github?: GitHubApi,
  /** Opens GitHub for the repository's instructions when nothing else does. */
  instructionsGitHub?: () => GitHubApi
): Promise<RunResult> {
  const written = writtenRound(settings, decision, {
    workDir,
    reviewedHead,
    github,
    instructionsGitHub
  })
  // Not waited for: it goes out while MassGen is prepared and starts; every
  // later post queues behind it, so a late first view can never overwrite a
  // newer view or a failure report. No plan, no first view.
  const live = liveView(dest)
  const firstView = written.then(
    (round) => live.announce(round.plan.agents),
    () => undefined
  )
  const ready = await readyRun(settings, written, firstView, {
    workDir,
    runner
  })
  const { context, plan, configFile, readServer, readContainer } = ready.config
  const { installation, dockerImage, guardDir, reading } = ready
  const ran = {
    question: decision.question,
    configFile,
    mode: settings.mode,
    ...(settings.personas ? { personas: settings.personas } : {}),
    ...(context.pullRequest ? { pullRequest: context.pullRequest } : {}),
    ...(context.pullFacts ? { pullFacts: context.pullFacts } : {})
  }
  if (ready.refused) {
    await firstView
    return { ...ready.refused, ...ran }
  }
  const tracker = new ProgressTracker({
    after: firstView,
    minIntervalMs: 20_000,
    now: Date.now,
    log: (line) => core.info(line),
    publish: live.show
  })
  const logBase = path.join(workDir, '.massgen', 'massgen_logs')
  const launch = await massgenLaunch(
    settings,
    { workDir, runner, guardDir, ...(reading ? { reading } : {}) },
    installation,
    { plan, readServer }
  )
  const answersStarted = Date.now()
  const { outcome, costAtStop, times } = await watchMassgen(settings, runner, {
    launch,
    workDir,
    logBase,
    agents: plan.agents,
    tracker,
    ...(reading ? { stopOn: reading.up } : {}),
    keepReadContainer: mayVote(settings)
  })
  await tracker.close()
  // A read container that did not start stopped MassGen: its error is the run's.
  await reading?.up.catch(async (error: unknown) => {
    await firstView
    throw error
  })
  const first: RunResult = {
    ...judgeOutcome(settings, decision.question, plan.agents, outcome, {
      logBase,
      costAtStop
    }),
    ...ran,
    ...(dockerImage ? { dockerImage } : {}),
    timings: { setup: ready.timings, ...times }
  }
  if (!wantsVote(settings, first)) {
    if (readContainer) await removeReadContainer(runner, readContainer)
    return first
  }
  const findingVote = await voteRound(
    first,
    settings,
    // max-duration bounds both MassGen runs together.
    { seconds: (Date.now() - answersStarted) / 1000 },
    roundRunner(settings, decision, ready, { workDir, runner, logBase }),
    core
  ).catch((error: unknown): RunResult['findingVote'] => {
    core.warning(`The vote on the findings failed: ${String(error)}`)
    return {
      ran: false,
      skipped: 'the vote round failed',
      findings: 0,
      answers: {}
    }
  })
  // The vote round reads through the same read container: gone only now.
  if (readContainer) await removeReadContainer(runner, readContainer)
  return { ...first, findingVote }
}

/**
 * The answers' round: the context read, the round planned from it, its
 * config written. A promise: the setup starts beside it (prepare/ready.ts).
 */
function writtenRound(
  settings: Settings,
  decision: RunDecision,
  where: {
    workDir: string
    reviewedHead: string | undefined
    github: GitHubApi | undefined
    instructionsGitHub: (() => GitHubApi) | undefined
  }
): Promise<Planned> {
  const { workDir, github } = where
  return gatherContext(
    settings,
    decision,
    github,
    workDir,
    where.reviewedHead,
    github ?? where.instructionsGitHub?.()
  )
    .then((context) => ({
      context,
      ...planRound(settings, decision.agents, context, workDir)
    }))
    .then((round) => {
      writeConfig(settings, round)
      return round
    })
}

/** The vote round's MassGen: the same agents, launch and folders, MassGen's quick mode, no live view. */
function roundRunner(
  settings: Settings,
  decision: RunDecision,
  ready: ReadyRun,
  where: { workDir: string; runner: ProcessRunner; logBase: string }
): (question: string, limits: RoundLimits) => Promise<RunResult> {
  const { workDir, runner, logBase } = where
  const { context, readContainer } = ready.config
  const { installation, guardDir, reading } = ready
  return async (question: string, limits: RoundLimits) => {
    const quick: Settings = {
      ...settings,
      mode: 'quick',
      maxDurationSeconds: limits.seconds,
      maxCost: limits.cost
    }
    const round = planRound(
      quick,
      decision.agents,
      { ...context, question },
      workDir,
      { readContainer }
    )
    writeConfig(quick, round)
    const roundLaunch = await massgenLaunch(
      quick,
      { workDir, runner, guardDir, ...(reading ? { reading } : {}) },
      installation,
      round
    )
    const silent = new ProgressTracker({
      after: Promise.resolve(),
      minIntervalMs: 20_000,
      now: Date.now,
      log: (line) => core.info(line),
      publish: () => Promise.resolve()
    })
    const watched = await watchMassgen(quick, runner, {
      launch: roundLaunch,
      workDir,
      logBase,
      agents: round.plan.agents,
      tracker: silent,
      keepReadContainer: mayVote(quick)
    })
    await silent.close()
    return judgeOutcome(quick, question, round.plan.agents, watched.outcome, {
      logBase,
      costAtStop: watched.costAtStop
    })
  }
}
