// The action's roles in a review fanned out over a job matrix
// (docs/matrix-review.md): main.ts hands every run here first, and only
// role 'run' goes on to the one-runner pipeline.
import * as core from '@actions/core'
import { context } from '@actions/github'
import * as fs from 'node:fs'
import { Defaults, Inputs, Outputs } from '../core/constants.js'
import type { ProcessRunner } from '../core/process.js'
import type { Settings } from '../core/types.js'
import { errorText } from '../core/text.js'
import { saveStepState } from '../core/step-state.js'
import type { GitHubApi } from '../github/api.js'
import { readSettings } from '../inputs/settings.js'
import { layeredInputs, type SettingsFile } from '../inputs/settings-file.js'
import { readSettingsFile } from '../context/base-setup.js'
import { eventBaseSha, setupSourceFor } from '../event/setup-source.js'
import { readTrigger } from '../event/trigger.js'
import { saveStateForPost } from '../pipeline/post-step.js'
import {
  actionSecrets,
  actionToken,
  makeWorkDir,
  openGitHub as openRepository
} from '../pipeline/step-env.js'
import { readShardInputs, type ShardInputs } from '../inputs/shard-inputs.js'
import { artifactDoor } from './download.js'
import { matrixJob } from './matrix-job.js'
import { readPlan, shardJob } from './shard-job.js'
import { aggregateJob } from './aggregate-job.js'

/** True when a role other than 'run' took the step (it is done then). */
export async function runRole(runner: ProcessRunner): Promise<boolean> {
  let inputs: ShardInputs
  try {
    inputs = readShardInputs((name) => core.getInput(name))
  } catch (error) {
    refuse(errorText(error))
    return true
  }
  if (inputs.role === 'run') return false
  const file =
    inputs.role === 'shard'
      ? await planSettingsFile(inputs)
      : await roleSettingsFile()
  if (file === 'failed') return true
  const source = roleSource(file)
  const layered = layeredInputs(source)
  try {
    inputs = readShardInputs(layered.getInput)
  } catch (error) {
    refuse(layered.relabel(errorText(error)))
    return true
  }
  const settings = readRoleSettings(source)
  if (!settings) return true // readRoleSettings reported it
  const workDir = makeWorkDir(inputs.role)
  // Only a shard starts MassGen: should its step be stopped, the post step
  // stops what is left (pipeline/post-step.ts); it has no token to post with.
  if (inputs.role === 'shard') saveStateForPost(settings, workDir, undefined)
  else saveStepState('reported', true)
  const job = {
    inputs,
    settings,
    pullNumber: pullNumberOf(settings),
    github: () => openGitHub(settings),
    artifacts: artifactDoor,
    workDir,
    settingsFile: file
  }
  try {
    if (inputs.role === 'matrix') await matrixJob(job)
    else if (inputs.role === 'shard') await shardJob({ ...job, runner })
    else await aggregateJob(job)
  } finally {
    saveStepState('reported', true)
    // The aggregate's folder holds its findings and SARIF files (outputs).
    if (inputs.role !== 'aggregate')
      fs.rmSync(workDir, { recursive: true, force: true })
  }
  return true
}

function refuse(message: string): void {
  saveStepState('reported', true)
  core.setOutput(Outputs.Status, 'config-error')
  core.setFailed(message)
}

/**
 * The settings as the run reads them; setup files are never read from the
 * checkout here (a shard has no token to read them from the base commit).
 */
function readRoleSettings(
  source: Parameters<typeof readSettings>[0]
): Settings | undefined {
  // Masked before anything can print them (pipeline/step-env.ts).
  actionSecrets(actionToken())
  try {
    return readSettings(source)
  } catch (error) {
    refuse(errorText(error))
    return undefined
  }
}

/**
 * The repository config file of the matrix and aggregate roles, read as a
 * run reads it (context/base-setup.ts). A shard holds no token to read it
 * from the base commit and never reads its checkout: it takes its inputs.
 */
async function roleSettingsFile(): Promise<
  SettingsFile | undefined | 'failed'
> {
  const token = actionToken()
  const trigger = readTrigger(
    context.eventName,
    context.payload,
    process.env.GITHUB_ACTOR ?? '',
    process.env.GITHUB_REPOSITORY ?? ''
  )
  try {
    return await readSettingsFile(setupSourceFor(trigger, context.payload), {
      workspace: process.env.GITHUB_WORKSPACE || process.cwd(),
      github: token ? () => openRepository(token) : undefined,
      baseSha: eventBaseSha(context.payload),
      warn: (message) => core.warning(message)
    })
  } catch (error) {
    refuse(errorText(error))
    return 'failed'
  }
}

/**
 * A shard's config file: the one the matrix job read, from its plan (whose
 * sha256 the matrix entry carries). When the plan cannot be read none is
 * taken here: the shard job then fails on the plan, naming why.
 */
async function planSettingsFile(
  inputs: ShardInputs
): Promise<SettingsFile | undefined> {
  if (!inputs.shard) return undefined
  const dir = makeWorkDir('shard-plan')
  try {
    const tag = core.getInput(Inputs.CommentTag).trim() || Defaults.CommentTag
    const plan = await readPlan(
      await artifactDoor(),
      tag,
      dir,
      inputs.shard.planSha256
    )
    const file = plan.settingsFile
    return (
      file && {
        origin: `${file.origin} (the matrix job's plan)`,
        values: new Map(Object.entries(file.values))
      }
    )
  } catch {
    return undefined
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** The inputs and the file, as readSettings and the shard inputs read them. */
function roleSource(settingsFile: SettingsFile | undefined) {
  return {
    getInput: (name: string) => core.getInput(name),
    env: process.env,
    workspace: process.env.GITHUB_WORKSPACE || process.cwd(),
    setupFromBase: true,
    settingsFile,
    warn: (message: string) => core.warning(message)
  }
}

function pullNumberOf(settings: Settings): number | undefined {
  const pr = (context.payload as { pull_request?: { number?: unknown } })
    .pull_request?.number
  if (typeof pr === 'number') return pr
  const issue = (
    context.payload as { issue?: { number?: unknown; pull_request?: unknown } }
  ).issue
  if (issue?.pull_request && typeof issue.number === 'number')
    return issue.number
  return settings.issueNumber
}

function openGitHub(settings: Settings): GitHubApi {
  if (!settings.githubToken)
    throw new Error(
      `Input '${Inputs.GithubToken}' is empty: the matrix and aggregate roles read the pull request with it.`
    )
  return openRepository(settings.githubToken)
}
