// The plan of the run's MassGen rounds, from what context read: where each
// config goes, the read server the agents read with, Docker mode's read
// container, and what planRun makes of them (plan.ts); the vote round's is
// finished once the answers give its ballot. Nothing is written here: the
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

/** What the vote round may spend: the rest of max-duration and of max-cost. */
export interface RoundLimits {
  readonly seconds: number
  readonly cost?: number
}

/** The vote round as planned: its settings (its limits, no mode flags) and its round. */
interface PlannedVote {
  readonly settings: Settings
  readonly round: PlannedRound
}

/**
 * The answers' round, and the vote round that may follow it planned here
 * too but for what only the answers can give it: the ballot's question and
 * what is left of the run's time and cost.
 */
export interface PlannedAnswers extends PlannedRound {
  readonly planVote: (question: string, limits: RoundLimits) => PlannedVote
}

/** The answers' round planned, and the vote round's planner beside it. */
export function planRound(
  settings: Settings,
  agents: AgentSelection,
  context: Pick<RunContext, 'question' | 'extraContextPaths'>,
  workDir: string
): PlannedAnswers {
  const relative = configRelativePath(new Date())
  const readContainer = readContainerFor(settings, workDir)
  const answers = plannedRound('answers', settings, {
    agents,
    question: context.question,
    extraContextPaths: context.extraContextPaths,
    configFile: path.join(workDir, relative),
    readContainer
  })
  // The vote round reads through the answers' read container, kept up for it.
  const voteFile = path.join(workDir, relative.replace(/\.yaml$/, '.vote.yaml'))
  const planVote = (question: string, limits: RoundLimits): PlannedVote => {
    // One ballot per agent (config.ts BALLOT_RUN), no `--quick` (it keeps
    // MassGen's vote for several agents), no `--fast`, no personas (one
    // more request to write them).
    const ballots: Settings = {
      ...settings,
      mode: 'full',
      personas: undefined,
      maxDurationSeconds: limits.seconds,
      maxCost: limits.cost
    }
    return {
      settings: ballots,
      round: plannedRound('vote', ballots, {
        agents,
        question,
        extraContextPaths: context.extraContextPaths,
        configFile: voteFile,
        readContainer,
        ballot: true
      })
    }
  }
  return { ...answers, planVote }
}

function plannedRound(
  round: PlannedRound['round'],
  settings: Settings,
  what: {
    agents: AgentSelection
    question: string
    extraContextPaths: string[]
    configFile: string
    readContainer: ReadContainer | undefined
    ballot?: boolean
  }
): PlannedRound {
  const { configFile, readContainer } = what
  const readServer = bundledReadServer()
  const plan = planRun({
    settings,
    question: what.question,
    configFile,
    extraContextPaths: what.extraContextPaths,
    baseEnv: process.env,
    readServer,
    ...(readContainer ? { readContainer } : {}),
    agents: what.agents,
    ...(what.ballot ? { ballot: true } : {})
  })
  return {
    round,
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
