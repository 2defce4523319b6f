// The loopback GitHub's world: the repository, its issues, pulls, comments,
// reactions and collaborators, and the faults a test can queue. Plain data,
// so a test or a JSON file (`--state`) can set it up.

export type Role = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none'
export interface ServerUser {
  login: string
  id: number
  type: 'User' | 'Bot'
}
export interface ServerApp {
  id: number
  slug: string
  name: string
}
export interface ServerComment {
  id: number
  issueNumber: number
  body: string
  user: ServerUser
  createdAt: string
  updatedAt: string
  app: ServerApp | null
}
export interface ServerReaction {
  id: number
  commentId: number
  content: string
  user: ServerUser
}
export interface ServerFile {
  filename: string
  status: string
  additions: number
  deletions: number
  /** The file's hunks; GitHub leaves it out for binary files and very large diffs. */
  patch?: string
  previousFilename?: string
}
export interface ServerPull {
  title: string
  body: string | null
  author: ServerUser
  base: { ref: string; sha: string; repo: string }
  head: { ref: string; sha: string; repo: string | null }
  files: ServerFile[]
  diff: string
  /** GitHub's test merge commit (`merge_commit_sha`); default null. */
  mergeCommitSha?: string
  /**
   * GitHub answers 406 for diffs over 300 files or 20,000 lines (the route
   * counts `files`); true forces it for a smaller pull request.
   */
  diffTooLarge?: boolean
  /** GET /pulls/{n}: `draft`, `locked`, `state` (default false, false, open). */
  draft?: boolean
  locked?: boolean
  state?: 'open' | 'closed'
  labels?: string[]
  /** The head commit's committer date (GET /commits/{sha}); default 2025-11-28T09:00:00Z. */
  headCommittedAt?: string
  /** Timeline items (GET /issues/{n}/timeline), e.g. head_ref_force_pushed. */
  timeline?: Array<{ event: string; created_at: string }>
}
export interface ServerState {
  owner: string
  repo: string
  /** Base of html_url links. */
  serverUrl: string
  /** The account the token acts as: author of everything it writes. */
  identity: ServerUser
  /** `GET /user`: 'forbidden' is what GITHUB_TOKEN and app tokens get. */
  userEndpoint: 'ok' | 'forbidden'
  /** The app that writes for the token, as comments report it. */
  app: ServerApp | null
  /** Issue numbers that exist (pull numbers exist too). */
  issues: number[]
  comments: ServerComment[]
  /** Pull request review comments (threads on diff lines). */
  reviewComments: ServerReviewComment[]
  reactions: ServerReaction[]
  /**
   * Collaborator roles by login; an unknown login answers 404. A custom
   * role gives its name and the base permission GitHub reports with it.
   */
  permissions: Record<
    string,
    Role | { role_name: string; permission: 'admin' | 'write' | 'read' }
  >
  pulls: Record<string, ServerPull>
  /**
   * Repository files by commit, for GET /contents/{path}?ref=: e.g.
   * `{ [baseSha]: { '.gitattributes': '...' } }`. Absent: 404. A value may
   * be a link (`{ symlink: 'target/path' }`) or a submodule
   * (`{ submodule: 'https://...git' }`); a path with files below it is a folder.
   */
  files?: Record<string, Record<string, ServerTreeEntry>>
  /** The repository's default branch (GET /repos/{owner}/{repo}); default main. */
  defaultBranch?: string
  /** The commit each branch is at (GET /git/ref/heads/{branch}); a branch not given answers 404. */
  branches?: Record<string, string>
  /** Pull-request reviews (github-reviews.ts), pending ones included. */
  reviews: ServerReview[]
  /** Check runs (github-checks.ts), their annotations appended per request. */
  checkRuns: ServerCheckRun[]
  /**
   * The token's `checks` permission: 'none' refuses every checks route (403,
   * as GITHUB_TOKEN without it), 'read' only the writes.
   */
  checksPermission: 'write' | 'read' | 'none'
  /** The commit graph compare answers from (github-compare.ts). */
  commits?: Record<string, { parents: string[] }>
  /** The diff GET /compare/{base}...{head} gives, by `base...head`. */
  compareDiffs?: Record<string, string>
  /**
   * When each attempt of a workflow run started (`run_started_at`), by
   * `<run_id>/<attempt>`; an attempt not given answers 404.
   */
  runAttempts?: Record<string, string>
  nextId: number
}
export interface ServerCheckAnnotation {
  path: string
  start_line: number
  end_line: number
  annotation_level: string
  message: string
  title?: string
  raw_details?: string
}
export interface ServerCheckRun {
  id: number
  name: string
  headSha: string
  externalId: string | null
  status: string
  conclusion: string | null
  detailsUrl: string | null
  startedAt: string
  completedAt: string | null
  output: { title: string | null; summary: string | null; text: string | null }
  annotations: ServerCheckAnnotation[]
  /** The app that wrote it: GitHub lets only that app update it. */
  appId: number
}
/** A file's text, a link or a submodule in a commit's tree. */
export type ServerTreeEntry =
  string | { symlink: string } | { submodule: string }

