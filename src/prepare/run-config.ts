// The config MassGen runs with: the plan of this run written private to the
// run's folder, with the read container its tools read through in Docker
// mode.
import * as core from '@actions/core'
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { stringify } from 'yaml'
import { Inputs, Outputs } from '../core/constants.js'
import type { Settings } from '../core/types.js'
import type { RunContext } from '../context/run-context.js'
import type { AgentSelection } from '../inputs/models.js'
import { configRelativePath } from '../plan/config.js'
import {
  dockerClientEnv,
  READ_CONTAINER_PREFIX,
  type ReadContainer
} from '../plan/contained-read-server.js'
import { agentCommandsOn, planRun, type RunPlan } from '../plan/plan.js'
import { bundledReadServer, type ReadServerLaunch } from '../plan/read-tools.js'
import { findExecutable } from '../process/executable.js'

/** The config MassGen runs with, written private to the run's folder. */
export function writeConfig(
  settings: Settings,
  agents: AgentSelection,
  context: RunContext,
  workDir: string,
  /** The vote on the findings writes its own file and sets no output. */
  round: 'answers' | 'vote' = 'answers',
  /** The vote round reads through the answers' read container, still up. */
  answersReadContainer?: ReadContainer
): {
  plan: RunPlan
  configFile: string
  readServer: ReadServerLaunch
  readContainer?: ReadContainer
} {
  const relative = configRelativePath(new Date())
  const configFile = path.join(
    workDir,
    round === 'vote' ? relative.replace(/\.yaml$/, '.vote.yaml') : relative
  )
  const readServer = bundledReadServer()
  const readContainer =
    round === 'vote'
      ? answersReadContainer
      : readContainerFor(settings, workDir)
  const plan = planRun({
    settings,
    question: context.question,
    configFile,
    extraContextPaths: context.extraContextPaths,
    baseEnv: process.env,
    readServer,
    ...(readContainer ? { readContainer } : {}),
    agents
  })
  // The vote round's plan repeats the answers' warnings: said once.
  if (round === 'answers') plan.warnings.forEach((w) => core.warning(w))
  if (round === 'answers' && plan.overridden.length > 0) {
    core.warning(
      `Input '${Inputs.Config}' (${settings.userConfig?.origin ?? 'inline'}): the action kept its own ` +
        `value for ${plan.overridden.length} key(s) it owns: ${plan.overridden.join('; ')}`
    )
  }
  core.info(`MassGen mode: ${modeLine(settings)}`)
  fs.mkdirSync(path.dirname(configFile), { recursive: true })
  fs.writeFileSync(configFile, stringify(plan.config), { mode: 0o600 })
  if (round === 'answers') core.setOutput(Outputs.ConfigFile, configFile)
  core.info(
    `MassGen config: ${configFile} (${plan.agents.map((a) => `${a.id}=${a.backend}/${a.model}`).join(', ')})`
  )
  return {
    plan,
    configFile,
    readServer,
    ...(readContainer ? { readContainer } : {})
  }
}

/**
 * Docker mode's read tools run in a container of the agents' image, as the
 * action's own user, when the agents read without commands. A missing
 * client is prepareDocker's error to give.
 */
function readContainerFor(
  settings: Settings,
  workDir: string
): ReadContainer | undefined {
  if (!settings.docker || agentCommandsOn(settings)) return undefined
  const marker = path.join(workDir, 'read-container')
  fs.mkdirSync(marker, { recursive: true, mode: 0o700 })
  return {
    docker: findExecutable('docker', process.env) ?? '/usr/bin/docker',
    name: `${READ_CONTAINER_PREFIX}${randomBytes(4).toString('hex')}`,
    image: settings.dockerImage,
    user: `${process.getuid?.() ?? 0}:${process.getgid?.() ?? 0}`,
    env: dockerClientEnv(process.env),
    marker
  }
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
