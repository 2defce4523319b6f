// role 'shard': one shard's review, on a runner that holds no GitHub token.
// It refuses to start while a token is within reach (an input, the
// environment, the checkout's git config); reads its files and their diff
// from the plan the matrix job uploaded; runs MassGen on them through the
// run pipeline (execute.ts); and uploads one record (record.ts) as an
// artifact. It posts nothing: the aggregate job does, after checking it.
import * as core from '@actions/core'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { z } from 'zod'
import { Inputs, Outputs } from '../core/constants.js'
import type { ProcessRunner } from '../core/process.js'
import type { RunResult, Settings } from '../core/types.js'
import { errorText } from '../core/text.js'
import type { GitHubApi } from '../github/api.js'
import type { PullRequestContext } from '../github/pull.js'
import {
  shardEntrySchema,
  type ShardEntry,
  type ShardInputs,
  type ShardRef
} from '../inputs/shard-inputs.js'
import { chooseAgents } from '../plan/plan.js'
import { shardSlice } from './pull-plan.js'
import { takeBack } from '../pipeline/credentials.js'
import { execute } from '../pipeline/execute.js'
import { runUrl } from '../github/run-url.js'
import { confineToWorkspace } from '../safety/context-path.js'
import { gitCredentialTexts } from '../safety/git-credentials.js'
import { redactSecrets } from '../safety/redact.js'
import { codeBlock } from '../safety/markdown-parts.js'
import { scrubSecrets } from '../safety/scrub.js'
import type { Destination } from '../report/report.js'
import {
  artifactsNamed,
  attemptName,
  fetchArtifactFile,
  latestAttempt,
  runAttempt,
  uploadFile,
  type ArtifactDoor
} from './download.js'
import {
  PLAN_FILE,
  planArtifactName,
  sha256Of,
  type PlanFile
} from './matrix-job.js'
import { RECORD_FILE, recordOf } from './record.js'

/** The plan holds the whole diff the matrix job read (pull-plan.ts). */
const MAX_PLAN_BYTES = 64 * 1024 * 1024

/** Variables that hold a GitHub token on a runner when a workflow sets them. */
const TOKEN_VARS = [
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'GH_ENTERPRISE_TOKEN',
  'GITHUB_PAT'
]
/** What GitHub's tokens look like (classic, fine-grained, app, OAuth). */
const TOKEN_SHAPE =
  /\b(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})\b/

/**
 * Why this shard job holds a GitHub token, or undefined when it holds none.
 * ACTIONS_RUNTIME_TOKEN is the runner's own, for the artifact service: it
 * reads and writes this run's artifacts and nothing of the repository. On
 * disk: every git config under the workspace and checkout v6's credentials
 * files in RUNNER_TEMP (safety/git-credentials.ts finds them).
 */
export async function tokenInReach(
  token: string,
  env: NodeJS.ProcessEnv,
  where: { workspace: string; contextPath: string }
): Promise<string | undefined> {
  if (token)
    return `input '${Inputs.GithubToken}' is set (its default is the job's token): give it '' on shard jobs`
  for (const name of TOKEN_VARS)
    if (env[name])
      return `the environment holds ${name}: do not set it on shard jobs`
  for (const [name, value] of Object.entries(env))
    if (name !== 'ACTIONS_RUNTIME_TOKEN' && value && TOKEN_SHAPE.test(value))
      return `the environment variable ${name} holds a GitHub token`
  let texts: Array<{ file: string; text: string }>
  try {
    texts = await gitCredentialTexts(
      where.workspace,
      where.contextPath,
      env.RUNNER_TEMP
    )
  } catch (error) {
    return `the workspace could not be checked for git credentials (${errorText(error)})`
  }
  const holding = texts.find(
    ({ text }) => /extraheader/i.test(text) || TOKEN_SHAPE.test(text)
  )
  if (holding)
    return `${holding.file} holds a token (actions/checkout's persist-credentials): set persist-credentials: false`
  return undefined
}

