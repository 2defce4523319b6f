// Local mode's agents hold their API keys in MassGen's environment, where
// any of their commands can read them: on events that carry other people's
// text (which can instruct the agents), local mode needs the user's consent.
import { Inputs } from '../core/constants.js'
import type { Trigger } from '../core/types.js'

/** Events whose text comes only from people who can already change the workflow. */
const OWN_TEXT_EVENTS = ['schedule', 'workflow_dispatch', 'push']

/**
 * Bots write what they carry from elsewhere: a Dependabot or Renovate pull
 * request (or push) holds upstream release notes, changelogs and commit
 * messages, written by whoever publishes the dependency, and allow-listing
 * the bot says nothing of that text. Any bot named as acting counts.
 */
function botInvolved(trigger: Trigger): boolean {
  switch (trigger.kind) {
    case 'pull_request':
      return trigger.authorIsBot || trigger.actor.isBot
    case 'event':
    case 'review_comment':
      return trigger.actors.some((a) => a.isBot)
    case 'comment':
      return trigger.authorIsBot
    default:
      return false
  }
}

export function carriesOthersText(
  eventName: string,
  trigger: Trigger
): boolean {
  if (botInvolved(trigger)) return true
  if (trigger.kind === 'pull_request')
    return eventName !== 'pull_request' || trigger.fromFork
  return !OWN_TEXT_EVENTS.includes(eventName)
}

/** Why local mode may not run here, or undefined when it may. */
export function localModeRefusal(
  settings: { docker: boolean; acceptLocalModeRisk: boolean },
  eventName: string,
  trigger: Trigger
): string | undefined {
  if (settings.docker || settings.acceptLocalModeRisk) return undefined
  if (!carriesOthersText(eventName, trigger)) return undefined
  const whose = botInvolved(trigger)
    ? 'a bot started it, and bots carry text written elsewhere (upstream release notes, changelogs)'
    : "their text comes from people outside the repository's writers"
  return (
    `Local mode ('${Inputs.Docker}: false') refused on '${eventName}' events: ${whose} ` +
    "and can instruct the agents, whose commands in local mode can read the agents' " +
    `API keys. Use Docker mode (the default), or set '${Inputs.AcceptLocalModeRisk}: true' ` +
    'to accept that risk.'
  )
}
