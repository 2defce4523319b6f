// Reads the event payload into a Trigger. Pure: the payload is untrusted
// input of any shape, so every field is checked and nothing here throws.
import type {
  IssueCommentEvent,
  PullRequestEvent,
  User
} from '@octokit/webhooks-types'
import type { Trigger } from './types.js'

type Loose<T> = { [K in keyof T]?: unknown }
type Actor = Partial<Pick<User, 'login' | 'type'>> | null | undefined

/** GitHub Apps act as `<slug>[bot]` users of type `Bot`. */
export function isBot(user: Actor): boolean {
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

function fromPullRequest(eventName: string, payload: unknown): Trigger {
  const event = record(payload) as Loose<PullRequestEvent> | undefined
  const pr = record(event?.pull_request) as
    Loose<PullRequestEvent['pull_request']> | undefined
  const number = positiveInt(pr?.number) ?? positiveInt(event?.number)
  if (!pr || number === undefined) {
    return ignored(eventName, 'the event payload has no pull request')
  }
  const user = record(pr.user) as Actor
  const base = fullName(pr.base)
  const head = fullName(pr.head)
  return {
    kind: 'pull_request',
    eventName,
    number,
    author: user?.login ?? '',
    // A deleted fork leaves head.repo null: treat it as a fork.
    fromFork: head === undefined || head !== base,
    authorIsBot: isBot(user),
    ...sha(record(pr.head)?.sha)
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
  const user = record(comment.user) as Actor
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

/** What started this run, from GITHUB_EVENT_NAME and the event payload. */
export function readTrigger(eventName: string, payload: unknown): Trigger {
  switch (eventName) {
    case 'pull_request':
    case 'pull_request_target':
      return fromPullRequest(eventName, payload)
    case 'issue_comment':
      return fromComment(payload)
    default: {
      // schedule, workflow_dispatch, push, issues, pull_request_review, ...:
      // keep an issue or PR number when the payload has one, for the comment.
      const p = record(payload)
      const issueNumber =
        positiveInt(record(p?.issue)?.number) ??
        positiveInt(record(p?.pull_request)?.number)
      return { kind: 'manual', eventName, issueNumber }
    }
  }
}
