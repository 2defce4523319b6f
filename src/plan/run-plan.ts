// The plan of one MassGen round, from what context read: where its config
// goes, the read server the agents read with, Docker mode's read container,
// and what planRun makes of them (plan.ts). Nothing is written here: the
// config is written, and the container's folder made, by
// prepare/run-config.ts.
import { randomBytes } from 'node:crypto'
import * as path from 'node:path'
import type { Settings } from '../core/types.js'
import type { RunContext } from '../context/run-context.js'
import type { AgentSelection } from '../inputs/models.js'
import { findExecutable } from '../process/executable.js'
import { configRelativePath } from './config.js'
import {
  dockerClientEnv,
  READ_CONTAINER_PREFIX,
  type ReadContainer
} from './contained-read-server.js'
import { agentCommandsOn, planRun, type RunPlan } from './plan.js'
import { bundledReadServer, type ReadServerLaunch } from './read-tools.js'

export interface PlannedRound {
  /** The answers', or the vote on their findings (its own file, no output). */
  round: 'answers' | 'vote'
  plan: RunPlan
  configFile: string
  readServer: ReadServerLaunch
  readContainer?: ReadContainer
}

/** One round planned: the answers', or the vote's through the answers' read container. */
export function planRound(
  settings: Settings,
  agents: AgentSelection,
  context: Pick<RunContext, 'question' | 'extraContextPaths'>,
  workDir: string,
  /** The vote round reads through the answers' read container, still up. */
  vote?: { readContainer: ReadContainer | undefined }
): PlannedRound {
  const relative = configRelativePath(new Date())
  const configFile = path.join(
    workDir,
    vote ? relative.replace(/\.yaml$/, '.vote.yaml') : relative
  )
  const readServer = bundledReadServer()
  const readContainer = vote
    ? vote.readContainer
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
  return {
    round: vote ? 'vote' : 'answers',
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
  return {
    docker: findExecutable('docker', process.env) ?? '/usr/bin/docker',
    name: `${READ_CONTAINER_PREFIX}${randomBytes(4).toString('hex')}`,
    image: settings.dockerImage,
    user: `${process.getuid?.() ?? 0}:${process.getgid?.() ?? 0}`,
    env: dockerClientEnv(process.env),
    marker: path.join(workDir, 'read-container')
  }
}
