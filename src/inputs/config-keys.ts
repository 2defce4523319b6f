// The one list of the repository config file's keys (docs/configuration.md):
// the review's tuning, kept in `.github/massgen-action.yml` rather than in
// every workflow. Each key is named as the input it replaces, is checked by
// that input's own rule (settings.ts and the readers it calls), and its JSON
// schema (schema/massgen-action.schema.json, generated from this list and
// held equal to it by __tests__/unit/config-file.test.ts) is what editors
// validate the file with.
import { Defaults, Inputs } from '../core/constants.js'
import {
  CACHE_SAVE_POLICIES,
  DOCKER_NETWORKS,
  PERSONA_MODES
} from '../core/types.js'

/** A fragment of JSON schema (draft-07), as much of it as the keys use. */
export interface KeySchema {
  type?: JsonType | JsonType[]
  enum?: readonly (string | boolean)[]
  minimum?: number
  maximum?: number
  pattern?: string
  items?: KeySchema
  anyOf?: KeySchema[]
  additionalProperties?: KeySchema
  propertyNames?: KeySchema
}

type JsonType = 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object'

interface ConfigKey {
  /** The key, the same as the input it replaces. */
  name: string
  /** The default, as the input's (core/constants.ts Defaults); none: unset. */
  default?: string | number | boolean
  schema: KeySchema
  description: string
}

const flag: KeySchema = { type: 'boolean' }
const whole = (minimum: number, maximum: number): KeySchema => ({
  type: 'integer',
  minimum,
  maximum
})
const oneOf = (values: readonly string[]): KeySchema => ({
  type: 'string',
  enum: values
})
/** A YAML list of strings, or the input's one string (commas or lines). */
const list: KeySchema = {
  anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string' }]
}
/** A mapping of names to text (or, for shard-paths, lists of globs), or the input's lines. */
const named = (value: KeySchema): KeySchema => ({
  anyOf: [
    {
      type: 'object',
      propertyNames: { pattern: '^[a-z0-9][a-z0-9-]*$' },
      additionalProperties: value
    },
    { type: 'string' }
  ]
})

const key = (
  name: string,
  schema: KeySchema,
  description: string,
  fallback?: string | number | boolean
): ConfigKey => ({
  name,
  schema,
  description,
  ...(fallback === undefined ? {} : { default: fallback })
})

