// Where the files that set up a run (`config`, `instructions-file`,
// `query-file`) are read from. On an event that carries someone else's code
// (a pull request of any kind, a comment or review on one, a label, a
// workflow_run for one or for a fork's branch) the checkout may be that code:
// a config there could start MCP servers on the runner or point a backend,
// with your key, anywhere. So there they come from the base commit through
// the API, never from the checkout. Push, schedule and dispatch check out
// the repository's own code: there the workspace is read (safely).
// Pure: the payload is untrusted input of any shape.
import type { Trigger } from '../core/types.js'

export type SetupSource =
  | { from: 'workspace' }
  /** The base commit of this pull request (read through the API). */
  | { from: 'pull-base'; pullNumber: number; why: string }
  /** The default branch: the event names a fork's code but no pull request. */
  | { from: 'branch'; ref: string; why: string }
  /** Someone else's code with no base to read from: fail closed. */
  | { from: 'none'; why: string }

type Json = Record<string, unknown>

function record(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Json)
    : undefined
}

function positiveInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0
    ? value
    : undefined
}

export function setupSourceFor(
  trigger: Trigger,
  payload: unknown
): SetupSource {
  switch (trigger.kind) {
    case 'pull_request':
      return pullBase(trigger.number, `a ${trigger.eventName} event`)
    case 'review_comment':
      return pullBase(trigger.pullNumber, 'a review comment')
    case 'comment':
      return trigger.isPullRequest
        ? pullBase(trigger.issueNumber, 'a comment on a pull request')
        : { from: 'workspace' }
    case 'event':
      return fromOtherEvent(trigger.eventName, record(payload) ?? {})
    case 'manual':
    case 'ignored':
      return { from: 'workspace' }
  }
}

/**
 * The base a pull_request event names (GitHub's, not the author's): the
 * branch and its commit, where the repository config file is read without
 * an API call. Undefined unless both are there in their form.
 */
export function eventBase(
  payload: unknown
): { sha: string; ref: string } | undefined {
  const base = record(record(record(payload)?.pull_request)?.base)
  const sha = base?.sha
  const ref = base?.ref
  return typeof sha === 'string' &&
    /^[0-9a-f]{40}$/i.test(sha) &&
    typeof ref === 'string' &&
    ref.trim()
    ? { sha, ref }
    : undefined
}

/** The repository's default branch as the event names it, if it does. */
export function eventDefaultBranch(payload: unknown): string | undefined {
  const branch = record(record(payload)?.repository)?.default_branch
  return typeof branch === 'string' && branch.trim() ? branch : undefined
}

function pullBase(pullNumber: number, what: string): SetupSource {
  return {
    from: 'pull-base',
    pullNumber,
    why: `${what} (pull request #${pullNumber})`
  }
}

/**
 * pull_request_review and the like carry `pull_request`; workflow_run,
 * check_suite and check_run carry `pull_requests` and a head repository.
 */
function fromOtherEvent(eventName: string, payload: Json): SetupSource {
  const pr = positiveInt(record(payload.pull_request)?.number)
  if (pr !== undefined) return pullBase(pr, `a ${eventName} event`)
  const run =
    record(payload.workflow_run) ??
    record(payload.check_suite) ??
    record(record(payload.check_run)?.check_suite)
  if (!run) return { from: 'workspace' }
  const repository = record(payload.repository)
  const ours = (repo: unknown) => sameRepository(record(repo), repository)
  const pulls = Array.isArray(run.pull_requests) ? run.pull_requests : []
  // Only a pull request of this repository has a base here.
  for (const entry of pulls) {
    const p = record(entry)
    const number = positiveInt(p?.number)
    if (number !== undefined && ours(record(p?.base)?.repo))
      return pullBase(number, `a ${eventName} event`)
  }
  // A workflow_run names the repository its code came from (null for a
  // deleted fork); check suites do not, so there only pull_requests tell.
  const fromElsewhere =
    record(payload.workflow_run) !== undefined && !ours(run.head_repository)
  if (pulls.length === 0 && !fromElsewhere) return { from: 'workspace' }
  const branch = eventDefaultBranch(payload)
  const why = `a ${eventName} event for code from outside this repository`
  if (branch) return { from: 'branch', ref: branch, why }
  return { from: 'none', why }
}

function sameRepository(a: Json | undefined, b: Json | undefined): boolean {
  if (!a || !b) return false
  if (positiveInt(a.id) !== undefined && positiveInt(b.id) !== undefined)
    return a.id === b.id
  const name = (r: Json) =>
    typeof r.full_name === 'string' ? r.full_name.toLowerCase() : undefined
  return name(a) !== undefined && name(a) === name(b)
}
