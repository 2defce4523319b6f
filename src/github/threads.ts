// Conversations on GitHub: the comments of an issue, a pull request's
// review-comment threads, and replies in them.
import type { ThreadComment } from '../core/conversation.js'
import type { Octokit } from './client.js'
import { toGitHubError, WRITE_HINT } from './errors.js'

interface ThreadTarget {
  octokit: Octokit
  owner: string
  repo: string
}

/** Pages read at most (100 comments each): enough for any real thread. */
const MAX_PAGES = 30

interface RawComment {
  id: number
  body?: string | null
  created_at?: string
  in_reply_to_id?: number
  user?: { login?: string } | null
}

function toThreadComment(c: RawComment): ThreadComment {
  return {
    id: c.id,
    author: c.user?.login ?? '',
    body: c.body ?? '',
    createdAt: c.created_at ?? ''
  }
}

/**
 * The comments written before `beforeId`, oldest first: an issue's or pull
 * request's, or those of one review-comment thread (its first comment is
 * `threadId`).
 */
export async function readComments(
  target: ThreadTarget,
  where: { issueNumber: number } | { pullNumber: number; threadId: number },
  beforeId: number
): Promise<ThreadComment[]> {
  const inThread = (c: RawComment) =>
    !('threadId' in where) ||
    c.id === where.threadId ||
    c.in_reply_to_id === where.threadId
  const what =
    'issueNumber' in where
      ? `Listing the comments of #${where.issueNumber}`
      : `Listing the review comments of pull request #${where.pullNumber}`
  const found = await collect(
    target,
    where,
    (c) => c.id < beforeId && inThread(c),
    what
  )
  return found.sort((a, b) => a.id - b.id)
}

/** Whose comments are listed: an issue's, or a pull request's review comments. */
type Listing = { issueNumber: number } | { pullNumber: number }

function pagesOf(
  { octokit, owner, repo }: ThreadTarget,
  listing: Listing
): AsyncIterable<{ data: unknown }> {
  const page = { owner, repo, per_page: 100 }
  return 'issueNumber' in listing
    ? octokit.paginate.iterator(octokit.rest.issues.listComments, {
        ...page,
        issue_number: listing.issueNumber
      })
    : octokit.paginate.iterator(octokit.rest.pulls.listReviewComments, {
        ...page,
        pull_number: listing.pullNumber
      })
}

/** The comments `keep` accepts, from at most MAX_PAGES pages. */
async function collect(
  target: ThreadTarget,
  listing: Listing,
  keep: (c: RawComment) => boolean,
  what: string
): Promise<ThreadComment[]> {
  const found: ThreadComment[] = []
  let count = 0
  try {
    for await (const page of pagesOf(target, listing)) {
      for (const c of page.data as RawComment[])
        if (keep(c)) found.push(toThreadComment(c))
      if (++count >= MAX_PAGES) break
    }
  } catch (e) {
    throw toGitHubError(e, what)
  }
  return found
}

/** A reply in the thread whose first comment is `threadId`. */
export async function replyInThread(
  { octokit, owner, repo }: ThreadTarget,
  pullNumber: number,
  threadId: number,
  body: string
): Promise<{ id: number; url: string }> {
  try {
    const { data } = await octokit.rest.pulls.createReplyForReviewComment({
      owner,
      repo,
      pull_number: pullNumber,
      comment_id: threadId,
      body
    })
    return { id: data.id, url: data.html_url }
  } catch (e) {
    throw toGitHubError(
      e,
      `Replying to review comment ${threadId} on pull request #${pullNumber}`,
      WRITE_HINT
    )
  }
}
