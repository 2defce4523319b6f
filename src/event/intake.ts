// Decides from the event whether to run, on which issue, with which question.
import { Inputs } from '../core/constants.js'
import { parseCommand } from './command.js'
import { stripInvisible } from '../safety/visible-text.js'
import type { ConversationRequest } from '../core/conversation.js'
import { pullSkipReason } from './pull-skips.js'
import { checkTriggerAllowed, type GateResult } from './gate.js'
import type { GitHubApi } from '../github/api.js'
import { ModelsError, type AgentChoice } from '../inputs/models.js'
import { MAX_QUERY_BYTES } from '../inputs/settings.js'
import type { ReviewCommentTrigger, Settings, Trigger } from '../core/types.js'

import type { AgentSelection } from '../inputs/models.js'

export type Intake =
  | { action: 'skip'; reason: string; quiet: boolean }
  | {
      /**
       * The permission check itself failed (gate.ts): nothing runs, and
       * the step fails with the reason, reported where the run would be.
       */
      action: 'fail'
      reason: string
      issueNumber: number | undefined
      replyTo?: { pullNumber: number; threadId: number }
    }
  | {
      action: 'run'
      question: string
      /** Issue or pull request the report goes to, if any. */
      issueNumber: number | undefined
      /** Pull request whose changes the agents get as context. */
      pullRequest: number | undefined
      /** The comment that asked for the run, for reactions. */
      commentId: number | undefined
      /** The conversation to read for the agents before the run. */
      conversation?: ConversationRequest
      /** That conversation as text for the agents, once read (pipeline/run-variant.ts). */
      context?: string
      /**
       * A review-comment thread the report goes to as a reply, instead of
       * the sticky comment (which keeps the pull request's main report).
       */
      replyTo?: { pullNumber: number; threadId: number }
    }

/** A run the intake allowed. */
export type RunIntake = Extract<Intake, { action: 'run' }>

/** A run the intake allowed, with the agents main chose for it (chooseAgents). */
export type RunDecision = Readonly<
  RunIntake & {
    agents: AgentSelection
  }
>

export class IntakeError extends Error {}

/**
 * `agents` is main's one choice of agents (chooseAgents): a pull request
 * without secrets for which nothing can run is skipped, not failed.
 */
export async function intake(
  settings: Settings,
  trigger: Trigger,
  github: () => GitHubApi,
  agents: AgentChoice
): Promise<Intake> {
  switch (trigger.kind) {
    case 'ignored':
      return { action: 'skip', reason: trigger.reason, quiet: true }
    case 'comment':
      return commentIntake(settings, trigger, github)
    case 'pull_request':
      return pullRequestIntake(settings, trigger, github, agents)
    case 'review_comment':
      return reviewCommentIntake(settings, trigger, github, agents)
    case 'event': {
      const gate = await checkTriggerAllowed(github(), trigger, settings)
      if (!gate.allowed)
        return refused(gate, {
          issueNumber: settings.issueNumber ?? trigger.issueNumber
        })
      return queryRun(settings, trigger)
    }
    case 'manual':
      return queryRun(settings, trigger)
  }
}

/**
 * A gate refusal: skipped when someone may not start runs; failed, reported
 * where the run would have been, when their permission could not be read.
 */
function refused(
  gate: Exclude<GateResult, { allowed: true }>,
  where: Pick<Extract<Intake, { action: 'fail' }>, 'issueNumber' | 'replyTo'>
): Intake {
  if ('checkFailed' in gate)
    return {
      action: 'fail',
      reason:
        `The permission check failed, so nothing was run: ${gate.reason}. ` +
        "This says nothing of anyone's access; re-run the job once GitHub's API answers.",
      ...where
    }
  return { action: 'skip', reason: gate.reason, quiet: false }
}

