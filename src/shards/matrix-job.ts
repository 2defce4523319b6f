// role 'matrix', the variant's stages the pipeline calls (pipeline/roles.ts):
// reads the pull request through the GitHub door, plans its shards, uploads
// the plan (the pull request's files and diff, which the shards cannot read
// without a token) and sets the `matrix` output.
import * as core from '@actions/core'
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Inputs, ShardDefaults } from '../core/constants.js'
import type { GitHubApi } from '../github/api.js'
import type { PullRequestContext } from '../github/pull.js'
import type { FileAtCommit } from '../github/contents.js'
import { INSTRUCTION_FILES } from '../context/project-instructions.js'
import { errorText } from '../core/text.js'
import type { ShardEntry } from '../inputs/shard-inputs.js'
import type { Settings } from '../core/types.js'
import { matrixOf } from './plan-shards.js'
import { readPullPlan } from './pull-plan.js'
import { attemptName, runAttempt, uploadFile } from './download.js'
import type { TokenRoleJob } from './role-job.js'
import { setMatrix } from '../report/outputs.js'

export const PLAN_FILE = 'plan.json'

/** What the shards read of the pull request, written by the matrix job. */
export interface PlanFile {
  version: 1
  pull: PullRequestContext
  shards: ShardEntry[]
  /**
   * What the run reads at the base commit with the token, read here for the
   * shards, which have none: the base's .gitattributes and the repository's
   * instructions (AGENTS.md, CLAUDE.md), as the GitHub door gave them.
   */
  base: { files: Record<string, FileAtCommit> }
  /**
   * The repository config file's keys as this job read them (from the base
   * commit): a shard holds no token to read it, and never reads its checkout.
   */
  settingsFile?: { origin: string; values: Record<string, string> }
}

/** The base files' largest read (1 MB: the contents API sends no more). */
const BASE_FILE_MAX_BYTES = 1_000_000

/** What the shards get of the base commit: each file read as the GitHub door gave it. */
export async function readBase(
  github: GitHubApi,
  baseSha: string,
  settings: Settings
): Promise<PlanFile['base']> {
  const base: PlanFile['base'] = { files: {} }
  const files = [
    '.gitattributes',
    ...(settings.projectInstructions === 'base' ? INSTRUCTION_FILES : [])
  ]
  try {
    for (const file of files)
      base.files[file] = await github.getFileAtCommit(
        file,
        baseSha,
        BASE_FILE_MAX_BYTES
      )
  } catch (error) {
    core.warning(
      `Could not read the base commit's .gitattributes and instructions for the shards (${errorText(error)}); they run without them.`
    )
  }
  return base
}

/** The plan's sha256 as each matrix entry carries it (the shard checks it). */
export function sha256Of(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex')
}

export function planArtifactName(tag: string): string {
  return `${ShardDefaults.planArtifact}-${tag}`
}

/** The matrix job's plan, written and uploaded for the shards. */
export interface MatrixPlanned {
  readonly matrix: ReturnType<typeof matrixOf>
  readonly line: string
}

/**
 * Role 'matrix' has a prepare stage alone: the pull request read, its
 * shards planned, the plan uploaded; its finish sets the matrix output.
 */
export async function planMatrix(job: TokenRoleJob): Promise<MatrixPlanned> {
  if (!job.pullNumber)
    throw new Error(
      `Role 'matrix' plans a pull request's review: run it on pull_request events, or set '${Inputs.IssueNumber}'.`
    )
  const { pull, plan } = await readPullPlan(
    job.github(),
    job.pullNumber,
    job.inputs,
    job.settings
  )
  const file = path.join(job.workDir, PLAN_FILE)
  const written: PlanFile = {
    version: 1,
    pull,
    shards: plan.shards,
    base: await readBase(job.github(), pull.baseSha, job.settings),
    ...(job.settingsFile && {
      settingsFile: {
        origin: job.settingsFile.origin,
        values: Object.fromEntries(job.settingsFile.values)
      }
    })
  }
  const text = JSON.stringify(written)
  fs.writeFileSync(file, text, { mode: 0o600 })
  if (plan.shards.length > 0)
    await uploadFile(
      await job.artifacts(),
      attemptName(
        planArtifactName(job.settings.commentTag),
        runAttempt(process.env)
      ),
      file
    )
  return {
    matrix: matrixOf(plan, sha256Of(text)),
    line:
      `Matrix: ${plan.shards.length} shard(s) for #${pull.number} ` +
      `(${plan.pathGroups} path group(s) x ${Math.max(1, job.inputs.questions.length)} question(s), ` +
      `${pull.files.length} changed file(s))`
  }
}

/** The matrix job's finish: its output, and a line for the log. */
export function reportMatrix(planned: MatrixPlanned): void {
  setMatrix(planned.matrix)
  core.info(planned.line)
}
