// What the agents are given besides the question: the conversation (thread,
// earlier report) and the pull request's folder, narrowed by include/exclude,
// and for `review: inline` the diff the findings must land on.
import * as core from '@actions/core'
import * as path from 'node:path'
import type { RunIntake } from '../event/intake.js'
import type { GitHubApi } from '../github/api.js'
import type { StageLog } from '../core/log.js'
import { notAFile } from '../github/contents.js'
import { cutDiff, type PullRequestContext } from '../github/pull.js'
import type { PullFacts, ReviewedPull, Settings } from '../core/types.js'
import { reviewInstructions } from './review-prompt.js'
import {
  GITATTRIBUTES_MAX_BYTES,
  parseGitAttributes,
  type GitAttributes
} from './gitattributes.js'
import { neutralizeMarkers } from '../safety/massgen-markers.js'
import {
  projectInstructionsNote,
  readProjectInstructions
} from './project-instructions.js'
import { prContextNote, writePrContext } from './pr-context.js'
import { coverageOf, narrowPullRequest } from './pr-filter.js'
import { Inputs } from '../core/constants.js'
import { scopeReview, writeReviewContext } from './review-scope.js'
import { pullFactsOf, summaryOnlyNote } from './pull-facts.js'

export interface RunContext {
  /** The question with the context notes the agents read. */
  question: string
  /** Folders given to the agents read-only, beside the checkout. */
  extraContextPaths: string[]
  /** The pull request the review step needs, with `review: inline`. */
  pullRequest?: ReviewedPull
  /** What the report says of the pull request's size and steering files. */
  pullFacts?: PullFacts
}

/** The largest diff read from GitHub, before include/exclude narrow it. */
const RAW_DIFF_MAX_BYTES = 20_000_000

/**
 * The question as MassGen gets it: the conversation, the repository's own
 * instructions and the notes on the pull request's folder, with every
 * MassGen framing marker in it made inert (massgen-markers.ts).
 */
export async function gatherContext(
  settings: Settings,
  decision: RunIntake,
  github: GitHubApi | undefined,
  workDir: string,
  /** The head commit checked before the run (head-check.ts), if any. */
  reviewedHead: string | undefined,
  /** Reads the repository's instructions (`github` where there is one). */
  instructionsGitHub: GitHubApi | undefined = github,
  /** The commit that started the workflow (GITHUB_SHA). */
  checkedOut: string | undefined = process.env.GITHUB_SHA
): Promise<RunContext> {
  const pull = await pullContext(
    settings,
    decision,
    github,
    workDir,
    reviewedHead
  )
  const instructions =
    settings.projectInstructions === 'base' && instructionsGitHub
      ? await baseInstructions(
          instructionsGitHub,
          decision,
          pull.baseSha ?? checkedOut
        )
      : ''
  return {
    ...pull.context,
    question: neutralizeMarkers(
      decision.question +
        (decision.context ?? '') +
        instructions +
        pull.context.question
    )
  }
}

/**
 * The repository's AGENTS.md (or CLAUDE.md) at the base commit: a pull
 * request's base, else the checked-out commit. None without a commit.
 */
async function baseInstructions(
  github: GitHubApi,
  decision: RunIntake,
  baseSha: string | undefined
): Promise<string> {
  let ref = baseSha
  if (!ref && decision.pullRequest) {
    try {
      ref = (await github.getPullBase(decision.pullRequest)).sha
    } catch (error) {
      core.warning(
        `Could not read the base of pull request #${decision.pullRequest} (${String(error)}); ` +
          'the agents get no repository instructions.'
      )
      return ''
    }
  }
  if (!ref) return ''
  const found = await readProjectInstructions(github, ref)
  return found ? projectInstructionsNote(found) : ''
}

/** The pull request's folder and review diff, and the notes that name them. */
async function pullContext(
  settings: Settings,
  decision: RunIntake,
  github: GitHubApi | undefined,
  workDir: string,
  reviewedHead: string | undefined
): Promise<{ context: RunContext; baseSha?: string }> {
  // `question` holds only the notes on the pull request here.
  const context: RunContext = { question: '', extraContextPaths: [] }
  const review = settings.review === 'inline'
  if (!decision.pullRequest || !(settings.prContext || review) || !github)
    return { context }
  // The whole diff: include/exclude pick from it, then whole files are
  // fitted into pr-diff-max-bytes (pr-filter.ts).
  const pr = await github.getPullRequestContext(
    decision.pullRequest,
    RAW_DIFF_MAX_BYTES
  )
  // The config and instructions came from the base commit, not the
  // checkout, on every pull request event (context/base-setup.ts).
  if (reviewedHead && pr.headSha.toLowerCase() !== reviewedHead) {
    throw new Error(
      `The pull request's head moved to ${pr.headSha.slice(0, 12)} while the run ` +
        `started (checked: ${reviewedHead.slice(0, 12)}). Nothing was run; comment again.`
    )
  }
  const facts = pullFactsOf(pr, settings)
  context.pullFacts = facts
  warnOfSteering(pr.number, facts)
  // The review's verdict needs what was left out even without the folder.
  const given = narrowPullRequest(
    pr,
    {
      include: settings.include,
      exclude: settings.exclude,
      attributes: await baseAttributes(github, pr.baseSha)
    },
    settings.prDiffMaxBytes
  )
  const changed = Math.max(pr.changedFiles ?? 0, pr.files.length)
  if (settings.prContext) {
    if (given.leftOut.length)
      core.info(
        `Pull request context: ${given.leftOut.length} file(s) left out ` +
          `(listed with the reason in left-out.tsv)`
      )
    const dir = path.join(workDir, 'pr-context')
    writePrContext(dir, { ...given, steering: facts.steering })
    context.extraContextPaths.push(dir)
    context.question += prContextNote(dir, given, settings.contextPath)
  }
  if (facts.summaryOnly) {
    // Too large to review at the price of one: a summary, no findings.
    context.question += summaryOnlyNote(facts)
    // No review was asked of the agents: nothing of the change was read.
    if (review)
      context.pullRequest = summaryOnlyPull(
        pr,
        decision,
        facts.summaryOnly.max,
        changed,
        settings
      )
    return { context, baseSha: pr.baseSha }
  }
  if (review) {
    const reviewed = await reviewContext(
      github,
      settings,
      decision,
      { pr, given },
      changed,
      path.join(workDir, 'review-context')
    )
    context.pullRequest = reviewed.pullRequest
    if (reviewed.note) {
      context.extraContextPaths.push(reviewed.dir)
      context.question += reviewed.note
    }
    context.question += reviewInstructions()
  }
  return { context, baseSha: pr.baseSha }
}

