// `review: inline` in the pipeline: after the run, before the report. Posts
// the review (review/post.ts) and says whether `fail-on` fails the step (the
// pipeline fails it after the report; report/outputs.ts sets its outputs).
import * as core from '@actions/core'
import { Inputs } from '../core/constants.js'
import type { GitHubApi } from '../github/api.js'
import { gateFails } from './counted.js'
import { countsBySeverity, standingFindings } from './standing.js'
import { incompleteReason } from './coverage.js'
import { answerFor, runReview } from './post.js'
import { resolveFixedThreads } from './resolve.js'
import type { ReviewReport } from '../core/review.js'
import type { RunResult, Settings } from '../core/types.js'

/** Each agent's answer whose findings count (answerFor). */
export function reviewAnswers(
  result: RunResult
): Array<{ agent: string; text: string }> {
  return result.agents.flatMap((agent) => {
    const text = answerFor(agent, result.winner, result.winnerAnswer)
    return text === undefined ? [] : [{ agent: agent.id, text }]
  })
}

/** The review of a finished run; undefined when there is nothing to review. */
export async function reviewRun(
  result: RunResult,
  settings: Settings,
  runner: GitHubApi | undefined,
  secrets: readonly string[],
  runUrl: string | undefined
): Promise<ReviewReport | undefined> {
  if (settings.review !== 'inline') return undefined
  const pr = result.pullRequest
  if (!pr) {
    core.warning(
      `Input '${Inputs.Review}' is 'inline', but this run is not about a pull request ` +
        '(or its changes could not be read): no review was posted.'
    )
    return undefined
  }
  if (result.outcome !== 'success') {
    core.warning(
      `The run ended '${result.outcome}': no review was posted (the agents did not finish).`
    )
    return undefined
  }
  const answers = reviewAnswers(result)
  const report = await runReview(
    {
      pullNumber: pr.number,
      headSha: pr.headSha,
      ...(pr.baseSha ? { baseSha: pr.baseSha } : {}),
      diff: pr.diff,
      diffTruncated: pr.diffTruncated,
      changedFiles: pr.files,
      answers,
      winner: result.winner,
      tag: settings.commentTag,
      minAgreement: settings.minAgreement,
      minSeverity: settings.minSeverity,
      maxInlineComments: settings.maxInlineComments,
      ...(result.findingVote ? { vote: result.findingVote } : {}),
      checkout: settings.contextPath,
      prTexts: pr.ownTexts,
      secrets,
      runUrl,
      votes: result.agents.map((a) => ({ agent: a.id, votedFor: a.votedFor })),
      ...(pr.coverage ? { coverage: pr.coverage } : {}),
      ...(pr.across
        ? {
            scope: pr.across.scope,
            ...(pr.across.earlier
              ? { earlier: pr.across.earlier }
              : { earlierUnread: true }),
            resolveThreads: settings.resolveThreads
          }
        : {})
    },
    runner,
    core
  )
  if (!runner || !report.earlier) return report
  return {
    ...report,
    earlier: await resolveFixedThreads(
      runner,
      pr,
      report.earlier,
      secrets,
      core
    )
  }
}

/** The message that fails the step, when the verdict crosses `fail-on`. */
export function gateFailure(
  report: ReviewReport | undefined,
  settings: Settings
): string | undefined {
  if (
    !report ||
    !gateFails(report.verdict, settings.failOn, settings.failOnUnclear)
  )
    return undefined
  if (report.verdict === 'incomplete')
    return (
      `The review's verdict is 'incomplete' (${incompleteReason(report.coverage, report)}), ` +
      `and '${Inputs.FailOn}' is '${settings.failOn}': what the review did not read or vote on could hold a blocker. ` +
      "Files a team accepts unread can be named in 'allow-unread'."
    )
  if (report.verdict === 'unclear')
    return (
      "The review's verdict is 'unclear' (the agents' votes split with no majority on the outcome), " +
      `and '${Inputs.FailOn}' names 'unclear'.`
    )
  const counts = countsBySeverity(report)
  const standing = standingFindings(report).length
  const by = report.vote?.ran
    ? `confirmed in the agents' vote by at least ${report.minAgreement} agent(s)`
    : `raised by at least ${report.minAgreement} agent(s)`
  return (
    `The review's verdict is '${report.verdict}' (${counts.blocker} blocker(s), ${counts.concern} concern(s) ` +
    `${by}${standing ? `, ${standing} of them left open by earlier reviews` : ''}), ` +
    `and '${Inputs.FailOn}' is '${settings.failOn}'.`
  )
}
