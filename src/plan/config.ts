// The MassGen config for one run: pure, validated, and free of secrets.
import { z } from 'zod'
import { ENDPOINT_BACKENDS } from '../inputs/models.js'
import {
  READ_TOOLS,
  readServerEntry,
  type ReadServerLaunch
} from './read-tools.js'
import {
  containedReadServerEntry,
  DOCKER_CLIENT_VARS,
  type ReadContainer
} from './contained-read-server.js'
import {
  BACKENDS,
  type AgentPlan,
  type Backend,
  type ContextPermission,
  type DockerNetwork
} from '../core/types.js'

const permission = z.enum(['read', 'write'])

const readServerSchema = z
  .object({
    name: z.literal('filesystem'),
    type: z.literal('stdio'),
    command: z.string().startsWith('/'),
    args: z.array(z.string().startsWith('/')).min(2),
    allowed_tools: z.array(z.enum(READ_TOOLS))
  })
  .strict()

/** contained-read-server.ts: `docker run` of the same server. */
const containedReadServerSchema = z
  .object({
    name: z.literal('filesystem'),
    type: z.literal('stdio'),
    command: z.string().regex(/^\/.*\/docker$/),
    args: z.array(z.string()).min(2),
    allowed_tools: z.array(z.enum(READ_TOOLS)),
    env: z.partialRecord(z.enum(DOCKER_CLIENT_VARS), z.string()).optional(),
    security: z
      .object({ allowed_executables: z.tuple([z.literal('docker')]) })
      .strict()
  })
  .strict()

const backendSchema = z
  .object({
    type: z.enum(BACKENDS),
    model: z.string().min(1),
    base_url: z.url().optional(),
    cwd: z.string().min(1).optional(),
    enable_mcp_command_line: z.boolean().optional(),
    command_line_execution_mode: z.enum(['docker', 'local']).optional(),
    command_line_docker_image: z.string().min(1).optional(),
    command_line_docker_network_mode: z
      .enum(['none', 'bridge', 'host'])
      .optional(),
    command_line_docker_enable_sudo: z.boolean().optional(),
    command_line_docker_credentials: z
      .object({ env_vars: z.array(z.string().regex(/^[A-Z_][A-Z0-9_]*$/)) })
      .strict()
      .optional(),
    enable_code_based_tools: z.boolean().optional(),
    exclude_file_operation_mcps: z.boolean().optional(),
    mcp_servers: z
      .array(z.union([readServerSchema, containedReadServerSchema]))
      .optional()
  })
  // `strict` keeps an `api_key` (or any unknown field) from ever being written.
  .strict()

const massgenConfigSchema = z
  .object({
    agents: z
      .array(
        z
          .object({
            // Also a folder name (agentWorkspace): no dots, no slashes.
            id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
            backend: backendSchema
          })
          .strict()
      )
      .min(1)
      .refine(
        (agents) => new Set(agents.map((a) => a.id)).size === agents.length,
        {
          message: 'agent ids must be unique'
        }
      ),
    orchestrator: z
      .object({
        context_paths: z.array(
          z.object({ path: z.string().startsWith('/'), permission }).strict()
        ),
        snapshot_storage: z.string().optional(),
        agent_temporary_workspace: z.string().optional(),
        coordination: z
          .object({
            write_mode: z.literal('legacy').optional(),
            enable_changedoc: z.literal(false)
          })
          .strict(),
        skip_voting: z.literal(true).optional(),
        skip_final_presentation: z.literal(true).optional(),
        max_new_answers_per_agent: z.literal(1).optional(),
        disable_injection: z.literal(true).optional()
      })
      .strict(),
    timeout_settings: z
      .object({ orchestrator_timeout_seconds: z.number().int().positive() })
      .strict(),
    ui: z
      .object({
        display_type: z.literal('simple'),
        logging_enabled: z.literal(true)
      })
      .strict()
  })
  .strict()

type MassgenConfig = z.infer<typeof massgenConfigSchema>

