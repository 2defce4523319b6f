// How MassGen is started: in Docker mode with an open umask for the agents'
// containers, in local mode inside the sandbox unless that is turned off.
import * as core from '@actions/core'
import type { ProcessRunner } from '../core/process.js'
import type { Settings } from '../core/types.js'
import type { RunPlan } from '../plan/plan.js'
import { readServerFolders, type ReadServerLaunch } from '../plan/read-tools.js'
import { READ_GATE_ENV, withMassgenGuard } from '../safety/massgen-guard.js'
import { sandboxLaunch, type Launch } from '../safety/sandbox.js'
import type { StartingReadContainer } from './read-container.js'

/**
 * MassGen's command for a plan: the installed MassGen, the plan's
 * arguments, and its environment with the guard in front (and the read
 * gate in Docker mode); started as launchFor says.
 */
export async function massgenLaunch(
  settings: Settings,
  where: {
    workDir: string
    runner: ProcessRunner
    guardDir: string
    /** Docker mode's read container on its way: MassGen waits at its gate. */
    reading?: StartingReadContainer
  },
  installation: { command: string; prefixArgs: readonly string[] },
  config: { plan: RunPlan; readServer: ReadServerLaunch }
): Promise<Launch> {
  return launchFor(
    settings,
    where.workDir,
    where.runner,
    [...readServerFolders(config.readServer), where.guardDir],
    {
      command: installation.command,
      args: [...installation.prefixArgs, ...config.plan.args],
      env: withReadGate(
        withMassgenGuard(
          withMassgenOnPath(config.plan.env, installation.command),
          where.guardDir
        ),
        where.reading
      )
    }
  )
}

/** MassGen's MCP servers wait for the read container (safety/massgen-guard.ts). */
function withReadGate(
  env: NodeJS.ProcessEnv,
  reading: StartingReadContainer | undefined
): NodeJS.ProcessEnv {
  return reading ? { ...env, [READ_GATE_ENV]: reading.gate } : env
}

/** Local mode's MassGen starts in the sandbox unless that is turned off. */
async function launchFor(
  settings: Settings,
  workDir: string,
  runner: ProcessRunner,
  /** Folders the sandbox shows read-only besides MassGen's own (the guard's too). */
  toolPaths: string[],
  launch: Launch
): Promise<Launch> {
  if (settings.docker) return withOpenUmask(launch)
  if (!settings.localSandbox) {
    core.warning(
      "Local mode without the sandbox ('local-sandbox: false'): the agents' commands " +
        'run as the runner user and can read the GitHub token, the API keys and ' +
        "the job's files. Use it only for trusted questions."
    )
    return launch
  }
  return sandboxLaunch(runner, launch, {
    workDir,
    contextPaths: [
      {
        path: settings.contextPath,
        writable: settings.contextPermission === 'write'
      }
    ],
    toolPaths,
    env: process.env,
    log: core
  })
}

/**
 * Docker mode: MassGen creates each agent's workspace on the runner, but the
 * agent's commands run as the image's user (uid 1000 in MassGen's images; the
 * runner user is 1001 on GitHub), who could not write there. With umask 0
 * the folders MassGen makes are open to that user; the run's folder itself
 * stays private (0700), so no other user of the runner can reach them.
 */
function withOpenUmask(launch: Launch): Launch {
  return {
    ...launch,
    command: '/bin/sh',
    args: ['-c', 'umask 000 && exec "$0" "$@"', launch.command, ...launch.args]
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
