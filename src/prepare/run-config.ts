// The config MassGen runs with: a planned round (plan/run-plan.ts) written
// private to the run's folder, with the folder Docker mode's read container
// is marked by, and what the plan warns of said once.
import * as core from '@actions/core'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { stringify } from 'yaml'
import { Inputs } from '../core/constants.js'
import type { Settings } from '../core/types.js'
import type { RunContext } from '../context/run-context.js'
import type { PlannedRound } from '../plan/run-plan.js'

/** Writes the round's config (the answers' is the config-file output: pipeline/execute.ts). */
export function writeConfig(settings: Settings, planned: PlannedRound): void {
  const { plan, configFile, readContainer } = planned
  const answers = planned.round === 'answers'
  // The vote round's plan repeats the answers' warnings: said once.
  if (answers) warnOfPlan(settings, planned)
  core.info(`MassGen mode: ${modeLine(settings)}`)
  if (answers && readContainer)
    fs.mkdirSync(readContainer.marker, { recursive: true, mode: 0o700 })
  fs.mkdirSync(path.dirname(configFile), { recursive: true })
  fs.writeFileSync(configFile, stringify(plan.config), { mode: 0o600 })
  core.info(
    `MassGen config: ${configFile} (${plan.agents.map((a) => `${a.id}=${a.backend}/${a.model}`).join(', ')})`
  )
}

function warnOfPlan(settings: Settings, { plan }: PlannedRound): void {
  plan.warnings.forEach((w) => core.warning(w))
  if (plan.overridden.length > 0)
    core.warning(
      `Input '${Inputs.Config}' (${settings.userConfig?.origin ?? 'inline'}): the action kept its own ` +
        `value for ${plan.overridden.length} key(s) it owns: ${plan.overridden.join('; ')}`
    )
}

/** The folders the read server serves: those of MassGen's context paths. */
export function readFolders(settings: Settings, context: RunContext): string[] {
  return [settings.contextPath, ...context.extraContextPaths]
}

function modeLine(settings: Settings): string {
  return settings.personas
    ? `${settings.mode}, personas ${settings.personas}`
    : settings.mode
}
