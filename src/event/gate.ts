// Who may start a run. Every event but schedule and workflow_dispatch names
// the people acting in it, and each of them must have write access, checked
// through the API (author_association is not enough: it says nothing of
// permission), or be named in allowed-users; bots only when allow-listed.
import { WRITERS, type GitHubApi, type Permission } from '../github/api.js'
import type { Actor, Settings, Trigger } from '../core/types.js'
import { errorText } from '../core/text.js'

export type GateResult =
  | { allowed: true }
  /** Refused: someone without write access, a bot not allow-listed, ... */
  | { allowed: false; reason: string }
  /**
   * Refused because the permission could not be read (the API failed after
   * its retries): not a verdict on anyone, so the step fails for it to show.
   */
  | { allowed: false; reason: string; checkFailed: true }

type GatePolicy = Pick<Settings, 'allowedBots' | 'allowedUsers'>

type PermissionLookup = Pick<GitHubApi, 'getPermission' | 'owner' | 'repo'>

/** `dependabot[bot]`, `Dependabot` and `dependabot` name the same bot. */
function botName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/\[bot\]$/, '')
}

export function isAllowedBot(login: string, allowedBots: string[]): boolean {
  const name = botName(login)
  return allowedBots.some((b) => botName(b) === name)
}

/** The people whose permission decides, by kind of trigger. */
function actorsOf(trigger: Trigger): Actor[] {
  switch (trigger.kind) {
    case 'pull_request':
      return [trigger.actor]
    case 'comment':
      return [{ login: trigger.author, isBot: trigger.authorIsBot }]
    case 'event':
    case 'review_comment':
      return trigger.actors
    default:
      return []
  }
}

export async function checkTriggerAllowed(
  github: PermissionLookup,
  trigger: Trigger,
  policy: GatePolicy
): Promise<GateResult> {
  if (trigger.kind === 'ignored')
    return { allowed: false, reason: trigger.reason }
  // schedule and workflow_dispatch: starting a workflow already needs write.
  if (trigger.kind === 'manual') return { allowed: true }
  const actors = actorsOf(trigger)
  if (actors.length === 0 || actors.some((a) => !a.login)) {
    return {
      allowed: false,
      reason: `the ${trigger.eventName} event names no one who started it, so no permission can be checked`
    }
  }
  // One at a time: the first refusal ends it, without asking about the rest.
  for (const actor of actors) {
    const result = await checkActor(github, actor, policy)
    if (!result.allowed) return result
  }
  return { allowed: true }
}

async function checkActor(
  github: PermissionLookup,
  actor: Actor,
  policy: GatePolicy
): Promise<GateResult> {
  const who = actor.login
  if (actor.isBot) {
    // An allow-listed bot is trusted as such: bots are rarely collaborators,
    // so their permission level would say nothing.
    if (isAllowedBot(who, policy.allowedBots)) return { allowed: true }
    return {
      allowed: false,
      reason: `${who} is a bot; list it in allowed-bots to let it start MassGen runs`
    }
  }
  const name = who.toLowerCase()
  if (policy.allowedUsers.some((u) => u.toLowerCase() === name))
    return { allowed: true }
  let permission: Permission
  try {
    permission = await github.getPermission(who)
  } catch (e) {
    // Fail closed: no run unless write access is shown.
    const why = errorText(e)
    return {
      allowed: false,
      checkFailed: true,
      reason: `could not check ${who}'s permission: ${why}`
    }
  }
  if (WRITERS.includes(permission)) return { allowed: true }
  return {
    allowed: false,
    reason:
      `${who} has ${permission} access to ${github.owner}/${github.repo}; only write, ` +
      'maintain or admin may start MassGen runs (or logins listed in allowed-users)'
  }
}