/** A run on the configured question, reported on the event's issue if any. */
function queryRun(
  settings: Settings,
  trigger: Extract<Trigger, { kind: 'event' | 'manual' }>
): Intake {
  return {
    action: 'run',
    question: requireQuery(settings, trigger.eventName),
    issueNumber: settings.issueNumber ?? trigger.issueNumber,
    pullRequest: undefined,
    commentId: undefined
  }
}

async function pullRequestIntake(
  settings: Settings,
  trigger: Extract<Trigger, { kind: 'pull_request' }>,
  github: () => GitHubApi,
  agents: AgentChoice
): Promise<Intake> {
  const label = labelSkip(settings, trigger)
  if (label) return label
  const skipped = pullSkipReason(settings, trigger)
  if (skipped) return { action: 'skip', reason: skipped, quiet: false }
  if (
    trigger.eventName === 'pull_request_target' &&
    trigger.fromFork &&
    !settings.allowForkPullRequestTarget
  ) {
    return { action: 'skip', reason: forkTargetSkipReason(), quiet: false }
  }
  if (withoutSecrets(settings, trigger, agents)) {
    return { action: 'skip', reason: forkSkipReason(), quiet: false }
  }
  const gate = await checkTriggerAllowed(github(), trigger, settings)
  if (!gate.allowed) return refused(gate, { issueNumber: trigger.number })
  return {
    action: 'run',
    question: requireQuery(settings, trigger.eventName),
    issueNumber: trigger.number,
    pullRequest: trigger.number,
    commentId: undefined
  }
}

/**
 * With `label-trigger` set, a `labeled` event runs only for that label
 * (GitHub label names are case-insensitive); other actions are unchanged.
 */
export function labelSkip(
  settings: Pick<Settings, 'labelTrigger'>,
  trigger: Extract<Trigger, { kind: 'pull_request' }>
): Intake | undefined {
  if (!settings.labelTrigger || trigger.labeled === undefined) return undefined
  const wanted = settings.labelTrigger.trim().toLowerCase()
  if (trigger.labeled.trim().toLowerCase() === wanted) return undefined
  // The name is anyone's with triage access: one line, cut, in quotes.
  const shown = JSON.stringify(
    stripInvisible(trigger.labeled).replace(/\s+/g, ' ').slice(0, 60)
  )
  return {
    action: 'skip',
    reason:
      `The label added, ${shown}, is not the '${Inputs.LabelTrigger}' label ` +
      `'${settings.labelTrigger}'; only adding that label starts a run.`,
    quiet: true
  }
}

/**
 * GitHub gives pull_request runs from forks and Dependabot no secrets: with
 * no key at all for the models asked for, that is a reason to skip, not a
 * failure (and not a matter of permission: nothing could run anyway).
 */
function withoutSecrets(
  settings: Settings,
  trigger: { fromFork: boolean; authorIsBot?: boolean },
  agents: AgentChoice
): boolean {
  if (Object.keys(settings.keys).length > 0) return false
  if (!trigger.fromFork && !trigger.authorIsBot) return false
  return 'error' in agents && agents.error instanceof ModelsError
}

function forkSkipReason(): string {
  return (
    'This pull request comes from a fork or a bot, and GitHub gives such runs no secrets, ' +
    'so no API key is available. Nothing was run. To review it, a maintainer can comment ' +
    "'/massgen <question>' on the pull request (comment runs have the secrets), or add the keys " +
    'to the Dependabot secrets for Dependabot pull requests.'
  )
}

function forkTargetSkipReason(): string {
  return (
    'This pull_request_target run is for a pull request from a fork: it would run with ' +
    'your secrets and a write token on text written by whoever opened the pull request. ' +
    `Nothing was run. Set '${Inputs.AllowForkPullRequestTarget}: true' to allow it (read the ` +
    "action's security notes first, docs/security.md), or have a maintainer comment '/massgen <question>'."
  )
}

