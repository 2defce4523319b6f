// Time of check, time of use on comment and pull request runs. A maintainer
// reads a pull request and comments `/massgen ...` (or adds the label); the
// job starts seconds or minutes later. Whoever can push to the pull request can push in between, and the
// agents would then review (and the workflow run) code the maintainer never
// saw. An issue_comment payload names no commit, so the action finds the
// head itself and refuses to run when it may have moved after the comment.
//
// The rule, from what the API can tell (pure; inputs from readPullHead):
//
// 1. `expected-head-sha`, when given, must be the pull request's head now.
//    The README's workflow resolves the head first, checks out exactly that
//    commit and passes it here: what the agents read is what was checked,
//    and a push between that step and this one is refused. Sound.
// 2. No force push of the head branch after the comment. GitHub records a
//    `head_ref_force_pushed` timeline event with its own clock. Sound.
// 3. The head commit's committer date is not after the comment. This catches
//    every ordinary push of a commit made after the comment with an honest
//    clock, but the date is whatever the committer wrote: a commit backdated
//    on purpose and pushed (not force-pushed) between the comment and the job
//    start is not seen. GitHub's API records no server time for an ordinary
//    push to a pull request (the timeline's `committed` events carry the
//    commit's own dates), so no rule on the API alone closes that window.
//    The remaining guard is 1: the reviewed commit is pinned, shown in the
//    report's context, and is the one the workflow checked out.
// 4. pull_request and pull_request_target events (every action: labeled,
//    opened, synchronize, ...) name the head commit they were for: the
//    commit a maintainer labelled, the one just pushed. The head now must be
//    that commit, read from the API; a push after the event is refused, not
//    reviewed under the event's `head-sha`. Sound, and stronger than 2 and 3:
//    an equal commit means nothing moved.
//
// A refusal ends the run as `skipped` (nothing run, nothing charged), with
// the reason in the log, the job summary and the pull request's comment, so
// the maintainer can look at the new commits and comment again.
import type { PullHead } from '../github/pull.js'

/** Clock skew allowed between a committer's clock and GitHub's. */
const SKEW_MS = 60_000

export type HeadVerdict =
  | {
      ok: true
      sha: string
      /** GitHub's test merge commit now, when it has one. */
      mergeSha: string | undefined
    }
  | { ok: false; sha: string; reason: string }

/** What a pull_request event says of the head (rule 4). */
interface EventHead {
  /** The payload's `pull_request.head.sha`; undefined when it has none. */
  sha: string | undefined
  /** A `labeled` event: the maintainer's label named this commit. */
  labeled: boolean
}

export function checkHead(input: {
  head: PullHead
  /** When the comment was made (payload); undefined for non-comment runs. */
  commentCreatedAt: string | undefined
  expectedSha: string | undefined
  /** pull_request events only: the head commit the event was for. */
  event?: EventHead
}): HeadVerdict {
  const { head, commentCreatedAt, expectedSha, event } = input
  const sha = head.sha.toLowerCase()
  const short = sha.slice(0, 12)
  const passed = {
    ok: true as const,
    sha,
    mergeSha: head.mergeSha?.toLowerCase()
  }
  if (expectedSha && expectedSha.toLowerCase() !== sha) {
    return {
      ok: false,
      sha,
      reason:
        `The pull request's head is now ${short}, not ${expectedSha.slice(0, 12)} ` +
        "(the commit the workflow checked out, input 'expected-head-sha'): it moved " +
        'before the run started. Nothing was run; check the new commits and comment again.'
    }
  }
  if (event) return checkEventHead(passed, event)
  if (!commentCreatedAt) return passed
  const commented = Date.parse(commentCreatedAt)
  const forced = head.forcePushedAt.find((t) => Date.parse(t) > commented)
  if (forced) {
    return {
      ok: false,
      sha,
      reason:
        `The pull request's head branch was force-pushed at ${forced}, after the ` +
        `comment (${commentCreatedAt}); its head is now ${short}. Nothing was run: ` +
        'check the new commits and comment again.'
    }
  }
  const committed = head.committedAt ? Date.parse(head.committedAt) : NaN
  if (!Number.isNaN(committed) && committed > commented + SKEW_MS) {
    return {
      ok: false,
      sha,
      reason:
        `The pull request's head commit ${short} was committed at ${head.committedAt}, ` +
        `after the comment (${commentCreatedAt}). Nothing was run: check the new ` +
        'commits and comment again.'
    }
  }
  return passed
}

/** Rule 4: the head is still the commit the pull_request event was for. */
function checkEventHead(
  passed: Extract<HeadVerdict, { ok: true }>,
  event: EventHead
): HeadVerdict {
  const { sha } = passed
  const short = sha.slice(0, 12)
  const again = event.labeled
    ? 'remove the label and add it again'
    : 'start the run again'
  if (!event.sha) {
    return {
      ok: false,
      sha,
      reason:
        "The event names no head commit (its 'pull_request.head.sha'), so the run " +
        `cannot be tied to the commit it was for; the head is now ${short}. Nothing was run.`
    }
  }
  if (event.sha.toLowerCase() === sha) return passed
  const what = event.labeled
    ? 'the commit that was labelled'
    : 'the commit the event was for'
  return {
    ok: false,
    sha,
    reason:
      `The pull request's head is now ${short}, not ${event.sha.slice(0, 12)} (${what}): ` +
      `someone pushed after the event. Nothing was run; check the new commits and ${again}.`
  }
}
