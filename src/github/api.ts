// The GitHub API: every GitHub API call the action makes goes through the
// interface below, built once in main and passed in where needed. It is the
// sum of one small door per area (comments, pull requests, reviews, check
// runs, the repository), each built from one target by its own builder; the
// calls themselves live beside it (sticky.ts, pull.ts, review.ts ...).
import * as core from '@actions/core'
import { createOctokit, type GitHubOptions, type Octokit } from './client.js'
import { readFileAtCommit, type FileAtCommit } from './contents.js'
import { callGitHub, WRITE_HINT } from './errors.js'
import {
  readPullBase,
  readPullHead,
  readPullTip,
  readPullRequestContext,
  type PullBase,
  type PullHead,
  type PullTip,
  type PullRequestContext
} from './pull.js'
import {
  createStickyComments,
  type OwnReport,
  type StickyComment
} from './sticky.js'
import { readComments, replyInThread } from './threads.js'
import type { FollowUp, ThreadComment } from '../core/conversation.js'
import { createIdentity, type Identity } from './identity.js'
import { createReviews, type PostedText, type ReviewDraft } from './review.js'
import { createChecks, type CheckRunRef, type CheckRunWrite } from './checks.js'
import {
  readReviewThreads,
  resolveReviewThread,
  type ReviewThread
} from './review-threads.js'
import { compareCommits, type Comparison } from './compare.js'
import { readRunAttemptStart } from './run-attempt.js'
import { readBranchHead, readDefaultBranch } from './default-branch.js'
import type { Log } from '../core/log.js'

export type Permission =
  'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none'
/** The permissions that may start runs and dismiss findings: write access. */
export const WRITERS: readonly Permission[] = ['admin', 'maintain', 'write']
export type ReactionContent = '+1' | '-1' | 'eyes' | 'rocket' | 'confused'

/** One repository through one client: what every door is built on. */
interface Target {
  octokit: Octokit
  owner: string
  repo: string
  log: Log
  /** One identity: what the sticky comments learn of it, the reviews use. */
  identity: Identity
}

/** The action's comment on an issue or pull request, and reactions to comments. */
export interface CommentDoor {
  findStickyComment(
    issueNumber: number,
    tag: string
  ): Promise<StickyComment | undefined>
  upsertStickyComment(
    issueNumber: number,
    tag: string,
    body: string
  ): Promise<{ id: number; url: string }>
  /**
   * The action's own report on the issue (marker and author both checked)
   * and the comments written before `beforeId`.
   */
  readFollowUp(
    issueNumber: number,
    tag: string,
    beforeId: number
  ): Promise<FollowUp>
  addReaction(commentId: number, content: ReactionContent): Promise<number>
  removeReaction(commentId: number, reactionId: number): Promise<void>
}

/** A pull request's commits, change and files. */
export interface PullDoor {
  getPullRequestContext(
    number: number,
    maxDiffBytes: number
  ): Promise<PullRequestContext>
  /** The head commit, its committer date and the head's force pushes. */
  getPullHead(number: number): Promise<PullHead>
  /** The head and merge commits alone (pull_request events name their head). */
  getPullTip(number: number): Promise<PullTip>
  /** The branch a pull request would merge into and the commit it is at (the maintainers' code). */
  getPullBase(number: number): Promise<PullBase>
  /** A regular file at that very path at a commit, at most maxBytes, or why not (links refused). */
  getFileAtCommit(
    file: string,
    ref: string,
    maxBytes: number
  ): Promise<FileAtCommit>
  /** Whether `head` still contains `base`, and the change since it. */
  compareCommits(base: string, head: string): Promise<Comparison>
}

/** Pull-request reviews, their comment threads and their resolution. */
export interface ReviewDoor {
  /** Review comments and review bodies already on a pull request. */
  listReviewTexts(pullNumber: number): Promise<PostedText[]>
  /** One review; ReviewRefused when GitHub answers 422. */
  createReview(
    pullNumber: number,
    draft: ReviewDraft
  ): Promise<{ id: number; url: string }>
  deletePendingReview(pullNumber: number, reviewId: number): Promise<void>
  /** The comments of a review-comment thread written before `beforeId`. */
  readReviewThread(
    pullNumber: number,
    threadId: number,
    beforeId: number
  ): Promise<ThreadComment[]>
  /** Replies in a review-comment thread (to its first comment). */
  replyToReviewThread(
    pullNumber: number,
    threadId: number,
    body: string
  ): Promise<{ id: number; url: string }>
  /** The review threads of a pull request, with GitHub's outdated flag (GraphQL). */
  listReviewThreads(pullNumber: number): Promise<ReviewThread[]>
  resolveReviewThread(threadId: string): Promise<void>
}

/** The action's check runs on a commit. */
export interface CheckDoor {
  /** The action's check run of this name and external_id on the commit. */
  findCheckRun(
    headSha: string,
    name: string,
    externalId: string
  ): Promise<CheckRunRef | undefined>
  createCheckRun(
    headSha: string,
    name: string,
    externalId: string,
    write: CheckRunWrite
  ): Promise<CheckRunRef>
  updateCheckRun(id: number, write: CheckRunWrite): Promise<CheckRunRef>
  /** The annotations a check run already has (annotationKey of each). */
  checkRunAnnotationKeys(id: number): Promise<Set<string>>
}

