// Pure planning: settings + question + where things go -> what to run.
import { buildConfig, type MassgenConfig } from './config.js'
import { PROVIDER_ENV_VARS, selectAgents } from './models.js'
import type { ReadServerLaunch } from './read-tools.js'
import type { AgentPlan, ApiKeys, Provider, Settings } from './types.js'

export interface RunPlan {
  agents: AgentPlan[]
  warnings: string[]
  config: MassgenConfig
  /** Arguments after the MassGen command itself. */
  args: string[]
  env: NodeJS.ProcessEnv
}

export interface PlanInput {
  settings: Settings
  question: string
  configFile: string
  /** Read-only folders added to the context (e.g. the pull request's diff). */
  extraContextPaths: string[]
  /** The action's own environment, filtered into the child's. */
  baseEnv: NodeJS.ProcessEnv
  /** The bundled filesystem server the agents read with (read-tools.ts). */
  readServer: ReadServerLaunch
}

/** Every variable that may carry an API key; only the child gets them. */
export const KEY_ENV_VARS = [
  ...new Set(Object.values(PROVIDER_ENV_VARS).flat()),
  'CLAUDE_CODE_API_KEY'
]

export function planRun(input: PlanInput): RunPlan {
  const { settings } = input
  const { agents, warnings } = selectAgents(settings.models, settings.keys, {
    docker: settings.docker,
    baseUrl: settings.baseUrl
  })
  const config = buildConfig({
    agents,
    docker: settings.docker,
    dockerImage: settings.dockerImage,
    dockerNetwork: settings.dockerNetwork,
    baseUrl: settings.baseUrl,
    maxDurationSeconds: settings.maxDurationSeconds,
    agentCommands: agentCommandsOn(settings),
    readServer: input.readServer,
    contextPaths: [
      { path: settings.contextPath, permission: settings.contextPermission },
      ...input.extraContextPaths.map((path) => ({
        path,
        permission: 'read' as const
      }))
    ]
  })
  return {
    agents,
    warnings,
    config,
    args: massgenArgs(input.configFile, input.question),
    env: childEnv(input.baseEnv, settings.keys, agents)
  }
}

/**
 * `agent-commands: auto`: on where the commands are isolated in a container
 * (Docker mode) or must change files (`context-permission: write`); off in
 * a read-only local-mode review, where MassGen's command server would cost
 * most of the run's time (docs/massgen-time.md).
 */
export function agentCommandsOn(
  settings: Pick<Settings, 'agentCommands' | 'docker' | 'contextPermission'>
): boolean {
  if (settings.agentCommands !== 'auto') return settings.agentCommands
  return settings.docker || settings.contextPermission === 'write'
}

export function massgenArgs(configFile: string, question: string): string[] {
  return [
    '--automation',
    // `@word` in a question would be read as a file path (MASSGEN.md).
    '--no-parse-at-references',
    // Keeps MassGen from writing ~/.massgen/sessions.json on the runner.
    '--no-session-registry',
    '--config',
    configFile,
    // `--` keeps a question that starts with `-` from being read as an option.
    '--',
    question
  ]
}

/**
 * The token, and the runner's command files: a process that can write
 * GITHUB_ENV (BASH_ENV=...) or GITHUB_PATH runs code in every later step.
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
 * The child's environment: the runner's, minus everything that carries a
 * credential the agents do not need (action inputs hold the keys and token,
 * ACTIONS_* the runtime tokens), plus exactly the keys of the agents planned.
 */
export function childEnv(
  baseEnv: NodeJS.ProcessEnv,
  keys: ApiKeys,
  agents: AgentPlan[]
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(baseEnv)) {
    if (/^(INPUT_|ACTIONS_)/i.test(name)) continue
    if (RUNNER_ONLY_VARS.includes(name) || KEY_ENV_VARS.includes(name)) continue
    env[name] = value
  }
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

/**
 * MassGen starts its MCP servers by bare name (`fastmcp`), so the folder of
 * an absolute MassGen executable (its virtualenv's bin) goes first on PATH.
 */
export function withMassgenOnPath(
  env: NodeJS.ProcessEnv,
  executable: string
): NodeJS.ProcessEnv {
  if (!executable.startsWith('/')) return env
  const bin = executable.slice(0, executable.lastIndexOf('/'))
  return { ...env, PATH: [bin, env.PATH].filter(Boolean).join(':') }
}
