// Reads every input once into one typed, validated Settings object: an input
// set in the workflow, else its key in the repository config file
// (settings-file.ts), else its default. One rule checks an input and its key.
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
import { layeredInputs, type SettingsFile } from './settings-file.js'

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
  /**
   * The repository config file, read by the caller from the base commit or
   * the workspace (context/base-setup.ts readSettingsFile): its keys fill
   * the inputs the workflow left empty.
   */
  settingsFile?: SettingsFile
  /** Where a deprecated input's one warning goes (core.warning in the action). */
  warn?: (message: string) => void
}

const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/)
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))

/** One of these words, in any case. */
const choice = <const T extends readonly [string, ...string[]]>(values: T) =>
  z
    .string()
    .trim()
    .transform((v) => v.toLowerCase())
    .pipe(z.enum(values))

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
    choice(['auto', 'true', 'false']),
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
    choice(['true', 'false', 'answers-only']),
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
    choice(['stop', 'warn']),
    "'stop' (a checkout that is not the pull request's head or merge commit stops the run) or 'warn'"
  ],
  projectInstructions: [
    choice(['base', 'none']),
    "'base' (the repository's AGENTS.md or CLAUDE.md from the base commit) or 'none'"
  ],
  cacheSave: [
    choice(CACHE_SAVE_POLICIES),
    "'auto' (save a fresh install except on a pull request's ref), 'always' or 'never'"
  ],
  review: [choice(['off', 'inline']), "'off' or 'inline'"],
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
    choice(['blocker', 'concern', 'nit']),
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

type Rule = keyof typeof rules
type Parsed<K extends Rule> = z.output<(typeof rules)[K][0]>

/** Reads inputs by their rules, each failure an error naming the input. */
interface Reader {
  raw: (name: string) => string
  /** The input, else its default; a refused value counts as its default (the error is thrown). */
  value: <K extends Rule>(
    rule: K,
    name: string,
    fallback: string | number | boolean
  ) => Parsed<K>
  /** The input, or undefined when empty or refused. */
  optional: <K extends Rule>(rule: K, name: string) => Parsed<K> | undefined
  flag: (name: string, fallback: boolean) => boolean
}

function inputReader(
  getInput: (name: string) => string,
  errors: string[]
): Reader {
  const raw = (name: string) => getInput(name).trim()
  const parse = <K extends Rule>(rule: K, name: string, text: string) => {
    const [schema, expected] = rules[rule]
    const parsed = schema.safeParse(text)
    if (parsed.success) return parsed.data as Parsed<K>
    errors.push(
      `Input '${name}': got '${showValue(text)}', expected ${expected}`
    )
    return undefined
  }
  return {
    raw,
    value: (rule, name, fallback) =>
      parse(rule, name, raw(name) || String(fallback)) ??
      (rules[rule][0].parse(String(fallback)) as Parsed<typeof rule>),
    optional: (rule, name) =>
      raw(name) ? parse(rule, name, raw(name)) : undefined,
    flag: (name, fallback) =>
      parse('boolean', name, raw(name) || String(fallback)) ?? fallback
  }
}

export function readSettings(source: InputSource): Settings {
  const errors: string[] = []
  const inputs = layeredInputs(source)
  const layered = { ...source, getInput: inputs.getInput }
  const r = inputReader(inputs.getInput, errors)
  const reader = {
    workspace: source.workspace,
    fromBase: source.setupFromBase === true
  }
  const query = readQuery(layered, reader, errors)
  const user = readUserInputs(inputs.getInput, reader, errors)
  const settings: Settings = {
    query: query.text,
    models: readModels(r.raw(Inputs.Models), errors),
    keys: readKeys(source),
    githubToken: readToken(source),
    workspace: realOrResolved(source.workspace),
    contextPath: readContextPath(layered, errors),
    massgenCommand: readCommand(r.raw(Inputs.MassgenCommand), source, errors),
    ...readRunInputs(r),
    ...readEventInputs(r, errors),
    ...readContextInputs(r, errors),
    ...readReviewSettings(r),
    ...user,
    setupFiles: [...query.setupFiles, ...user.setupFiles],
    baseSetup: [...query.baseSetup, ...user.baseSetup],
    passEnv: readPassEnv(source, r.raw(Inputs.PassEnv), errors),
    ...readReviewInputs(r.raw, errors),
    ...readPullFilters(r.raw, errors)
  }
  if (errors.length > 0) throw new InputError(inputs.relabel(errors.join('\n')))
  return settings
}

