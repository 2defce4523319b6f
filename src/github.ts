// The GitHub door: every GitHub API call the action makes goes through the
// narrow interface below, built once in main and passed in where needed.
import { randomUUID } from 'node:crypto'
import * as core from '@actions/core'
import { getOctokit } from '@actions/github'
import { retry } from '@octokit/plugin-retry'
import { throttling } from '@octokit/plugin-throttling'
import { GitHubCommentLimit } from './constants.js'

export type Permission =
  'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none'
export type ReactionContent = '+1' | '-1' | 'eyes' | 'rocket' | 'confused'

export interface StickyComment {
  id: number
  url: string
  body: string
}
export interface ChangedFile {
  filename: string
  status: string
  additions: number
  deletions: number
}
export interface PullRequestContext {
  number: number
  title: string
  body: string
  baseRef: string
  baseSha: string
  headRef: string
  headSha: string
  /** `owner/name` of the head repository; undefined when the fork is gone. */
  headRepo: string | undefined
  files: ChangedFile[]
  /** Unified diff, cut at a line boundary to at most maxDiffBytes. */
  diff: string
  /** The diff was cut, or GitHub refused to produce it (too large). */
  diffTruncated: boolean
}

export interface GitHubDoor {
  readonly owner: string
  readonly repo: string
  findStickyComment(
    issueNumber: number,
    tag: string
  ): Promise<StickyComment | undefined>
  upsertStickyComment(
    issueNumber: number,
    tag: string,
    body: string
  ): Promise<{ id: number; url: string }>
  addReaction(commentId: number, content: ReactionContent): Promise<number>
  removeReaction(commentId: number, reactionId: number): Promise<void>
  getPermission(username: string): Promise<Permission>
  getPullRequestContext(
    number: number,
    maxDiffBytes: number
  ): Promise<PullRequestContext>
}

export type GitHubErrorKind =
  'not-found' | 'forbidden' | 'body-too-long' | 'rate-limited' | 'failed'

/** A failed API call, with a `kind` callers can branch on. */
export class GitHubError extends Error {
  readonly kind: GitHubErrorKind
  readonly status: number | undefined
  constructor(kind: GitHubErrorKind, message: string, status?: number) {
    super(message)
    this.name = 'GitHubError'
    this.kind = kind
    this.status = status
  }
}

export interface GitHubLog {
  info(message: string): void
  warning(message: string): void
  debug(message: string): void
}

export interface GitHubOptions {
  token: string
  owner: string
  repo: string
  /** Defaults to GITHUB_API_URL, then https://api.github.com. */
  apiUrl?: string
  log?: GitHubLog
  /**
   * Login the token writes as when `GET /user` is refused (installation
   * tokens). Defaults to `github-actions[bot]`, the GITHUB_TOKEN's author.
   */
  botLogin?: string
  /** Retry tuning; tests shrink the waits. */
  timing?: {
    /** Milliseconds per second of Retry-After and of backoff. Default 1000. */
    retryAfterBaseMs?: number
    /** Retries per request. Default 3. */
    retries?: number
    /** Never sleep longer than this for a rate limit. Default 120. */
    maxWaitSeconds?: number
    /** Writes that go at once before spacing starts. Default WRITE_BURST. */
    writeBurst?: number
    /** Spacing of writes after the burst, in ms. Default 1000. */
    writeSpacingMs?: number
  }
}

/**
 * Writes (comment, reactions) the action makes with no wait between them.
 * A run makes about five: the progress comment, its updates (20 s apart at
 * most), the report and two reactions. The throttling plugin's default
 * spaces every write 1 s from the last, which held the final report and the
 * reactions back by up to 3 s; GitHub asks for that spacing only for "a
 * large number" of writes. Past the burst, writes are spaced as before, and
 * a secondary rate limit is still honoured through onSecondaryRateLimit.
 */
export const WRITE_BURST = 8

/**
 * Stands in for the plugin's Bottleneck group of writes (it only calls
 * `key(id).schedule(options, fn)`): one write at a time, the first `burst`
 * at once, then at least `spacingMs` apart.
 */
function writeLimiter(burst: number, spacingMs: number) {
  let queue: Promise<unknown> = Promise.resolve()
  let count = 0
  let last = 0
  const limiter = {
    schedule<T>(_options: unknown, task: () => Promise<T>): Promise<T> {
      const run = queue.then(async () => {
        count++
        const wait = count > burst ? last + spacingMs - Date.now() : 0
        if (wait > 0) await new Promise((r) => setTimeout(r, wait))
        last = Date.now()
        return task()
      })
      queue = run.catch(() => undefined)
      return run
    }
  }
  return { key: () => limiter }
}