interface ConfigOptions {
  agents: AgentPlan[]
  docker: boolean
  dockerImage: string
  dockerNetwork: DockerNetwork
  baseUrl: string | undefined
  maxDurationSeconds: number
  contextPaths: { path: string; permission: ContextPermission }[]
  /** The agents get MassGen's command tool (docs/massgen-time.md: its price). */
  agentCommands: boolean
  /** The bundled filesystem server the agents read the context paths with. */
  readServer: ReadServerLaunch
  /** Docker mode: the container that server runs in (contained-read-server.ts). */
  readContainer?: ReadContainer
  /** The vote round's run: one ballot per agent and nothing more (BALLOT_RUN). */
  ballot?: boolean
  /** No final presentation: nothing the report uses comes from it (IDLE_PRESENTATION). */
  noPresentation?: boolean
}

/**
 * The vote round's MassGen: each agent answers the ballot once, on its own,
 * and the run ends (skip_voting: done when every agent has answered;
 * orchestrator.py _coordination_complete), with no final presentation
 * (final_presentation_runner.py: skipped with skip_voting). MassGen's own
 * vote and synthesis of the ballots (what `--quick` keeps for several
 * agents: 3 more requests for 2 agents) are of no use: the action reads
 * each agent's ballot (vote/vote-round.ts) and judges the run by them.
 */
export const BALLOT_RUN = {
  skip_voting: true,
  skip_final_presentation: true,
  max_new_answers_per_agent: 1,
  disable_injection: true
} as const

/**
 * The answers' run of a read-only review: no final presentation. The
 * review counts each agent's own answer, never the presenter's rewrite
 * (review/post.ts answerFor), and the report shows the winner's answer:
 * the presentation is one request (the whole review's context again) whose
 * text nothing reads. MassGen then reuses the winner's answer as the final
 * one (final_presentation_runner.py: `winner_reuse`, the strategy
 * skip_final_presentation implies, with no writable context path) and
 * leaves status.json's winner unset: results/results.ts names it by
 * MassGen's own rule.
 */
export const IDLE_PRESENTATION = { skip_final_presentation: true } as const

/** Folder (relative to MassGen's cwd) each agent works in. */
function agentWorkspace(agentId: string): string {
  return `workspaces/${agentId}`
}

export function buildConfig(options: ConfigOptions): MassgenConfig {
  const agents = options.agents.map((agent) => {
    const commands = commandsFor(agent, options)
    return {
      id: agent.id,
      backend: {
        type: agent.backend,
        model: agent.model,
        ...(ENDPOINT_BACKENDS.includes(agent.backend) && options.baseUrl
          ? { base_url: options.baseUrl }
          : {}),
        ...(worksInFolder(commands, options)
          ? { cwd: agentWorkspace(agent.id) }
          : {}),
        enable_mcp_command_line: commands,
        ...(!commands
          ? {}
          : options.docker
            ? dockerFields(agent, options.dockerImage, options.dockerNetwork)
            : { command_line_execution_mode: 'local' as const }),
        // No MassGen file servers (its Python workspace_tools, its npx
        // filesystem server): the bundled one below reads the context paths.
        exclude_file_operation_mcps: true,
        // With commands the agents read through them, and MassGen's setup stays
        // as it was (its Docker-mode tests). Codex and Claude Code start MCP
        // servers through their own CLI (in the container in Docker mode, where
        // the runner's Node is not) and ignore allowed_tools: MassGen's setup.
        ...(IN_CONTAINER_CLIENTS.includes(agent.backend) || commands
          ? {}
          : { mcp_servers: [readServer(options)] })
      }
    }
  })
  return massgenConfigSchema.parse({
    agents,
    orchestrator: {
      context_paths: options.contextPaths,
      // MassGen requires both when any agent has a cwd.
      snapshot_storage: 'snapshots',
      agent_temporary_workspace: 'temp_workspaces',
      // Docker mode writes a writable context path in place ('legacy'):
      // MassGen's default ('auto') gives the winner a copy in a 0700 folder
      // under the runner's temp folder, which the image's user cannot write,
      // so nothing would change. The action opens the repository itself to
      // that user for the run (container-write-access.ts).
      coordination: {
        ...(options.docker &&
        options.contextPaths.some((c) => c.permission === 'write')
          ? { write_mode: 'legacy' as const }
          : {}),
        // MassGen's decision journal (its "Change Document"): about 8 KB of
        // instructions in every request's system prompt, for a document no
        // report reads (docs/benchmarks.md, the price of consensus).
        enable_changedoc: false
      },
      ...(options.ballot
        ? BALLOT_RUN
        : options.noPresentation
          ? IDLE_PRESENTATION
          : {})
    },
    timeout_settings: {
      orchestrator_timeout_seconds: options.maxDurationSeconds
    },
    ui: { display_type: 'simple', logging_enabled: true }
  })
}

