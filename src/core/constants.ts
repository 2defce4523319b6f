// Every name the runner sees (inputs, outputs, state) lives here, once.

/**
 * Every name a workflow may set: the 30 action.yml declares, and the keys of
 * the repository config file (inputs/config-keys.ts), which still work as
 * inputs with a deprecation warning (inputs/settings-file.ts).
 */
export const Inputs = {
  Query: 'query',
  QueryFile: 'query-file',
  Models: 'models',
  BaseUrl: 'base-url',
  OpenaiApiKey: 'openai-api-key',
  GeminiApiKey: 'gemini-api-key',
  AnthropicApiKey: 'anthropic-api-key',
  XaiApiKey: 'xai-api-key',
  OpenrouterApiKey: 'openrouter-api-key',
  Config: 'config',
  Mode: 'mode',
  Instructions: 'instructions',
  InstructionsFile: 'instructions-file',
  Personas: 'personas',
  Docker: 'docker',
  DockerImage: 'docker-image',
  MaxDuration: 'max-duration',
  ContextPath: 'context-path',
  ContextPermission: 'context-permission',
  MassgenVersion: 'massgen-version',
  MassgenCommand: 'massgen-command',
  GithubToken: 'github-token',
  Comment: 'comment',
  CommentTag: 'comment-tag',
  JobSummary: 'job-summary',
  Trigger: 'trigger',
  LabelTrigger: 'label-trigger',
  AllowedBots: 'allowed-bots',
  AllowedUsers: 'allowed-users',
  AllowForkPullRequestTarget: 'allow-fork-pull-request-target',
  IssueNumber: 'issue-number',
  PrContext: 'pr-context',
  ProjectInstructions: 'project-instructions',
  PrDiffMaxBytes: 'pr-diff-max-bytes',
  UploadLogs: 'upload-logs',
  ExpectedHeadSha: 'expected-head-sha',
  CheckoutCheck: 'checkout-check',
  CacheMassgen: 'cache-massgen',
  CacheSave: 'cache-save',
  LocalSandbox: 'local-sandbox',
  AcceptLocalModeRisk: 'accept-local-mode-risk',
  DockerNetwork: 'docker-network',
  MaxCost: 'max-cost',
  Include: 'include',
  Exclude: 'exclude',
  AllowUnread: 'allow-unread',
  Review: 'review',
  FailOn: 'fail-on',
  CheckRun: 'check-run',
  MinAgreement: 'min-agreement',
  FindingVote: 'finding-vote',
  MinSeverity: 'min-severity',
  MaxInlineComments: 'max-inline-comments',
  AgentCommands: 'agent-commands',
  PassEnv: 'pass-env',
  ReviewScope: 'review-scope',
  ResolveThreads: 'resolve-threads',
  SkipDrafts: 'skip-drafts',
  SkipBots: 'skip-bots',
  SkipLabels: 'skip-labels',
  MaxChangedFiles: 'max-changed-files',
  Role: 'role',
  Shard: 'shard',
  ShardQuestions: 'shard-questions',
  ShardPaths: 'shard-paths',
  MaxShards: 'max-shards',
  ShardResults: 'shard-results',
  ShardsResult: 'shards-result'
} as const

export const Outputs = {
  Status: 'status',
  Winner: 'winner',
  Answer: 'answer',
  AnswerFile: 'answer-file',
  Votes: 'votes',
  ExitCode: 'exit-code',
  LogDir: 'log-dir',
  StatusFile: 'status-file',
  ConfigFile: 'config-file',
  DurationSeconds: 'duration-seconds',
  Cost: 'cost',
  CommentUrl: 'comment-url',
  ArtifactUrl: 'artifact-url',
  HeadSha: 'head-sha',
  Verdict: 'verdict',
  Findings: 'findings',
  FindingsFile: 'findings-file',
  SarifFile: 'sarif-file',
  CheckRunUrl: 'check-run-url',
  Matrix: 'matrix',
  ShardFile: 'shard-file'
} as const

