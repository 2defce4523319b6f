// Delivers a report: job summary, sticky comment, outputs (outputs.ts). Never throws:
// a GitHub failure is logged and the summary is still written.
import * as core from '@actions/core'
import { GitHubCommentLimit } from '../core/constants.js'
import { saveStepState } from '../core/step-state.js'
import type { ReviewReport } from '../core/review.js'
import { type GitHubApi } from '../github/api.js'
import { GitHubError } from '../github/errors.js'
import { stickyMarker } from '../github/sticky-marker.js'
import { redactSecrets } from '../safety/redact.js'
import { renderReport, type ReportContext } from './render.js'
import type { RunResult } from '../core/types.js'
import { setRunOutputs } from './outputs.js'

/** GitHub's job summary upload limit per step. */
const SUMMARY_LIMIT = 1024 * 1024 - 1024

/** The part of the GitHub door a report needs: its comment, or its reply. */
type CommentPoster = Pick<
  GitHubApi,
  'upsertStickyComment' | 'replyToReviewThread'
>

/** Where a report goes. Built once per run; never written to after. */
export interface Destination {
  readonly github: CommentPoster | undefined
  readonly issueNumber: number | undefined
  /**
   * A review-comment thread whose command this run answers: the report is
   * a reply there. The sticky comment is left alone (it keeps the pull
   * request's main report), and no progress is posted to the thread.
   */
  readonly reply?: { pullNumber: number; threadId: number }
  readonly settings: {
    comment: boolean
    jobSummary: boolean
    commentTag: string
  }
  readonly runUrl: string | undefined
  readonly artifactUrl?: string
  readonly secrets: readonly string[]
}

/** Comment budget: GitHub's limit less the hidden marker and its newline. */
export function commentBudget(tag: string): number {
  return GitHubCommentLimit - stickyMarker(tag).length - 1
}

/**
 * The one way to say where a report goes and how long it may be: the main
 * step (progress, report, skip notes) and the post step all render with it.
 */
export function reportContext(
  dest: Destination,
  target: 'comment' | 'summary'
): ReportContext {
  const tag = dest.settings.commentTag
  return {
    target,
    tag,
    runUrl: dest.runUrl,
    ...(dest.artifactUrl ? { artifactUrl: dest.artifactUrl } : {}),
    secrets: dest.secrets,
    maxChars: target === 'comment' ? commentBudget(tag) : SUMMARY_LIMIT
  }
}

/**
 * What to do when a write is refused: `warn` (the job summary still has
 * the report), `quiet` (a progress view: the final report says it), or a
 * function that takes the message (the final report fails the step with it).
 */
type OnRefusal = 'warn' | 'quiet' | ((message: string) => void)
// (A function takes GitHub's refusals of the token; other failures warn.)

export async function postComment(
  dest: Destination,
  body: string,
  onRefusal: OnRefusal = 'warn'
): Promise<string | undefined> {
  const issue = dest.issueNumber
  if (!dest.github || !issue || !dest.settings.comment) return undefined
  const github = dest.github
  return posted(
    () => github.upsertStickyComment(issue, dest.settings.commentTag, body),
    `post the comment on #${issue}`,
    dest.secrets,
    onRefusal
  )
}

/** The report as a reply in the review-comment thread, when there is one. */
async function postReply(
  dest: Destination,
  body: string,
  onRefusal: OnRefusal = 'warn'
): Promise<string | undefined> {
  if (!dest.github || !dest.reply || !dest.settings.comment) return undefined
  const github = dest.github
  const { pullNumber, threadId } = dest.reply
  return posted(
    () => github.replyToReviewThread(pullNumber, threadId, body),
    `reply in the review thread on #${pullNumber}`,
    dest.secrets,
    onRefusal
  )
}

async function posted(
  write: () => Promise<{ url: string }>,
  what: string,
  secrets: readonly string[],
  onRefusal: OnRefusal
): Promise<string | undefined> {
  try {
    return (await write()).url
  } catch (error) {
    const detail =
      error instanceof GitHubError
        ? `${error.kind}: ${error.message}`
        : String(error)
    const message = `Could not ${what} (${redactSecrets(detail, secrets)}).`
    if (onRefusal === 'quiet') core.info(message)
    else if (typeof onRefusal === 'function' && isRefusal(error))
      onRefusal(message)
    else core.warning(`${message} The job summary still has the report.`)
    return undefined
  }
}

/** GitHub refused the token: a permission the workflow can grant. */
function isRefusal(error: unknown): boolean {
  return error instanceof GitHubError && error.kind === 'forbidden'
}

/**
 * The step's failure when the report could not go where it was asked: the
 * permission the token needs, said once (the job summary has the report).
 */
function reportNotPosted(message: string, dest: Destination): string {
  const needs = dest.reply
    ? '`pull-requests: write`'
    : '`pull-requests: write` (and `issues: write` when the run comments on issues)'
  return (
    `The report was not posted: ${message} Give the workflow ${needs} in its ` +
    '`permissions:`, or set `comment: false` to report in the job summary only. ' +
    'The job summary has the report.'
  )
}

export async function writeSummary(
  dest: Destination,
  markdown: string
): Promise<void> {
  if (!dest.settings.jobSummary || !process.env.GITHUB_STEP_SUMMARY) return
  try {
    await core.summary.addRaw(markdown, true).write()
  } catch (error) {
    core.warning(`Could not write the job summary: ${String(error)}`)
  }
}

/**
 * A report rendered for each place it goes, within each one's budget: the
 * job summary, then the comment (or the reply in the thread the command came
 * from); the comment's URL.
 */
export async function postReport(
  dest: Destination,
  render: (ctx: ReportContext) => string,
  onRefusal: OnRefusal = 'warn'
): Promise<string | undefined> {
  await writeSummary(dest, render(reportContext(dest, 'summary')))
  return (dest.reply ? postReply : postComment)(
    dest,
    render(reportContext(dest, 'comment')),
    onRefusal
  )
}

export async function deliverReport(
  result: RunResult,
  dest: Destination,
  workDir: string | undefined,
  review?: ReviewReport,
  modelsFromKeys?: readonly string[]
): Promise<void> {
  let refused: string | undefined
  const commentUrl = await postReport(
    dest,
    (ctx) =>
      renderReport(result, {
        ...ctx,
        ...(review ? { review } : {}),
        ...(modelsFromKeys?.length ? { modelsFromKeys } : {})
      }),
    (message) => (refused = message)
  )
  await setRunOutputs(result, {
    secrets: dest.secrets,
    workDir,
    commentUrl,
    artifactUrl: dest.artifactUrl
  })
  saveStepState('reported', true)
  // A pull request that silently goes without its review is worse than a red step.
  if (refused !== undefined) core.setFailed(reportNotPosted(refused, dest))
}
