// Docker mode's read tools: the bundled filesystem server (read-tools.ts) in
// a container of the agents' image, so the agents read the repository from
// inside a container, as their commands would, instead of on the runner.
// MassGen's Python command server imports all of MassGen at every turn
// (docs/massgen-time.md); a read-only review does not need it.
//
// One container per run, started by the action before MassGen
// (prepare/read-container.ts, which holds its `docker run`) and removed with the run's other containers;
// MassGen starts the server at every agent turn with `docker exec`, which
// costs about what a start on the runner costs, where a `docker run` per
// turn was ~1 s more (docs/benchmarks.md). The container sees only the
// runner's Node, the server's folder and the folders it serves, all
// read-only; no network, no capabilities, no new privileges, a read-only
// root, the action's own uid (it reads what the runner's user may read,
// nothing more), none of the runner's environment.
import * as path from 'node:path'
import { bindMount } from '../safety/docker-mount.js'
import { READ_TOOLS, type ReadServerLaunch } from './read-tools.js'

/** Where the runner's Node and the server's folder show in the container. */
export const CONTAINED_NODE = '/opt/massgen-action/node'
export const CONTAINED_SERVER_DIR = '/opt/massgen-action/fs-server'

/** The Docker client's own settings, passed on when set (MassGen gives an MCP server a minimal environment). */
export const DOCKER_CLIENT_VARS = [
  'DOCKER_HOST',
  'DOCKER_CONTEXT',
  'DOCKER_CONFIG',
  'DOCKER_CERT_PATH',
  'DOCKER_TLS_VERIFY',
  'DOCKER_API_VERSION'
] as const

/** The read container's name starts so; MassGen's own are `massgen-<agent>-<hex>`. */
export const READ_CONTAINER_PREFIX = 'massgen-read-'

export interface ReadContainer {
  /** Absolute path of the docker client. */
  docker: string
  /** `massgen-read-<hex>`: found and removed with MassGen's (run/run-containers.ts). */
  name: string
  image: string
  /** `uid:gid` the server runs as: the action's own. */
  user: string
  /** The Docker client's variables from the action's environment. */
  env: Record<string, string>
  /**
   * An empty folder in the run's folder, mounted too: the run's containers
   * are found by a mount under the run's folder (run/run-containers.ts findRunContainers).
   */
  marker: string
}

interface ContainedServerEntry {
  name: 'filesystem'
  type: 'stdio'
  command: string
  args: string[]
  allowed_tools: string[]
  env?: Record<string, string>
  /** MassGen allows only a fixed list of MCP executables; `docker` is not on it. */
  security: { allowed_executables: ['docker'] }
}

/** MassGen's MCP entry: the server started in the read container at each turn. */
export function containedReadServerEntry(
  launch: ReadServerLaunch,
  folders: string[],
  container: ReadContainer
): ContainedServerEntry {
  for (const f of folders) bindMount(f, f)
  return {
    name: 'filesystem',
    type: 'stdio',
    command: container.docker,
    args: [
      'exec',
      '--interactive',
      container.name,
      CONTAINED_NODE,
      path.posix.join(CONTAINED_SERVER_DIR, path.basename(launch.script)),
      ...folders
    ],
    allowed_tools: [...READ_TOOLS],
    ...(Object.keys(container.env).length > 0 ? { env: container.env } : {}),
    security: { allowed_executables: ['docker'] }
  }
}

/** The Docker client's variables that are set in `env`. */
export function dockerClientEnv(
  env: NodeJS.ProcessEnv
): Record<string, string> {
  return Object.fromEntries(
    DOCKER_CLIENT_VARS.flatMap((name) => {
      const value = env[name]
      return value ? [[name, value]] : []
    })
  )
}