const planSchema = z.object({
  version: z.literal(1),
  pull: z
    .object({
      number: z.number().int().positive(),
      title: z.string(),
      body: z.string(),
      baseRef: z.string(),
      baseSha: z.string(),
      headRef: z.string(),
      headSha: z.string().regex(/^[0-9a-fA-F]{40}$/),
      files: z.array(
        z
          .object({
            filename: z.string(),
            status: z.string(),
            additions: z.number(),
            deletions: z.number()
          })
          .passthrough()
      ),
      diff: z.string(),
      diffTruncated: z.boolean()
    })
    .passthrough(),
  shards: z.array(shardEntrySchema),
  base: z.object({
    files: z.record(z.string(), z.object({ kind: z.string() }).passthrough())
  }),
  settingsFile: z
    .object({
      origin: z.string().max(300),
      values: z.record(z.string(), z.string())
    })
    .optional()
})

/**
 * The GitHub door of a shard: the plan's pull request and the base files
 * the matrix job read, and nothing else. Every other call fails, so a code
 * path that would need a token says so.
 */
function planDoor(pull: PullRequestContext, base: PlanFile['base']): GitHubApi {
  const atBase = (ref: string) =>
    ref.toLowerCase() === pull.baseSha.toLowerCase()
  const served: Partial<GitHubApi> = {
    owner: '',
    repo: '',
    getPullRequestContext: () => Promise.resolve(pull),
    getFileAtCommit: (file, ref, maxBytes) => {
      const got = atBase(ref) ? base.files[file] : undefined
      if (got?.kind === 'file' && got.bytes > maxBytes)
        return Promise.resolve({ kind: 'too-large', bytes: got.bytes })
      return Promise.resolve(got ?? { kind: 'absent' })
    },
    listReviewThreads: () => Promise.resolve([]),
    listReviewTexts: () => Promise.resolve([])
  }
  return new Proxy(served, {
    get(target, name) {
      if (name in target) return target[name as keyof GitHubApi]
      return () =>
        Promise.reject(
          new Error(
            `A shard job holds no GitHub token: '${String(name)}' is not available`
          )
        )
    }
  }) as GitHubApi
}

export async function readPlan(
  door: ArtifactDoor,
  tag: string,
  dir: string,
  planSha256: string
): Promise<PlanFile> {
  const base = planArtifactName(tag)
  const named = latestAttempt(
    await artifactsNamed(door, base),
    base,
    runAttempt(process.env)
  )
  const name = named[0]?.name ?? base
  if (named.length > 1)
    throw new Error(
      `${named.length} artifacts are named '${name}' in this run: one was uploaded by another job; none is read`
    )
  const found = named[0]
  if (!found)
    throw new Error(
      `No artifact '${name}' in this run: the matrix job (role 'matrix', same comment-tag) uploads it; add it to this job's needs:`
    )
  const fetched = await fetchArtifactFile(
    door,
    found,
    dir,
    PLAN_FILE,
    MAX_PLAN_BYTES
  )
  if (!fetched.ok)
    throw new Error(
      `The plan artifact '${name}' could not be read: ${fetched.reason}`
    )
  // An earlier attempt's job may have uploaded a plan under this attempt's
  // name; the matrix job's own plan is the one its matrix entries hash.
  const sha = sha256Of(fetched.text)
  if (sha !== planSha256)
    throw new Error(
      `Input '${Inputs.Shard}': the plan artifact '${name}' has sha256 ${sha}, not the planSha256 ${planSha256} of this job's matrix entry: ` +
        "another job uploaded it, so it is not read (give each shard job its entry of the same run's matrix: shard: '${{ toJSON(matrix) }}')"
    )
  const parsed = planSchema.safeParse(JSON.parse(fetched.text))
  if (!parsed.success)
    throw new Error(`The plan artifact '${name}' has the wrong shape`)
  // Written by the matrix job of this run; the fields read here are checked.
  return parsed.data as unknown as PlanFile
}