/**
 * Whether an agent gets a folder of its own (`cwd`): where it runs commands
 * or may write. A read-only review without commands reads through the read
 * server alone; without `cwd` MassGen leaves out the system prompt's
 * filesystem sections (about 9 KB of every request: workspace, filesystem
 * access and best practices, `rg`/`sg` search guidance;
 * system_message_builder.py, `if agent.backend.filesystem_manager`).
 */
function worksInFolder(commands: boolean, options: ConfigOptions): boolean {
  return commands || options.contextPaths.some((c) => c.permission === 'write')
}

/**
 * Whether an agent gets MassGen's command tool: as asked (plan.ts
 * agentCommandsOn), and always for the coding agents in Docker mode, whose
 * CLI runs its own shell tools: in the container only with Docker's fields.
 */
function commandsFor(agent: AgentPlan, options: ConfigOptions): boolean {
  return (
    options.agentCommands ||
    (options.docker && IN_CONTAINER_CLIENTS.includes(agent.backend))
  )
}

/** The read server on the context paths: in a container in Docker mode. */
function readServer(options: ConfigOptions) {
  const folders = options.contextPaths.map((c) => c.path)
  if (!options.docker) return readServerEntry(options.readServer, folders)
  if (!options.readContainer)
    throw new Error('Docker mode: the read tools need their container')
  return containedReadServerEntry(
    options.readServer,
    folders,
    options.readContainer
  )
}

/**
 * The coding agents run their model client inside the container: only they
 * need their key there, and a network to reach their API. The others' model
 * calls are MassGen's, on the runner; their containers get neither.
 */
const IN_CONTAINER_CLIENTS: readonly Backend[] = ['codex', 'claude_code']

function containerNetwork(
  backend: Backend,
  network: DockerNetwork
): Exclude<DockerNetwork, 'auto'> {
  if (network !== 'auto') return network
  return IN_CONTAINER_CLIENTS.includes(backend) ? 'bridge' : 'none'
}

function dockerFields(agent: AgentPlan, image: string, network: DockerNetwork) {
  const needsKey = IN_CONTAINER_CLIENTS.includes(agent.backend)
  return {
    command_line_execution_mode: 'docker' as const,
    command_line_docker_image: image,
    command_line_docker_network_mode: containerNetwork(agent.backend, network),
    // The `-sudo` image: agents may install system packages where networked.
    command_line_docker_enable_sudo: true,
    // Passed by name: the values stay in the child's environment, never in a file.
    ...(needsKey
      ? { command_line_docker_credentials: { env_vars: [...agent.keyEnvVars] } }
      : {}),
    enable_code_based_tools: true
  }
}

/** MassGen's own file naming (docs/massgen-0.1.97.md): `.massgen-quality/sessions/run_<ts>/configs/run_<ts>.yaml`. */
export function configRelativePath(now: Date): string {
  const ts = timestamp(now)
  return `.massgen-quality/sessions/run_${ts}/configs/run_${ts}.yaml`
}

function timestamp(now: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0')
  return (
    `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}_` +
    `${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`
  )
}
