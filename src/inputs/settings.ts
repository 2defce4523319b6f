// Reads every input once into one typed, validated Settings object.
import { readReviewInputs } from './review-inputs.js'
import { readPullFilters } from './pull-filters.js'
import { bool } from './boolean-rule.js'
import * as fs from 'node:fs'
import { CACHE_SAVE_POLICIES } from '../core/types.js'
import * as path from 'node:path'
import { z } from 'zod'
import { Defaults, Inputs } from '../core/constants.js'
import { findExecutable } from '../process/executable.js'
import { KEY_ENV_VARS, ModelsError, parseModels } from './models.js'
import { parsePassEnv, passEnvHoldingSecrets } from '../safety/child-env.js'
import { globProblem, parseGlobList } from './globs.js'
import {
  DOCKER_NETWORKS,
  type ApiKeys,
  type SetupFileRef,
  type Settings
} from '../core/types.js'
import {
  readSetupFile,
  readUserInputs,
  type SetupReader
} from './user-inputs.js'
import { showValue } from '../core/text.js'
import { parse as parseShell } from 'shell-quote'

/** Thrown for bad inputs; the message names the input and the expected form. */
export class InputError extends Error {}

interface InputSource {
  /** The raw input value ('' when unset), as `core.getInput` returns it. */
  getInput(name: string): string
  env: NodeJS.ProcessEnv
  /** GITHUB_WORKSPACE, or the cwd outside a runner. */
  workspace: string
  /**
   * The event carries someone else's code: the files `config`,
   * `instructions-file` and `query-file` name are not read from the
   * workspace but noted in `baseSetup` (base-setup.ts reads them).
   */
  setupFromBase?: boolean
}

const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/)
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))

const MAX_DURATION_LIMIT = 6 * 60 * 60 // GitHub-hosted jobs stop after 6 hours.