/**
 * This job's shard of the plan, found by the id of its matrix entry: the
 * matrix carries ids only, the files and the question text are the plan's.
 */
export function plannedEntry(
  shards: readonly ShardEntry[],
  ref: Pick<ShardRef, 'id' | 'question'>
): ShardEntry {
  const planned = shards.find((s) => s.id === ref.id)
  const ids = shards.map((s) => s.id)
  const known = `${ids.slice(0, 8).join(', ')}${ids.length > 8 ? ', ...' : ''}`
  if (!planned)
    throw new Error(
      `Input '${Inputs.Shard}': shard '${ref.id}' is not in the matrix job's plan (its shards: ${known || 'none'}); ` +
        "give each shard job its own entry of the same run's matrix: shard: '${{ toJSON(matrix) }}'"
    )
  if (ref.question && ref.question !== planned.question)
    throw new Error(
      `Input '${Inputs.Shard}': shard '${ref.id}' asks question '${planned.question}' in the matrix job's plan, not '${ref.question}'`
    )
  return planned
}

/** The settings of a shard's run: no token, a review of its files, nothing posted. */
function shardSettings(settings: Settings, entry: ShardEntry): Settings {
  return {
    ...settings,
    query: entry.ask || settings.query,
    githubToken: '',
    comment: false,
    review: 'inline',
    reviewScope: 'full',
    checkRun: false,
    // finding-vote stays the step's: the shard votes on its own findings
    // here, and the aggregate tallies the ballots again (shard-votes.ts).
    contextPath: confineToWorkspace(settings.workspace, settings.contextPath)
  }
}

export async function shardJob(job: {
  inputs: ShardInputs
  settings: Settings
  artifacts: () => Promise<ArtifactDoor>
  workDir: string
  runner: ProcessRunner
}): Promise<void> {
  const ref = job.inputs.shard as ShardRef
  const refusal = await tokenInReach(job.settings.githubToken, process.env, {
    workspace: job.settings.workspace,
    contextPath: path.resolve(job.settings.workspace, job.settings.contextPath)
  })
  if (refusal) {
    core.setOutput(Outputs.Status, 'config-error')
    core.setFailed(
      `Shard '${ref.id}' did not run: ${refusal}. A shard job runs the agents with no GitHub token.`
    )
    return
  }
  if (!job.settings.docker && !job.settings.localSandbox) {
    core.setOutput(Outputs.Status, 'config-error')
    core.setFailed(
      `Shard '${ref.id}' did not run: '${Inputs.LocalSandbox}: false' lets the agents' commands read ` +
        "the action's own environment (ACTIONS_RUNTIME_TOKEN, the API keys); a shard runs them in the sandbox or in Docker."
    )
    return
  }
  if (job.settings.baseSetup.length > 0 || job.settings.setupFiles.length > 0) {
    core.setOutput(Outputs.Status, 'config-error')
    core.setFailed(
      `Shard '${ref.id}' did not run: '${Inputs.Config}', '${Inputs.InstructionsFile}' and '${Inputs.QueryFile}' ` +
        'name files, which a shard cannot read from the base commit without a token; give them inline.'
    )
    return
  }
  const door = await job.artifacts()
  const secrets = Object.values(job.settings.keys).filter((k): k is string =>
    Boolean(k)
  )
  const started = Date.now()
  let head = ''
  let entry: ShardEntry | undefined
  let result: RunResult
  try {
    const plan = await readPlan(
      door,
      job.settings.commentTag,
      path.join(job.workDir, 'plan'),
      ref.planSha256
    )
    head = plan.pull.headSha.toLowerCase()
    entry = plannedEntry(plan.shards, ref)
    result = await runShard(job, entry, plan, secrets)
  } catch (error) {
    result = {
      outcome: 'failed',
      reason: redactSecrets(errorText(error), secrets),
      question: entry?.ask ?? '',
      exitCode: null,
      agents: [],
      votes: {},
      elapsedSeconds: Math.round((Date.now() - started) / 100) / 10
    }
  }
  const file = path.join(job.workDir, 'record', RECORD_FILE)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  const record = recordOf(ref, head || undefined, result, secrets)
  fs.writeFileSync(file, JSON.stringify(record), { mode: 0o600 })
  const kept = path.join(
    process.env.RUNNER_TEMP || job.workDir,
    `massgen-shard-${ref.id}.json`
  )
  fs.copyFileSync(file, kept)
  await uploadFile(
    door,
    attemptName(
      `${job.inputs.resultsPrefix}${ref.id}`,
      runAttempt(process.env)
    ),
    file
  )
  core.setOutput(Outputs.ShardFile, kept)
  core.setOutput(Outputs.Status, result.outcome)
  await writeShardSummary(job.settings, entry ?? ref, result, secrets)
  core.info(
    `Shard '${ref.id}': ${result.outcome}, ${entry ? entry.files.length : 'no'} file(s); record uploaded.`
  )
  reportScrub(await scrubSecrets(job.workDir, secrets))
  if (result.outcome !== 'success')
    core.setFailed(
      `Shard '${ref.id}' ${result.outcome}: ${result.reason ?? ''}`
    )
}

