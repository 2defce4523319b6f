// A pull request's review threads over GraphQL (REST has no thread, nor
// GitHub's `isOutdated`), and resolving one. Every field read back is
// checked for its type and bounded: the bodies are text people and other
// apps write, and only the token's own first comment makes a thread ours.
import type { Octokit } from './client.js'
import { toGitHubError, WRITE_HINT } from './errors.js'
import type { Authored, Identity } from './identity.js'

/**
 * Threads per page, and pages read at most: 5,000 threads. A pull request
 * with more is not read in part: the read fails (ThreadsCutShort), so the
 * run reviews the whole pull request rather than miss an open finding.
 */
const THREADS_PER_PAGE = 100
const MAX_THREAD_PAGES = 50
/** Comment authors read per thread; a longer thread counts as answered. */
const AUTHORS_PER_THREAD = 100
/** GitHub's limit on a comment body, in characters. */
const MAX_BODY_CHARS = 65_536

/** How the action's reply before it resolves a thread opens (review/earlier.ts). */
export const RESOLVED_REPLY_OPENING = 'Resolved by MassGen:'

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
          resolvedBy { login }
          opening: comments(first: 1) {
            nodes { databaseId body url author { __typename login } }
          }
          everyone: comments(first: ${AUTHORS_PER_THREAD}) {
            totalCount
            nodes { author { __typename login } }
          }
          latest: comments(last: 1) {
            nodes { body author { __typename login } }
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
  /** Who resolved it, as GitHub names the user; null when GitHub names no user (a bot). */
  resolvedBy: string | null
  /**
   * The token itself resolved it: GitHub names the token's user, or names
   * no user and the token replied in the thread (the action replies only to
   * say why it resolves a fixed finding; no one else can write as the token).
   */
  resolvedByUs: boolean
}

/** The threads could not all be read: a run must not act on a part of them. */
export class ThreadsCutShort extends Error {}

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
  const resolver = (n.resolvedBy ?? {}) as { login?: unknown }
  const resolvedBy =
    typeof resolver.login === 'string' && resolver.login.length <= 100
      ? resolver.login
      : null
  const resolverIsUs =
    resolvedBy === null
      ? lastIsOurResolution(n.latest, isOurs)
      : isOurs({ user: { login: resolvedBy } })
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
      everyone.totalCount > authors.length || authors.some((a) => !isOurs(a)),
    resolvedBy: n.isResolved ? resolvedBy : null,
    resolvedByUs: n.isResolved && resolverIsUs
  }
}

/**
 * GitHub names no resolver when a bot resolved the thread (resolvedBy is a
 * User). The action resolves a thread right after its fixed reply
 * (review/resolve.ts), so only a thread whose last comment is that reply,
 * by the token, counts as resolved by the action; any other bot's
 * resolution stays a resolution nobody with write access vouched for.
 */
function lastIsOurResolution(
  latest: unknown,
  isOurs: (a: Authored) => boolean
): boolean {
  const nodes = (latest as { nodes?: unknown } | undefined)?.nodes
  if (!Array.isArray(nodes) || nodes.length !== 1) return false
  const last = nodes[0] as { body?: unknown; author?: unknown }
  return (
    typeof last.body === 'string' &&
    last.body.startsWith(RESOLVED_REPLY_OPENING) &&
    isOurs(asAuthored(last.author))
  )
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

/**
 * Every review thread of a pull request, checked; throws ThreadsCutShort
 * when they cannot all be read (past MAX_THREAD_PAGES, a page GitHub did not
 * give, a thread that is not what GitHub gives).
 */
export async function readReviewThreads(
  t: ThreadsTarget,
  pullNumber: number
): Promise<ReviewThread[]> {
  const me = await t.identity.login()
  const isOurs = (a: Authored) => t.identity.authorship(a, me) === 'ours'
  const out: ReviewThread[] = []
  let after: string | undefined
  const short = (why: string) =>
    new ThreadsCutShort(
      `Read ${out.length} review thread(s) of #${pullNumber}, not all: ${why}`
    )
  try {
    for (let page = 0; ; page++) {
      if (page >= MAX_THREAD_PAGES)
        throw short(
          `more than ${MAX_THREAD_PAGES * THREADS_PER_PAGE} threads, the most one run reads`
        )
      const data = await t.octokit.graphql<ThreadsPage>(REVIEW_THREADS_QUERY, {
        owner: t.owner,
        name: t.repo,
        number: pullNumber,
        ...(after ? { after } : {})
      })
      const threads = data?.repository?.pullRequest?.reviewThreads
      if (!threads || !Array.isArray(threads.nodes))
        throw short('GitHub gave no page of threads')
      for (const node of threads.nodes) {
        const thread = parseThread(node, isOurs)
        if (!thread) throw short('a thread is not in the form GitHub gives')
        out.push(thread)
      }
      if (threads.pageInfo?.hasNextPage !== true) break
      const cursor = threads.pageInfo.endCursor
      if (typeof cursor !== 'string' || cursor.length > 500)
        throw short('GitHub gave no place to read on from')
      after = cursor
    }
  } catch (e) {
    if (e instanceof ThreadsCutShort) throw e
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
