// The agents read the checkout and the pull request's diff side by side: when
// the workflow checked out some other commit (on issue_comment, a checkout
// with no `ref` gives the default branch), they review the base's files
// against a diff that is not in them. A run for a pull request therefore
// needs the checkout to be its head or GitHub's merge commit (pure; the
// commits come from the API and from the checkout's `.git`).
import type { CheckedOut } from '../safety/checked-out-commit.js'

type CheckoutVerdict =
  { ok: true; note?: string } | { ok: false; reason: string }

export function checkCheckout(input: {
  checkedOut: CheckedOut
  /** The pull request's head now (already checked by head-check.ts). */
  headSha: string
  /** GitHub's test merge commit now, if any. */
  mergeSha: string | undefined
  /**
   * The merge commit the event was for (GITHUB_SHA on pull_request events):
   * the base may have moved since, so the merge commit now can differ.
   */
  eventMergeSha: string | undefined
  /** Which trigger asked: the fix differs. */
  trigger: 'comment' | 'pull_request' | 'pull_request_target' | 'other'
  pullRequest: number
}): CheckoutVerdict {
  const { checkedOut, headSha, mergeSha, eventMergeSha } = input
  if (!checkedOut.known)
    return {
      ok: true,
      note: `Which commit is checked out could not be read (${checkedOut.why}); it was not compared with the pull request's.`
    }
  const sha = checkedOut.sha.toLowerCase()
  const fits = [headSha, mergeSha, eventMergeSha].some(
    (candidate) => candidate?.toLowerCase() === sha
  )
  if (fits) return { ok: true }
  return {
    ok: false,
    reason:
      `The checkout (${checkedOut.repo}) is commit ${sha.slice(0, 12)}, which is neither the head ` +
      `${headSha.slice(0, 12)} of pull request #${input.pullRequest} nor its merge commit: the agents ` +
      "would read other code than the pull request's. Nothing was run. " +
      fixFor(input.trigger) +
      " To run anyway with a warning, set the input 'checkout-check' to 'warn'."
  }
}

function fixFor(
  trigger: Parameters<typeof checkCheckout>[0]['trigger']
): string {
  switch (trigger) {
    case 'comment':
      return (
        'On comment, review-thread and label runs, resolve the head first and check it out ' +
        "(actions/checkout with `ref:` that SHA, and pass it as 'expected-head-sha'), " +
        'as examples/comment-command.yml does.'
      )
    case 'pull_request_target':
      return (
        'On pull_request_target, actions/checkout gives the base branch: check out ' +
        '`ref: ${{ github.event.pull_request.head.sha }}`.'
      )
    default:
      return 'Check out the pull request with actions/checkout and no `ref` (its merge commit), or `ref:` its head SHA.'
  }
}
