// The run proper, once the event says to run, stage by stage: the context
// read, the round planned from it, everything before MassGen starts
// (prepare/ready.ts), MassGen run under the deadline with live progress, the
// result judged from what it left behind, the ballot of its findings
// (review/ballot.ts) and the vote on them (vote/vote-round.ts).
import * as core from '@actions/core'
import * as path from 'node:path'
import type { ProcessRunner } from '../core/process.js'
import type { RunResult, Settings } from '../core/types.js'
import type { RunDecision } from '../event/intake.js'
import type { GitHubApi } from '../github/api.js'
import { gatherContext } from '../context/run-context.js'
import { planRound } from '../plan/run-plan.js'
import { massgenLaunch } from '../prepare/launch.js'
import { readyRun, type Planned, type ReadyRun } from '../prepare/ready.js'
import { writeConfig } from '../prepare/run-config.js'
import { ProgressTracker } from '../run/progress.js'
import { watchMassgen } from '../run/watch-massgen.js'
import { judgeOutcome } from '../results/judge-outcome.js'
import {
  answersToVoteOn,
  findingsBallot,
  voteRoundPossible,
  votesOnFindings
} from '../review/ballot.js'
import { liveView } from '../report/live-view.js'
import { setConfigFile } from '../report/outputs.js'
import { voteRound } from '../vote/vote-round.js'
import { startWarmBallot, type WarmBallot } from '../vote/warm-ballot.js'
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
  // later view follows it, so a late first view can never overwrite a newer
  // view or a failure report. No plan, no first view.
  const live = liveView(dest)
  const firstView = written.then(
    (round) => live.announce(round.plan.agents),
    () => undefined
  )
  const ready = await readyRun(settings, written, firstView, {
    workDir,
    runner
  })
  const { context, configFile } = ready.config
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
  const watched = await launchAndWatch(settings, ready, {
    workDir,
    runner,
    live,
    firstView
  })
  const first: RunResult = {
    ...judgeOutcome(
      settings,
      decision.question,
      ready.config.plan,
      watched.outcome,
      {
        logBase: watched.logBase,
        costAtStop: watched.costAtStop
      }
    ),
    ...ran,
    ...(ready.dockerImage ? { dockerImage: ready.dockerImage } : {}),
    timings: { setup: ready.timings, ...watched.times }
  }
  return withFindingVote(first, settings, {
    ready,
    workDir,
    runner,
    logBase: watched.logBase,
    answersStarted: watched.answersStarted,
    ...(watched.warm ? { warm: watched.warm } : {})
  })
}

/** MassGen launched on the ready run and watched to its end, with live views. */
async function launchAndWatch(
  settings: Settings,
  ready: ReadyRun,
  run: {
    workDir: string
    runner: ProcessRunner
    live: ReturnType<typeof liveView>
    firstView: Promise<void>
  }
) {
  const { workDir, runner } = run
  const { plan, readServer } = ready.config
  const { installation, guardDir, reading } = ready
  const logBase = path.join(workDir, '.massgen', 'massgen_logs')
  const tracker = new ProgressTracker({
    minIntervalMs: 20_000,
    now: Date.now,
    log: (line) => core.info(line)
  })
  const following = run.live.follow(tracker.views(), run.firstView)
  const answersStarted = Date.now()
  let warm: WarmBallot | undefined
  try {
    const watched = await massgenLaunch(
      settings,
      { workDir, runner, guardDir, ...(reading ? { reading } : {}) },
      installation,
      { plan, readServer }
    )
      .then((launch) => {
        // The vote round's MassGen imports while the answers run.
        if (voteRoundPossible(settings))
          warm = startWarmBallot(runner, launch, {
            installation,
            args: plan.args,
            cwd: workDir,
            log: core
          })
        return watchMassgen(settings, runner, {
          launch,
          workDir,
          logBase,
          agents: plan.agents,
          tracker,
          ...(reading ? { stopOn: reading.up } : {}),
          keepReadContainer: votesOnFindings(settings)
        })
      })
      .finally(async () => {
        // The final report must come after the last view, never before it.
        tracker.close()
        await following
      })
    // A read container that did not start stopped MassGen: its error is the run's.
    await reading?.up
    return { ...watched, logBase, answersStarted, warm }
  } catch (error) {
    // No vote round follows a run that threw: its warm MassGen goes now.
    await warm?.discard("the answers' run did not end")
    throw error
  }
}

/** The vote round on the answers' findings, when the run votes on them. */
async function withFindingVote(
  first: RunResult,
  settings: Settings,
  answers: {
    ready: ReadyRun
    workDir: string
    runner: ProcessRunner
    logBase: string
    answersStarted: number
    /** The vote round's MassGen, imported while the answers ran (vote/warm-ballot.ts). */
    warm?: WarmBallot
  }
): Promise<RunResult> {
  const put =
    votesOnFindings(settings) && answersToVoteOn(first)
      ? // max-duration bounds both MassGen runs together.
        findingsBallot(
          first,
          settings,
          (Date.now() - answers.answersStarted) / 1000
        )
      : undefined
  try {
    const findingVote =
      put &&
      ('skipped' in put
        ? put.skipped
        : await voteRound(put.ballot, answers, core))
    // The read container, kept for the vote round, goes with the run's other
    // containers once the step takes the checkout back (pipeline/credentials.ts).
    return findingVote ? { ...first, findingVote } : first
  } finally {
    // Handed its ballots, or not needed, or the round threw: stopped here.
    await answers.warm?.discard(
      !put
        ? "no vote round: the answers' run did not succeed"
        : 'skipped' in put
          ? (put.skipped.skipped ?? 'no vote round')
          : 'the vote round did not start MassGen'
    )
  }
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
      setConfigFile(round.configFile)
      return round
    })
}