/** The hidden marker that names the sticky comment of one comment-tag. */
export function stickyMarker(tag: string): string {
  // Only characters that cannot end the HTML comment or the tag itself.
  const safe = tag.replace(/[^A-Za-z0-9._-]/g, '_').replace(/-{2,}/g, '-')
  return `<!-- massgen-action:sticky tag=${safe} -->`
}

/** Number of this run attempt (GITHUB_RUN_ATTEMPT), 1 when unknown. */
export function runAttempt(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.GITHUB_RUN_ATTEMPT)
  return Number.isInteger(n) && n >= 1 ? n : 1
}

/** Link to this workflow run (and attempt, after a re-run), if known. */
export function runUrl(
  env: NodeJS.ProcessEnv = process.env
): string | undefined {
  const server = (env.GITHUB_SERVER_URL || 'https://github.com').replace(
    /\/+$/,
    ''
  )
  const repository = env.GITHUB_REPOSITORY
  const id = env.GITHUB_RUN_ID
  if (!repository || !id || !/^\d+$/.test(id)) return undefined
  const attempt = runAttempt(env)
  const suffix = attempt > 1 ? `/attempts/${attempt}` : ''
  return `${server}/${repository}/actions/runs/${id}${suffix}`
}

/** Cut a diff to maxBytes of UTF-8 at the last whole line. */
export function cutDiff(
  diff: string,
  maxBytes: number
): { diff: string; truncated: boolean } {
  const bytes = Buffer.from(diff, 'utf8')
  if (bytes.length <= maxBytes) return { diff, truncated: false }
  const head = bytes.subarray(0, Math.max(0, maxBytes)).toString('utf8')
  const nl = head.lastIndexOf('\n')
  // Without a newline, drop a character split by the byte cut.
  const cut = nl >= 0 ? head.slice(0, nl + 1) : head.replace(/\uFFFD$/, '')
  return { diff: cut, truncated: true }
}

interface ErrorLike {
  status?: number
  message?: string
  response?: { data?: unknown; headers?: Record<string, unknown> }
}

function statusOf(e: unknown): number | undefined {
  const s = (e as ErrorLike | undefined)?.status
  return typeof s === 'number' ? s : undefined
}

function isRateLimit(e: unknown): boolean {
  const err = e as ErrorLike
  return (
    /rate limit/i.test(err?.message ?? '') ||
    err?.response?.headers?.['x-ratelimit-remaining'] === '0'
  )
}

function apiMessage(e: unknown): string {
  const data = (e as ErrorLike)?.response?.data as
    { message?: string; errors?: { message?: string }[] } | undefined
  const detail = data?.errors?.map((x) => x.message).filter(Boolean)
  const message = data?.message ?? (e as Error)?.message ?? String(e)
  return detail?.length ? `${message}: ${detail.join('; ')}` : message
}

/** Turn an Octokit error into a GitHubError that says what to do. */
function wrap(e: unknown, what: string, hint = ''): GitHubError {
  const status = statusOf(e)
  const said = `${what} failed (${status ?? 'no response'}: ${apiMessage(e)})`
  if ((status === 403 || status === 429) && isRateLimit(e)) {
    return new GitHubError('rate-limited', `${said}. GitHub rate limit`, status)
  }
  if (status === 404) return new GitHubError('not-found', said, status)
  if (status === 401 || status === 403) {
    return new GitHubError('forbidden', `${said}.${hint}`, status)
  }
  if (status === 422 && /too long/i.test(apiMessage(e))) {
    const limit = `GitHub's limit is ${GitHubCommentLimit} characters`
    return new GitHubError('body-too-long', `${said}. ${limit}`, status)
  }
  return new GitHubError('failed', said, status)
}

const WRITE_HINT =
  ' The token needs `issues: write` and `pull-requests: write` in the' +
  " workflow's `permissions:`."

const ROLES: Permission[] = [
  'admin',
  'maintain',
  'write',
  'triage',
  'read',
  'none'
]
function toPermission(role: unknown, legacy: unknown): Permission {
  // role_name may be a custom role; then the coarse `permission` decides.
  for (const value of [role, legacy]) {
    if (ROLES.includes(value as Permission)) return value as Permission
  }
  return 'none'
}

interface RawComment {
  id: number
  html_url: string
  body?: string | null
  user?: { login?: string; type?: string } | null
  performed_via_github_app?: { slug?: string } | null
}

