// Local mode's agents hold their API keys in MassGen's environment, where
// any of their commands can read them: on events that carry other people's
// text (which can instruct the agents), local mode needs the user's consent.
import { Inputs } from '../inputs/constants.js'
import type { Trigger } from '../inputs/types.js'

/** Events whose text comes only from people who can already change the workflow. */
const OWN_TEXT_EVENTS = ['schedule', 'workflow_dispatch', 'push']

export function carriesOthersText(
  eventName: string,
  trigger: Trigger
): boolean {
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
  return (
    `Local mode ('${Inputs.Docker}: false') refused on '${eventName}' events: their text ` +
    "comes from people outside the repository's writers and can instruct the agents, " +
    "whose commands in local mode can read the agents' API keys. Use Docker mode " +
    `(the default), or set '${Inputs.AcceptLocalModeRisk}: true' to accept that risk.`
  )
}
