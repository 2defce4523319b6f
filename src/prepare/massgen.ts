// Prepare: find or install the pinned MassGen.
//
// Order: `massgen-command` (used as given) -> a complete virtualenv already in
// the tool cache ('local') -> the GitHub Actions cache ('cache') -> a fresh
// install ('installed'). A fresh install uses uv (bootstrapped from PyPI with
// pip, pinned) and falls back to plain pip; it is built in a temporary folder
// beside its final place, marked complete, then renamed into place, so a
// killed install never looks finished. scripts/setup-massgen.sh builds the
// same folder with the same marker: keep the two in step.
//
// The parts live beside it (install-*.ts); everything they export is
// re-exported here, so importers need only this module.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { findExecutable } from './executable.js'
import {
  cacheAvailable,
  createActionsCacheStore,
  type CacheStore
} from './install/cache.js'
import { installFresh } from './install/fresh.js'
import { isComplete, venvLayout } from './install/layout.js'
import { MassgenInstallError, type InstallLog } from './install/output.js'
import { installerEnv, probePython } from './install/python.js'
import type { ProcessRunner } from '../run/process.js'
import { errorText } from '../shared/text.js'

export interface PrepareOptions {
  version: string
  /** `massgen-command` split into words; undefined means install. */
  command: string[] | undefined
  /** Adds the `[docker]` extra. */
  docker: boolean
  useCache: boolean
  /** RUNNER_TOOL_CACHE, or ~/.cache off Actions. */
  toolCacheDir: string
  env: NodeJS.ProcessEnv
  log: InstallLog
  cache?: CacheStore
}

export interface MassgenInstallation {
  /** Absolute path of the massgen executable, or the first word of massgen-command. */
  command: string
  prefixArgs: string[]
  source: 'command' | 'local' | 'cache' | 'installed'
  seconds: number
  /** The installed release; undefined for massgen-command. */
  version: string | undefined
}

export async function prepareMassgen(
  runner: ProcessRunner,
  options: PrepareOptions
): Promise<MassgenInstallation> {
  const started = performance.now()
  const { log } = options
  const done = (
    result: Omit<MassgenInstallation, 'seconds'>,
    how: string
  ): MassgenInstallation => {
    const seconds = Math.round((performance.now() - started) / 100) / 10
    log.info(`MassGen: ${how} (${seconds.toFixed(1)} s)`)
    return { ...result, seconds }
  }

  if (options.command !== undefined) {
    const [first, ...rest] = options.command
    if (!first) {
      throw new MassgenInstallError('massgen-command is empty: give a command')
    }
    if (!findExecutable(first, options.env)) {
      throw new MassgenInstallError(
        `massgen-command: "${first}" was not found` +
          (first.includes('/') ? '' : ' on PATH') +
          '. Install MassGen in an earlier step, or leave massgen-command ' +
          'empty to let the action install massgen-version.'
      )
    }
    return done(
      {
        command: first,
        prefixArgs: rest,
        source: 'command',
        version: undefined
      },
      `using massgen-command "${options.command.join(' ')}"`
    )
  }

  checkVersion(options.version)
  const env = installerEnv(options.env)
  const python = await probePython(runner, env)
  const layout = venvLayout(
    options.toolCacheDir,
    options.version,
    options.docker,
    python,
    options.env
  )
  const massgen = path.join(layout.dir, 'bin', 'massgen')
  const result = (source: MassgenInstallation['source']) => ({
    command: massgen,
    prefixArgs: [],
    source,
    version: options.version
  })
  log.debug(`MassGen virtualenv: ${layout.dir}`)

  if (isComplete(layout)) {
    return done(result('local'), `reused ${layout.dir}`)
  }
  if (fs.existsSync(layout.dir)) {
    log.warning(
      `MassGen: ${layout.dir} is an unfinished install (no complete marker); removing it and installing again`
    )
    fs.rmSync(layout.dir, { recursive: true, force: true })
  }

  const cacheStore = options.cache ?? createActionsCacheStore()
  const cacheUsable = options.useCache && cacheAvailable(options.env)
  if (options.useCache && !cacheUsable) {
    log.info(
      'MassGen: the Actions cache is unavailable (ACTIONS_RUNTIME_TOKEN and ACTIONS_RESULTS_URL or ACTIONS_CACHE_URL not set); installing without it'
    )
  }
  if (cacheUsable) {
    let hit: string | undefined
    try {
      hit = await cacheStore.restore([layout.dir], layout.cacheKey)
    } catch (error) {
      log.warning(`MassGen: cache restore failed: ${errorText(error)}`)
    }
    if (hit !== undefined) {
      if (isComplete(layout)) {
        return done(result('cache'), `restored from cache key ${hit}`)
      }
      log.warning(
        `MassGen: cache entry ${hit} is not a complete install; installing again`
      )
      fs.rmSync(layout.dir, { recursive: true, force: true })
    } else {
      log.debug(`MassGen: no cache entry for ${layout.cacheKey}`)
    }
  }

  const installer = await installFresh(runner, layout, python, env, log)
  if (cacheUsable) {
    try {
      await cacheStore.save([layout.dir], layout.cacheKey)
      log.debug(`MassGen: saved to cache key ${layout.cacheKey}`)
    } catch (error) {
      // Another job may have saved the same key first: nothing is lost.
      log.warning(`MassGen: cache save failed: ${errorText(error)}`)
    }
  }
  return done(
    result('installed'),
    `installed ${layout.requirement} with ${installer} into ${layout.dir}`
  )
}

function checkVersion(version: string) {
  // A PEP 440 release; it also names a folder, so no slashes.
  if (!/^[0-9][0-9A-Za-z.+!_-]*$/.test(version)) {
    throw new MassgenInstallError(
      `massgen-version "${version}" is not a release number (e.g. 0.1.97)`
    )
  }
}
