// Reads the event payload into a Trigger. Pure: the payload is untrusted
// input of any shape, so every field is checked and nothing here throws.
import type {
  IssueCommentEvent,
  PullRequestEvent,
  User
} from '@octokit/webhooks-types'
import type { Actor, Trigger } from '../core/types.js'

type Loose<T> = { [K in keyof T]?: unknown }
type UserLike = Partial<Pick<User, 'login' | 'type'>> | null | undefined

/** GitHub Apps act as `<slug>[bot]` users of type `Bot`. */
export function isBot(user: UserLike): boolean {
  return user?.type === 'Bot' || /\[bot\]$/i.test(user?.login ?? '')
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null
    ? (value as Record<string, unknown>)
    : undefined
}

function positiveInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0
    ? value
    : undefined
}

function fullName(side: unknown): string | undefined {
  const name = record(record(side)?.repo)?.full_name
  return typeof name === 'string' ? name.toLowerCase() : undefined
}

function fromPullRequest(
  eventName: string,
  payload: unknown,
  fallbackActor: string
): Trigger {
  const event = record(payload) as Loose<PullRequestEvent> | undefined
  const pr = record(event?.pull_request) as
    Loose<PullRequestEvent['pull_request']> | undefined
  const number = positiveInt(pr?.number) ?? positiveInt(event?.number)
  if (!pr || number === undefined) {
    return ignored(eventName, 'the event payload has no pull request')
  }
  const user = record(pr.user) as UserLike
  const base = fullName(pr.base)
  const head = fullName(pr.head)
  return {
    kind: 'pull_request',
    eventName,
    number,
    actor: sender(event, fallbackActor),
    author: user?.login ?? '',
    // A deleted fork leaves head.repo null: treat it as a fork.
    fromFork: head === undefined || head !== base,
    authorIsBot: isBot(user),
    ...sha(record(pr.head)?.sha),
    ...labelOf(event),
    ...pullState(event, pr)
  }
}

/** What the skip rules read: the action, draft, state, lock and labels. */
function pullState(
  event: Loose<PullRequestEvent> | undefined,
  pr: Loose<PullRequestEvent['pull_request']>
): Pick<
  Extract<Trigger, { kind: 'pull_request' }>,
  'action' | 'draft' | 'state' | 'locked' | 'labels'
> {
  const flag = (v: unknown) => (typeof v === 'boolean' ? v : undefined)
  const labels = Array.isArray(pr.labels)
    ? pr.labels
        .map((l) => record(l)?.name)
        .filter((n): n is string => typeof n === 'string')
    : undefined
  const out: ReturnType<typeof pullState> = {}
  if (typeof event?.action === 'string') out.action = event.action
  if (flag(pr.draft) !== undefined) out.draft = flag(pr.draft)
  if (typeof pr.state === 'string') out.state = pr.state
  if (flag(pr.locked) !== undefined) out.locked = flag(pr.locked)
  if (labels) out.labels = labels
  return out
}

/** The label a `labeled` event adds; nothing for other actions. */
function labelOf(event: Loose<PullRequestEvent> | undefined): {
  labeled?: string
} {
  if (event?.action !== 'labeled') return {}
  const name = record(record(event)?.label)?.name
  return typeof name === 'string' ? { labeled: name } : { labeled: '' }
}

/**
 * A new comment in a review-comment thread. Replies carry the thread's
 * first comment as `in_reply_to_id`; the file, lines and hunk are the
 * thread's, repeated on every reply.
 */
function fromReviewComment(payload: unknown, fallbackActor: string): Trigger {
  const eventName = 'pull_request_review_comment'
  const event = record(payload)
  if (event?.action !== 'created') {
    const action = typeof event?.action === 'string' ? event.action : 'unknown'
    return ignored(
      eventName,
      `${eventName} "${action}" events are not commands; only new comments ("created") are`
    )
  }
  const comment = record(event.comment)
  const pr = record(event.pull_request)
  const pullNumber = positiveInt(pr?.number)
  const commentId = positiveInt(comment?.id)
  if (!comment || !pr || pullNumber === undefined || !commentId) {
    return ignored(eventName, 'the event payload has no review comment')
  }
  const base = fullName(pr.base)
  const head = fullName(pr.head)
  const text = (value: unknown) => (typeof value === 'string' ? value : '')
  return {
    kind: 'review_comment',
    eventName,
    pullNumber,
    commentId,
    threadId: positiveInt(comment.in_reply_to_id) ?? commentId,
    actors: actorsOf(payload, fallbackActor),
    body: text(comment.body),
    ...(typeof comment.created_at === 'string' &&
    !Number.isNaN(Date.parse(comment.created_at))
      ? { createdAt: comment.created_at }
      : {}),
    path: text(comment.path),
    // An outdated thread has no line on the current diff: its original one.
    line: positiveInt(comment.line) ?? positiveInt(comment.original_line),
    startLine:
      positiveInt(comment.start_line) ??
      positiveInt(comment.original_start_line),
    side: typeof comment.side === 'string' ? comment.side : undefined,
    diffHunk: text(comment.diff_hunk),
    fromFork: head === undefined || head !== base
  }
}

