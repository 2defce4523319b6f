// The pull request's head, read from the API before anything runs: the
// commit the agents review, and the checkout that must be it.
import * as core from '@actions/core'
import type { Trigger } from '../core/types.js'
import { checkCheckout } from '../event/checkout-check.js'
import { checkHead, type HeadVerdict } from '../event/head-check.js'
import type { Destination } from '../report/report.js'
import { readCheckedOutCommit } from '../safety/checked-out-commit.js'
import type { Decided } from './decide.js'
import { failVisibly, refuseMovedHead } from './stops.js'
import { setHeadSha } from '../report/outputs.js'

/**
 * The head came from the API: the context must be that commit. The head's
 * sha (undefined when the run is not about a pull request), or 'stopped'
 * when the head moved (reported) or could not be checked.
 */
export async function verifyHead(
  decided: Decided,
  dest: Destination
  // The literal names the sentinel for readers; to the types it is a string.
  // eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents
): Promise<string | undefined | 'stopped'> {
  const { settings, trigger, decision } = decided
  const head = await resolveHead(decided).catch(
    (error: unknown) => error as Error
  )
  if (head instanceof Error) {
    await failVisibly(
      "Could not check the pull request's head commit, so nothing was run: " +
        head.message,
      dest,
      'failed'
    )
    return 'stopped'
  }
  if (head?.ok === false) {
    await refuseMovedHead(head.reason, settings, dest)
    return 'stopped'
  }
  if (head && decision.pullRequest) {
    const checkout = checkCheckout({
      checkedOut: readCheckedOutCommit(
        settings.workspace,
        settings.contextPath
      ),
      headSha: head.sha,
      mergeSha: head.mergeSha,
      eventMergeSha:
        trigger.kind === 'pull_request' && trigger.eventName === 'pull_request'
          ? process.env.GITHUB_SHA
          : undefined,
      trigger: checkoutTrigger(trigger),
      pullRequest: decision.pullRequest
    })
    if (!checkout.ok && settings.checkoutCheck === 'stop') {
      await failVisibly(checkout.reason, dest, 'config-error')
      return 'stopped'
    }
    if (!checkout.ok) core.warning(checkout.reason)
    else if (checkout.note) core.info(checkout.note)
  }
  return head?.sha
}

function checkoutTrigger(
  trigger: Trigger
): Parameters<typeof checkCheckout>[0]['trigger'] {
  if (trigger.kind === 'comment' || trigger.kind === 'review_comment')
    return 'comment'
  if (trigger.kind !== 'pull_request') return 'other'
  return trigger.eventName === 'pull_request_target'
    ? 'pull_request_target'
    : 'pull_request'
}

/**
 * The head commit the run reviews, read from the API and checked against
 * the comment or the pull_request event, and `expected-head-sha`
 * (head-check.ts); set as the `head-sha` output. Undefined when the run is
 * not about a pull request.
 */
async function resolveHead({
  settings,
  trigger,
  decision,
  github
}: Decided): Promise<HeadVerdict | undefined> {
  let verdict: HeadVerdict | undefined
  if (
    (trigger.kind === 'comment' || trigger.kind === 'review_comment') &&
    decision.pullRequest
  ) {
    verdict = checkHead({
      head: await github().getPullHead(decision.pullRequest),
      commentCreatedAt: trigger.createdAt,
      expectedSha: settings.expectedHeadSha
    })
  } else if (trigger.kind === 'pull_request') {
    // Every action: a push can land between any event and the job's start.
    const tip = await github().getPullTip(trigger.number)
    verdict = checkHead({
      head: { ...tip, committedAt: undefined, forcePushedAt: [] },
      commentCreatedAt: undefined,
      expectedSha: settings.expectedHeadSha,
      event: { sha: trigger.headSha, labeled: trigger.labeled !== undefined }
    })
  }
  if (verdict) setHeadSha(verdict.sha)
  return verdict
}