/** Each input's schema and the expected form shown when it fails. */
const rules = {
  boolean: [bool, "'true' or 'false'"],
  dockerImage: [
    z.string().regex(/^[a-z0-9][a-z0-9._\-/:@]*$/i),
    "a Docker image reference such as 'ghcr.io/massgen/mcp-runtime-sudo:latest'"
  ],
  maxDuration: [
    wholeNumber(1, MAX_DURATION_LIMIT),
    `whole seconds from 1 to ${MAX_DURATION_LIMIT}`
  ],
  contextPermission: [z.enum(['read', 'write']), "'read' or 'write'"],
  agentCommands: [
    z
      .string()
      .trim()
      .transform((v) => v.toLowerCase())
      .pipe(z.enum(['auto', 'true', 'false'])),
    "'auto', 'true' or 'false'"
  ],
  dockerNetwork: [
    z.enum(DOCKER_NETWORKS),
    "'auto', 'none', 'bridge' or 'host'"
  ],
  massgenVersion: [
    z.string().regex(/^\d+\.\d+\.\d+(\.post\d+|\.\d+)?$/),
    "a pinned MassGen release such as '0.1.97'"
  ],
  commentTag: [
    z.string().regex(/^[A-Za-z0-9._-]{1,64}$/),
    'letters, digits, dot, dash or underscore (at most 64)'
  ],
  trigger: [
    z.string().regex(/^\/?[A-Za-z0-9._-]{1,32}$/),
    "one word such as '/massgen'"
  ],
  labelTrigger: [
    // GitHub's limit on label names; no line breaks or other controls.
    z.string().regex(/^[^\p{Cc}\p{Cf}]{1,50}$/u),
    "a label name of at most 50 characters such as 'massgen-review', or empty to turn it off"
  ],
  issueNumber: [wholeNumber(1, 2 ** 31 - 1), 'an issue or pull request number'],
  prDiffMaxBytes: [
    wholeNumber(1_000, 10_000_000),
    'bytes from 1000 to 10000000'
  ],
  uploadLogs: [
    z
      .string()
      .trim()
      .transform((v) => v.toLowerCase())
      .pipe(z.enum(['true', 'false', 'answers-only'])),
    "'true' (all logs, the agents' command output included), 'answers-only' (status, answers and votes) or 'false'"
  ],
  expectedHeadSha: [
    z.string().regex(/^[0-9a-f]{40}$/i),
    'a full 40-character commit SHA (the pull request head the workflow checked out)'
  ],
  maxCost: [
    z
      .string()
      .trim()
      .regex(/^(\d{1,9}(\.\d{0,9})?|\.\d{1,9})$/)
      .transform(Number)
      .pipe(z.number().positive()),
    "a positive amount in US dollars such as '2.50', or 'none' for no cap"
  ],
  checkoutCheck: [
    z
      .string()
      .trim()
      .transform((v) => v.toLowerCase())
      .pipe(z.enum(['stop', 'warn'])),
    "'stop' (a checkout that is not the pull request's head or merge commit stops the run) or 'warn'"
  ],
  projectInstructions: [
    z
      .string()
      .trim()
      .transform((v) => v.toLowerCase())
      .pipe(z.enum(['base', 'none'])),
    "'base' (the repository's AGENTS.md or CLAUDE.md from the base commit) or 'none'"
  ],
  cacheSave: [
    z
      .string()
      .trim()
      .transform((v) => v.toLowerCase())
      .pipe(z.enum(CACHE_SAVE_POLICIES)),
    "'auto' (save a fresh install except on a pull request's ref), 'always' or 'never'"
  ],
  review: [
    z
      .string()
      .trim()
      .transform((v) => v.toLowerCase())
      .pipe(z.enum(['off', 'inline'])),
    "'off' or 'inline'"
  ],
  failOn: [
    z
      .string()
      .transform((v) =>
        v
          .toLowerCase()
          .split(/[\s,]+/)
          .filter(Boolean)
      )
      .pipe(
        z
          .array(z.enum(['blocker', 'concern', 'unclear', 'never']))
          .min(1)
          .refine((a) => !a.includes('never') || a.length === 1)
      )
      .transform((levels) => ({
        failOn: levels.includes('concern')
          ? ('concern' as const)
          : levels.includes('blocker')
            ? ('blocker' as const)
            : ('never' as const),
        failOnUnclear: levels.includes('unclear')
      })),
    "'blocker', 'concern' or 'never', or a list with 'unclear' such as 'blocker, unclear'"
  ],
  minAgreement: [wholeNumber(1, 64), 'a whole number of agents from 1 to 64'],
  minSeverity: [
    z
      .string()
      .trim()
      .transform((v) => v.toLowerCase())
      .pipe(z.enum(['blocker', 'concern', 'nit'])),
    "'blocker', 'concern' or 'nit'"
  ],
  maxInlineComments: [
    wholeNumber(0, 50),
    'a whole number of comments from 0 to 50'
  ],
  baseUrl: [
    z.url({ protocol: /^https?$/ }),
    "an http(s) URL such as 'http://localhost:8000/v1'"
  ]
} satisfies Record<string, [z.ZodType, string]>

