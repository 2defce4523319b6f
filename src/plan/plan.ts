// Pure planning: settings + question + where things go -> what to run.
import { BALLOT_RUN, buildConfig } from './config.js'
import { allowedEnv } from '../safety/child-env.js'
import { Inputs } from '../core/constants.js'
import {
  KEY_ENV_VARS,
  PROVIDER_ENV_VARS,
  selectAgents,
  type AgentChoice,
  type AgentSelection
} from '../inputs/models.js'
import type {
  AgentPlan,
  ApiKeys,
  PersonaMode,
  Provider,
  RunMode,
  Settings
} from '../core/types.js'
import { userAgentPlans, UserConfigError } from '../inputs/user-config.js'
import {
  forbiddenReferences,
  mergeUserConfig,
  valuesFoundIn,
  withInstructions
} from './merged-config.js'
import type { ReadServerLaunch } from './read-tools.js'
import type { ReadContainer } from './contained-read-server.js'

export interface RunPlan {
  agents: AgentPlan[]
  warnings: string[]
  /** User config values the action replaced, as `path (why)`. */
  overridden: string[]
  config: Record<string, unknown>
  /** Arguments after the MassGen command itself. */
  args: string[]
  env: NodeJS.ProcessEnv
}

interface PlanInput {
  settings: Settings
  question: string
  configFile: string
  /** Read-only folders added to the context (e.g. the pull request's diff). */
  extraContextPaths: string[]
  /** The action's own environment, filtered into the child's. */
  baseEnv: NodeJS.ProcessEnv
  /** The bundled filesystem server the agents read with (read-tools.ts). */
  readServer: ReadServerLaunch
  /** Docker mode: where that server runs (contained-read-server.ts). */
  readContainer?: ReadContainer
  /** The agents main chose (planAgents); chosen here when not given. */
  agents?: AgentSelection
  /** The vote round's run: one ballot per agent (config.ts BALLOT_RUN). */
  ballot?: boolean
}

export { KEY_ENV_VARS }

/**
 * The agents that run: the user's own (`config` with `agents`) or those of
 * `models` (or the defaults) whose key is present. Pure; throws a
 * ModelsError (a config error) when nothing can run.
 */
function planAgents(settings: Settings): AgentSelection {
  const own = settings.userConfig
    ? userAgentPlans(settings.userConfig.config, {
        keys: settings.keys,
        docker: settings.docker,
        baseUrl: settings.baseUrl,
        modelsGiven: settings.models.length > 0
      })
    : undefined
  if (own) return { agents: own, warnings: [] }
  return selectAgents(settings.models, settings.keys, {
    docker: settings.docker,
    baseUrl: settings.baseUrl
  })
}

/** planAgents, with its refusal kept as data for the intake and main. */
export function chooseAgents(settings: Settings): AgentChoice {
  try {
    return { selection: planAgents(settings) }
  } catch (error) {
    return { error }
  }
}

/** Every secret's variable a config may not reference (MassGen expands `${VAR}`). */
const SECRET_VARS = (): string[] => [...KEY_ENV_VARS, ...RUNNER_ONLY_VARS]

export function planRun(input: PlanInput): RunPlan {
  const { settings } = input
  const { agents, warnings } = input.agents ?? planAgents(settings)
  const generated = buildConfig({
    agents,
    docker: settings.docker,
    dockerImage: settings.dockerImage,
    dockerNetwork: settings.dockerNetwork,
    baseUrl: settings.baseUrl,
    maxDurationSeconds: settings.maxDurationSeconds,
    agentCommands: agentCommandsOn(settings),
    readServer: input.readServer,
    ...(input.readContainer ? { readContainer: input.readContainer } : {}),
    ...(input.ballot ? { ballot: true } : {}),
    // Its final presentation is idle (config.ts IDLE_PRESENTATION): a
    // writable context path is written there, and any other run's report
    // shows the presenter's text as the answer.
    ...(readOnlyReview(settings) ? { noPresentation: true } : {}),
    contextPaths: [
      { path: settings.contextPath, permission: settings.contextPermission },
      ...input.extraContextPaths.map((path) => ({
        path,
        permission: 'read' as const
      }))
    ]
  })
  const merged = settings.userConfig
    ? mergeUserConfig(generated, settings.userConfig.config)
    : { config: generated, overridden: [] }
  const config = withInstructions(
    input.ballot ? asBallotRun(merged.config) : merged.config,
    settings.instructions
  )
  refuseSecrets(config, settings)
  return {
    agents,
    warnings,
    overridden: merged.overridden,
    config,
    args: massgenArgs(input.configFile, input.question, settings),
    env: childEnv(input.baseEnv, settings.keys, agents, settings.passEnv)
  }
}

/** A review whose agents write nothing: it makes no artifact to present or test. */
export function readOnlyReview(
  settings: Pick<Settings, 'review' | 'contextPermission'>
): boolean {
  return settings.review === 'inline' && settings.contextPermission === 'read'
}