/** The repository itself: who may write to it, when a run of it started, its default branch. */
export interface RepoDoor {
  getPermission(username: string): Promise<Permission>
  /** The default branch's name. */
  getDefaultBranch(): Promise<string>
  /** The commit a branch is at. */
  getBranchHead(branch: string): Promise<string>
  /** When attempt `attempt` of workflow run `runId` started (its run_started_at). */
  getRunAttemptStart(runId: number, attempt: number): Promise<Date>
}

export interface GitHubApi
  extends CommentDoor, PullDoor, ReviewDoor, CheckDoor, RepoDoor {
  readonly owner: string
  readonly repo: string
}

/** GitHub's repository roles, strongest first. */
export const ROLES: readonly Permission[] = [
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

export function createGitHub(options: GitHubOptions): GitHubApi {
  const { owner, repo } = options
  const log: Log = options.log ?? core
  const octokit = createOctokit(options, log)
  const identity = createIdentity(octokit, options.botLogin)
  const target: Target = { octokit, owner, repo, log, identity }
  return {
    owner,
    repo,
    ...commentDoor(target),
    ...pullDoor(target),
    ...reviewDoor(target),
    ...checkDoor(target),
    ...repoDoor(target)
  }
}

function commentDoor(target: Target): CommentDoor {
  const sticky = createStickyComments(target)
  return {
    findStickyComment: (issueNumber, tag) => sticky.find(issueNumber, tag),
    upsertStickyComment: (issueNumber, tag, body) =>
      sticky.upsert(issueNumber, tag, body),
    async readFollowUp(issueNumber, tag, beforeId) {
      const previous: OwnReport | undefined = await sticky.findOwn(
        issueNumber,
        tag
      )
      if (!previous) return { previous: undefined, since: [] }
      const comments = await readComments(target, { issueNumber }, beforeId)
      return {
        previous: { body: previous.body, updatedAt: previous.updatedAt },
        since: comments.filter((c) => c.id !== previous.id)
      }
    },
    addReaction: (commentId, content) =>
      addReaction(target, commentId, content),
    removeReaction: (commentId, reactionId) =>
      removeReaction(target, commentId, reactionId)
  }
}

function pullDoor(target: Target): PullDoor {
  return {
    getPullRequestContext: (number, maxDiffBytes) =>
      readPullRequestContext(target, number, maxDiffBytes),
    getPullHead: (number) => readPullHead(target, number),
    getPullTip: (number) => readPullTip(target, number),
    getPullBase: (number) => readPullBase(target, number),
    getFileAtCommit: (file, ref, maxBytes) =>
      readFileAtCommit(target, file, ref, maxBytes),
    compareCommits: (base, head) => compareCommits(target, base, head)
  }
}

function reviewDoor(target: Target): ReviewDoor {
  const reviews = createReviews(target)
  return {
    listReviewTexts: (pullNumber) => reviews.listPosted(pullNumber),
    createReview: (pullNumber, draft) =>
      reviews.createReview(pullNumber, draft),
    deletePendingReview: (pullNumber, reviewId) =>
      reviews.deletePendingReview(pullNumber, reviewId),
    readReviewThread: (pullNumber, threadId, beforeId) =>
      readComments(target, { pullNumber, threadId }, beforeId),
    replyToReviewThread: (pullNumber, threadId, body) =>
      replyInThread(target, pullNumber, threadId, body),
    listReviewThreads: (pullNumber) => readReviewThreads(target, pullNumber),
    resolveReviewThread: (threadId) => resolveReviewThread(target, threadId)
  }
}

function checkDoor(target: Target): CheckDoor {
  const checks = createChecks(target)
  return {
    findCheckRun: (headSha, name, externalId) =>
      checks.find(headSha, name, externalId),
    createCheckRun: (headSha, name, externalId, write) =>
      checks.create(headSha, name, externalId, write),
    updateCheckRun: (id, write) => checks.update(id, write),
    checkRunAnnotationKeys: (id) => checks.annotationKeys(id)
  }
}

function repoDoor(target: Target): RepoDoor {
  return {
    getPermission: (username) => readPermission(target, username),
    getDefaultBranch: () => readDefaultBranch(target),
    getBranchHead: (branch) => readBranchHead(target, branch),
    getRunAttemptStart: (runId, attempt) =>
      readRunAttemptStart(target, runId, attempt)
  }
}

async function addReaction(
  { octokit, owner, repo }: Target,
  commentId: number,
  content: ReactionContent
): Promise<number> {
  const { data } = await callGitHub(
    `Reacting to comment ${commentId}`,
    () =>
      octokit.rest.reactions.createForIssueComment({
        owner,
        repo,
        comment_id: commentId,
        content
      }),
    { hint: WRITE_HINT }
  )
  return data.id
}

async function removeReaction(
  { octokit, owner, repo }: Target,
  commentId: number,
  reactionId: number
): Promise<void> {
  const request = {
    owner,
    repo,
    comment_id: commentId,
    reaction_id: reactionId
  }
  await callGitHub(
    `Removing reaction ${reactionId}`,
    () => octokit.rest.reactions.deleteForIssueComment(request),
    // Already gone is what we wanted.
    { hint: WRITE_HINT, onNotFound: () => undefined }
  )
}

async function readPermission(
  { octokit, owner, repo }: Target,
  username: string
): Promise<Permission> {
  return callGitHub(
    `Checking the permission of ${username}`,
    async () => {
      const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
        owner,
        repo,
        username
      })
      const role = (data as { role_name?: unknown }).role_name
      return toPermission(role, data.permission)
    },
    { onNotFound: () => 'none' }
  )
}
