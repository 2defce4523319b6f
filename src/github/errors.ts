// Failed GitHub API calls, turned into errors callers can branch on and that
// tell the user what to do.
import { GitHubCommentLimit } from '../core/constants.js'

type GitHubErrorKind =
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

/**
 * GitHub refused a write the run can go on without (a check run, a review's
 * lines); `detail` says why, the subclass which write.
 */
export class WriteRefused extends Error {
  constructor(
    readonly detail: string,
    name: string
  ) {
    super(detail)
    this.name = name
  }
}

/** Added to a refused write: the usual cause is the workflow's permissions. */
export const WRITE_HINT =
  ' The token needs `issues: write` and `pull-requests: write` in the' +
  " workflow's `permissions:`."

interface ErrorLike {
  status?: number
  message?: string
  response?: { data?: unknown; headers?: Record<string, unknown> }
}

export function statusOf(e: unknown): number | undefined {
  const s = (e as ErrorLike | undefined)?.status
  return typeof s === 'number' ? s : undefined
}

export function isRateLimit(e: unknown): boolean {
  const err = e as ErrorLike
  return (
    /rate limit/i.test(err?.message ?? '') ||
    err?.response?.headers?.['x-ratelimit-remaining'] === '0'
  )
}

export function apiMessage(e: unknown): string {
  const data = (e as ErrorLike)?.response?.data as
    { message?: string; errors?: { message?: string }[] } | undefined
  const detail = data?.errors?.map((x) => x.message).filter(Boolean)
  const message = data?.message ?? (e as Error)?.message ?? String(e)
  return detail?.length ? `${message}: ${detail.join('; ')}` : message
}

/** Turn an Octokit error into a GitHubError that says what to do. */
export function toGitHubError(
  e: unknown,
  what: string,
  hint = ''
): GitHubError {
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

/**
 * One call to GitHub: its failure becomes a GitHubError naming `what` (with
 * `hint` for a refused write), but for a 404 when `onNotFound` is given: then
 * its value is the answer (gone is what the caller wanted, or means none).
 */
export async function callGitHub<T>(
  what: string,
  call: () => Promise<T>,
  { hint = '', onNotFound }: { hint?: string; onNotFound?: () => T } = {}
): Promise<T> {
  try {
    return await call()
  } catch (e) {
    if (onNotFound && statusOf(e) === 404) return onNotFound()
    throw toGitHubError(e, what, hint)
  }
}