export function readSettings(source: InputSource): Settings {
  const errors: string[] = []
  const raw = (name: string) => source.getInput(name).trim()
  const check = <K extends keyof typeof rules>(
    rule: K,
    name: string,
    fallback: string
  ): z.output<(typeof rules)[K][0]> | undefined => {
    const value = raw(name) || fallback
    const [schema, expected] = rules[rule]
    const parsed = schema.safeParse(value)
    if (parsed.success) return parsed.data as z.output<(typeof rules)[K][0]>
    errors.push(
      `Input '${name}': got '${showValue(value)}', expected ${expected}`
    )
    return undefined
  }
  const flag = (name: string, fallback: boolean) =>
    check('boolean', name, String(fallback)) ?? fallback

  const docker = flag(Inputs.Docker, Defaults.Docker)
  const maxDuration = check(
    'maxDuration',
    Inputs.MaxDuration,
    String(Defaults.MaxDuration)
  )
  const permission = check(
    'contextPermission',
    Inputs.ContextPermission,
    Defaults.ContextPermission
  )
  const issueNumber = raw(Inputs.IssueNumber)
    ? check('issueNumber', Inputs.IssueNumber, '')
    : undefined
  const baseUrl = raw(Inputs.BaseUrl)
    ? check('baseUrl', Inputs.BaseUrl, '')
    : undefined

  const reader = {
    workspace: source.workspace,
    fromBase: source.setupFromBase === true
  }
  const query = readQuery(source, reader, errors)
  const user = readUserInputs((name) => source.getInput(name), reader, errors)
  const settings: Settings = {
    query: query.text,
    models: readModels(raw(Inputs.Models), errors),
    baseUrl: baseUrl?.replace(/\/+$/, ''),
    keys: readKeys(source),
    docker,
    dockerImage:
      check('dockerImage', Inputs.DockerImage, Defaults.DockerImage) ?? '',
    maxDurationSeconds: maxDuration ?? Defaults.MaxDuration,
    workspace: realOrResolved(source.workspace),
    contextPath: readContextPath(source, errors),
    contextPermission: permission ?? Defaults.ContextPermission,
    massgenVersion:
      check('massgenVersion', Inputs.MassgenVersion, Defaults.MassgenVersion) ??
      '',
    massgenCommand: readCommand(raw(Inputs.MassgenCommand), source, errors),
    githubToken: readToken(source),
    comment: flag(Inputs.Comment, Defaults.Comment),
    commentTag:
      check('commentTag', Inputs.CommentTag, Defaults.CommentTag) ?? '',
    jobSummary: flag(Inputs.JobSummary, Defaults.JobSummary),
    trigger: check('trigger', Inputs.Trigger, Defaults.Trigger) ?? '',
    labelTrigger: raw(Inputs.LabelTrigger)
      ? (check('labelTrigger', Inputs.LabelTrigger, '') ?? '')
      : '',
    allowedBots: readLogins(raw(Inputs.AllowedBots), 'bots', errors),
    allowedUsers: readLogins(raw(Inputs.AllowedUsers), 'users', errors),
    allowForkPullRequestTarget: flag(
      Inputs.AllowForkPullRequestTarget,
      Defaults.AllowForkPullRequestTarget
    ),
    issueNumber,
    prContext: flag(Inputs.PrContext, Defaults.PrContext),
    projectInstructions:
      check(
        'projectInstructions',
        Inputs.ProjectInstructions,
        Defaults.ProjectInstructions
      ) ?? Defaults.ProjectInstructions,
    prDiffMaxBytes:
      check(
        'prDiffMaxBytes',
        Inputs.PrDiffMaxBytes,
        String(Defaults.PrDiffMaxBytes)
      ) ?? Defaults.PrDiffMaxBytes,
    ...readUploadLogs(
      check('uploadLogs', Inputs.UploadLogs, Defaults.UploadLogs)
    ),
    checkoutCheck:
      check('checkoutCheck', Inputs.CheckoutCheck, Defaults.CheckoutCheck) ??
      Defaults.CheckoutCheck,
    expectedHeadSha: raw(Inputs.ExpectedHeadSha)
      ? check('expectedHeadSha', Inputs.ExpectedHeadSha, '')?.toLowerCase()
      : undefined,
    cacheMassgen: flag(Inputs.CacheMassgen, Defaults.CacheMassgen),
    cacheSave:
      check('cacheSave', Inputs.CacheSave, Defaults.CacheSave) ??
      Defaults.CacheSave,
    localSandbox: flag(Inputs.LocalSandbox, Defaults.LocalSandbox),
    acceptLocalModeRisk: flag(
      Inputs.AcceptLocalModeRisk,
      Defaults.AcceptLocalModeRisk
    ),
    dockerNetwork:
      check('dockerNetwork', Inputs.DockerNetwork, Defaults.DockerNetwork) ??
      Defaults.DockerNetwork,
    ...user,
    setupFiles: [...query.setupFiles, ...user.setupFiles],
    baseSetup: [...query.baseSetup, ...user.baseSetup],
    maxCost: readMaxCost(raw(Inputs.MaxCost), () =>
      check('maxCost', Inputs.MaxCost, '')
    ),
    include: readGlobs(Inputs.Include, raw(Inputs.Include), errors),
    exclude: readGlobs(Inputs.Exclude, raw(Inputs.Exclude), errors),
    allowUnread: readGlobs(Inputs.AllowUnread, raw(Inputs.AllowUnread), errors),
    review: check('review', Inputs.Review, Defaults.Review) ?? Defaults.Review,
    ...(check('failOn', Inputs.FailOn, Defaults.FailOn) ?? {
      failOn: 'never',
      failOnUnclear: false
    }),
    checkRun: flag(Inputs.CheckRun, Defaults.CheckRun),
    minAgreement:
      check(
        'minAgreement',
        Inputs.MinAgreement,
        String(Defaults.MinAgreement)
      ) ?? Defaults.MinAgreement,
    findingVote: flag(Inputs.FindingVote, Defaults.FindingVote),
    minSeverity:
      check('minSeverity', Inputs.MinSeverity, Defaults.MinSeverity) ??
      Defaults.MinSeverity,
    maxInlineComments:
      check(
        'maxInlineComments',
        Inputs.MaxInlineComments,
        String(Defaults.MaxInlineComments)
      ) ?? Defaults.MaxInlineComments,
    agentCommands: readAgentCommands(
      check('agentCommands', Inputs.AgentCommands, Defaults.AgentCommands)
    ),
    passEnv: readPassEnv(source, raw(Inputs.PassEnv), errors),
    ...readReviewInputs(raw, errors),
    ...readPullFilters(raw, errors)
  }
  if (errors.length > 0) throw new InputError(errors.join('\n'))
  return settings
}

