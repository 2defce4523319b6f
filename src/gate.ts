// Who may start a run. Only people with write access, checked through the
// API (author_association is not enough: it says nothing of permission), and
// bots only when allow-listed.
import type { GitHubDoor, Permission } from './github.js'
import type { Trigger } from './types.js'

export type GateResult = { allowed: true } | { allowed: false; reason: string }

const WRITERS: Permission[] = ['admin', 'maintain', 'write']

/** `dependabot[bot]`, `Dependabot` and `dependabot` name the same bot. */
export function botName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/\[bot\]$/, '')
}

export function isAllowedBot(login: string, allowedBots: string[]): boolean {
  const name = botName(login)
  return allowedBots.some((b) => b.trim() === '*' || botName(b) === name)
}

export async function checkTriggerAllowed(
  github: Pick<GitHubDoor, 'getPermission' | 'owner' | 'repo'>,
  trigger: Trigger,
  allowedBots: string[]
): Promise<GateResult> {
  if (trigger.kind === 'ignored')
    return { allowed: false, reason: trigger.reason }
  // schedule and workflow_dispatch: starting a workflow already needs write.
  if (trigger.kind === 'manual') return { allowed: true }
  const who = trigger.author
  if (!who) return { allowed: false, reason: 'the event names no author' }
  if (trigger.authorIsBot) {
    // An allow-listed bot is trusted as such: bots are rarely collaborators,
    // so their permission level would say nothing.
    if (isAllowedBot(who, allowedBots)) return { allowed: true }
    return {
      allowed: false,
      reason: `${who} is a bot; list it in allowed-bots to let it start MassGen runs`
    }
  }
  let permission: Permission
  try {
    permission = await github.getPermission(who)
  } catch (e) {
    // Fail closed: no run unless write access is shown.
    const why = e instanceof Error ? e.message : String(e)
    return {
      allowed: false,
      reason: `could not check ${who}'s permission: ${why}`
    }
  }
  if (WRITERS.includes(permission)) return { allowed: true }
  return {
    allowed: false,
    reason: `${who} has ${permission} access to ${github.owner}/${github.repo}; only write, maintain or admin may start MassGen runs`
  }
}
