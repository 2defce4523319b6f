// The post step (runs.post, always): if the main step never reported (the
// job was cancelled, or the step died), stop what is left of the run and
// make the sticky comment and the summary say so. Never silent. Then it
// saves a fresh MassGen install to the Actions cache, when the main step
// left one to save and nothing changed it (prepare/install/deferred-save.ts).
import * as core from '@actions/core'
import * as path from 'node:path'
import { Defaults, Inputs } from './core/constants.js'
import { readStepState, type StepState } from './core/step-state.js'
import { revokeContainerWrite } from './prepare/container-write-access.js'
import { removeLeftoverContainers } from './prepare/docker.js'
import { createGitHub } from './github/api.js'
import { runUrl } from './github/run-url.js'
import { discoverLogDir, readRunFiles } from './results/log-files.js'
import { agentsFromStatus } from './results/results.js'
import { createProcessRunner } from './process/process.js'
import { isSameProcess } from './run/process-identity.js'
import { renderCancelled } from './report/render.js'
import {
  postComment,
  reportContext,
  writeSummary,
  type Destination
} from './report/report.js'
import { scrubSecrets } from './safety/scrub.js'
import {
  parseCredentialState,
  restoreGitCredentials
} from './safety/git-credentials.js'
import { flagOrDefault, readKeys } from './inputs/settings.js'
import type { RunResult } from './core/types.js'
import { errorText } from './core/text.js'
import {
  cacheAvailable,
  createActionsCacheStore
} from './prepare/install/cache.js'
import {
  discardDeferredInstall,
  saveDeferredInstall
} from './prepare/install/deferred-save.js'

export async function post(): Promise<void> {
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
  const workDir = state.workDir
  const runner = createProcessRunner()
  if (state.docker && workDir) {
    await removeLeftoverContainers(runner, workDir, core)
    await revokeContainerWrite(runner, workDir, core)
  }
  const token =
    core.getInput(Inputs.GithubToken) || process.env.GITHUB_TOKEN || ''
  const credentials = parseCredentialState(state.gitCredentials)
  if (credentials.length > 0) {
    await restoreGitCredentials(credentials, core, { token }).catch(
      (error: unknown) =>
        core.warning(
          `Could not put the checkout's credentials back: ${errorText(error)}`
        )
    )
  }
  const tag = state.commentTag ?? Defaults.CommentTag
  const issueNumber = state.issueNumber
  const secrets = [
    ...Object.values(
      readKeys({ getInput: core.getInput, env: process.env, workspace: '' })
    ),
    token
  ].filter((s): s is string => Boolean(s))
  secrets.forEach((s) => core.setSecret(s))
  const [owner = '', repo = ''] = (process.env.GITHUB_REPOSITORY ?? '/').split(
    '/'
  )
  const dest: Destination = {
    github:
      issueNumber && token
        ? createGitHub({ token, owner, repo, log: core })
        : undefined,
    issueNumber,
    settings: {
      comment: true,
      jobSummary: flagOrDefault(core.getInput(Inputs.JobSummary), true),
      commentTag: tag
    },
    runUrl: runUrl(process.env),
    secrets
  }
  const partial = partialResult(workDir, state.logDir)
  await writeSummary(
    dest,
    renderCancelled(partial, reportContext(dest, 'summary'))
  )
  await postComment(
    dest,
    renderCancelled(partial, reportContext(dest, 'comment'))
  )
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
