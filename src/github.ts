// The GitHub door: every GitHub API call the action makes goes through the
// narrow interface below, built once in main and passed in where needed.
// The parts live beside it (github-*.ts); everything they export is
// re-exported here, so importers need only this module.
import * as core from '@actions/core'
import {
  createOctokit,
  type GitHubLog,
  type GitHubOptions
} from './github-client.js'
import { statusOf, toGitHubError, WRITE_HINT } from './github-errors.js'
import {
  readPullHead,
  readPullRequestContext,
  type PullHead,
  type PullRequestContext
} from './github-pull.js'
import { createStickyComments, type StickyComment } from './github-sticky.js'
import {
  createReviews,
  type PostedText,
  type ReviewDraft
} from './github-review.js'

export {
  WRITE_BURST,
  type GitHubLog,
  type GitHubOptions
} from './github-client.js'
export { GitHubError, type GitHubErrorKind } from './github-errors.js'
export {
  cutDiff,
  type ChangedFile,
  type PullHead,
  type PullRequestContext
} from './github-pull.js'
export { runAttempt, runUrl } from './github-run-url.js'
export { stickyMarker, type StickyComment } from './github-sticky.js'
export {
  ReviewRefused,
  type PostedText,
  type ReviewCommentDraft,
  type ReviewDraft
} from './github-review.js'

export type Permission =
  'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none'
export type ReactionContent = '+1' | '-1' | 'eyes' | 'rocket' | 'confused'

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
  /** The head commit, its committer date and the head's force pushes. */
  getPullHead(number: number): Promise<PullHead>
  /** Review comments and review bodies already on a pull request. */
  listReviewTexts(pullNumber: number): Promise<PostedText[]>
  /** One review; ReviewRefused when GitHub answers 422. */
  createReview(
    pullNumber: number,
    draft: ReviewDraft
  ): Promise<{ id: number; url: string }>
  deletePendingReview(pullNumber: number, reviewId: number): Promise<void>
}

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

export function createGitHub(options: GitHubOptions): GitHubDoor {
  const { owner, repo } = options
  const log: GitHubLog = options.log ?? core
  const octokit = createOctokit(options, log)
  const sticky = createStickyComments({
    octokit,
    owner,
    repo,
    log,
    botLogin: options.botLogin
  })
  const reviews = createReviews({ octokit, owner, repo, log })

  return {
    owner,
    repo,
    findStickyComment: (issueNumber, tag) => sticky.find(issueNumber, tag),

    upsertStickyComment: (issueNumber, tag, body) =>
      sticky.upsert(issueNumber, tag, body),

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
        throw toGitHubError(e, `Reacting to comment ${commentId}`, WRITE_HINT)
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
        throw toGitHubError(e, `Removing reaction ${reactionId}`, WRITE_HINT)
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
        throw toGitHubError(e, `Checking the permission of ${username}`)
      }
    },

    getPullRequestContext: (number, maxDiffBytes) =>
      readPullRequestContext(
        { octokit, owner, repo, log },
        number,
        maxDiffBytes
      ),

    getPullHead: (number) =>
      readPullHead({ octokit, owner, repo, log }, number),

    listReviewTexts: (pullNumber) => reviews.listPosted(pullNumber),
    createReview: (pullNumber, draft) =>
      reviews.createReview(pullNumber, draft),
    deletePendingReview: (pullNumber, reviewId) =>
      reviews.deletePendingReview(pullNumber, reviewId)
  }
}
