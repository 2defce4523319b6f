// Prepare: find or install the pinned MassGen.
//
// Order: `massgen-command` (used as given) -> a complete virtualenv already in
// the tool cache ('local') -> the GitHub Actions cache ('cache') -> a fresh
// install ('installed'). A fresh install uses uv (bootstrapped from PyPI with
// pip, pinned) and falls back to plain pip; it is built in a temporary folder
// beside its final place, marked complete, then renamed into place, so a
// killed install never looks finished. scripts/setup-massgen.sh runs this
// same function (scripts/setup-massgen.ts) for the tests, the bench and CI.
//
// A fresh install is not saved here: it is fingerprinted, and the post step
// saves it when the policy says so and nothing changed it
// (install/deferred-save.ts). The parts live beside it (install/*.ts).
import * as fs from 'node:fs'
import * as path from 'node:path'
import { findExecutable } from '../process/executable.js'
import {
  cacheAvailable,
  createActionsCacheStore,
  type CacheStore
} from './install/cache.js'
import { installFresh } from './install/fresh.js'
import { isComplete, venvLayout, type VenvLayout } from './install/layout.js'
import { MassgenInstallError } from './install/output.js'
import { installerEnv, probePython, type PythonInfo } from './install/python.js'
import { pendingSaveFor, type PendingSave } from './install/deferred-save.js'
import { relinkInterpreter } from './install/relink.js'
import { hasExtras, type CacheEntry } from './install/split.js'
import { makeRunCopy, removeStaleRunCopies } from './install/run-copy.js'
import { Inputs } from '../core/constants.js'
import type { ProcessRunner } from '../core/process.js'
import { errorText } from '../core/text.js'
import type { Log } from '../core/log.js'

export interface PrepareOptions {
  version: string
  /** `massgen-command` split into words; undefined means install. */
  command: string[] | undefined
  /** Adds the `[docker]` extra. */
  docker: boolean
  useCache: boolean
  /**
   * Whether the run can reach the install's extras (install/split.ts: the
   * bundled Claude Code CLI, opencv): they are restored beside the core
   * only then.
   */
  needsExtras: boolean
  /**
   * Whether a fresh install is to be saved to the Actions cache (cache-save
   * against this run's ref); the save itself is the post step's
   * (deferred-save.ts).
   */
  saveCache: boolean
  /** RUNNER_TOOL_CACHE, or ~/.cache off Actions. */
  toolCacheDir: string
  env: NodeJS.ProcessEnv
  log: Log
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
  /** A fresh install for the post step to save, fingerprinted before MassGen ran. */
  pendingSave?: PendingSave
}

export async function prepareMassgen(
  runner: ProcessRunner,
  options: PrepareOptions
): Promise<MassgenInstallation> {
  const started = performance.now()
  const done = (
    result: Omit<MassgenInstallation, 'seconds'>,
    how: string
  ): MassgenInstallation => {
    const seconds = Math.round((performance.now() - started) / 100) / 10
    options.log.info(`MassGen: ${how} (${seconds.toFixed(1)} s)`)
    return { ...result, seconds }
  }
  if (options.command !== undefined)
    return done(...givenCommand(options.command, options.env))

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
  const result = (source: MassgenInstallation['source']) => ({
    command: path.join(layout.dir, 'bin', 'massgen'),
    prefixArgs: [],
    source,
    version: options.version
  })
  options.log.debug(`MassGen virtualenv: ${layout.dir}`)
  if (reusable(layout, options.needsExtras, options.log))
    return done(result('local'), `reused ${layout.dir}`)

  const cache = cacheFor(options)
  const hit =
    cache &&
    (await restoreFromCache(
      cache,
      layout,
      python,
      options.needsExtras,
      options.log
    ))
  if (hit) return done(result('cache'), `restored from cache ${hit}`)
  const installer = await installFresh(runner, layout, python, env, options.log)
  const how = `installed ${layout.requirement} with ${installer} into ${layout.dir}`
  if (cache && !options.saveCache)
    options.log.info(
      `MassGen: this run does not save its install to the Actions cache (${Inputs.CacheSave}; a pull request restores what the default branch saved)`
    )
  const kept =
    cache && options.saveCache ? keepForSave(layout, options.log) : undefined
  if (!kept) return done(result('installed'), how)
  return done(
    {
      ...result('installed'),
      command: path.join(kept.runCopy, 'bin', 'massgen'),
      pendingSave: kept
    },
    `${how}; runs from ${kept.runCopy}, so the install is saved as it was installed`
  )
}

/**
 * MassGen runs from a linked copy (install/run-copy.ts): what it writes at
 * its start stays out of the install the post step saves. The fingerprint
 * comes after the copy, whose links change the files' change times.
 */