async function runShard(
  job: { settings: Settings; workDir: string; runner: ProcessRunner },
  entry: ShardEntry,
  plan: PlanFile,
  secrets: string[]
): Promise<RunResult> {
  const settings = shardSettings(job.settings, entry)
  if (!settings.query)
    throw new Error(
      `Shard '${entry.id}' has no question: set '${Inputs.Query}' or name questions in '${Inputs.ShardQuestions}'`
    )
  const agents = chooseAgents(settings)
  if ('error' in agents) throw agents.error
  const pull = shardSlice(plan.pull, entry.files)
  const dest: Destination = {
    github: undefined,
    issueNumber: undefined,
    settings,
    runUrl: runUrl(process.env),
    secrets
  }
  const runDir = fs.mkdtempSync(path.join(job.workDir, 'run-'))
  try {
    return await execute(
      settings,
      {
        action: 'run',
        question: settings.query,
        issueNumber: undefined,
        pullRequest: pull.number,
        commentId: undefined,
        agents: agents.selection
      },
      dest,
      runDir,
      job.runner,
      pull.headSha.toLowerCase(),
      planDoor(pull, plan.base)
    )
  } finally {
    // A shard lends no credentials: only its containers are taken back.
    await takeBack(
      job.runner,
      {
        docker: settings.docker,
        workDir: runDir,
        credentials: [],
        restoreFrom: { token: '' }
      },
      []
    )
  }
}

/** The shard's job summary: what it reviewed and how it ended; the report is the aggregate's. */
async function writeShardSummary(
  settings: Settings,
  entry: ShardEntry | ShardRef,
  result: RunResult,
  secrets: string[]
): Promise<void> {
  if (!settings.jobSummary || !process.env.GITHUB_STEP_SUMMARY) return
  const text = [
    `### MassGen shard \`${entry.id}\`: \`${result.outcome}\``,
    `${'files' in entry ? entry.files.length : 'no'} file(s)${entry.question ? `, question \`${entry.question}\`` : ''}; ` +
      'its record is uploaded as an artifact, and the aggregate job posts the report.',
    result.reason ? codeBlock(result.reason, secrets, 2000) : ''
  ]
    .filter(Boolean)
    .join('\n\n')
  try {
    await core.summary.addRaw(text, true).write()
  } catch (error) {
    core.warning(`Could not write the job summary: ${errorText(error)}`)
  }
}

function reportScrub(scrub: { scrubbed: string[]; removed: string[] }): void {
  if (scrub.scrubbed.length + scrub.removed.length > 0)
    core.warning(
      `${scrub.scrubbed.length + scrub.removed.length} file(s) of the shard's run held an API key or were too large to check; they were redacted or removed.`
    )
}