export function createGitHub(options: GitHubOptions): GitHubDoor {
  const { owner, repo } = options
  const log: GitHubLog = options.log ?? core
  const baseMs = options.timing?.retryAfterBaseMs ?? 1000
  const retries = options.timing?.retries ?? 3
  const maxWait = options.timing?.maxWaitSeconds ?? 120
  const onLimit = (
    after: number,
    req: { method: string; url: string },
    _o: unknown,
    count: number
  ): boolean => {
    const again = count < retries && after <= maxWait
    log.warning(
      `GitHub rate limit on ${req.method} ${req.url}: ` +
        (again ? `retrying in ${after}s` : 'giving up')
    )
    return again
  }
  const octokit = getOctokit(
    options.token,
    {
      baseUrl:
        options.apiUrl ??
        process.env.GITHUB_API_URL ??
        'https://api.github.com',
      log: {
        debug: (m: string) => log.debug(m),
        info: (m: string) => log.debug(m),
        warn: (m: string) => log.warning(m),
        error: (m: string) => log.warning(m)
      },
      // The retry plugin owns 5xx and network errors; 403/429 rate limits
      // belong to throttling, which honours Retry-After and the reset time.
      retry: {
        retries,
        retryAfterBaseValue: baseMs,
        doNotRetry: [400, 401, 403, 404, 406, 410, 422, 429, 451]
      },
      throttle: {
        // Own limiter keys, so two doors in one process never pace each other.
        id: `massgen-action-${randomUUID()}`,
        // Typed as a Bottleneck.Group; the plugin uses only key().schedule().
        write: writeLimiter(
          options.timing?.writeBurst ?? WRITE_BURST,
          options.timing?.writeSpacingMs ?? 1000
        ) as never,
        retryAfterBaseValue: baseMs,
        onRateLimit: onLimit,
        onSecondaryRateLimit: onLimit
      }
    },
    retry,
    throttling
  )

  // Who the token writes as. `GET /user` answers for PATs and user tokens;
  // installation tokens (GITHUB_TOKEN, GitHub Apps) get 403 and no API tells
  // them their own bot login, so then we match known bot logins, and logins
  // learned from our own writes.
  const known = new Set([
    (options.botLogin ?? 'github-actions[bot]').toLowerCase()
  ])
  let identity: Promise<string | undefined> | undefined
  const whoAmI = (): Promise<string | undefined> =>
    (identity ??= octokit.rest.users.getAuthenticated().then(
      (r) => r.data.login.toLowerCase(),
      (e: unknown) => {
        if (statusOf(e) === 403 && !isRateLimit(e)) return undefined
        if (statusOf(e) === 404) return undefined
        identity = undefined
        throw wrap(e, 'GET /user (who the token is)')
      }
    ))
  const learn = (c: RawComment): void => {
    if (c.user?.login) known.add(c.user.login.toLowerCase())
  }

  /**
   * 1: written by us for sure; 2: written by some GitHub App itself (an
   * installation token whose bot login we could not learn); 0: not ours.
   * Comments by people are never ours, whatever they contain.
   */
  const rank = (c: RawComment, me: string | undefined): number => {
    const login = c.user?.login?.toLowerCase()
    if (!login) return 0
    if (me !== undefined) return login === me ? 1 : 0
    if (known.has(login)) return 1
    const app = c.performed_via_github_app?.slug?.toLowerCase()
    return c.user?.type === 'Bot' && app && `${app}[bot]` === login ? 2 : 0
  }

  const find = async (issueNumber: number, tag: string) => {
    const marker = stickyMarker(tag)
    const me = await whoAmI()
    let best: (StickyComment & { rank: number }) | undefined
    try {
      await octokit.paginate(
        octokit.rest.issues.listComments,
        { owner, repo, issue_number: issueNumber, per_page: 100 },
        (response, done) => {
          for (const c of response.data as RawComment[]) {
            const r = c.body?.includes(marker) ? rank(c, me) : 0
            if (r && (!best || r < best.rank)) {
              best = { id: c.id, url: c.html_url, body: c.body ?? '', rank: r }
            }
          }
          if (best?.rank === 1) done()
          return []
        }
      )
    } catch (e) {
      throw wrap(e, `Listing the comments of #${issueNumber}`)
    }
    return best
  }

  const create = async (issueNumber: number, body: string) => {
    try {
      const { data } = await octokit.rest.issues.createComment({
        owner,
        repo,
        issue_number: issueNumber,
        body
      })
      learn(data)
      return { id: data.id, url: data.html_url }
    } catch (e) {
      const what = `Commenting on #${issueNumber} of ${owner}/${repo}`
      const err = wrap(e, what, WRITE_HINT)
      if (err.kind === 'not-found') {
        err.message +=
          '. The issue or pull request is gone, or hidden from the token'
      }
      throw err
    }
  }

  const written = new Map<string, number>()
  const update = async (id: number, body: string) => {
    const { data } = await octokit.rest.issues.updateComment({
      owner,
      repo,
      comment_id: id,
      body
    })
    learn(data)
    return { id: data.id, url: data.html_url }
  }

  return {
    owner,
    repo,
    async findStickyComment(issueNumber, tag) {
      const found = await find(issueNumber, tag)
      return found && { id: found.id, url: found.url, body: found.body }
    },

    async upsertStickyComment(issueNumber, tag, body) {
      const marker = stickyMarker(tag)
      const text = body.includes(marker) ? body : `${marker}\n${body}`
      // The comment this door wrote last for the tag: updated straight away,
      // without listing the comments again (one request, not two or more).
      const key = `${issueNumber}\u0000${tag}`
      const remember = (c: { id: number; url: string }) => {
        written.set(key, c.id)
        return c
      }
      const known = written.get(key)
      if (known !== undefined) {
        try {
          return remember(await update(known, text))
        } catch (e) {
          if (statusOf(e) !== 404) {
            throw wrap(e, `Updating comment ${known}`, WRITE_HINT)
          }
          written.delete(key) // deleted since: look for it again
        }
      }
      const found = await find(issueNumber, tag)
      if (!found) return remember(await create(issueNumber, text))
      try {
        return remember(await update(found.id, text))
      } catch (e) {
        // Deleted since we found it, or another app's comment we may not
        // edit: a fresh comment is better than none.
        const s = statusOf(e)
        const foreign = s === 403 && found.rank === 2 && !isRateLimit(e)
        if (s !== 404 && !foreign) {
          throw wrap(e, `Updating comment ${found.id}`, WRITE_HINT)
        }
        log.warning(
          `Could not update comment ${found.id} (${s}); posting a new one`
        )
        return remember(await create(issueNumber, text))
      }
    },

    async addReaction(commentId, content) {
      try {
        const { data } = await octokit.rest.reactions.createForIssueComment({
          owner,
          repo,
          comment_id: commentId,
          content
        })
        return data.id
      } catch (e) {
        throw wrap(e, `Reacting to comment ${commentId}`, WRITE_HINT)
      }
    },

    async removeReaction(commentId, reactionId) {
      try {
        await octokit.rest.reactions.deleteForIssueComment({
          owner,
          repo,
          comment_id: commentId,
          reaction_id: reactionId
        })
      } catch (e) {
        // Already gone is what we wanted.
        if (statusOf(e) === 404) return
        throw wrap(e, `Removing reaction ${reactionId}`, WRITE_HINT)
      }
    },

    async getPermission(username) {
      try {
        const { data } =
          await octokit.rest.repos.getCollaboratorPermissionLevel({
            owner,
            repo,
            username
          })
        const role = (data as { role_name?: unknown }).role_name
        return toPermission(role, data.permission)
      } catch (e) {
        if (statusOf(e) === 404) return 'none'
        throw wrap(e, `Checking the permission of ${username}`)
      }
    },

    async getPullRequestContext(number, maxDiffBytes) {
      const params = { owner, repo, pull_number: number }
      const what = `Reading pull request #${number}`
      try {
        const [pr, files, raw] = await Promise.all([
          octokit.rest.pulls.get(params),
          octokit.paginate(octokit.rest.pulls.listFiles, {
            ...params,
            per_page: 100
          }),
          octokit.rest.pulls
            .get({ ...params, mediaType: { format: 'diff' } })
            .then(
              (r) => r.data as unknown as string,
              (e: unknown) => {
                // 406: GitHub will not render diffs over 300 files/20k lines.
                if (statusOf(e) !== 406) throw e
                log.warning(`${what}: ${apiMessage(e)}; no diff given`)
                return undefined
              }
            )
        ])
        const cut = cutDiff(raw ?? '', maxDiffBytes)
        return {
          number,
          title: pr.data.title,
          body: pr.data.body ?? '',
          baseRef: pr.data.base.ref,
          baseSha: pr.data.base.sha,
          headRef: pr.data.head.ref,
          headSha: pr.data.head.sha,
          headRepo: pr.data.head.repo?.full_name ?? undefined,
          files: files.map((f) => ({
            filename: f.filename,
            status: f.status,
            additions: f.additions,
            deletions: f.deletions
          })),
          diff: cut.diff,
          diffTruncated: raw === undefined || cut.truncated
        }
      } catch (e) {
        throw wrap(e, what)
      }
    }
  }
}