function keepForSave(layout: VenvLayout, log: Log): PendingSave | undefined {
  removeStaleRunCopies(layout.root, log)
  let runCopy: string
  try {
    runCopy = makeRunCopy(layout)
  } catch (error) {
    log.warning(
      `MassGen: could not link a copy of ${layout.dir} to run from (${errorText(error)}); this run does not save its install to the Actions cache`
    )
    return undefined
  }
  return pendingSaveFor(layout, runCopy)
}

/** `massgen-command`: used as given (resolved once by the settings). */
function givenCommand(
  command: string[],
  env: NodeJS.ProcessEnv
): [Omit<MassgenInstallation, 'seconds'>, string] {
  const [first, ...rest] = command
  if (!first) {
    throw new MassgenInstallError('massgen-command is empty: give a command')
  }
  if (!findExecutable(first, env)) {
    throw new MassgenInstallError(
      `massgen-command: "${first}" was not found` +
        (first.includes('/') ? '' : ' on PATH') +
        '. Install MassGen in an earlier step, or leave massgen-command ' +
        'empty to let the action install massgen-version.'
    )
  }
  return [
    { command: first, prefixArgs: rest, source: 'command', version: undefined },
    `using massgen-command "${command.join(' ')}"`
  ]
}

/**
 * A complete install is reused; an unfinished one is removed, and so is one
 * restored without the extras this run needs (a runner that keeps its tool
 * cache): the restore or install that follows brings the whole.
 */
function reusable(layout: VenvLayout, needsExtras: boolean, log: Log): boolean {
  const complete = isComplete(layout)
  if (complete && (!needsExtras || hasExtras(layout.dir, layout.entries)))
    return true
  if (complete) {
    log.info(
      `MassGen: ${layout.dir} was restored without its extras (${layout.entries.extrasTag ?? ''}), which this run may need; restoring it whole`
    )
    fs.rmSync(layout.dir, { recursive: true, force: true })
  } else if (fs.existsSync(layout.dir)) {
    log.warning(
      `MassGen: ${layout.dir} is an unfinished install (no complete marker); removing it and installing again`
    )
    fs.rmSync(layout.dir, { recursive: true, force: true })
  }
  return false
}

/** The Actions cache, when asked for and reachable. */
function cacheFor(options: PrepareOptions): CacheStore | undefined {
  if (!options.useCache) return undefined
  if (!cacheAvailable(options.env)) {
    options.log.info(
      'MassGen: the Actions cache is unavailable (ACTIONS_RUNTIME_TOKEN and ACTIONS_RESULTS_URL or ACTIONS_CACHE_URL not set); installing without it'
    )
    return undefined
  }
  return options.cache ?? createActionsCacheStore()
}

/**
 * The restored keys, when the cache held a complete install: the core, and
 * when the run needs them the extras too, both at once (two downloads and
 * two extractions side by side, each its own tar and zstd).
 */
async function restoreFromCache(
  cache: CacheStore,
  layout: VenvLayout,
  python: PythonInfo,
  needsExtras: boolean,
  log: Log
): Promise<string | undefined> {
  const { core, extras } = layout.entries
  const wanted = needsExtras && extras ? [core, extras] : [core]
  const hits = await Promise.all(
    wanted.map((entry) => restoreEntry(cache, entry, log))
  )
  const missed = wanted.filter((_, i) => hits[i] === undefined)
  if (missed.length > 0) {
    log.debug(
      `MassGen: no cache entry for ${missed.map((e) => e.key).join(', ')}`
    )
    // A core without its extras, or what a failed extraction left.
    fs.rmSync(layout.dir, { recursive: true, force: true })
    return undefined
  }
  try {
    // Saved on another patch release of this minor, maybe.
    relinkInterpreter(layout.dir, python, log)
  } catch (error) {
    log.warning(
      `MassGen: could not point the restored virtualenv at ${python.executable}: ${errorText(error)}`
    )
  }
  const keys = `${hits.length > 1 ? 'keys' : 'key'} ${hits.join(' and ')}`
  if (
    isComplete(layout) &&
    (!needsExtras || hasExtras(layout.dir, layout.entries))
  )
    return keys
  log.warning(
    `MassGen: cache ${keys} ${hits.length > 1 ? 'are' : 'is'} not a complete install; installing again`
  )
  fs.rmSync(layout.dir, { recursive: true, force: true })
  return undefined
}

/** One entry restored; its key, or undefined on a miss or a failure. */
async function restoreEntry(
  cache: CacheStore,
  entry: CacheEntry,
  log: Log
): Promise<string | undefined> {
  try {
    return await cache.restore(entry.paths, entry.key)
  } catch (error) {
    log.warning(
      `MassGen: cache restore of ${entry.key} failed: ${errorText(error)}`
    )
    return undefined
  }
}

function checkVersion(version: string) {
  // A PEP 440 release; it also names a folder, so no slashes.
  if (!/^[0-9][0-9A-Za-z.+!_-]*$/.test(version)) {
    throw new MassgenInstallError(
      `massgen-version "${version}" is not a release number (e.g. 0.1.97)`
    )
  }
}
