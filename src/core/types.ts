// The values that flow through the pipeline:
// inputs + event -> context -> plan -> prepare -> run -> results -> review -> vote -> report
import type {
  Coverage,
  EarlierFinding,
  ResolveThreads,
  ReviewScope,
  Severity,
  VoteRound
} from './review.js'

export const BACKENDS = [
  'openai',
  'gemini',
  'claude',
  'grok',
  'codex',
  'claude_code',
  'chatcompletion',
  'vllm',
  'openrouter'
] as const
export type Backend = (typeof BACKENDS)[number]

/** A key holder. Each backend needs the key of one provider (vllm needs none). */
export type Provider = 'openai' | 'google' | 'anthropic' | 'xai' | 'openrouter'

/** Key values by provider. Only ever in memory and in the child's environment. */
export type ApiKeys = Partial<Record<Provider, string>>

export interface ModelSpec {
  backend: Backend
  model: string
}

export type ContextPermission = 'read' | 'write'

/**
 * What the user's setup gives every agent: the MassGen config, presets and
 * instructions, and the files they came from (inputs/user-inputs.ts).
 */
export interface UserSetup {
  /** `config`: the user's MassGen config (user-config.ts), if given. */
  userConfig: UserConfigSource | undefined
  /** `mode`: MassGen's `--quick` / `--fast` presets, or neither. */
  mode: RunMode
  /** `personas`: MassGen's `--personas` diversity mode, if given. */
  personas: PersonaMode | undefined
  /** `instructions` or the file of `instructions-file`: for every agent, every run. */
  instructions: string
  /** Paths of the files the run's setup came from (config, instructions, query). */
  setupFiles: string[]
  /**
   * Files the inputs name that are still to be read from the base commit
   * (events that carry someone else's code; base-setup.ts). Empty once read.
   */
  baseSetup: SetupFileRef[]
}

