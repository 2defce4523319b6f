// Pull-request reviews through the GitHub runner: the review comments and
// reviews already there, a new review, and the deletion of a pending one
// (how a refused batch is probed, see review/post.ts).
import type { Octokit } from './client.js'
import { statusOf, toGitHubError, WRITE_HINT, WriteRefused } from './errors.js'
import type { Authored, Identity } from './identity.js'
import type { Log } from '../core/log.js'

/** Pages of 100 read at most: 3,000 comments is more than any review keeps. */
const MAX_PAGES = 30

export interface ReviewCommentDraft {
  path: string
  body: string
  line: number
  side: 'RIGHT'
  start_line?: number
  start_side?: 'RIGHT'
}

export interface ReviewDraft {
  commitId: string
  body: string
  /** Omitted: a PENDING review (a probe, deleted after). Never APPROVE or REQUEST_CHANGES. */
  event?: 'COMMENT'
  comments: ReviewCommentDraft[]
}

/** A review comment or review as listed: only what the dedupe needs. */
export interface PostedText {
  id: number
  body: string
  /**
   * Written by the token itself (identity.ts): never a person's text, nor
   * another bot's, which may echo anyone's words and their markers.
   */
  ours: boolean
  /** A review's (not a comment's) commit, as GitHub recorded it; checked hex. */
  reviewedCommit?: string
}

interface ReviewTarget {
  octokit: Octokit
  owner: string
  repo: string
  log: Log
  identity: Identity
}

/** GitHub would not take some line of the review (422). */
export class ReviewRefused extends WriteRefused {
  constructor(detail: string) {
    super(detail, 'ReviewRefused')
  }
}

function errorsOf(e: unknown): string {
  const data = (e as { response?: { data?: unknown } })?.response?.data as
    { message?: unknown; errors?: unknown } | undefined
  const errors = Array.isArray(data?.errors)
    ? data.errors.map((x) => (typeof x === 'string' ? x : JSON.stringify(x)))
    : []
  return [typeof data?.message === 'string' ? data.message : '', ...errors]
    .filter(Boolean)
    .join(': ')
    .slice(0, 500)
}

async function listAll(
  t: ReviewTarget,
  what: 'comments' | 'reviews',
  pullNumber: number,
  me: string | undefined
): Promise<PostedText[]> {
  const out: PostedText[] = []
  let pages = 0
  const route = `GET /repos/{owner}/{repo}/pulls/{pull_number}/${what}`
  for await (const page of t.octokit.paginate.iterator(route, {
    owner: t.owner,
    repo: t.repo,
    pull_number: pullNumber,
    per_page: 100
  })) {
    for (const item of page.data as Array<Authored & Record<string, unknown>>) {
      const commit = item.commit_id
      out.push({
        id: Number(item.id),
        body: typeof item.body === 'string' ? item.body : '',
        ours: t.identity.authorship(item, me) === 'ours',
        ...(what === 'reviews' &&
        typeof commit === 'string' &&
        /^[0-9a-f]{40}$/.test(commit)
          ? { reviewedCommit: commit }
          : {})
      })
    }
    if (++pages >= MAX_PAGES) break
  }
  return out
}

export function createReviews(t: ReviewTarget) {
  return {
    /** Review comments and review bodies already on the pull request. */
    async listPosted(pullNumber: number): Promise<PostedText[]> {
      try {
        const me = await t.identity.login()
        const [comments, reviews] = await Promise.all([
          listAll(t, 'comments', pullNumber, me),
          listAll(t, 'reviews', pullNumber, me)
        ])
        return [...comments, ...reviews]
      } catch (e) {
        throw toGitHubError(e, `Listing the reviews of #${pullNumber}`)
      }
    },

    /** Throws ReviewRefused on 422 (a line GitHub will not take). */
    async createReview(
      pullNumber: number,
      draft: ReviewDraft
    ): Promise<{ id: number; url: string }> {
      try {
        const { data } = await t.octokit.rest.pulls.createReview({
          owner: t.owner,
          repo: t.repo,
          pull_number: pullNumber,
          commit_id: draft.commitId,
          body: draft.body,
          ...(draft.event ? { event: draft.event } : {}),
          comments: draft.comments
        })
        t.identity.learn(data)
        return { id: data.id, url: data.html_url }
      } catch (e) {
        if (statusOf(e) === 422) throw new ReviewRefused(errorsOf(e))
        throw toGitHubError(
          e,
          `Reviewing pull request #${pullNumber}`,
          WRITE_HINT
        )
      }
    },

    async deletePendingReview(
      pullNumber: number,
      reviewId: number
    ): Promise<void> {
      try {
        await t.octokit.rest.pulls.deletePendingReview({
          owner: t.owner,
          repo: t.repo,
          pull_number: pullNumber,
          review_id: reviewId
        })
      } catch (e) {
        if (statusOf(e) === 404) return
        throw toGitHubError(
          e,
          `Deleting pending review ${reviewId}`,
          WRITE_HINT
        )
      }
    }
  }
}