/**
 * A read-only review whose agents can call only the read server's tools (no
 * commands, no config of the user's that could add tools): nothing of theirs
 * runs long enough to start in the background.
 */
export function readToolsOnly(
  settings: Pick<
    Settings,
    'review' | 'contextPermission' | 'agentCommands' | 'userConfig'
  >
): boolean {
  return (
    readOnlyReview(settings) &&
    !agentCommandsOn(settings) &&
    settings.userConfig === undefined
  )
}

/** The ballot run's keys over whatever the user's config set there. */
function asBallotRun(config: Record<string, unknown>): Record<string, unknown> {
  const orchestrator = (config.orchestrator ?? {}) as Record<string, unknown>
  return { ...config, orchestrator: { ...orchestrator, ...BALLOT_RUN } }
}

/**
 * `agent-commands: auto`: on where the agents must change files
 * (`context-permission: write`); off in a read-only review, local or
 * Docker mode, where MassGen's command server would cost most of the run's
 * time (docs/massgen-time.md) and the read tools serve (in Docker mode from
 * a container, contained-read-server.ts). Only the workflow's inputs decide:
 * nothing in a question or a comment turns commands on, and in Docker mode
 * they always run in the container (config.ts dockerFields).
 */
export function agentCommandsOn(
  settings: Pick<Settings, 'agentCommands' | 'contextPermission'>
): boolean {
  if (settings.agentCommands !== 'auto') return settings.agentCommands
  return settings.contextPermission === 'write'
}

/**
 * Last check of the file to be written: no `${VAR}` naming one of the
 * action's secrets (MassGen would fill it in where nobody needs it) and no
 * key value itself, wherever it came from (config or instructions).
 */
function refuseSecrets(config: Record<string, unknown>, settings: Settings) {
  const values = [...Object.values(settings.keys), settings.githubToken]
  const problems = [
    ...forbiddenReferences(config, SECRET_VARS()),
    ...valuesFoundIn(
      config,
      values.filter((v): v is string => !!v)
    ).map((where) => `${where}: holds the value of an API key or token`)
  ]
  if (problems.length === 0) return
  throw new UserConfigError(
    `Inputs '${Inputs.Config}' / '${Inputs.Instructions}': MassGen's config would carry a secret; ` +
      `refused:\n${problems.map((p) => `  - ${p}`).join('\n')}`
  )
}

/**
 * MassGen's own mode flags (cli/mode_flags.py), passed as flags rather than
 * copied as config keys: the pinned version decides what each one means
 * (`--quick` differs for one agent and for several, `--fast` fills only keys
 * the YAML leaves unset), and execution_metadata.yaml records them.
 */
export function modeArgs(options: {
  mode: RunMode
  personas: PersonaMode | undefined
}): string[] {
  return [
    ...(options.mode === 'quick' ? ['--quick'] : []),
    ...(options.mode === 'fast' ? ['--fast'] : []),
    ...(options.personas ? ['--personas', options.personas] : [])
  ]
}

export function massgenArgs(
  configFile: string,
  question: string,
  options: { mode: RunMode; personas: PersonaMode | undefined } = {
    mode: 'full',
    personas: undefined
  }
): string[] {
  return [
    '--automation',
    // `@word` in a question would be read as a file path (docs/massgen-0.1.97.md).
    '--no-parse-at-references',
    // Keeps MassGen from writing ~/.massgen/sessions.json on the runner.
    '--no-session-registry',
    '--config',
    configFile,
    ...modeArgs(options),
    // `--` keeps a question that starts with `-` from being read as an option.
    '--',
    question
  ]
}

/**
 * The token, and the runner's command files (a process that can write
 * GITHUB_ENV or GITHUB_PATH runs code in every later step): no config may
 * name them in a `${VAR}`. The child never has them (not on the allow-list).
 */
const RUNNER_ONLY_VARS = [
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'GITHUB_ENV',
  'GITHUB_PATH',
  'GITHUB_OUTPUT',
  'GITHUB_STATE',
  'GITHUB_STEP_SUMMARY',
  'GITHUB_EVENT_PATH'
]

/**
 * The child's environment: the allow-list of the runner's (child-env.ts),
 * the names `pass-env` adds, and exactly the keys of the agents planned.
 */
export function childEnv(
  baseEnv: NodeJS.ProcessEnv,
  keys: ApiKeys,
  agents: AgentPlan[],
  passEnv: readonly string[] = []
): NodeJS.ProcessEnv {
  const env = allowedEnv(baseEnv, passEnv)
  const needed = new Set(agents.flatMap((agent) => agent.keyEnvVars))
  for (const [provider, vars] of Object.entries(PROVIDER_ENV_VARS) as [
    Provider,
    string[]
  ][]) {
    const value = keys[provider]
    if (!value) continue
    for (const name of vars) if (needed.has(name)) env[name] = value
  }
  return {
    ...env,
    // Lines arrive as MassGen prints them, without colour codes.
    PYTHONUNBUFFERED: '1',
    PYTHONIOENCODING: 'utf-8',
    NO_COLOR: '1',
    TERM: 'dumb'
  }
}