/** How MassGen runs: where, how long, at what cost, what it installs. */
function readRunInputs(r: Reader) {
  const baseUrl = r.optional('baseUrl', Inputs.BaseUrl)
  return {
    baseUrl: baseUrl?.replace(/\/+$/, ''),
    docker: r.flag(Inputs.Docker, Defaults.Docker),
    dockerImage: r.value(
      'dockerImage',
      Inputs.DockerImage,
      Defaults.DockerImage
    ),
    dockerNetwork: r.value(
      'dockerNetwork',
      Inputs.DockerNetwork,
      Defaults.DockerNetwork
    ),
    localSandbox: r.flag(Inputs.LocalSandbox, Defaults.LocalSandbox),
    acceptLocalModeRisk: r.flag(
      Inputs.AcceptLocalModeRisk,
      Defaults.AcceptLocalModeRisk
    ),
    maxDurationSeconds: r.value(
      'maxDuration',
      Inputs.MaxDuration,
      Defaults.MaxDuration
    ),
    maxCost:
      r.raw(Inputs.MaxCost).toLowerCase() === 'none'
        ? undefined
        : r.value('maxCost', Inputs.MaxCost, Defaults.MaxCost),
    contextPermission: r.value(
      'contextPermission',
      Inputs.ContextPermission,
      Defaults.ContextPermission
    ),
    agentCommands: readAgentCommands(
      r.value('agentCommands', Inputs.AgentCommands, Defaults.AgentCommands)
    ),
    massgenVersion: r.value(
      'massgenVersion',
      Inputs.MassgenVersion,
      Defaults.MassgenVersion
    ),
    cacheMassgen: r.flag(Inputs.CacheMassgen, Defaults.CacheMassgen),
    cacheSave: r.value('cacheSave', Inputs.CacheSave, Defaults.CacheSave),
    ...readUploadLogs(
      r.value('uploadLogs', Inputs.UploadLogs, Defaults.UploadLogs)
    )
  } satisfies Partial<Settings>
}

/** Which events run, for whom, and where the report goes. */
function readEventInputs(r: Reader, errors: string[]) {
  return {
    comment: r.flag(Inputs.Comment, Defaults.Comment),
    commentTag: r.value('commentTag', Inputs.CommentTag, Defaults.CommentTag),
    jobSummary: r.flag(Inputs.JobSummary, Defaults.JobSummary),
    trigger: r.value('trigger', Inputs.Trigger, Defaults.Trigger),
    labelTrigger: r.optional('labelTrigger', Inputs.LabelTrigger) ?? '',
    allowedBots: readLogins(r.raw(Inputs.AllowedBots), 'bots', errors),
    allowedUsers: readLogins(r.raw(Inputs.AllowedUsers), 'users', errors),
    allowForkPullRequestTarget: r.flag(
      Inputs.AllowForkPullRequestTarget,
      Defaults.AllowForkPullRequestTarget
    ),
    issueNumber: r.optional('issueNumber', Inputs.IssueNumber),
    expectedHeadSha: r
      .optional('expectedHeadSha', Inputs.ExpectedHeadSha)
      ?.toLowerCase(),
    checkoutCheck: r.value(
      'checkoutCheck',
      Inputs.CheckoutCheck,
      Defaults.CheckoutCheck
    )
  } satisfies Partial<Settings>
}

/** What the agents get of a pull request. */
function readContextInputs(r: Reader, errors: string[]) {
  const globs = (name: string) => readGlobs(name, r.raw(name), errors)
  return {
    prContext: r.flag(Inputs.PrContext, Defaults.PrContext),
    projectInstructions: r.value(
      'projectInstructions',
      Inputs.ProjectInstructions,
      Defaults.ProjectInstructions
    ),
    prDiffMaxBytes: r.value(
      'prDiffMaxBytes',
      Inputs.PrDiffMaxBytes,
      Defaults.PrDiffMaxBytes
    ),
    include: globs(Inputs.Include),
    exclude: globs(Inputs.Exclude),
    allowUnread: globs(Inputs.AllowUnread)
  } satisfies Partial<Settings>
}

/** The inline review, its vote and its gate. */
function readReviewSettings(r: Reader) {
  return {
    review: r.value('review', Inputs.Review, Defaults.Review),
    ...r.value('failOn', Inputs.FailOn, Defaults.FailOn),
    checkRun: r.flag(Inputs.CheckRun, Defaults.CheckRun),
    minAgreement: r.value(
      'minAgreement',
      Inputs.MinAgreement,
      Defaults.MinAgreement
    ),
    findingVote: r.flag(Inputs.FindingVote, Defaults.FindingVote),
    minSeverity: r.value(
      'minSeverity',
      Inputs.MinSeverity,
      Defaults.MinSeverity
    ),
    maxInlineComments: r.value(
      'maxInlineComments',
      Inputs.MaxInlineComments,
      Defaults.MaxInlineComments
    )
  } satisfies Partial<Settings>
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