/** Saved by the main step for the post step, only through core/step-state.ts. */
export const State = {
  Reported: 'reported',
  IssueNumber: 'issue-number',
  Comment: 'comment',
  CommentTag: 'comment-tag',
  JobSummary: 'job-summary',
  WorkDir: 'work-dir',
  LogDir: 'log-dir',
  Docker: 'docker',
  Started: 'started',
  MassgenPid: 'massgen-pid',
  /** The saved pid's start time and command line, to know it is still MassGen. */
  MassgenIdentity: 'massgen-identity',
  /** The vote round's MassGen started warm (vote/warm-ballot.ts), and its start time. */
  WarmMassgenPid: 'warm-massgen-pid',
  WarmMassgenIdentity: 'warm-massgen-identity',
  /** Credentials taken out of the repository's git config, to put back. */
  GitCredentials: 'git-credentials',
  /** A fresh MassGen install for the post step to save (prepare/install/deferred-save.ts). */
  MassgenCacheSave: 'massgen-cache-save',
  /** Saved first by the main step: the same bundle then runs as the post step. */
  IsPost: 'is-post'
} as const

/**
 * Every input's and config key's default, keyed as Inputs is: the code's one
 * copy of action.yml's defaults and of the config file's schema
 * (__tests__/unit/input-defaults.test.ts holds them, action.yml, the schema,
 * the README's table and docs/configuration.md equal). A name without an
 * entry has no default.
 */
export const Defaults = {
  Mode: 'full',
  Docker: true,
  DockerImage: 'ghcr.io/massgen/mcp-runtime-sudo:latest',
  DockerNetwork: 'auto',
  LocalSandbox: true,
  AcceptLocalModeRisk: false,
  MaxDuration: 1800,
  /**
   * US dollars a run: a few times a small review's estimated cost
   * (docs/benchmarks.md, "A default budget"); 'none' runs without a cap.
   */
  MaxCost: 5,
  ContextPermission: 'read',
  AgentCommands: 'auto',
  MassgenVersion: '0.1.97',
  Comment: true,
  CommentTag: 'massgen',
  JobSummary: true,
  Trigger: '/massgen',
  SkipDrafts: true,
  SkipBots: false,
  AllowForkPullRequestTarget: false,
  PrContext: true,
  ProjectInstructions: 'base',
  PrDiffMaxBytes: 200_000,
  UploadLogs: 'true',
  CheckoutCheck: 'stop',
  CacheMassgen: true,
  CacheSave: 'auto',
  Review: 'off',
  FailOn: 'never',
  CheckRun: true,
  MinAgreement: 1,
  /**
   * The review's noise limits and its vote (README, "Inline review"): a
   * finding below `concern` (a nit) is not posted, as Gemini Code Assist's
   * default threshold (MEDIUM) drops LOW ones; at most 10 inline comments,
   * as a team that counted 46 bot findings on one pull request acted on 8.
   */
  FindingVote: true,
  MinSeverity: 'concern',
  MaxInlineComments: 10,
  ReviewScope: 'incremental',
  ResolveThreads: 'unanswered',
  Role: 'run',
  /**
   * 4 shards of a matrix review (src/shards/, docs/matrix-review.md), since a
   * free plan runs 20 jobs at once and a provider's rate limit is shared by
   * every shard's agents.
   */
  MaxShards: 4
} as const satisfies Partial<
  Record<keyof typeof Inputs, string | number | boolean>
>

/** A review fanned out over a job matrix: 64 shards at most. */
export const ShardDefaults = {
  maxShardsCap: 64,
  /** The matrix job's plan for the shards (no shard id can make this name). */
  planArtifact: 'massgen-shards-plan'
} as const

/** The default models: one strong model per provider whose key is given (README, "Models"). */
export const DefaultModels = {
  openai: 'gpt-5.4',
  gemini: 'gemini-3.1-pro-preview',
  claude: 'claude-opus-4-6',
  // MassGen 0.1.97's own default (backend/capabilities.py).
  grok: 'grok-4.20-0309-reasoning',
  /**
   * With only an OpenRouter key: the default OpenAI + Gemini pair under
   * OpenRouter's `vendor/model` names (openrouter.ai/models).
   */
  openrouter: ['openai/gpt-5.4', 'google/gemini-3.1-pro-preview']
} as const

/** GitHub rejects issue comment bodies longer than this. */
export const GitHubCommentLimit = 65_536

/** The action's own deadline is max-duration plus at most this grace. */
export const DeadlineGraceSeconds = 60
/** After SIGINT, how long MassGen gets to flush status.json before SIGKILL. */
export const InterruptGraceMs = 5_000
