// The inputs of a review fanned out over a job matrix (docs/matrix-review.md):
// `role`, `shard`, `shard-questions`, `shard-paths`, `max-shards`,
// `shard-results` and `shards-result`, read and checked once. Each bad value is an error naming the input and the form
// it expects.
import { z } from 'zod'
import { Defaults, Inputs, ShardDefaults } from '../core/constants.js'
import { showValue } from '../core/text.js'
import { globProblem, parseGlobList } from './globs.js'
import { InputError } from './settings.js'

const ROLES = ['run', 'matrix', 'shard', 'aggregate'] as const
type Role = (typeof ROLES)[number]

/** A shard id: also part of its artifact's name, so plain. */
export const SHARD_ID = /^[a-z0-9][a-z0-9-]{0,63}$/
const QUESTION_NAME = /^[a-z0-9][a-z0-9-]{0,31}$/
const MAX_QUESTIONS = 16
const MAX_QUESTION_CHARS = 4000
/** GitHub's files list names at most 3,000 files; so does one shard. */
export const MAX_SHARD_FILES = 3000

/**
 * A path group's name: a shard id is it, a piece number and a question
 * name joined by '-', at most 24 + 3 + 33 characters of SHARD_ID's 64.
 */
const PATH_GROUP_NAME = /^[a-z0-9][a-z0-9-]{0,23}$/
/** The path group of the files no glob of `shard-paths` matches. */
export const REST_GROUP = 'rest'

/** A named group of `shard-paths`: the files its globs match first. */
export interface PathRule {
  name: string
  globs: string[]
}

/** A named review question of `shard-questions`. */
export interface NamedQuestion {
  name: string
  text: string
}

/**
 * One entry of the matrix, all a shard job is given through `shard`: the
 * matrix output and each INPUT_SHARD stay small whatever the pull request
 * (GitHub caps a job's outputs at 1 MB, Linux one environment string at
 * 128 KiB); the shard takes its files and question text from the plan.
 */
export interface ShardRef {
  id: string
  /** The question's name ('' when the query alone is asked). */
  question: string
  /**
   * The sha256 of the plan file the matrix job uploaded: a job of an
   * earlier attempt can upload a plan under a re-run's name, and a shard,
   * holding no token, cannot date it, so it checks the content.
   */
  planSha256: string
}

/** One shard of the plan: what one shard job reviews. */
export interface ShardEntry {
  id: string
  /** The changed files it reviews, as GitHub names them. */
  files: string[]
  /** The question's name ('' when the query alone is asked). */
  question: string
  /** The question's text ('' when the query alone is asked). */
  ask: string
}

/** What `needs.<job>.result` gives for the shard jobs (all of the matrix). */
const JOB_RESULTS = ['success', 'failure', 'cancelled', 'skipped'] as const
type JobResult = (typeof JOB_RESULTS)[number]

export interface ShardInputs {
  role: Role
  /** With role 'shard': this job's matrix entry. */
  shard?: ShardRef
  questions: NamedQuestion[]
  /** `shard-paths`, in order (the first matching group takes a file); empty: by folder. */
  paths: PathRule[]
  maxShards: number
  /** The shards' artifact names: this prefix, then the shard id. */
  resultsPrefix: string
  /**
   * With role 'aggregate': the shard jobs' result as the workflow saw it. An
   * artifact's name does not prove which job uploaded it; a job that did
   * not succeed may have lost its upload to one forged under its name.
   */
  shardsResult?: JobResult
}

export const shardEntrySchema = z
  .object({
    id: z.string().regex(SHARD_ID),
    files: z.array(z.string().min(1).max(1000)).min(1).max(MAX_SHARD_FILES),
    question: z.string().regex(QUESTION_NAME).or(z.literal('')),
    ask: z.string().max(MAX_QUESTION_CHARS)
  })
  .strict()

/** A matrix entry: the question may be left out (it is checked against the plan's). */
const shardRefSchema = z
  .object({
    id: z.string().regex(SHARD_ID),
    question: z.string().regex(QUESTION_NAME).or(z.literal('')).default(''),
    planSha256: z.string().regex(/^[0-9a-f]{64}$/)
  })
  .strict()