/**
 * Where a report goes, read where no input error can be reported any more
 * (an error no stage caught, before the settings were read): by
 * readSettings's own rules, a value they refuse taken as its default.
 */
export function readReportSettings(source: Pick<InputSource, 'getInput'>): {
  jobSummary: boolean
  commentTag: string
} {
  const read = <T>(schema: z.ZodType<T>, name: string, fallback: T): T => {
    const parsed = schema.safeParse(source.getInput(name).trim())
    return parsed.success ? parsed.data : fallback
  }
  return {
    jobSummary: read(rules.boolean[0], Inputs.JobSummary, Defaults.JobSummary),
    commentTag: read(
      rules.commentTag[0],
      Inputs.CommentTag,
      Defaults.CommentTag
    )
  }
}

/** `max-cost`: 'none' runs without a cap; empty is the default budget. */
function readMaxCost(
  text: string,
  parse: () => number | undefined
): number | undefined {
  if (text.toLowerCase() === 'none') return undefined
  return text ? parse() : Defaults.MaxCost
}

function readPassEnv(
  source: InputSource,
  text: string,
  errors: string[]
): string[] {
  const parsed = parsePassEnv(Inputs.PassEnv, text, KEY_ENV_VARS)
  const credentials = [...Object.values(readKeys(source)), readToken(source)]
  const holding = passEnvHoldingSecrets(
    Inputs.PassEnv,
    parsed.names,
    source.env,
    credentials.filter((s): s is string => Boolean(s))
  )
  errors.push(...parsed.errors, ...holding)
  return holding.length ? [] : parsed.names
}

/** At most this many globs per input: each is matched against every changed file. */
const MAX_GLOBS = 200

/** `include` / `exclude`: globs separated by newlines or commas (pr-filter.ts). */
function readGlobs(input: string, text: string, errors: string[]): string[] {
  const expected =
    "globs separated by newlines or commas, e.g. 'src/**, docs/*.md' " +
    "(in exclude, '!glob' gives a file back)"
  const globs = parseGlobList(text)
  if (globs.length > MAX_GLOBS)
    errors.push(
      `Input '${input}': ${globs.length} globs, expected at most ${MAX_GLOBS}`
    )
  for (const glob of globs) {
    if (input !== Inputs.Exclude && glob.startsWith('!')) {
      errors.push(
        `Input '${input}': '${showValue(glob)}' is a negation, which include does not take; ` +
          `put it in '${Inputs.Exclude}' without the '!' (expected ${expected})`
      )
      continue
    }
    const problem = globProblem(glob)
    if (problem)
      errors.push(
        `Input '${input}': '${showValue(glob)}' is ${problem} (expected ${expected})`
      )
  }
  return globs
}

function readAgentCommands(
  value: 'auto' | 'true' | 'false' | undefined
): Settings['agentCommands'] {
  return value === undefined || value === 'auto' ? 'auto' : value === 'true'
}

function readUploadLogs(
  value: 'true' | 'false' | 'answers-only' | undefined
): Pick<Settings, 'uploadLogs' | 'uploadLogsScope'> {
  return {
    uploadLogs: value !== 'false',
    uploadLogsScope: value === 'answers-only' ? 'answers-only' : 'all'
  }
}

/** Keys from the inputs or, when an input is empty, the usual environment variables. */
/** The token input, else the job's GITHUB_TOKEN; '' when neither is set. */
export function readToken(
  source: Pick<InputSource, 'getInput' | 'env'>
): string {
  return (
    source.getInput(Inputs.GithubToken).trim() || source.env.GITHUB_TOKEN || ''
  )
}