/** Says in the job log that the pull request changes files that steer CI or reviews. */
function warnOfSteering(number: number, facts: PullFacts): void {
  if (facts.steering.state === 'none') return
  core.warning(
    facts.steering.state === 'unknown'
      ? `Pull request #${number}: GitHub named ${facts.listedFiles} of its ` +
          `${facts.changedFiles} changed files; workflow, instructions and setup ` +
          'files cannot be ruled out, so the report treats them as changed.'
      : `Pull request #${number} changes ${facts.steering.files.length} file(s) ` +
          'that steer CI or reviews (named in the report).'
  )
}

/** A pull request too large to review: every changed file counts as unread. */
function summaryOnlyPull(
  pr: PullRequestContext,
  decision: RunIntake,
  max: number,
  changed: number,
  settings: Settings
): ReviewedPull {
  return {
    ...reviewedPull(pr, decision.context),
    coverage: coverageOf(
      changed,
      [
        {
          file: `(all ${changed} changed files)`,
          reason: `${changed} changed files is more than '${Inputs.MaxChangedFiles}' (${max}): the agents summarised, no review`,
          unnamed: changed
        }
      ],
      settings.allowUnread
    )
  }
}

/**
 * The pull request as `review: inline` reviews it, and the across-pushes
 * folder (earlier findings, the change since the last review) written to dir.
 */
async function reviewContext(
  github: GitHubApi,
  settings: Settings,
  decision: RunIntake,
  {
    pr,
    given
  }: {
    /** As GitHub gave it. */
    pr: PullRequestContext
    /** Narrowed by include/exclude and pr-diff-max-bytes (pr-filter.ts). */
    given: ReturnType<typeof narrowPullRequest>
  },
  changed: number,
  dir: string
): Promise<{ pullRequest: ReviewedPull; dir: string; note: string }> {
  // The review places findings on the diff the action read, cut like the
  // agents' at pr-diff-max-bytes; lines past the cut are left to GitHub.
  const cut = cutDiff(pr.diff, settings.prDiffMaxBytes)
  // Across pushes: earlier findings, and the change since the last review.
  const scoped = await scopeReview(
    github,
    settings,
    {
      question: decision.question,
      fromComment: decision.commentId !== undefined
    },
    given,
    core
  )
  const pullRequest: ReviewedPull = {
    ...reviewedPull(
      {
        ...pr,
        diff: cut.diff,
        diffTruncated: pr.diffTruncated || cut.truncated
      },
      decision.context
    ),
    across: scoped.across,
    coverage: coverageOf(
      changed,
      [
        ...given.leftOut,
        ...(scoped.delta?.cut ?? []).map((c) => ({
          file: c.path,
          reason: `its change since the last review (${c.bytes} bytes) is over pr-diff-max-bytes: left out of since-last-review.patch`
        }))
      ],
      settings.allowUnread
    )
  }
  return { pullRequest, dir, note: writeReviewContext(dir, scoped) }
}

/**
 * The base branch's .gitattributes: the maintainers' marks. The head's is
 * the pull request author's to write (`* linguist-generated` would hide the
 * whole change), so it is never read. Unreadable: no marks, and a warning.
 */
export async function baseAttributes(
  github: GitHubApi,
  baseSha: string,
  log: StageLog = core
): Promise<GitAttributes | undefined> {
  try {
    const read = await github.getFileAtCommit(
      '.gitattributes',
      baseSha,
      GITATTRIBUTES_MAX_BYTES
    )
    if (read.kind === 'file') return parseGitAttributes(read.text)
    if (read.kind !== 'absent')
      log.warning(
        `The base branch's .gitattributes is ${notAFile(read)}: not read, ` +
          'so no file is left out for linguist-generated or -diff.'
      )
    return undefined
  } catch (error) {
    log.warning(
      `Could not read the base branch's .gitattributes (${String(error)}); ` +
        'no file is left out for linguist-generated or -diff.'
    )
    return undefined
  }
}

/** The pull request as the review needs it; its own texts, the conversation too, are no evidence. */
function reviewedPull(
  pr: PullRequestContext,
  conversation: string | undefined
): ReviewedPull {
  return {
    number: pr.number,
    headSha: pr.headSha,
    baseSha: pr.baseSha,
    diff: pr.diff,
    diffTruncated: pr.diffTruncated,
    files: pr.files
      .filter((f) => f.status !== 'removed')
      .map((f) => f.filename),
    ownTexts: [pr.title, pr.body, conversation ?? ''].filter(Boolean)
  }
}