function fromComment(payload: unknown): Trigger {
  const event = record(payload) as Loose<IssueCommentEvent> | undefined
  if (event?.action !== 'created') {
    const action = typeof event?.action === 'string' ? event.action : 'unknown'
    return ignored(
      'issue_comment',
      `issue_comment "${action}" events are not commands; only new comments ("created") are`
    )
  }
  const issue = record(event.issue)
  const comment = record(event.comment)
  const issueNumber = positiveInt(issue?.number)
  const commentId = positiveInt(comment?.id)
  if (!issue || !comment || issueNumber === undefined || !commentId) {
    return ignored('issue_comment', 'the event payload has no issue comment')
  }
  const user = record(comment.user) as UserLike
  return {
    kind: 'comment',
    eventName: 'issue_comment',
    issueNumber,
    // Comments on pull requests arrive as issue comments with this link.
    isPullRequest: record(issue.pull_request) !== undefined,
    commentId,
    author: user?.login ?? '',
    authorIsBot: isBot(user),
    body: typeof comment.body === 'string' ? comment.body : '',
    ...(typeof comment.created_at === 'string' &&
    !Number.isNaN(Date.parse(comment.created_at))
      ? { createdAt: comment.created_at }
      : {})
  }
}

function sha(value: unknown): { headSha?: string } {
  return typeof value === 'string' && /^[0-9a-f]{40}$/i.test(value)
    ? { headSha: value.toLowerCase() }
    : {}
}

function ignored(eventName: string, reason: string): Trigger {
  return { kind: 'ignored', eventName, reason }
}

function actorOf(user: unknown): Actor | undefined {
  const u = record(user) as UserLike
  const login = typeof u?.login === 'string' ? u.login.trim() : ''
  return login ? { login, isBot: isBot(u) } : undefined
}

/**
 * Who caused the event: its `sender`, else GITHUB_ACTOR. An empty login
 * names no one, and the gate refuses it.
 */
function sender(event: unknown, fallbackActor: string): Actor {
  return (
    actorOf(record(event)?.sender) ??
    actorOf({ login: fallbackActor }) ?? { login: '', isBot: false }
  )
}

/**
 * Everyone an event names as acting: its sender, the author of the comment
 * or review it carries, and for workflow_run the people who started the
 * run it follows. The run goes ahead only if all of them may start runs.
 */
function actorsOf(event: unknown, fallbackActor: string): Actor[] {
  const p = record(event)
  const run = record(p?.workflow_run)
  const named = [
    sender(event, fallbackActor),
    actorOf(record(p?.comment)?.user),
    actorOf(record(p?.review)?.user),
    actorOf(run?.actor),
    actorOf(run?.triggering_actor)
  ].filter((a): a is Actor => a !== undefined)
  const seen = new Set<string>()
  return named.filter((a) => {
    const key = a.login.toLowerCase()
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/** The issue or pull request an event is about, when it names one. */
function issueNumberOf(event: unknown, repository: string): number | undefined {
  const p = record(event)
  return (
    positiveInt(record(p?.issue)?.number) ??
    positiveInt(record(p?.pull_request)?.number) ??
    workflowRunPull(p, repository)
  )
}

/**
 * The pull request a workflow_run followed, when it is this repository's.
 * GitHub lists there every open pull request whose head is the run's head
 * branch, other repositories' included (a fork's PR #2 against its own
 * parent, say): taking the first would report on this repository's
 * unrelated #2. Only an entry whose base repository is this one counts,
 * by id where the payload has both, and always by `owner/name`
 * (case-insensitive); none: the run has no issue and reports in the job
 * summary only.
 */
function workflowRunPull(
  event: Record<string, unknown> | undefined,
  repository: string
): number | undefined {
  const pulls = record(event?.workflow_run)?.pull_requests
  if (!Array.isArray(pulls)) return undefined
  const here = thisRepository(event, repository)
  if (!here) return undefined
  for (const entry of pulls) {
    const base = record(record(record(entry)?.base)?.repo)
    if (!base || repoNameOfUrl(base.url) !== here.fullName) continue
    const id = positiveInt(base.id)
    if (id !== undefined && here.id !== undefined && id !== here.id) continue
    const number = positiveInt(record(entry)?.number)
    if (number !== undefined) return number
  }
  return undefined
}

/**
 * The repository the run reports to: GITHUB_REPOSITORY (the one the API
 * client writes to), with the payload's repository id when the payload's
 * repository is that one.
 */
function thisRepository(
  event: Record<string, unknown> | undefined,
  repository: string
): { fullName: string; id: number | undefined } | undefined {
  const fullName = repository.trim().toLowerCase()
  if (!/^[^/\s]+\/[^/\s]+$/.test(fullName)) return undefined
  const repo = record(event?.repository)
  const named =
    typeof repo?.full_name === 'string' &&
    repo.full_name.toLowerCase() === fullName
  return { fullName, id: named ? positiveInt(repo.id) : undefined }
}

/** `owner/name` of an API address `https://api.github.com/repos/owner/name`. */
function repoNameOfUrl(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined
  const match = /\/repos\/([^/?#]+)\/([^/?#]+)\/?$/.exec(url)
  return match ? `${match[1]}/${match[2]}`.toLowerCase() : undefined
}

/**
 * What started this run, from GITHUB_EVENT_NAME, the event payload,
 * GITHUB_ACTOR (used when the payload names no sender) and
 * GITHUB_REPOSITORY (the repository whose issues the run may report on).
 */
export function readTrigger(
  eventName: string,
  payload: unknown,
  fallbackActor = '',
  repository = ''
): Trigger {
  switch (eventName) {
    case 'pull_request':
    case 'pull_request_target':
      return fromPullRequest(eventName, payload, fallbackActor)
    case 'issue_comment':
      return fromComment(payload)
    case 'pull_request_review_comment':
      return fromReviewComment(payload, fallbackActor)
    case 'schedule':
    case 'workflow_dispatch':
      return {
        kind: 'manual',
        eventName,
        issueNumber: issueNumberOf(payload, repository)
      }
    default:
      // issues, pull_request_review, workflow_run, push, ...: anyone who
      // can open an issue or review could otherwise spend the keys.
      return {
        kind: 'event',
        eventName,
        issueNumber: issueNumberOf(payload, repository),
        actors: actorsOf(payload, fallbackActor)
      }
  }
}