export function readKeys(
  source: Pick<InputSource, 'getInput' | 'env'>
): ApiKeys {
  const pick = (input: string, ...vars: string[]) =>
    source.getInput(input).trim() ||
    vars.map((v) => source.env[v]?.trim()).find((v) => v) ||
    undefined
  const keys: ApiKeys = {
    openai: pick(Inputs.OpenaiApiKey, 'OPENAI_API_KEY'),
    google: pick(Inputs.GeminiApiKey, 'GOOGLE_API_KEY', 'GEMINI_API_KEY'),
    anthropic: pick(Inputs.AnthropicApiKey, 'ANTHROPIC_API_KEY'),
    xai: pick(Inputs.XaiApiKey, 'XAI_API_KEY'),
    openrouter: pick(Inputs.OpenrouterApiKey, 'OPENROUTER_API_KEY')
  }
  for (const k of Object.keys(keys) as (keyof ApiKeys)[]) {
    if (!keys[k]) delete keys[k]
  }
  return keys
}

function readQuery(
  source: InputSource,
  reader: SetupReader,
  errors: string[]
): { text: string; setupFiles: string[]; baseSetup: SetupFileRef[] } {
  const files = { setupFiles: [] as string[], baseSetup: [] as SetupFileRef[] }
  const query = source.getInput(Inputs.Query).trim()
  const file = source.getInput(Inputs.QueryFile).trim()
  if (query && file) {
    errors.push(
      `Inputs '${Inputs.Query}' and '${Inputs.QueryFile}' are both set: give only one`
    )
    return { text: query, ...files }
  }
  if (!file)
    return { text: checkQuerySize(query, Inputs.Query, errors), ...files }
  const read = readSetupFile(
    reader,
    { input: Inputs.QueryFile, file, maxBytes: MAX_QUERY_FILE_BYTES },
    errors,
    files
  )
  return {
    text: read ? queryFromText(read.text, read.relative, errors) : '',
    ...files
  }
}

/** The text of `query-file`, refused when empty or too long for MassGen's argument. */
export function queryFromText(
  text: string,
  file: string,
  errors: string[]
): string {
  const trimmed = text.trim()
  if (!trimmed)
    errors.push(`Input '${Inputs.QueryFile}': '${showValue(file)}' is empty`)
  return checkQuerySize(trimmed, Inputs.QueryFile, errors)
}

/**
 * MassGen takes the question as one command-line argument, and Linux refuses
 * an argument over 128 KiB (E2BIG); the rest is room for the PR context note.
 */
export const MAX_QUERY_BYTES = 100_000
/** What is read of `query-file`: the question's limit plus room for the blank lines trimmed. */
const MAX_QUERY_FILE_BYTES = MAX_QUERY_BYTES + 64 * 1024

function checkQuerySize(
  query: string,
  input: string,
  errors: string[]
): string {
  const bytes = Buffer.byteLength(query, 'utf8')
  if (bytes > MAX_QUERY_BYTES) {
    errors.push(
      `Input '${input}': the question is ${bytes} bytes, expected at most ` +
        `${MAX_QUERY_BYTES} (put long material in a file under context-path and refer to it)`
    )
  }
  return query
}

const USER_LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9_-]{0,98}[A-Za-z0-9])?$/
const BOT_LOGIN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,98}(?:\[bot\])?$/i

/**
 * `allowed-users` or `allowed-bots`: logins separated by commas or spaces.
 * A wildcard is refused: it would let anyone spend the keys.
 */
function readLogins(
  text: string,
  kind: 'users' | 'bots',
  errors: string[]
): string[] {
  const input = kind === 'users' ? Inputs.AllowedUsers : Inputs.AllowedBots
  const expected =
    kind === 'users'
      ? "GitHub user logins separated by commas or spaces, e.g. 'octocat, hubot'"
      : "bot logins separated by commas or spaces, e.g. 'renovate[bot] dependabot'"
  const logins = text.split(/[\s,]+/).filter((b) => b.length > 0)
  for (const login of logins) {
    if (login.includes('*')) {
      errors.push(
        `Input '${input}': '${showValue(login)}' is a wildcard, which is not allowed: it would ` +
          `let anyone start runs on your keys (expected ${expected})`
      )
    } else if (kind === 'users' && /\[bot\]$/i.test(login)) {
      errors.push(
        `Input '${input}': '${showValue(login)}' is a bot; list bots in '${Inputs.AllowedBots}' ` +
          `(expected ${expected})`
      )
    } else if (!(kind === 'users' ? USER_LOGIN : BOT_LOGIN).test(login)) {
      errors.push(
        `Input '${input}': got '${showValue(login)}', expected ${expected}`
      )
    }
  }
  return logins
}

