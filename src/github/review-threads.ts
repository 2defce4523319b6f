// A pull request's review threads over GraphQL (REST has no thread, nor
// GitHub's `isOutdated`), and resolving one. Every field read back is
// checked for its type and bounded: the bodies are text people and other
// apps write, and only the token's own first comment makes a thread ours.
import type { Octokit } from './client.js'
import { toGitHubError, WRITE_HINT } from './errors.js'
import type { Authored, Identity } from './identity.js'

/** Threads per page, and pages read at most: 1,000 threads. */
const THREADS_PER_PAGE = 100
const MAX_THREAD_PAGES = 10
/** Comment authors read per thread; a longer thread counts as answered. */
const AUTHORS_PER_THREAD = 100
/** GitHub's limit on a comment body, in characters. */
const MAX_BODY_CHARS = 65_536

/** Checked against @octokit/graphql-schema in __tests__/unit/review-threads.test.ts. */
export const REVIEW_THREADS_QUERY = `
query MassgenReviewThreads($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: ${THREADS_PER_PAGE}, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes {
          id
          isResolved
          isOutdated
          path
          line
          originalLine
          opening: comments(first: 1) {
            nodes { databaseId body url author { __typename login } }
          }
          everyone: comments(first: ${AUTHORS_PER_THREAD}) {
            totalCount
            nodes { author { __typename login } }
          }
        }
      }
    }
  }
}`

export const RESOLVE_THREAD_MUTATION = `
mutation MassgenResolveThread($threadId: ID!) {
  resolveReviewThread(input: { threadId: $threadId }) {
    thread { id isResolved }
  }
}`

export interface ReviewThread {
  /** The thread's GraphQL node id (what resolveReviewThread takes). */
  id: string
  /** The REST id of its first comment (what a reply is addressed to). */
  firstCommentId: number
  url: string
  path: string
  /** The line now; null once GitHub can no longer place it (outdated). */
  line: number | null
  /** The line on the commit the comment was made on. */
  originalLine: number | null
  isResolved: boolean
  isOutdated: boolean
  /** The first comment's text. */
  body: string
  /** The token itself opened the thread (identity.ts). */
  ours: boolean
  /** Someone other than the token wrote in it (or too many to tell). */
  answered: boolean
}

interface ThreadsTarget {
  octokit: Octokit
  owner: string
  repo: string
  identity: Identity
}

/**
 * GraphQL names a bot by its app's slug (`github-actions`); REST, which the
 * identity knows, by `github-actions[bot]`.
 */
function asAuthored(author: unknown): Authored {
  const a = (author ?? {}) as { __typename?: unknown; login?: unknown }
  if (typeof a.login !== 'string' || a.login.length > 100) return {}
  const bot = a.__typename === 'Bot'
  return {
    user: {
      login: bot ? `${a.login}[bot]` : a.login,
      type: bot ? 'Bot' : 'User'
    }
  }
}

const isInt = (v: unknown): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v > 0

/** One thread node, or undefined when any field is not what GitHub gives. */
export function parseThread(
  node: unknown,
  isOurs: (a: Authored) => boolean
): ReviewThread | undefined {
  const n = (node ?? {}) as Record<string, unknown>
  const opening = (n.opening as { nodes?: unknown } | undefined)?.nodes
  const everyone = n.everyone as
    { totalCount?: unknown; nodes?: unknown } | undefined
  if (
    typeof n.id !== 'string' ||
    n.id.length > 200 ||
    typeof n.isResolved !== 'boolean' ||
    typeof n.isOutdated !== 'boolean' ||
    typeof n.path !== 'string' ||
    n.path.length > 4096 ||
    !Array.isArray(opening) ||
    !Array.isArray(everyone?.nodes) ||
    !isInt(everyone.totalCount)
  )
    return undefined
  const first = (opening[0] ?? {}) as Record<string, unknown>
  if (
    !isInt(first.databaseId) ||
    typeof first.body !== 'string' ||
    typeof first.url !== 'string'
  )
    return undefined
  const authors = (everyone.nodes as Array<{ author?: unknown }>).map((c) =>
    asAuthored(c?.author)
  )
  return {
    id: n.id,
    firstCommentId: first.databaseId,
    url: first.url.slice(0, 2000),
    path: n.path,
    line: isInt(n.line) ? n.line : null,
    originalLine: isInt(n.originalLine) ? n.originalLine : null,
    isResolved: n.isResolved,
    isOutdated: n.isOutdated,
    body: first.body.slice(0, MAX_BODY_CHARS),
    ours: isOurs(asAuthored(first.author)),
    answered:
      everyone.totalCount > authors.length || authors.some((a) => !isOurs(a))
  }
}

interface ThreadsPage {
  repository?: {
    pullRequest?: {
      reviewThreads?: {
        pageInfo?: { hasNextPage?: unknown; endCursor?: unknown }
        nodes?: unknown[]
      }
    } | null
  } | null
}

/** Every review thread of a pull request (at most 1,000), checked. */
export async function readReviewThreads(
  t: ThreadsTarget,
  pullNumber: number
): Promise<ReviewThread[]> {
  const me = await t.identity.login()
  const isOurs = (a: Authored) => t.identity.authorship(a, me) === 'ours'
  const out: ReviewThread[] = []
  let after: string | undefined
  try {
    for (let page = 0; page < MAX_THREAD_PAGES; page++) {
      const data = await t.octokit.graphql<ThreadsPage>(REVIEW_THREADS_QUERY, {
        owner: t.owner,
        name: t.repo,
        number: pullNumber,
        ...(after ? { after } : {})
      })
      const threads = data?.repository?.pullRequest?.reviewThreads
      if (!threads || !Array.isArray(threads.nodes)) break
      for (const node of threads.nodes) {
        const thread = parseThread(node, isOurs)
        if (thread) out.push(thread)
      }
      const cursor = threads.pageInfo?.endCursor
      if (threads.pageInfo?.hasNextPage !== true || typeof cursor !== 'string')
        break
      after = cursor.slice(0, 500)
    }
  } catch (e) {
    throw toGitHubError(e, `Reading the review threads of #${pullNumber}`)
  }
  return out
}

export async function resolveReviewThread(
  t: ThreadsTarget,
  threadId: string
): Promise<void> {
  try {
    await t.octokit.graphql(RESOLVE_THREAD_MUTATION, { threadId })
  } catch (e) {
    throw toGitHubError(e, `Resolving review thread ${threadId}`, WRITE_HINT)
  }
}