export interface Settings extends UserSetup {
  /** The question, from `query` or the file named by `query-file` (empty when a comment supplies it). */
  query: string
  /** Parsed `models`; empty means the default models of the keys present. */
  models: ModelSpec[]
  baseUrl: string | undefined
  keys: ApiKeys
  docker: boolean
  dockerImage: string
  maxDurationSeconds: number
  /** The workspace's real path (GITHUB_WORKSPACE): what context-path must stay inside. */
  workspace: string
  /**
   * Absolute and existing; confined to the workspace, link by link, before
   * the run (safety/context-path.ts), which hands on the checked real path.
   */
  contextPath: string
  contextPermission: ContextPermission
  massgenVersion: string
  /** `massgen-command` split into words; undefined means install the pinned version. */
  massgenCommand: string[] | undefined
  githubToken: string
  comment: boolean
  commentTag: string
  jobSummary: boolean
  trigger: string
  /** `label-trigger`: adding this label to a pull request starts a run ('' = off). */
  labelTrigger: string
  allowedBots: string[]
  /** Logins that may start runs without write access (never `*`). */
  allowedUsers: string[]
  /** pull_request_target runs from forks go ahead only when this is set. */
  allowForkPullRequestTarget: boolean
  issueNumber: number | undefined
  prContext: boolean
  /**
   * `project-instructions`: the repository's AGENTS.md (or CLAUDE.md) read
   * from the base commit and given as the maintainers' text, or none.
   */
  projectInstructions: 'base' | 'none'
  prDiffMaxBytes: number
  uploadLogs: boolean
  /** Which log files the artifact holds (`upload-logs: answers-only`). */
  uploadLogsScope: 'all' | 'answers-only'
  /** `expected-head-sha`: the pull request head the workflow checked out. */
  expectedHeadSha: string | undefined
  /**
   * `checkout-check`: on a pull request, a checkout that is neither its head
   * nor its merge commit stops the run ('stop') or is a warning ('warn').
   */
  checkoutCheck: 'stop' | 'warn'
  cacheMassgen: boolean
  /** `cache-save`: when a fresh install is saved (prepare/install/deferred-save.ts). */
  cacheSave: CacheSavePolicy
  /** Local mode: run MassGen in the namespace sandbox (safety/sandbox.ts). */
  localSandbox: boolean
  /** Local mode may run on events that carry other people's text. */
  acceptLocalModeRisk: boolean
  /** Network of the agents' containers in Docker mode. */
  dockerNetwork: DockerNetwork
  /** `max-cost` in USD: MassGen is stopped once its estimate reaches it. */
  maxCost: number | undefined
  /** `include`: globs a changed file must match to reach the agents (empty: all). */
  include: string[]
  /** `exclude`: globs left out after the defaults; `!glob` gives a file back. */
  exclude: string[]
  /**
   * `allow-unread`: globs of changed files the review may leave unread
   * without its verdict turning `incomplete` (review/coverage.ts).
   */
  allowUnread: string[]
  /** `review: inline` posts a pull-request review of the agents' findings. */
  review: 'off' | 'inline'
  /** `fail-on`: the verdict that fails the step after the report. */
  failOn: 'blocker' | 'concern' | 'never'
  /** `fail-on` names `unclear`: a split vote fails the step too. */
  failOnUnclear: boolean
  /** `check-run`: the verdict as a check run on the head commit (review inline). */
  checkRun: boolean
  /** `min-agreement`: agents needed for a finding to be posted inline and to count. */
  minAgreement: number
  /** `finding-vote`: every finding put to the agents' vote (review/vote.ts). */
  findingVote: boolean
  /** `min-severity`: findings less severe stay out of the review (summary only). */
  minSeverity: Severity
  /** `max-inline-comments`: the strongest findings inline, the rest held back. */
  maxInlineComments: number
  /** MassGen's command tool for the agents; `auto`: plan.ts agentCommandsOn. */
  agentCommands: boolean | 'auto'
  /** `pass-env`: more variable names handed to MassGen (safety/child-env.ts). */
  passEnv: readonly string[]
  /** `review-scope`: review only the changes since the last review, or all. */
  reviewScope: 'incremental' | 'full'
  /** `resolve-threads`: which of our fixed findings' threads are resolved. */
  resolveThreads: ResolveThreads
  /** `skip-drafts`: draft pull requests wait until marked ready for review. */
  skipDrafts: boolean
  /** `skip-bots`: pull requests opened by bots are not reviewed. */
  skipBots: boolean
  /** `skip-labels`: a pull request with one of these labels is not reviewed (lower case). */
  skipLabels: string[]
  /** `max-changed-files`: above it the agents give a summary, no review. */
  maxChangedFiles: number | undefined
}

export const RUN_MODES = ['full', 'quick', 'fast'] as const
export type RunMode = (typeof RUN_MODES)[number]

/** MassGen 0.1.97's `--personas` choices (cli/mode_flags.py). */
export const PERSONA_MODES = [
  'off',
  'perspective',
  'implementation',
  'methodology'
] as const
export type PersonaMode = (typeof PERSONA_MODES)[number]

/** A file an input names, to be read from the base commit. */
export interface SetupFileRef {
  /** The input that names it (`config`, `instructions-file`, `query-file`). */
  input: string
  /** Repository-relative, `/`-separated. */
  path: string
  maxBytes: number
}

/** The parsed `config` input and where it came from, for messages. */
export interface UserConfigSource {
  config: Record<string, unknown>
  /** `inline` or the workspace-relative file path. */
  origin: string
}

/** `auto`: `bridge` for the coding agents (they call their API from the container), `none` for the rest. */
export const DOCKER_NETWORKS = ['auto', 'none', 'bridge', 'host'] as const
export type DockerNetwork = (typeof DOCKER_NETWORKS)[number]

/** Someone the event names as acting: a GitHub login, and whether it is a bot. */
export interface Actor {
  login: string
  isBot: boolean
}