function readModels(text: string, errors: string[]) {
  try {
    const models = parseModels(text)
    if (models.length > 64) {
      errors.push(
        `Input '${Inputs.Models}': ${models.length} pairs, expected at most 64`
      )
    }
    return models
  } catch (error) {
    if (error instanceof ModelsError) errors.push(error.message)
    else throw error
    return []
  }
}

/**
 * Where the agents look, resolved against the workspace without following
 * links: main confines it to the workspace link by link before anything uses
 * it (safety/context-path.ts), so a refusal reaches the summary and comment.
 */
function readContextPath(source: InputSource, errors: string[]): string {
  const given = source.getInput(Inputs.ContextPath).trim()
  const resolved = path.resolve(source.workspace, given || '.')
  if (fs.existsSync(resolved)) return resolved
  errors.push(
    `Input '${Inputs.ContextPath}': '${showValue(given)}' does not exist ` +
      `(expected a file or folder, absolute or relative to the workspace)`
  )
  return resolved
}

function realOrResolved(dir: string): string {
  try {
    return fs.realpathSync(dir)
  } catch {
    return path.resolve(dir)
  }
}

/**
 * Splits `massgen-command` into words as a shell would (quotes, escapes,
 * `--config="a b.yaml"`), by shell-quote. The command runs with no shell, so
 * what a shell would expand or connect is refused rather than passed on
 * changed: a variable (`$HOME`; `'$HOME'` in single quotes is plain text),
 * an operator (`a | b`, `a; b`, `$(...)`) or a comment. Globs stay as written.
 */
export function splitCommand(text: string): string[] | { refused: string } {
  const variable = (name: string) => `\u0000${name}\u0000`
  const words: string[] = []
  for (const entry of parseShell(text, variable)) {
    if (typeof entry === 'string') {
      // eslint-disable-next-line no-control-regex -- the marker of `variable`
      const name = /\u0000([^\u0000]*)\u0000/.exec(entry)?.[1]
      if (name !== undefined)
        return {
          refused: name
            ? `the variable '$${name}' (no shell expands it)`
            : "a '$' a shell would expand"
        }
      words.push(entry)
    } else if ('comment' in entry) {
      return { refused: `a comment ('#${entry.comment}')` }
    } else if (entry.op === 'glob') words.push(entry.pattern)
    else return { refused: `the shell operator '${entry.op}'` }
  }
  return words
}

function readCommand(
  text: string,
  source: InputSource,
  errors: string[]
): string[] | undefined {
  if (!text) return undefined
  const expected = `(expected a command and its arguments, e.g. 'uvx massgen==0.1.97'; it runs with no shell)`
  if (/["']/.test(text.replace(/"(\\.|[^"\\])*"|'[^']*'|\\./g, ''))) {
    errors.push(
      `Input '${Inputs.MassgenCommand}': unbalanced quote in '${showValue(text)}' ${expected}`
    )
    return undefined
  }
  const split = splitCommand(text)
  if (!Array.isArray(split)) {
    errors.push(
      `Input '${Inputs.MassgenCommand}': ${split.refused} in '${showValue(text)}' ${expected}`
    )
    return undefined
  }
  const words = split
  // Checked here, before anything runs or is posted, not when MassGen starts.
  const first = words[0] ?? ''
  const found = findExecutable(first, source.env, source.workspace)
  if (!found) {
    errors.push(
      `Input '${Inputs.MassgenCommand}': '${showValue(first)}' is not an executable ` +
        `${first.includes('/') ? 'file' : 'on PATH'} ${expected}`
    )
    return undefined
  }
  // A path is resolved once, against the workspace it was checked in:
  // MassGen starts from the run's own folder, where it would not resolve.
  return first.includes('/') ? [found, ...words.slice(1)] : words
}