/** Every key of the file, in the order docs/configuration.md lists them. */
export const CONFIG_KEYS: readonly ConfigKey[] = [
  // The review
  key(
    Inputs.FailOn,
    {
      anyOf: [
        oneOf(['blocker', 'concern', 'never']),
        {
          type: 'array',
          items: oneOf(['blocker', 'concern', 'unclear', 'never'])
        },
        { type: 'string' }
      ]
    },
    "With review 'inline': fail the step on a 'blocker', a 'concern' (or blocker), or 'never'; add 'unclear' (a list, or 'blocker, unclear') to fail when the votes split.",
    Defaults.FailOn
  ),
  key(
    Inputs.CheckRun,
    flag,
    "With review 'inline': the verdict as a check run on the head commit.",
    Defaults.CheckRun
  ),
  key(
    Inputs.FindingVote,
    flag,
    'Put every grouped finding to all agents in a second, quick run; only confirmed findings count.',
    Defaults.FindingVote
  ),
  key(
    Inputs.MinAgreement,
    whole(1, 64),
    'Findings fewer agents raised (or confirmed) are left out of the inline comments and the verdict.',
    Defaults.MinAgreement
  ),
  key(
    Inputs.MinSeverity,
    oneOf(['blocker', 'concern', 'nit']),
    'The least severe finding posted in the review.',
    Defaults.MinSeverity
  ),
  key(
    Inputs.MaxInlineComments,
    whole(0, 50),
    'At most this many inline comments, the strongest first.',
    Defaults.MaxInlineComments
  ),
  key(
    Inputs.ReviewScope,
    oneOf(['incremental', 'full']),
    "'incremental' reviews what changed since the last reviewed commit; 'full' the whole pull request.",
    Defaults.ReviewScope
  ),
  key(
    Inputs.ResolveThreads,
    oneOf(['unanswered', 'answered-too', 'off']),
    "Which of the action's own fixed findings' threads are resolved.",
    Defaults.ResolveThreads
  ),
  key(
    Inputs.AllowUnread,
    list,
    "Globs of changed files the review may leave unread and still give a verdict (else 'incomplete')."
  ),
  // What the agents get
  key(
    Inputs.Include,
    list,
    "Globs of the changed files the agents get (empty: all). A glob without '/' matches the name at any depth."
  ),
  key(
    Inputs.Exclude,
    list,
    "Globs of changed files left out, on top of the defaults; '!glob' gives a file back."
  ),
  key(
    Inputs.PrContext,
    flag,
    "Give the agents the pull request's title, description, files and diff.",
    Defaults.PrContext
  ),
  key(
    Inputs.PrDiffMaxBytes,
    whole(1_000, 10_000_000),
    'Largest diff handed to the agents, in bytes.',
    Defaults.PrDiffMaxBytes
  ),
  key(
    Inputs.ProjectInstructions,
    oneOf(['base', 'none']),
    "'base': the base commit's AGENTS.md (else CLAUDE.md) goes to the agents; 'none'.",
    Defaults.ProjectInstructions
  ),
  key(
    Inputs.Personas,
    oneOf(PERSONA_MODES),
    "MassGen's persona diversity (--personas); unset: MassGen's default."
  ),
  key(
    Inputs.AgentCommands,
    { type: ['string', 'boolean'], enum: ['auto', true, false] },
    "MassGen's command tool for the agents: 'auto' (only with context-permission write), true or false.",
    Defaults.AgentCommands
  ),
  key(
    Inputs.PassEnv,
    list,
    'More environment variables handed to MassGen and the agents (secrets and runner variables are refused).'
  ),
  // Which pull requests and who
  key(
    Inputs.SkipDrafts,
    flag,
    'Draft pull requests are not reviewed.',
    Defaults.SkipDrafts
  ),
  key(
    Inputs.SkipBots,
    flag,
    'Pull requests opened by bots are not reviewed.',
    Defaults.SkipBots
  ),
  key(
    Inputs.SkipLabels,
    list,
    'A pull request with one of these labels is not reviewed.'
  ),
  key(
    Inputs.MaxChangedFiles,
    whole(1, 1_000_000),
    'A pull request changing more files gets a short summary, no review (unset: no limit).'
  ),
  key(Inputs.AllowedBots, list, "Bots allowed to start runs ('*' is refused)."),
  key(
    Inputs.AllowedUsers,
    list,
    "Logins that may start runs without write access ('*' is refused)."
  ),
  key(
    Inputs.AllowForkPullRequestTarget,
    flag,
    'Run on pull_request_target events for pull requests from forks.',
    Defaults.AllowForkPullRequestTarget
  ),
  key(
    Inputs.AcceptLocalModeRisk,
    flag,
    "Let local mode (docker false) run on events that carry other people's text.",
    Defaults.AcceptLocalModeRisk
  ),
  // The report
  key(
    Inputs.JobSummary,
    flag,
    'Write the report to the job summary.',
    Defaults.JobSummary
  ),
  key(
    Inputs.UploadLogs,
    {
      type: ['string', 'boolean'],
      enum: [true, false, 'true', 'false', 'answers-only']
    },
    "Upload MassGen's logs as an artifact: true (all), 'answers-only' or false.",
    Defaults.UploadLogs
  ),
  // The run
  key(
    Inputs.MaxDuration,
    whole(1, 6 * 60 * 60),
    'Seconds the run may take.',
    Defaults.MaxDuration
  ),
  key(
    Inputs.MaxCost,
    {
      anyOf: [
        { type: 'number', minimum: 0 },
        {
          type: 'string',
          pattern: '^(none|\\d{1,9}(\\.\\d{0,9})?|\\.\\d{1,9})$'
        }
      ]
    },
    "Cost cap per run in US dollars (MassGen's estimate), or 'none'.",
    Defaults.MaxCost
  ),
  key(
    Inputs.CheckoutCheck,
    oneOf(['stop', 'warn']),
    "A checkout that is not the pull request's head or merge commit: 'stop' or 'warn'.",
    Defaults.CheckoutCheck
  ),
  key(
    Inputs.DockerImage,
    { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._\\-/:@]*$' },
    "Image of the agents' containers in Docker mode.",
    Defaults.DockerImage
  ),
  key(
    Inputs.DockerNetwork,
    oneOf(DOCKER_NETWORKS),
    "Network of the agents' containers in Docker mode.",
    Defaults.DockerNetwork
  ),
  key(
    Inputs.MassgenVersion,
    { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+(\\.post\\d+|\\.\\d+)?$' },
    'The pinned MassGen release installed when massgen-command is empty.',
    Defaults.MassgenVersion
  ),
  key(
    Inputs.CacheMassgen,
    flag,
    'Cache the MassGen installation with the Actions cache.',
    Defaults.CacheMassgen
  ),
  key(
    Inputs.CacheSave,
    oneOf(CACHE_SAVE_POLICIES),
    'When a fresh MassGen install is saved to the cache.',
    Defaults.CacheSave
  ),
  // A matrix review (the matrix and aggregate roles read the same file)
  key(
    Inputs.ShardQuestions,
    named({ type: 'string' }),
    "Named review questions, each path shard reviewed once per question: {security: 'Find injection bugs.'}."
  ),
  key(
    Inputs.ShardPaths,
    named(list),
    "The changed files grouped by globs instead of by folder: {web: ['web/**', '*.css']}."
  ),
  key(
    Inputs.MaxShards,
    whole(1, 64),
    'At most this many shards.',
    Defaults.MaxShards
  )
]

/** The file's keys by name. */
export const CONFIG_KEY_NAMES: ReadonlySet<string> = new Set(
  CONFIG_KEYS.map((k) => k.name)
)

/** Where the schema is published, from the repository root. */
export const SCHEMA_PATH = 'schema/massgen-action.schema.json'

/** The JSON schema of the whole file, from the list above. */
export function configSchema(): Record<string, unknown> {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: `https://raw.githubusercontent.com/massgen/massgen-action/v1/${SCHEMA_PATH}`,
    title: 'massgen-action repository config (.github/massgen-action.yml)',
    description:
      'The review settings of massgen-action, read from the base commit. An input set in the workflow wins over a key here; a key left out takes its default (docs/configuration.md).',
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(
      CONFIG_KEYS.map((k) => [
        k.name,
        {
          description: k.description,
          ...k.schema,
          ...(k.default === undefined ? {} : { default: k.default })
        }
      ])
    )
  }
}
