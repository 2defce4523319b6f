// role 'shard', the variant's stages the pipeline calls (pipeline/roles.ts):
// one shard's review, on a runner that holds no GitHub token. Its prepare
// refuses to start while a token is within reach (an input, the
// environment, the checkout's git config) and reads its files and their
// diff from the plan the matrix job uploaded; the pipeline runs MassGen on
// them as it runs one runner's; its finish uploads one record (record.ts) as
// an artifact. It posts nothing: the aggregate job does, after checking it.
import * as core from '@actions/core'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { z } from 'zod'
import { Defaults, Inputs } from '../core/constants.js'
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
import type { AgentChoice } from '../inputs/models.js'
import type { SettingsFile } from '../inputs/settings-file.js'
import type { RunDecision } from '../event/intake.js'
import { shardSlice } from './pull-plan.js'
import { runUrl } from '../github/run-url.js'
import { confineToWorkspace } from '../safety/context-path.js'
import { gitCredentialTexts } from '../safety/git-credentials.js'
import { redactSecrets } from '../safety/redact.js'
import { codeBlock } from '../safety/markdown-parts.js'
import { scrubSecrets } from '../safety/scrub.js'
import { writeSummary, type Destination } from '../report/report.js'
import {
  artifactDoor,
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
import { setShardOutputs, setStatus } from '../report/outputs.js'

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

/** A shard's plan, read once before its settings (the config file is in it): the plan or why not. */
export type ShardPlanRead =
  { readonly plan: PlanFile } | { readonly error: unknown }

/**
 * The shard's plan, read by decide before the settings: its repository
 * config file is the one the matrix job read from the base commit (a shard
 * holds no token to read it). A plan that cannot be read is kept as its
 * error: the prepare stage records it, and the shard runs nothing.
 */
export async function readShardPlan(
  inputs: ShardInputs
): Promise<ShardPlanRead> {
  const root = process.env.RUNNER_TEMP || os.tmpdir()
  const dir = fs.mkdtempSync(path.join(root, 'massgen-shard-plan-'))
  try {
    if (!inputs.shard) throw new Error(`Input '${Inputs.Shard}' is empty`)
    const tag = core.getInput(Inputs.CommentTag).trim() || Defaults.CommentTag
    return {
      plan: await readPlan(
        await artifactDoor(),
        tag,
        dir,
        inputs.shard.planSha256
      )
    }
  } catch (error) {
    return { error }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** The repository config file the matrix job put in the plan, if any. */
export function planSettingsFile(
  read: ShardPlanRead
): SettingsFile | undefined {
  const file = 'plan' in read ? read.plan.settingsFile : undefined
  return (
    file && {
      origin: `${file.origin} (the matrix job's plan)`,
      values: new Map(Object.entries(file.values))
    }
  )
}

async function readPlan(
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

/** What a shard job is handed by the pipeline (pipeline/roles.ts). */
export interface ShardJob {
  readonly inputs: ShardInputs
  readonly settings: Settings
  /** Its plan, as decide read it (readShardPlan). */
  readonly planRead: ShardPlanRead
  /** The step's one choice of agents (pipeline/decide.ts). */
  readonly agents: AgentChoice
  readonly artifacts: () => Promise<ArtifactDoor>
  readonly workDir: string
}

/** MassGen's run on the shard's files, as the pipeline's execute takes it. */
export interface ShardRun {
  readonly settings: Settings
  readonly decision: RunDecision
  readonly dest: Destination
  /** The run's own folder under the job's. */
  readonly runDir: string
  readonly head: string
  /** The plan's door (planDoor): the shard holds no token. */
  readonly github: GitHubApi
}

/** The shard's plan: its entry and its run, or why it cannot run (its record says so). */
export interface ShardPrepared {
  readonly ref: ShardRef
  readonly entry: ShardEntry | undefined
  readonly head: string
  readonly door: ArtifactDoor
  readonly secrets: string[]
  readonly started: number
  readonly run: ShardRun | { readonly failed: RunResult }
}

/**
 * The shard's prepare stage: refused (undefined, said) while a token is in
 * reach or its agents could run outside a sandbox; else its entry read from
 * the plan and its run's settings.
 */
export async function prepareShard(
  job: ShardJob
): Promise<ShardPrepared | undefined> {
  const ref = job.inputs.shard as ShardRef
  const refusal = await shardRefusal(job.settings)
  if (refusal) {
    setStatus('config-error')
    core.setFailed(`Shard '${ref.id}' did not run: ${refusal}`)
    return undefined
  }
  const door = await job.artifacts()
  const secrets = Object.values(job.settings.keys).filter((k): k is string =>
    Boolean(k)
  )
  const started = Date.now()
  const known = { ref, door, secrets, started }
  let head = ''
  let entry: ShardEntry | undefined
  try {
    if ('error' in job.planRead) throw job.planRead.error
    const plan = job.planRead.plan
    head = plan.pull.headSha.toLowerCase()
    entry = plannedEntry(plan.shards, ref)
    return { ...known, entry, head, run: shardRun(job, entry, plan, secrets) }
  } catch (error) {
    const prepared = { ...known, entry, head }
    return { ...prepared, run: { failed: shardFailure(prepared, error) } }
  }
}

/** Why this shard may not run, or undefined (the whole sentence follows "did not run: "). */
async function shardRefusal(settings: Settings): Promise<string | undefined> {
  const refusal = await tokenInReach(settings.githubToken, process.env, {
    workspace: settings.workspace,
    contextPath: path.resolve(settings.workspace, settings.contextPath)
  })
  if (refusal)
    return `${refusal}. A shard job runs the agents with no GitHub token.`
  if (!settings.docker && !settings.localSandbox)
    return (
      `'${Inputs.LocalSandbox}: false' lets the agents' commands read ` +
      "the action's own environment (ACTIONS_RUNTIME_TOKEN, the API keys); a shard runs them in the sandbox or in Docker."
    )
  if (settings.baseSetup.length > 0 || settings.setupFiles.length > 0)
    return (
      `'${Inputs.Config}', '${Inputs.InstructionsFile}' and '${Inputs.QueryFile}' ` +
      'name files, which a shard cannot read from the base commit without a token; give them inline.'
    )
  return undefined
}

/** A shard that failed before or while its run: the result its record carries. */
export function shardFailure(
  prepared: Pick<ShardPrepared, 'entry' | 'secrets' | 'started'>,
  error: unknown
): RunResult {
  return {
    outcome: 'failed',
    reason: redactSecrets(errorText(error), prepared.secrets),
    question: prepared.entry?.ask ?? '',
    exitCode: null,
    agents: [],
    votes: {},
    elapsedSeconds: Math.round((Date.now() - prepared.started) / 100) / 10
  }
}

/**
 * The shard's finish stage: its record written, kept and uploaded, the
 * outputs and the summary; the step's failure, if any, for the pipeline.
 */
export async function recordShard(
  job: Pick<ShardJob, 'inputs' | 'settings' | 'workDir'>,
  prepared: ShardPrepared,
  result: RunResult
): Promise<string | undefined> {
  const { ref, entry, secrets } = prepared
  const file = path.join(job.workDir, 'record', RECORD_FILE)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  const record = recordOf(ref, prepared.head || undefined, result, secrets)
  fs.writeFileSync(file, JSON.stringify(record), { mode: 0o600 })
  const kept = path.join(
    process.env.RUNNER_TEMP || job.workDir,
    `massgen-shard-${ref.id}.json`
  )
  fs.copyFileSync(file, kept)
  await uploadFile(
    prepared.door,
    attemptName(
      `${job.inputs.resultsPrefix}${ref.id}`,
      runAttempt(process.env)
    ),
    file
  )
  setShardOutputs(kept, result.outcome)
  await writeShardSummary(job.settings, entry ?? ref, result, secrets)
  core.info(
    `Shard '${ref.id}': ${result.outcome}, ${entry ? entry.files.length : 'no'} file(s); record uploaded.`
  )
  reportScrub(await scrubSecrets(job.workDir, secrets))
  return result.outcome === 'success'
    ? undefined
    : `Shard '${ref.id}' ${result.outcome}: ${result.reason ?? ''}`
}

/** What the shard's MassGen run is given: its files, its question, no token. */
function shardRun(
  job: Pick<ShardJob, 'settings' | 'agents' | 'workDir'>,
  entry: ShardEntry,
  plan: PlanFile,
  secrets: string[]
): ShardRun {
  const settings = shardSettings(job.settings, entry)
  if (!settings.query)
    throw new Error(
      `Shard '${entry.id}' has no question: set '${Inputs.Query}' or name questions in '${Inputs.ShardQuestions}'`
    )
  if ('error' in job.agents) throw job.agents.error
  const pull = shardSlice(plan.pull, entry.files)
  return {
    settings,
    decision: {
      action: 'run',
      question: settings.query,
      issueNumber: undefined,
      pullRequest: pull.number,
      commentId: undefined,
      agents: job.agents.selection
    },
    dest: {
      github: undefined,
      issueNumber: undefined,
      settings,
      runUrl: runUrl(process.env),
      secrets
    },
    runDir: fs.mkdtempSync(path.join(job.workDir, 'run-')),
    head: pull.headSha.toLowerCase(),
    github: planDoor(pull, plan.base)
  }
}

/** The shard's job summary: what it reviewed and how it ended; the report is the aggregate's. */
async function writeShardSummary(
  settings: Settings,
  entry: ShardEntry | ShardRef,
  result: RunResult,
  secrets: string[]
): Promise<void> {
  const text = [
    `### MassGen shard \`${entry.id}\`: \`${result.outcome}\``,
    `${'files' in entry ? entry.files.length : 'no'} file(s)${entry.question ? `, question \`${entry.question}\`` : ''}; ` +
      'its record is uploaded as an artifact, and the aggregate job posts the report.',
    result.reason ? codeBlock(result.reason, secrets, 2000) : ''
  ]
    .filter(Boolean)
    .join('\n\n')
  await writeSummary(
    {
      github: undefined,
      issueNumber: undefined,
      settings,
      runUrl: undefined,
      secrets
    },
    text
  )
}

function reportScrub(scrub: { scrubbed: string[]; removed: string[] }): void {
  if (scrub.scrubbed.length + scrub.removed.length > 0)
    core.warning(
      `${scrub.scrubbed.length + scrub.removed.length} file(s) of the shard's run held an API key or were too large to check; they were redacted or removed.`
    )
}