/** What started the run, read from the event payload. */
export type Trigger =
  | {
      kind: 'pull_request'
      /** pull_request or pull_request_target. */
      eventName: string
      number: number
      /** Who caused the event (`sender`): the one whose permission counts. */
      actor: Actor
      /** Who opened the pull request. */
      author: string
      /** Head repository differs from the base one. */
      fromFork: boolean
      authorIsBot: boolean
      /** The head commit this event is for (40 hex), when the payload has one. */
      headSha?: string
      /** The label's name, on a `labeled` event (untrusted: anyone with triage names labels). */
      labeled?: string
      /** The event's `action` (`opened`, `ready_for_review`, ...). */
      action?: string
      /** The pull request as the event saw it, for the skip rules (event/pull-skips.ts). */
      draft?: boolean
      state?: string
      locked?: boolean
      /** Its labels' names (untrusted). */
      labels?: string[]
    }
  | {
      kind: 'comment'
      eventName: 'issue_comment'
      issueNumber: number
      isPullRequest: boolean
      commentId: number
      author: string
      authorIsBot: boolean
      /** Comment body as posted (untrusted). */
      body: string
      /** When GitHub says the comment was made (ISO 8601), if the payload has it. */
      createdAt?: string
    }
  | ReviewCommentTrigger
  | {
      /** schedule and workflow_dispatch: starting them already needs write access. */
      kind: 'manual'
      eventName: string
      issueNumber: number | undefined
    }
  | {
      /**
       * Any other event (issues, pull_request_review, workflow_run, push,
       * ...): runs only when everyone it names as acting may start runs.
       */
      kind: 'event'
      eventName: string
      /** Issue or pull request the event is about, for the report. */
      issueNumber: number | undefined
      actors: Actor[]
    }
  | {
      /** An event the action does not act on (an edited comment, ...). */
      kind: 'ignored'
      eventName: string
      reason: string
    }

/** A new comment in a pull request's review-comment thread (on a diff line). */
export interface ReviewCommentTrigger {
  kind: 'review_comment'
  eventName: 'pull_request_review_comment'
  pullNumber: number
  commentId: number
  /** The thread's first comment: replies go to it (GitHub takes no reply to a reply). */
  threadId: number
  /** The comment's author and the event's sender: each must be allowed. */
  actors: Actor[]
  /** Comment body as posted (untrusted). */
  body: string
  createdAt?: string
  /** The file, lines and diff hunk the thread is on (written by the PR's author). */
  path: string
  line: number | undefined
  startLine: number | undefined
  side: string | undefined
  diffHunk: string
  /** Head repository differs from the base one (no secrets on such runs). */
  fromFork: boolean
}

export interface AgentPlan {
  id: string
  backend: Backend
  model: string
  /** Names (never values) of the environment variables holding its key. */
  keyEnvVars: string[]
}

export type Outcome =
  | 'success'
  | 'failed'
  | 'timeout'
  | 'cost-limit'
  | 'config-error'
  | 'skipped'
  | 'cancelled'

export interface AgentResult {
  id: string
  backend?: Backend
  model?: string
  /** Anonymous label of its latest answer, e.g. `agent1.2`. */
  answerLabel?: string
  status: string
  votesReceived: number
  /** Real agent id it voted for. */
  votedFor?: string
  voteReason?: string
  error?: string
  /**
   * The provider's error when a request of this agent was over its model's
   * context (HTTP 400, results/context-overflow.ts): hostile text.
   */
  contextOverflow?: string
  /** Latest answer text from its answer files. */
  answer?: string
  answerCount: number
}

/** One part of the setup before MassGen starts (prepare/setup.ts). */
export interface SetupPhase {
  name: string
  /** Seconds from the setup's start. */
  start: number
  end: number
}

export interface SetupTimings {
  phases: SetupPhase[]
  /** Seconds from the setup's start to the end of its last phase. */
  criticalPath: number
}

/** Where a run's time went (report/timings.ts renders it in the job summary). */
export interface RunTimings {
  setup?: SetupTimings
  /** MassGen's spawn to its first status file: the import and start-up. */
  massgenStart?: number
  /** The first status file to MassGen's exit: the rounds. */
  rounds?: number
  /** MassGen's exit to the report: clean-up, logs artifact, review. */
  report?: number
  /** performance.now() at MassGen's exit, to measure `report` from. */
  massgenEndedAt?: number
}