function readRole(value: string, errors: string[]): Role {
  const v = (value || Defaults.Role).trim().toLowerCase()
  if ((ROLES as readonly string[]).includes(v)) return v as Role
  errors.push(
    `Input '${Inputs.Role}': got '${showValue(value)}', expected 'run', 'matrix', 'shard' or 'aggregate'`
  )
  return Defaults.Role
}

function readShard(value: string, errors: string[]): ShardRef | undefined {
  const expected =
    `expected this job's matrix entry as JSON (toJSON(matrix) of the matrix role's output): ` +
    `{"id": "s1", "question": "", "planSha256": "<64 hex digits>"}`
  let json: unknown
  try {
    json = JSON.parse(value)
  } catch {
    errors.push(
      `Input '${Inputs.Shard}': got '${showValue(value)}', not JSON; ${expected}`
    )
    return undefined
  }
  const parsed = shardRefSchema.safeParse(json)
  if (parsed.success) return parsed.data
  // A key the entry does not take says most: it is not a matrix entry.
  const issues = parsed.error.issues
  const issue = issues.find((i) => i.code === 'unrecognized_keys') ?? issues[0]
  const what =
    issue?.code === 'unrecognized_keys'
      ? `'${showValue(issue.keys.join("', '"))}' is not part of a matrix entry (the shard reads its files from the plan)`
      : `${issue?.path.join('.') || 'the entry'} is not valid`
  errors.push(`Input '${Inputs.Shard}': ${what}; ${expected}`)
  return undefined
}

/** `name: question`, one a line; blank lines and `#` comments skipped. */
function parseQuestions(value: string, errors: string[]): NamedQuestion[] {
  const out: NamedQuestion[] = []
  for (const raw of value.split('\n')) {
    const line = raw.trim()
    if (!line || line.startsWith('#')) continue
    const colon = line.indexOf(':')
    const name = colon > 0 ? line.slice(0, colon).trim().toLowerCase() : ''
    const text = colon > 0 ? line.slice(colon + 1).trim() : ''
    if (!QUESTION_NAME.test(name) || !text) {
      errors.push(
        `Input '${Inputs.ShardQuestions}': got '${showValue(line)}', expected 'name: question' ` +
          '(a name of letters, digits and dashes, e.g. "security: Find injection bugs.")'
      )
      continue
    }
    if (text.length > MAX_QUESTION_CHARS) {
      errors.push(
        `Input '${Inputs.ShardQuestions}': question '${name}' is ${text.length} characters, at most ${MAX_QUESTION_CHARS}`
      )
      continue
    }
    if (out.some((q) => q.name === name)) {
      errors.push(
        `Input '${Inputs.ShardQuestions}': the name '${name}' is given twice`
      )
      continue
    }
    out.push({ name, text })
  }
  if (out.length > MAX_QUESTIONS)
    errors.push(
      `Input '${Inputs.ShardQuestions}': ${out.length} questions, at most ${MAX_QUESTIONS}`
    )
  return out
}

/**
 * `name: glob[, glob...]`, one a line; blank lines and `#` comments
 * skipped. The globs are include's (inputs/globs.ts); no `!`, since the
 * first group whose glob matches takes a file.
 */
function parseShardPaths(value: string, errors: string[]): PathRule[] {
  const out: PathRule[] = []
  const bad = (message: string) =>
    errors.push(`Input '${Inputs.ShardPaths}': ${message}`)
  for (const raw of value.split(/\r?\n/)) {
    const line = raw.trim()
    if (!line || line.startsWith('#')) continue
    const colon = line.indexOf(':')
    const name = colon > 0 ? line.slice(0, colon).trim().toLowerCase() : ''
    const globs = colon > 0 ? parseGlobList(line.slice(colon + 1)) : []
    if (!PATH_GROUP_NAME.test(name) || globs.length === 0) {
      bad(
        `got '${showValue(line)}', expected 'name: glob[, glob...]' (a name of at most 24 letters, ` +
          'digits and dashes, then globs as include takes them, e.g. "web: web/**, *.css")'
      )
      continue
    }
    if (name === REST_GROUP) {
      bad(
        `the name '${REST_GROUP}' is the group of the files no glob matches; name the group otherwise`
      )
      continue
    }
    if (out.some((r) => r.name === name)) {
      bad(`the name '${name}' is given twice`)
      continue
    }
    const problems = globs.flatMap((glob) => {
      if (glob.startsWith('!'))
        return [
          `group '${name}': '${showValue(glob)}' cannot take files back, the first group whose glob matches takes a file`
        ]
      const problem = globProblem(glob)
      return problem
        ? [`group '${name}': the glob '${showValue(glob)}' is ${problem}`]
        : []
    })
    problems.forEach(bad)
    if (problems.length === 0) out.push({ name, globs })
  }
  if (out.length > ShardDefaults.maxShardsCap)
    bad(`${out.length} groups, at most ${ShardDefaults.maxShardsCap}`)
  return out
}

