// Pull requests not to review, from the event alone (no API call): closed
// or locked ones always, drafts with `skip-drafts` (the `ready_for_review`
// event then starts the review), bots' with `skip-bots`, and those with a
// `skip-labels` label. Each skip is said in the job summary and a notice,
// never on the pull request. Pure: the payload's names are untrusted.
import { Inputs } from '../core/constants.js'
import type { Settings, Trigger } from '../core/types.js'

type PullTrigger = Extract<Trigger, { kind: 'pull_request' }>

/** Why this pull request is not reviewed, or undefined to go on. */
export function pullSkipReason(
  settings: Pick<Settings, 'skipDrafts' | 'skipBots' | 'skipLabels'>,
  trigger: PullTrigger
): string | undefined {
  const pr = `Pull request #${trigger.number}`
  if (trigger.state === 'closed' || trigger.action === 'closed')
    return `${pr} is closed: there is nothing to review. Nothing was run.`
  if (trigger.locked === true)
    return `${pr} is locked: its conversation takes no new comments. Nothing was run.`
  if (trigger.draft === true && settings.skipDrafts)
    return (
      `${pr} is a draft and '${Inputs.SkipDrafts}' is on: it is reviewed when marked ` +
      "ready for review (the workflow's pull_request types need 'ready_for_review'). " +
      'Nothing was run.'
    )
  if (trigger.authorIsBot && settings.skipBots)
    return (
      `${pr} was opened by a bot (${shown(trigger.author)}) and '${Inputs.SkipBots}' ` +
      'is on. Nothing was run.'
    )
  const labels = new Set(
    (trigger.labels ?? []).map((l) => l.trim().toLowerCase())
  )
  const label = settings.skipLabels.find((l) => labels.has(l))
  if (label !== undefined)
    return (
      // Our own input's name for it, not the payload's.
      `${pr} has the label '${label}', one of '${Inputs.SkipLabels}'. Nothing was run.`
    )
  return undefined
}

/** A login in GitHub's own alphabet (letters, digits, `-`, `[bot]`), cut. */
function shown(login: string): string {
  return `'${login.replace(/[^A-Za-z0-9\-[\]]/g, '').slice(0, 60)}'`
}
