// The post step (runs.post, always): if the main step never reported (the
// job was cancelled, or the step died), stop what is left of the run and
// make the sticky comment and the summary say so, where the main step's
// settings send them. Never silent. Then it saves a fresh MassGen install
// to the Actions cache, when the main step left one to save and nothing
// changed it (prepare/install/deferred-save.ts).
import * as core from '@actions/core'
import * as path from 'node:path'
import {
  readStepState,
  saveStepState,
  type StepState
} from '../core/step-state.js'
import type { RunResult, Settings } from '../core/types.js'
import {
  cacheAvailable,
  createActionsCacheStore
} from '../prepare/install/cache.js'
import {
  discardDeferredInstall,
  saveDeferredInstall
} from '../prepare/install/deferred-save.js'
import { createProcessRunner } from '../process/process.js'
import { renderCancelled } from '../report/render.js'
import { postReport } from '../report/report.js'
import { discoverLogDir, readRunFiles } from '../results/log-files.js'
import { agentsFromStatus } from '../results/results.js'
import { isSameProcess } from '../run/process-identity.js'
import { parseCredentialState } from '../safety/git-credentials.js'
import { scrubSecrets } from '../safety/scrub.js'
import { takeBack } from './credentials.js'
import { destinationFor } from './destination.js'
import { actionSecrets, actionToken, gitHubOnce } from './step-env.js'

/**
 * Saved by a step that starts MassGen, before anything can stop it: what
 * the post step cleans up, and where its report goes (the settings the step
 * read, not the post step's own defaults). The issue only where the step
 * comments.
 */
export function saveStateForPost(
  settings: Pick<Settings, 'comment' | 'commentTag' | 'jobSummary' | 'docker'>,
  workDir: string,
  issueNumber: number | undefined
): void {
  saveStepState('started', true)
  saveStepState('workDir', workDir)
  saveStepState('comment', settings.comment)
  saveStepState('commentTag', settings.commentTag)
  saveStepState('jobSummary', settings.jobSummary)
  saveStepState('docker', settings.docker)
  if (issueNumber) saveStepState('issueNumber', issueNumber)
}

export async function runPostStep(): Promise<void> {
  const state = readStepState()
  await recoverUnreported(state)
  // Last: MassGen's process group and containers are gone by now.
  await saveMassgenInstall(state)
}

/** A fresh install, saved here so that the upload never delays MassGen. */
async function saveMassgenInstall(state: StepState): Promise<void> {
  if (!state.massgenCacheSave) return
  if (!cacheAvailable(process.env)) {
    core.info(
      'MassGen: the Actions cache is unavailable; the install is not saved'
    )
    discardDeferredInstall(state.massgenCacheSave)
    return
  }
  await saveDeferredInstall(
    state.massgenCacheSave,
    createActionsCacheStore(),
    core
  )
}

async function recoverUnreported(state: StepState): Promise<void> {
  if (!state.started || state.reported) {
    core.debug('The main step reported; nothing to clean up.')
    return
  }
  core.warning(
    'The main step did not finish its report (job cancelled or step stopped).'
  )
  stopMassgen(state.massgenPid, state.massgenIdentity)
  // The vote round's MassGen, if it was started warm and not handed its ballots.
  stopMassgen(state.warmMassgenPid, state.warmMassgenIdentity)
  const { workDir } = state
  const token = actionToken()
  const secrets = actionSecrets(token)
  await takeBack(
    createProcessRunner(),
    {
      docker: state.docker,
      workDir,
      credentials: parseCredentialState(state.gitCredentials),
      restoreFrom: { token }
    },
    secrets
  )
  // The main step saved the issue only when it comments there.
  const dest = destinationFor(
    {
      comment: state.comment,
      jobSummary: state.jobSummary,
      commentTag: state.commentTag,
      githubToken: token
    },
    { issueNumber: state.issueNumber, replyTo: undefined },
    gitHubOnce(token),
    secrets
  )
  const partial = partialResult(workDir, state.logDir)
  await postReport(dest, (ctx) => renderCancelled(partial, ctx))
  // The run died before its own scrub: no key value stays on disk.
  if (workDir) await scrubSecrets(workDir, secrets)
}

/**
 * Kills MassGen's process group, but only when its leader is still the
 * process the main step started (the same start time, process-identity.ts):
 * the pid may since belong to an unrelated process group. A leader that is gone
 * leaves its group alone: its members are not told apart from a newcomer's.
 */
function stopMassgen(pid: number | undefined, identity: string): void {
  if (pid === undefined || !Number.isInteger(pid) || pid <= 1) return
  if (!isSameProcess(pid, identity)) {
    core.info(
      `MassGen (pid ${pid}) is no longer running; nothing signalled (the pid may belong to another process now).`
    )
    return
  }
  try {
    process.kill(-pid, 'SIGKILL')
    core.info(`Stopped MassGen's process group ${pid}`)
  } catch {
    // Already gone.
  }
}

/** Whatever the interrupted run left: phase, answers and votes so far. */
function partialResult(
  workDir: string | undefined,
  savedLogDir: string | undefined
): Partial<RunResult> {
  const logDir =
    savedLogDir ||
    (workDir
      ? discoverLogDir(path.join(workDir, '.massgen', 'massgen_logs'))
      : undefined)
  if (!logDir) return {}
  // The agents are the ones status.json names: the plan did not survive.
  const withAnswers = readRunFiles(logDir, undefined)
  const status = withAnswers.status
  return {
    logDir,
    phase: status?.coordination?.phase,
    votes: status?.results?.votes ?? {},
    elapsedSeconds: status?.meta?.elapsed_seconds,
    agents: agentsFromStatus(withAnswers)
  }
}