/** `cache-save`: when a fresh MassGen install is saved to the Actions cache. */
export const CACHE_SAVE_POLICIES = ['auto', 'always', 'never'] as const
export type CacheSavePolicy = (typeof CACHE_SAVE_POLICIES)[number]

export type Decision =
  | { readonly kind: 'consensus' }
  | { readonly kind: 'tie'; readonly agents: string[]; readonly votes: number }
  | { readonly kind: 'no-votes' }

export interface RunResult {
  readonly outcome: Outcome
  /** Why, when the outcome is not success: shown to the user. */
  readonly reason?: string
  readonly question: string
  readonly exitCode: number | null
  readonly signal?: string
  readonly winner?: string
  /**
   * How the votes named the winner (results/results.ts): a majority, a tie
   * MassGen broke, or no vote at all (MassGen still names one).
   */
  readonly decision?: Decision
  readonly winnerAnswer?: string
  readonly agents: AgentResult[]
  /** Votes by answer label, as status.json keeps them. */
  readonly votes: Record<string, number>
  readonly elapsedSeconds?: number
  readonly cost?: number
  readonly inputTokens?: number
  readonly outputTokens?: number
  readonly logDir?: string
  readonly statusFile?: string
  readonly answerFile?: string
  readonly configFile?: string
  /** MassGen's validation errors on exit 1. */
  readonly configErrors?: string[]
  /** The phase reached, for partial results. */
  readonly phase?: string
  /** Which `mode` ran (and `personas`, if set), for the report. */
  readonly mode?: RunMode
  readonly personas?: PersonaMode
  /** Docker mode: the agents' image as it ran, by digest when it has one. */
  /** Where the run's time went (report/timings.ts), for the job summary. */
  readonly timings?: RunTimings
  readonly dockerImage?: string
  /** `review: inline` with `finding-vote`: the vote round on the findings. */
  readonly findingVote?: VoteRound
  /** The pull request the run reviewed, as read before the run. */
  readonly pullRequest?: ReviewedPull
  /**
   * Paths each agent read through its read tools (MassGen's events.jsonl);
   * undefined when MassGen left no record of its tool calls.
   */
  readonly filesRead?: Record<string, string[]>
  /** Its size, how its diff was read and its steering files, for the report. */
  readonly pullFacts?: PullFacts
}

/** Whether the pull request changes files that steer CI or reviews (context/steering-files.ts). */
export type SteeringCheck =
  | { state: 'none' }
  | { state: 'changed'; files: string[] }
  /** Not every changed file is named: treated as changed. */
  | { state: 'unknown'; files: string[]; listed: number; changed: number }

/** What the report says of the pull request the agents got (report/pull-facts.ts). */
export interface PullFacts {
  /** As GitHub counts them (`changed_files`). */
  changedFiles: number
  /** Named by GitHub's files list (at most 3,000). */
  listedFiles: number
  /** GitHub refused the diff (406): rebuilt from the files list. */
  diffRebuilt: boolean
  steering: SteeringCheck
  /** More files than `max-changed-files`: the agents summarised, no review. */
  summaryOnly?: { max: number }
}

/** What the review step needs of the pull request, read before the run. */
export interface ReviewedPull {
  number: number
  headSha: string
  /** The base commit: recorded in the review, checked by the next run's scope. */
  baseSha?: string
  diff: string
  diffTruncated: boolean
  /** Changed files, removed ones left out. */
  files: string[]
  /** Its title and description: the author's own words, not evidence. */
  ownTexts: string[]
  /** Earlier runs' open findings and this run's scope (context/review-scope.ts). */
  across?: AcrossPushes
  /** What the review reads of the change and what it does not (review/coverage.ts). */
  coverage?: Coverage
}

/** What a review knows of the runs before it. */
export interface AcrossPushes {
  scope: ReviewScope
  /** Undefined when the threads could not be read (the report says so). */
  earlier: EarlierFinding[] | undefined
}
