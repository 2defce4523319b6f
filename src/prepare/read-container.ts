// Docker mode's read container (plan/contained-read-server.ts): started once
// per run, checked to run the server's Node, and removed with the run's
// other containers (run/run-containers.ts removeLeftoverContainers). It starts once the
// image and the config are there, and runs beside the rest of the setup and
// MassGen's own start (seconds of imports): MassGen's MCP client waits for
// the gate file this opens once the container serves (safety/massgen-guard.ts).
import * as fs from 'node:fs'
import * as path from 'node:path'
import type { Log } from '../core/log.js'
import { Inputs } from '../core/constants.js'
import {
  CONTAINED_NODE,
  CONTAINED_SERVER_DIR,
  type ReadContainer
} from '../plan/contained-read-server.js'
import type { ReadServerLaunch } from '../plan/read-tools.js'
import type { ProcessRunner } from '../core/process.js'
import { firstLine } from '../core/text.js'
import { bindMount } from '../safety/docker-mount.js'
import { DockerError } from './docker.js'

/** The read container on its way: MassGen waits at `gate` for it. */
export interface StartingReadContainer {
  /** Resolves once the container serves and the gate is open; rejects with the start's error. */
  up: Promise<void>
  /** The file whose existence lets MassGen start its MCP servers. */
  gate: string
}

/** Starts the container without waiting; `up` tells how it went. */
export function startReadContainerBeside(
  runner: ProcessRunner,
  launch: ReadServerLaunch,
  folders: string[],
  container: ReadContainer,
  log: Pick<Log, 'info'>,
  workDir: string
): StartingReadContainer {
  const gate = path.join(workDir, 'read-container.open')
  const up = startReadContainer(runner, launch, folders, container, log).then(
    () => fs.writeFileSync(gate, '', { flag: 'wx', mode: 0o644 })
  )
  // Awaited by the run; until then a failure must not count as unhandled.
  up.catch(() => undefined)
  return { up, gate }
}

async function startReadContainer(
  runner: ProcessRunner,
  launch: ReadServerLaunch,
  folders: string[],
  container: ReadContainer,
  log: Pick<Log, 'info'>
): Promise<void> {
  const started = Date.now()
  const run = await runner.exec(
    container.docker,
    readContainerRunArgs(launch, folders, container),
    { timeoutMs: 120_000 }
  )
  // The image must run the runner's Node (glibc, libstdc++): MassGen's
  // images do; a probe says so now rather than an agent reading nothing.
  const probe =
    run.exitCode === 0
      ? await runner.exec(
          container.docker,
          ['exec', container.name, CONTAINED_NODE, '-e', '0'],
          { timeoutMs: 60_000 }
        )
      : run
  if (probe.exitCode !== 0) {
    await runner.exec(container.docker, ['rm', '--force', container.name], {
      timeoutMs: 60_000
    })
    throw new DockerError(
      `Docker mode's read tools could not start in the image '${container.image}'` +
        `${detail(probe.stderr)}: the agents read the repository in a container of ` +
        "that image with the runner's Node, which needs glibc and libstdc++ there. " +
        `Use an image that has them, or set '${Inputs.AgentCommands}: true' to have ` +
        "the agents read through MassGen's command tool in their containers instead."
    )
  }
  log.info(
    `Docker mode: the agents' read tools run in ${container.name} (${((Date.now() - started) / 1000).toFixed(1)} s)`
  )
}

function detail(stderr: string): string {
  const line = firstLine(stderr.trim())
  return line ? ` (${line.slice(0, 300)})` : ''
}

/** PID 1 of the container: waits, and ends on `docker stop`'s SIGTERM. */
const KEEP_ALIVE =
  "process.on('SIGTERM',()=>process.exit(0));setInterval(()=>{},1<<30)"

/** `docker run` arguments of the run's read container (detached). */
export function readContainerRunArgs(
  launch: ReadServerLaunch,
  folders: string[],
  container: ReadContainer
): string[] {
  const mounts = [
    [launch.node, CONTAINED_NODE],
    [path.dirname(launch.script), CONTAINED_SERVER_DIR],
    [container.marker, container.marker],
    ...folders.map((f) => [f, f])
  ].flatMap(([from, to]) => ['--mount', bindMount(from ?? '', to ?? '')])
  return [
    'run',
    '--detach',
    '--name',
    container.name,
    '--pull',
    'never',
    '--network',
    'none',
    '--cap-drop',
    'ALL',
    '--security-opt',
    'no-new-privileges',
    '--read-only',
    '--pids-limit',
    '64',
    '--user',
    container.user,
    '--workdir',
    CONTAINED_SERVER_DIR,
    ...mounts,
    '--entrypoint',
    CONTAINED_NODE,
    container.image,
    '-e',
    KEEP_ALIVE
  ]
}
