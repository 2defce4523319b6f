// The step's roles as variants of the one walk (variant.ts): role 'run'
// (run-variant.ts) and the three of a review fanned out over a job matrix
// (docs/matrix-review.md), whose stages live in src/shards/. The pipeline
// calls them; they call nothing of the pipeline's.
import * as fs from 'node:fs'
import { Inputs } from '../core/constants.js'
import type { ProcessRunner } from '../core/process.js'
import { saveStepState } from '../core/step-state.js'
import type { RunResult } from '../core/types.js'
import type { GitHubApi } from '../github/api.js'
import {
  gatherShards,
  prepareAggregate,
  reportAggregate
} from '../shards/aggregate-job.js'
import { artifactDoor } from '../shards/download.js'
import { planMatrix, reportMatrix } from '../shards/matrix-job.js'
import type { TokenRoleJob } from '../shards/role-job.js'
import {
  prepareShard,
  recordShard,
  shardFailure,
  type ShardJob,
  type ShardPrepared,
  type ShardRun
} from '../shards/shard-job.js'
import { takeBack } from './credentials.js'
import type { Decided, DecidedRole } from './decide.js'
import { execute } from './execute.js'
import { saveStateForPost } from './post-step.js'
import { runVariant } from './run-variant.js'
import { makeWorkDir } from './step-env.js'
import { walk, type Ending, type Variant } from './variant.js'

/** The decided role's stages, walked in order (variant.ts). */
export async function runRole(
  decided: Decided | DecidedRole,
  runner: ProcessRunner
): Promise<Ending | undefined> {
  if (decided.role === 'run') return walk(runVariant(decided), runner)
  const workDir = makeWorkDir(decided.role)
  // Only a shard starts MassGen: should its step be stopped, the post step
  // stops what is left (post-step.ts); it has no token to post with.
  if (decided.role === 'shard')
    saveStateForPost(decided.settings, workDir, undefined)
  else saveStepState('reported', true)
  try {
    return await walk(matrixVariant(decided, workDir), runner)
  } finally {
    saveStepState('reported', true)
    // The aggregate's folder holds its findings and SARIF files (outputs).
    if (decided.role !== 'aggregate')
      fs.rmSync(workDir, { recursive: true, force: true })
  }
}

/** A matrix role's variant (its stages in src/shards/), its types closed over. */
function matrixVariant(
  decided: DecidedRole,
  workDir: string
): Variant<unknown, unknown> {
  const { inputs, settings } = decided
  if (decided.role === 'shard') {
    if (!decided.shardPlan)
      throw new Error('A shard was decided without its plan')
    const job: ShardJob = {
      inputs,
      settings,
      planRead: decided.shardPlan,
      agents: decided.agents,
      artifacts: artifactDoor,
      workDir
    }
    return variant({
      prepare: () => prepareShard(job),
      execute: (prepared: ShardPrepared, runner) =>
        'failed' in prepared.run
          ? Promise.resolve(prepared.run.failed)
          : runShard(prepared.run, runner).catch((error: unknown) =>
              shardFailure(prepared, error)
            ),
      finish: async (prepared, result: RunResult) => ({
        failure: await recordShard(job, prepared, result)
      })
    })
  }
  const job: TokenRoleJob = {
    inputs,
    settings,
    pullNumber: decided.pullNumber,
    github: () => tokenGitHub(decided),
    artifacts: artifactDoor,
    workDir,
    settingsFile: decided.settingsFile
  }
  if (decided.role === 'matrix')
    return variant({
      prepare: () => planMatrix(job),
      // The matrix runs nothing: its plan is its work.
      execute: (planned) => Promise.resolve(planned),
      finish: (planned) => {
        reportMatrix(planned)
        return Promise.resolve({ failure: undefined })
      }
    })
  return variant({
    prepare: () => prepareAggregate(job),
    execute: gatherShards,
    finish: reportAggregate
  })
}

/** A shard's MassGen run, the same execute one runner's takes. */
async function runShard(
  run: ShardRun,
  runner: ProcessRunner
): Promise<RunResult> {
  try {
    return await execute(
      run.settings,
      run.decision,
      run.dest,
      run.runDir,
      runner,
      run.head,
      run.github
    )
  } finally {
    // A shard lends no credentials: only its containers are taken back.
    await takeBack(
      runner,
      {
        docker: run.settings.docker,
        workDir: run.runDir,
        credentials: [],
        restoreFrom: { token: '' }
      },
      []
    )
  }
}

function tokenGitHub(decided: DecidedRole): GitHubApi {
  if (!decided.settings.githubToken)
    throw new Error(
      `Input '${Inputs.GithubToken}' is empty: the matrix and aggregate roles read the pull request with it.`
    )
  return decided.github()
}

/** A variant whose types are its own; the walk takes it as any role's. */
function variant<Prepared, Ran>(
  stages: Variant<Prepared, Ran>
): Variant<unknown, unknown> {
  return stages
}
