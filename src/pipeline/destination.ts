// Where a step's report goes, built once: the sticky comment (or a thread
// reply) and the job summary.
import * as core from '@actions/core'
import { Inputs } from '../core/constants.js'
import type { RunIntake } from '../event/intake.js'
import type { GitHubApi } from '../github/api.js'
import { runUrl } from '../github/run-url.js'
import type { Destination } from '../report/report.js'
import type { Settings } from '../core/types.js'

export function destinationFor(
  settings: Pick<
    Settings,
    'comment' | 'jobSummary' | 'commentTag' | 'githubToken'
  >,
  decision: Pick<RunIntake, 'issueNumber' | 'replyTo'>,
  gh: () => GitHubApi,
  secrets: readonly string[]
): Destination {
  if (decision.issueNumber && settings.comment && !settings.githubToken) {
    core.warning(
      `Input '${Inputs.GithubToken}' is empty, so no comment can be posted on #${decision.issueNumber}; ` +
        'the report is in the job summary only.'
    )
  }
  return {
    github:
      (decision.issueNumber || decision.replyTo) &&
      settings.comment &&
      settings.githubToken
        ? gh()
        : undefined,
    issueNumber: decision.issueNumber,
    reply: decision.replyTo,
    settings,
    runUrl: runUrl(process.env),
    secrets
  }
}

/** The job summary alone: a skip, or an error before a destination was built. */
export function summaryOnly(
  settings: Destination['settings'],
  secrets: readonly string[]
): Destination {
  return {
    github: undefined,
    issueNumber: undefined,
    settings,
    runUrl: runUrl(process.env),
    secrets
  }
}

/** The same destination, once the checkout's credentials are secrets too. */
export function withSecrets(
  dest: Destination,
  more: readonly string[]
): Destination {
  return more.length > 0
    ? { ...dest, secrets: [...dest.secrets, ...more] }
    : dest
}
