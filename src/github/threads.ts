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

/** The comments of an issue or pull request written before `beforeId`. */
export function readIssueComments(
  { octokit, owner, repo }: ThreadTarget,
  issueNumber: number,
  beforeId: number
): Promise<ThreadComment[]> {
  return collect(
    octokit.paginate.iterator(octokit.rest.issues.listComments, {
      owner,
      repo,
      issue_number: issueNumber,
      per_page: 100
    }),
    (c) => c.id < beforeId,
    `Listing the comments of #${issueNumber}`
  )
}

/** The comments of one review-comment thread written before `beforeId`. */
export function readReviewThread(
  { octokit, owner, repo }: ThreadTarget,
  pullNumber: number,
  threadId: number,
  beforeId: number
): Promise<ThreadComment[]> {
  return collect(
    octokit.paginate.iterator(octokit.rest.pulls.listReviewComments, {
      owner,
      repo,
      pull_number: pullNumber,
      per_page: 100
    }),
    (c) =>
      (c.id === threadId || c.in_reply_to_id === threadId) && c.id < beforeId,
    `Listing the review comments of pull request #${pullNumber}`
  ).then((thread) => thread.sort((a, b) => a.id - b.id))
}

/** The comments `keep` accepts, from at most MAX_PAGES pages. */
async function collect(
  pages: AsyncIterable<{ data: unknown }>,
  keep: (c: RawComment) => boolean,
  what: string
): Promise<ThreadComment[]> {
  const found: ThreadComment[] = []
  let count = 0
  try {
    for await (const page of pages) {
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