function readMaxShards(value: string, errors: string[]): number {
  const text = value.trim() || String(Defaults.MaxShards)
  const n = /^\d+$/.test(text) ? Number(text) : NaN
  if (n >= 1 && n <= ShardDefaults.maxShardsCap) return n
  errors.push(
    `Input '${Inputs.MaxShards}': got '${showValue(value)}', expected a whole number from 1 to ${ShardDefaults.maxShardsCap}`
  )
  return Defaults.MaxShards
}

/** The shards' artifacts of a review, by default: its comment tag keeps two matrix reviews of one workflow apart. */
function defaultResults(commentTag: string): string {
  const tag = /^[A-Za-z0-9._-]{1,64}$/.test(commentTag)
    ? commentTag
    : Defaults.CommentTag
  return `massgen-shard-${tag}-*`
}

function readResultsPrefix(
  value: string,
  commentTag: string,
  errors: string[]
): string {
  const fallback = defaultResults(commentTag)
  const text = value.trim() || fallback
  const m = /^([A-Za-z0-9][A-Za-z0-9._-]{0,99})\*$/.exec(text)
  if (m?.[1]) return m[1]
  errors.push(
    `Input '${Inputs.ShardResults}': got '${showValue(value)}', expected an artifact name ending in '*' ` +
      `(letters, digits, '.', '_', '-'), e.g. '${fallback}'`
  )
  return fallback.slice(0, -1)
}

function readShardsResult(
  value: string,
  errors: string[]
): JobResult | undefined {
  const text = value.trim().toLowerCase()
  if ((JOB_RESULTS as readonly string[]).includes(text))
    return text as JobResult
  errors.push(
    `Input '${Inputs.ShardsResult}': got '${showValue(value)}', but role 'aggregate' needs the shard jobs' result, ` +
      "'success', 'failure', 'cancelled' or 'skipped': shards-result: ${{ needs.shard.result }}"
  )
  return undefined
}

export function readShardInputs(raw: (name: string) => string): ShardInputs {
  const errors: string[] = []
  const role = readRole(raw(Inputs.Role), errors)
  const shardText = raw(Inputs.Shard).trim()
  let shard: ShardRef | undefined
  if (role === 'shard' && !shardText)
    errors.push(
      `Input '${Inputs.Shard}' is empty, but role 'shard' needs this job's matrix entry: ` +
        "shard: '${{ toJSON(matrix) }}'"
    )
  else if (role === 'shard') shard = readShard(shardText, errors)
  const inputs: ShardInputs = {
    role,
    ...(shard ? { shard } : {}),
    questions: parseQuestions(raw(Inputs.ShardQuestions), errors),
    paths: parseShardPaths(raw(Inputs.ShardPaths), errors),
    maxShards: readMaxShards(raw(Inputs.MaxShards), errors),
    resultsPrefix: readResultsPrefix(
      raw(Inputs.ShardResults),
      raw(Inputs.CommentTag).trim() || Defaults.CommentTag,
      errors
    )
  }
  const shardsResult =
    role === 'aggregate'
      ? readShardsResult(raw(Inputs.ShardsResult), errors)
      : undefined
  if (errors.length > 0) throw new InputError(errors.join('\n'))
  return shardsResult ? { ...inputs, shardsResult } : inputs
}
