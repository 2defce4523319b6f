// MassGen run under the deadline, the job's cancel and max-cost, its output
// streamed and its status.json fed to the live view.
import * as core from '@actions/core'
import { saveStepState } from '../core/step-state.js'
import type { AgentPlan, RunTimings, Settings } from '../core/types.js'
import type { ProcessRunner } from '../core/process.js'
import { killRunContainers } from './run-containers.js'
import type { Launch } from '../safety/sandbox.js'
import { costLimitReached, estimatedCost } from './cost-cap.js'
import { inertLine } from './output-lines.js'
import { processIdentity } from './process-identity.js'
import { toSnapshot, type ProgressTracker } from './progress.js'
import { runMassgen, type MassgenRunOutcome } from './run-massgen.js'

/**
 * MassGen run under the deadline, the job's cancel and max-cost, its output
 * streamed and its status.json fed to the live view.
 */
export async function watchMassgen(
  settings: Settings,
  runner: ProcessRunner,
  run: {
    launch: Launch
    workDir: string
    logBase: string
    agents: AgentPlan[]
    tracker: ProgressTracker
    /** Its rejection stops MassGen (the read container did not start). */
    stopOn?: Promise<unknown>
    /**
     * The COMPLETED kill leaves the read container running: a vote round
     * on the findings may still read through it.
     */
    keepReadContainer: boolean
  }
): Promise<{
  outcome: MassgenRunOutcome
  costAtStop: number | undefined
  times: RunTimings
}> {
  const abort = new AbortController()
  run.stopOn?.catch(() => abort.abort())
  let spawnedAt: number | undefined
  let firstStatusAt: number | undefined
  const onSignal = () => abort.abort()
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal)
  const started = Date.now()
  core.startGroup('MassGen output')
  let containersKilled: Promise<number> | undefined
  let costAtStop: number | undefined
  const outcome = await runMassgen(runner, {
    ...run.launch,
    cwd: run.workDir,
    logBase: run.logBase,
    maxDurationSeconds: settings.maxDurationSeconds,
    abort: abort.signal,
    log: (message) => core.info(message),
    onStart: (pid) => {
      spawnedAt = performance.now()
      saveStepState('massgenPid', pid)
      saveStepState('massgenIdentity', processIdentity(pid) ?? '')
    },
    onLine: (line) => {
      core.info(inertLine(line))
      // MassGen's last result line: its containers' work is over.
      if (settings.docker && line.startsWith('COMPLETED:'))
        containersKilled ??= killRunContainers(runner, run.workDir, {
          keepReadContainer: run.keepReadContainer
        })
    },
    onStatus: (status) => {
      firstStatusAt ??= performance.now()
      run.tracker.update(
        toSnapshot(status, run.agents, (Date.now() - started) / 1000)
      )
    },
    stopWhen: (status) => {
      if (!costLimitReached(status, settings.maxCost)) return false
      costAtStop = estimatedCost(status)
      core.warning(
        `MassGen's estimated cost $${costAtStop?.toFixed(4)} reached max-cost ` +
          `($${settings.maxCost}): stopping MassGen as on a timeout.`
      )
      return true
    }
  })
  core.endGroup()
  await containersKilled
  process.off('SIGINT', onSignal).off('SIGTERM', onSignal)
  if (outcome.survivors)
    core.warning('Some MassGen processes outlived SIGKILL of their group')
  const endedAt = performance.now()
  const between = (from: number | undefined, to: number | undefined) =>
    from === undefined || to === undefined
      ? undefined
      : Math.round(to - from) / 1000
  const massgenStart = between(spawnedAt, firstStatusAt)
  const rounds = between(firstStatusAt, endedAt)
  return {
    outcome,
    costAtStop,
    times: {
      ...(massgenStart !== undefined ? { massgenStart } : {}),
      ...(rounds !== undefined ? { rounds } : {}),
      massgenEndedAt: endedAt
    }
  }
}
