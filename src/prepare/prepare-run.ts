// The run's setup, its three parts at once (setup.ts): the pull request's
// reads and the config (handed in, already started), the Docker image (then
// the context opened to its user, or the read container started once the
// config is there too), and MassGen restored or installed. A
// fresh install is fingerprinted here, before MassGen first starts, and left
// for the post step to save (prepare/install/deferred-save.ts).
import * as os from 'node:os'
import * as path from 'node:path'
import { grantContainerWrite } from './container-write-access.js'
import { prepareDocker } from './docker.js'
import { savesOnRef } from './install/deferred-save.js'
import { runNeedsExtras } from './install/split.js'
import { prepareMassgen, type MassgenInstallation } from './massgen.js'
import { concurrently, type SetupTimings } from './setup.js'
import type { Settings } from '../core/types.js'
import type { ProcessRunner } from '../core/process.js'
import { recheckConfined } from '../safety/context-path.js'
import type { Log } from '../core/log.js'

export interface PreparedRun<C> {
  config: C
  installation: MassgenInstallation
  /** The image as it ran (by digest), in Docker mode. */
  dockerImage?: string
  timings: SetupTimings
}

export async function prepareRun<C>(
  settings: Settings,
  runner: ProcessRunner,
  workDir: string,
  configured: Promise<C>,
  where: {
    env: NodeJS.ProcessEnv
    log: Log
    /** Whether this job runs in a container (docker.ts; tests hand in an answer). */
    insideContainer?: () => boolean
    /**
     * Docker mode: what starts once the image is there and the config is
     * written, right after a confinement check (the read container,
     * read-container.ts, which runs on beside the rest).
     */
    withImage?: (config: C) => void | Promise<void>
  }
): Promise<PreparedRun<C>> {
  const { results, timings } = await concurrently({
    config: { name: 'pull request and config', run: () => configured },
    image: {
      name: 'Docker image',
      run: settings.docker
        ? async () => {
            const image = await prepareImage(settings, runner, workDir, where)
            const { withImage } = where
            if (withImage) {
              const config = await configured
              // It mounts the context path: only the very folder confined.
              recheckConfined(settings.workspace, settings.contextPath)
              await withImage(config)
            }
            return image
          }
        : undefined
    },
    massgen: {
      name: 'MassGen',
      run: () => prepareInstall(settings, runner, where)
    }
  })
  // Last look before MassGen mounts, binds or serves it.
  recheckConfined(settings.workspace, settings.contextPath)
  // Phases that ran have their results: only the image's may be skipped.
  return {
    config: results.config as C,
    installation: results.massgen as MassgenInstallation,
    ...(results.image ? { dockerImage: results.image } : {}),
    timings
  }
}

/** The Docker image present (pulled when not), then the context opened to it. */
async function prepareImage(
  settings: Settings,
  runner: ProcessRunner,
  workDir: string,
  where: { log: Log; insideContainer?: () => boolean }
): Promise<string> {
  const { log } = where
  const dockerImage = await prepareDocker(
    runner,
    settings.dockerImage,
    log,
    where.insideContainer
  )
  if (settings.contextPermission === 'write') {
    // The grant opens a tree to another uid: only the very folder confined.
    recheckConfined(settings.workspace, settings.contextPath)
    await grantContainerWrite(
      runner,
      settings.dockerImage,
      [settings.contextPath],
      log,
      workDir
    )
  }
  return dockerImage
}

/** MassGen restored or installed; whether a fresh install is saved: cache-save. */
function prepareInstall(
  settings: Settings,
  runner: ProcessRunner,
  where: { env: NodeJS.ProcessEnv; log: Log }
): Promise<MassgenInstallation> {
  return prepareMassgen(runner, {
    version: settings.massgenVersion,
    command: settings.massgenCommand,
    docker: settings.docker,
    useCache: settings.cacheMassgen,
    needsExtras: runNeedsExtras(settings),
    saveCache: savesOnRef(settings.cacheSave, where.env.GITHUB_REF),
    toolCacheDir:
      where.env.RUNNER_TOOL_CACHE || path.join(os.homedir(), '.cache'),
    env: where.env,
    log: where.log
  })
}