export interface ServerReview {
  id: number
  pullNumber: number
  user: ServerUser
  body: string
  /** PENDING (no event given), COMMENTED, APPROVED or CHANGES_REQUESTED. */
  state: string
  /** The event the request asked for, as sent (undefined: pending). */
  event: string | undefined
  commitId: string
  submittedAt: string | null
}
/**
 * A review comment: posted in a review (github-reviews.ts) or in a thread
 * (github-review-comments.ts), one shape for both.
 */
export interface ServerReviewComment {
  id: number
  /** The review it was posted in; null for one put straight into the state. */
  reviewId: number | null
  pullNumber: number
  user: ServerUser
  path: string
  /** Line on the `side` of the diff (null for an outdated comment). */
  line: number | null
  side: 'LEFT' | 'RIGHT'
  startLine: number | null
  startSide: 'LEFT' | 'RIGHT' | null
  body: string
  commitId: string
  /** The diff hunk GitHub shows above the comment. */
  diffHunk?: string
  /** The thread's first comment, for replies. */
  inReplyToId?: number
  /** The line it was made on, once a push made it outdated (line null). */
  originalLine?: number | null
  /** A thread's first comment: resolved, and by whom (github-graphql.ts). */
  resolvedBy?: string
  createdAt: string
  updatedAt?: string
}
export interface Fault {
  status: number
  headers?: Record<string, string>
  body?: unknown
}

/** GitHub's limit on issue comment bodies, in characters. */
export const BODY_LIMIT = 65_536
export const DOCS = 'https://docs.github.com/rest'

export const faults = {
  serverError: (status = 500): Fault => ({
    status,
    body: { message: 'Server Error' }
  }),
  secondaryRateLimit: (retryAfter = 1, status = 403): Fault => ({
    status,
    headers: { 'retry-after': String(retryAfter) },
    body: {
      message:
        'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
      documentation_url: `${DOCS}/overview/rate-limits-for-the-rest-api`
    }
  }),
  primaryRateLimit: (resetInSeconds = 1, status = 403): Fault => ({
    status,
    headers: {
      'retry-after': String(resetInSeconds),
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-used': '5000',
      'x-ratelimit-resource': 'core',
      'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + resetInSeconds)
    },
    body: {
      message: 'API rate limit exceeded for installation ID 1.',
      documentation_url: `${DOCS}/overview/rate-limits-for-the-rest-api`
    }
  }),
  notFound: (): Fault => ({ status: 404, body: { message: 'Not Found' } }),
  forbidden: (): Fault => ({
    status: 403,
    body: { message: 'Resource not accessible by integration' }
  })
}

const GITHUB_ACTIONS: ServerUser = {
  login: 'github-actions[bot]',
  id: 41898282,
  type: 'Bot'
}

export function defaultState(): ServerState {
  return {
    owner: 'octo-org',
    repo: 'octo-repo',
    serverUrl: 'https://github.com',
    identity: GITHUB_ACTIONS,
    userEndpoint: 'forbidden',
    app: { id: 15368, slug: 'github-actions', name: 'GitHub Actions' },
    issues: [1],
    comments: [],
    reviewComments: [],
    reactions: [],
    // The maintainer the event fixtures and the sample pull request name:
    // the permission gate lets their pull request events through.
    permissions: { 'alice-maintainer': 'maintain' },
    pulls: {},
    reviews: [],
    checkRuns: [],
    checksPermission: 'write',
    nextId: 1000
  }
}

/** Put a comment straight into the state, as if posted earlier. */
export function addComment(
  state: ServerState,
  issueNumber: number,
  body: string,
  user: ServerUser = state.identity,
  app: ServerApp | null = user === state.identity ? state.app : null
): ServerComment {
  const t = '2025-11-28T10:00:00Z'
  const comment: ServerComment = {
    id: state.nextId++,
    issueNumber,
    body,
    user,
    createdAt: t,
    updatedAt: t,
    app
  }
  state.comments.push(comment)
  return comment
}