async function commentIntake(
  settings: Settings,
  trigger: Extract<Trigger, { kind: 'comment' }>,
  github: () => GitHubApi
): Promise<Intake> {
  const command = parseCommand(trigger.body, settings.trigger)
  if (command.kind === 'not-command') {
    return {
      action: 'skip',
      reason: `The comment does not start with '${settings.trigger}'.`,
      quiet: true
    }
  }
  // Checked before anything else so a refused user costs nothing.
  const gate = await checkTriggerAllowed(github(), trigger, settings)
  if (!gate.allowed) return refused(gate, { issueNumber: trigger.issueNumber })
  const question = commandQuestion(settings, command)
  if (typeof question !== 'string') return question
  return {
    action: 'run',
    question,
    issueNumber: trigger.issueNumber,
    pullRequest: trigger.isPullRequest ? trigger.issueNumber : undefined,
    commentId: trigger.commentId,
    // A command on an issue that has the action's report follows up on it.
    conversation: {
      kind: 'follow-up',
      issueNumber: trigger.issueNumber,
      commentId: trigger.commentId
    }
  }
}

/** The question of a command, or why there is none to run. */
function commandQuestion(
  settings: Settings,
  command: ReturnType<typeof parseCommand>
): string | Extract<Intake, { action: 'skip' }> {
  const question =
    command.kind === 'command' ? command.question : settings.query
  if (!question) {
    return {
      action: 'skip',
      reason:
        `'${settings.trigger}' needs a question after it ` +
        `(e.g. '${settings.trigger} review the error handling'), ` +
        `or a default in the '${Inputs.Query}' input.`,
      quiet: false
    }
  }
  const bytes = Buffer.byteLength(question, 'utf8')
  if (bytes > MAX_QUERY_BYTES) {
    // MassGen gets the question as one argument, which Linux caps (E2BIG).
    return {
      action: 'skip',
      reason: `The question is ${bytes} bytes; at most ${MAX_QUERY_BYTES} fit. Shorten it.`,
      quiet: false
    }
  }
  return question
}

/**
 * A command in a review-comment thread: gated like any comment, answered
 * by a reply in the thread with the thread as context.
 */
async function reviewCommentIntake(
  settings: Settings,
  trigger: ReviewCommentTrigger,
  github: () => GitHubApi,
  agents: AgentChoice
): Promise<Intake> {
  const command = parseCommand(trigger.body, settings.trigger)
  if (command.kind === 'not-command') {
    return {
      action: 'skip',
      reason: `The review comment does not start with '${settings.trigger}'.`,
      quiet: true
    }
  }
  const gate = await checkTriggerAllowed(github(), trigger, settings)
  if (!gate.allowed)
    return refused(gate, {
      issueNumber: undefined,
      replyTo: { pullNumber: trigger.pullNumber, threadId: trigger.threadId }
    })
  // Review comments on a fork's pull request run like pull_request: no secrets.
  if (withoutSecrets(settings, trigger, agents)) {
    return { action: 'skip', reason: forkSkipReason(), quiet: false }
  }
  const question = commandQuestion(settings, command)
  if (typeof question !== 'string') return question
  return {
    action: 'run',
    question,
    issueNumber: undefined,
    pullRequest: trigger.pullNumber,
    commentId: undefined,
    conversation: {
      kind: 'review-thread',
      pullNumber: trigger.pullNumber,
      threadId: trigger.threadId,
      commentId: trigger.commentId,
      path: trigger.path,
      line: trigger.line,
      startLine: trigger.startLine,
      side: trigger.side,
      diffHunk: trigger.diffHunk
    },
    replyTo: { pullNumber: trigger.pullNumber, threadId: trigger.threadId }
  }
}

function requireQuery(settings: Settings, eventName: string): string {
  if (settings.query) return settings.query
  throw new IntakeError(
    `Input '${Inputs.Query}' (or '${Inputs.QueryFile}') is required on ` +
      `'${eventName}' events (expected the question the agents answer)`
  )
}
