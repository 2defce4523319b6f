// Prepare: find or install the pinned MassGen.
//
// Order: `massgen-command` (used as given) -> a complete virtualenv already in
// the tool cache ('local') -> the GitHub Actions cache ('cache') -> a fresh
// install ('installed'). A fresh install uses uv (bootstrapped from PyPI with
// pip, pinned) and falls back to plain pip; it is built in a temporary folder
// beside its final place, marked complete, then renamed into place, so a
// killed install never looks finished. scripts/setup-massgen.sh builds the
// same folder with the same marker: keep the two in step.
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { findExecutable } from './executable.js'
import { LOCKED_PYTHONS, MASSGEN_LOCKS } from './massgen-lock.js'
import type { ProcessDoor } from './process.js'

/** uv release bootstrapped from PyPI for installs. */
export const UV_VERSION = '0.13.9'
/** Bump to make every cached install stale (layout or marker change). */
export const LAYOUT_VERSION = 1
/** Written last into a finished virtualenv. */
export const MARKER_FILE = '.massgen-action-install'

const PROBE_TIMEOUT_MS = 60_000
const BOOTSTRAP_TIMEOUT_MS = 5 * 60_000
const INSTALL_TIMEOUT_MS = 20 * 60_000
/** Temporary install folders older than this are left over from a killed run. */
const STALE_TEMP_MS = 60 * 60_000
const TAIL_LINES = 15

/**
 * Prints version, platform, machine and executable, one per line. The same
 * one-liner is in scripts/setup-massgen.sh: both must name folders alike.
 */
export const PYTHON_PROBE =
  'import sys, platform; ' +
  "print('%d.%d.%d' % sys.version_info[:3]); " +
  'print(sys.platform); ' +
  'print(platform.machine().lower()); ' +
  'print(sys.executable)'

export interface InstallLog {
  info(message: string): void
  warning(message: string): void
  debug(message: string): void
}

/** The narrow door to @actions/cache, so tests can hand in a fake. */
export interface CacheDoor {
  /** The key restored, or undefined on a miss. */
  restore(paths: string[], key: string): Promise<string | undefined>
  save(paths: string[], key: string): Promise<void>
}

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
  cache?: CacheDoor
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

export class MassgenInstallError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'MassgenInstallError'
  }
}

export interface PythonInfo {
  /** e.g. 3.11.7 */
  version: string
  /** e.g. 3.11 */
  minor: string
  os: string
  arch: string
  executable: string
}

export interface VenvLayout {
  /** `<toolCacheDir>/massgen` */
  root: string
  /** `<version>-<extras>-py<major.minor>-<os>-<arch>` */
  name: string
  dir: string
  /** `base` or `docker` */
  extras: string
  /** What pip/uv is asked for, e.g. `massgen[docker]==0.1.97`. */
  requirement: string
  /** Constraints (src/massgen-lock.ts) for this release and Python, if any. */
  lock: string | undefined
  cacheKey: string
}

export function createActionsCacheDoor(): CacheDoor {
  return {
    // Loaded on first use: @actions/cache is a third of the bundle, and the
    // usual run (massgen-command, or a virtualenv already there) never needs it.
    restore: async (paths, key) => (await import('@actions/cache')).restoreCache(paths, key),
    async save(paths, key) {
      await (await import('@actions/cache')).saveCache(paths, key)
    }
  }
}

export async function prepareMassgen(
  door: ProcessDoor,
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
  const python = await probePython(door, env)
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

  const cacheDoor = options.cache ?? createActionsCacheDoor()
  const cacheUsable = options.useCache && cacheAvailable(options.env)
  if (options.useCache && !cacheUsable) {
    log.info(
      'MassGen: the Actions cache is unavailable (ACTIONS_RUNTIME_TOKEN and ACTIONS_RESULTS_URL or ACTIONS_CACHE_URL not set); installing without it'
    )
  }
  if (cacheUsable) {
    let hit: string | undefined
    try {
      hit = await cacheDoor.restore([layout.dir], layout.cacheKey)
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

  const installer = await installFresh(door, layout, python, env, log)
  if (cacheUsable) {
    try {
      await cacheDoor.save([layout.dir], layout.cacheKey)
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

/** Folder, requirement and cache key of one install. Pure. */
export function venvLayout(
  toolCacheDir: string,
  version: string,
  docker: boolean,
  python: PythonInfo,
  env: NodeJS.ProcessEnv = {}
): VenvLayout {
  const extras = docker ? 'docker' : 'base'
  const root = path.join(toolCacheDir, 'massgen')
  const name = `${version}-${extras}-py${python.minor}-${python.os}-${python.arch}`
  // The full Python version and the runner image: a virtualenv links to the
  // interpreter it was made with, so another one makes it useless.
  const image = env.ImageOS ? `-${env.ImageOS}` : ''
  const lock = lockFor(version, python.minor)
  const locked = lock
    ? `-lock${createHash('sha256').update(lock).digest('hex').slice(0, 8)}`
    : ''
  const cacheKey =
    `massgen-action-v${LAYOUT_VERSION}-massgen-${version}-${extras}` +
    `-py${python.version}-${python.os}-${python.arch}${image}${locked}`
  return {
    root,
    name,
    dir: path.join(root, name),
    extras,
    requirement: docker ? `massgen[docker]==${version}` : `massgen==${version}`,
    lock,
    cacheKey
  }
}

/** The checked dependency versions of a release, on the Pythons they were checked on. */
export function lockFor(
  version: string,
  pythonMinor: string
): string | undefined {
  const text = MASSGEN_LOCKS[version]
  if (!text || !LOCKED_PYTHONS.includes(pythonMinor)) return undefined
  return text.trim() + '\n'
}

export function markerText(version: string, extras: string, installer: string) {
  return [
    `layout=${LAYOUT_VERSION}`,
    `massgen=${version}`,
    `extras=${extras}`,
    `installer=${installer}`,
    'complete=true',
    ''
  ].join('\n')
}

/** The marker names this exact release and extras, and the executables exist. */
export function isComplete(layout: VenvLayout): boolean {
  let marker: string
  try {
    marker = fs.readFileSync(path.join(layout.dir, MARKER_FILE), 'utf8')
  } catch {
    return false
  }
  const lines = new Set(marker.split('\n').map((line) => line.trim()))
  const version = layout.requirement.split('==')[1]
  return (
    lines.has(`layout=${LAYOUT_VERSION}`) &&
    lines.has(`massgen=${version}`) &&
    lines.has(`extras=${layout.extras}`) &&
    lines.has('complete=true') &&
    isFile(path.join(layout.dir, 'bin', 'massgen')) &&
    // Follows the symlink: gone when the interpreter it was made with is gone.
    fs.existsSync(path.join(layout.dir, 'bin', 'python'))
  )
}

export function cacheAvailable(env: NodeJS.ProcessEnv): boolean {
  return Boolean(
    env.ACTIONS_RUNTIME_TOKEN &&
    (env.ACTIONS_RESULTS_URL || env.ACTIONS_CACHE_URL)
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

/** The environment pip and uv run with: never waiting for input, never downloading Python. */
export function installerEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base }
  delete env.VIRTUAL_ENV
  delete env.PYTHONHOME
  env.PIP_NO_INPUT = '1'
  env.PIP_DISABLE_PIP_VERSION_CHECK = '1'
  env.PIP_ROOT_USER_ACTION = 'ignore'
  env.PIP_DEFAULT_TIMEOUT ??= '30'
  env.UV_PYTHON_DOWNLOADS = 'never'
  env.UV_NO_PROGRESS = '1'
  env.UV_HTTP_TIMEOUT ??= '60'
  // A runner set up for a private mirror through pip's variable: uv too.
  if (env.PIP_INDEX_URL && !env.UV_DEFAULT_INDEX && !env.UV_INDEX_URL) {
    env.UV_DEFAULT_INDEX = env.PIP_INDEX_URL
  }
  return env
}

async function probePython(
  door: ProcessDoor,
  env: NodeJS.ProcessEnv
): Promise<PythonInfo> {
  const run = await door.exec('python3', ['-c', PYTHON_PROBE], {
    env,
    timeoutMs: PROBE_TIMEOUT_MS
  })
  const advice =
    'MassGen needs Python 3.11 or newer: add actions/setup-python (python-version: "3.12") before this step, or set massgen-command to a MassGen you installed yourself.'
  if (run.exitCode !== 0) {
    throw new MassgenInstallError(
      `Could not run python3 (${run.exitCode === 127 ? 'not found on PATH' : `exit ${run.exitCode}`}). ${advice}`
    )
  }
  const [version = '', os = '', machine = '', executable = ''] = run.stdout
    .trim()
    .split('\n')
    .map((line) => line.trim())
  const match = /^(\d+)\.(\d+)\.\d+$/.exec(version)
  if (!match || !os || !machine || !executable) {
    throw new MassgenInstallError(
      `Could not read the Python version from python3 (got "${run.stdout.trim().slice(0, 200)}"). ${advice}`
    )
  }
  const major = Number(match[1])
  const minor = Number(match[2])
  if (major < 3 || (major === 3 && minor < 11)) {
    throw new MassgenInstallError(`python3 is ${version}. ${advice}`)
  }
  const arch = ARCH_ALIASES[machine] ?? machine
  return { version, minor: `${major}.${minor}`, os, arch, executable }
}

const ARCH_ALIASES: Record<string, string> = {
  amd64: 'x86_64',
  arm64: 'aarch64'
}

/** Builds the virtualenv beside its place, marks it, renames it in. Returns the installer used. */
async function installFresh(
  door: ProcessDoor,
  layout: VenvLayout,
  python: PythonInfo,
  env: NodeJS.ProcessEnv,
  log: InstallLog
): Promise<string> {
  fs.mkdirSync(layout.root, { recursive: true })
  removeStaleTemps(layout.root, log)
  const uv = await bootstrapUv(door, layout.root, env, log)
  const temp = fs.mkdtempSync(path.join(layout.root, `.tmp-${layout.name}-`))
  const constraints = `${temp}.constraints.txt`
  const constrain: string[] = []
  if (layout.lock) {
    fs.writeFileSync(constraints, layout.lock)
    constrain.push('--constraint', constraints)
  } else {
    log.info(
      `MassGen: no checked dependency versions for ${layout.requirement} on Python ${python.minor}; resolving the newest`
    )
  }
  const run = (command: string, args: string[]) =>
    door.exec(command, args, {
      cwd: layout.root,
      env,
      timeoutMs: INSTALL_TIMEOUT_MS
    })
  try {
    let installer: string
    if (uv) {
      installer = `uv ${UV_VERSION}`
      log.info(`MassGen: installing ${layout.requirement} with ${installer}`)
      await must(
        'Creating the virtualenv with uv',
        layout,
        env,
        run(uv, [
          'venv',
          '--quiet',
          '--relocatable',
          '--python',
          python.executable,
          temp
        ])
      )
      await must(
        `Installing ${layout.requirement} with uv`,
        layout,
        env,
        run(uv, [
          'pip',
          'install',
          '--quiet',
          '--compile-bytecode',
          '--python',
          path.join(temp, 'bin', 'python'),
          ...constrain,
          layout.requirement
        ])
      )
    } else {
      installer = 'pip'
      log.info(`MassGen: installing ${layout.requirement} with pip`)
      await must(
        'Creating the virtualenv (python3 -m venv)',
        layout,
        env,
        run(python.executable, ['-m', 'venv', temp])
      )
      await must(
        `Installing ${layout.requirement} with pip`,
        layout,
        env,
        run(path.join(temp, 'bin', 'python'), [
          '-m',
          'pip',
          'install',
          '--no-input',
          '--quiet',
          ...constrain,
          layout.requirement
        ])
      )
      // pip writes the folder's absolute path into each script's first line.
      rewriteScripts(path.join(temp, 'bin'), temp, layout.dir)
    }
    if (!isFile(path.join(temp, 'bin', 'massgen'))) {
      throw new MassgenInstallError(
        `${installer} finished but left no bin/massgen in the virtualenv. ${ADVICE(layout)}`
      )
    }
    fs.writeFileSync(
      path.join(temp, MARKER_FILE),
      markerText(
        layout.requirement.split('==')[1] ?? '',
        layout.extras,
        installer
      )
    )
    try {
      fs.renameSync(temp, layout.dir)
    } catch (error) {
      // Another job on this runner finished the same install first.
      if (!isComplete(layout)) throw error
      log.debug(`MassGen: ${layout.dir} appeared meanwhile; using it`)
      fs.rmSync(temp, { recursive: true, force: true })
    }
    return installer
  } catch (error) {
    fs.rmSync(temp, { recursive: true, force: true })
    throw error
  } finally {
    fs.rmSync(constraints, { force: true })
  }
}

/** uv from PyPI, pinned, kept beside the virtualenvs; undefined when that fails (pip takes over). */
async function bootstrapUv(
  door: ProcessDoor,
  root: string,
  env: NodeJS.ProcessEnv,
  log: InstallLog
): Promise<string | undefined> {
  const home = path.join(root, `uv-${UV_VERSION}`)
  const uv = path.join(home, 'bin', 'uv')
  if (isFile(uv)) return uv
  const temp = fs.mkdtempSync(path.join(root, `.tmp-uv-${UV_VERSION}-`))
  // --target installs outside any environment, so an externally managed
  // system Python (PEP 668) allows it.
  const run = await door.exec(
    'python3',
    [
      '-m',
      'pip',
      'install',
      '--no-input',
      '--quiet',
      '--target',
      temp,
      `uv==${UV_VERSION}`
    ],
    { cwd: root, env, timeoutMs: BOOTSTRAP_TIMEOUT_MS }
  )
  if (run.exitCode !== 0 || !isFile(path.join(temp, 'bin', 'uv'))) {
    fs.rmSync(temp, { recursive: true, force: true })
    log.warning(
      `MassGen: could not get uv ${UV_VERSION} from PyPI (${describeExit(run)}); installing with pip instead, which is slower.\n${tail(run.stdout + '\n' + run.stderr, env)}`
    )
    return undefined
  }
  try {
    fs.renameSync(temp, home)
  } catch {
    fs.rmSync(temp, { recursive: true, force: true })
    if (!isFile(uv)) return undefined
  }
  return uv
}

async function must(
  what: string,
  layout: VenvLayout,
  env: NodeJS.ProcessEnv,
  pending: Promise<{
    exitCode: number | null
    signal: NodeJS.Signals | null
    stdout: string
    stderr: string
  }>
) {
  const run = await pending
  if (run.exitCode === 0) return
  const output = tail(`${run.stdout}\n${run.stderr}`, env)
  throw new MassgenInstallError(
    `${what} failed (${describeExit(run)}):\n${output}\n${ADVICE(layout)}`
  )
}

const ADVICE = (layout: VenvLayout) =>
  `Check that massgen-version names a MassGen release on PyPI (asked for ${layout.requirement}) and that PyPI is reachable, or set massgen-command to a MassGen you installed yourself.`

function describeExit(run: { exitCode: number | null; signal: string | null }) {
  if (run.signal) return `killed by ${run.signal}, timed out?`
  if (run.exitCode === 127) return 'command not found'
  return `exit ${run.exitCode}`
}

/** Last lines of an installer's output, without colours or credentials. */
export function tail(output: string, env: NodeJS.ProcessEnv): string {
  // eslint-disable-next-line no-control-regex
  let text = output.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '')
  // user:password@ in index URLs
  text = text.replace(/(\w+:\/\/)[^/\s@]+@/g, '$1***@')
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= 8 && /KEY|TOKEN|SECRET|PASSWORD/i.test(name)) {
      text = text.split(value).join('***')
    }
  }
  const lines = text
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '')
  return lines
    .slice(-TAIL_LINES)
    .map((line) => `  ${line}`)
    .join('\n')
}

function rewriteScripts(binDir: string, from: string, to: string) {
  for (const name of fs.readdirSync(binDir)) {
    const file = path.join(binDir, name)
    const stat = fs.lstatSync(file)
    if (!stat.isFile() || stat.size > 64 * 1024) continue
    const text = fs.readFileSync(file, 'utf8')
    if (text.startsWith('#!') && text.includes(from)) {
      fs.writeFileSync(file, text.split(from).join(to))
    }
  }
}

function removeStaleTemps(root: string, log: InstallLog) {
  const now = Date.now()
  for (const name of fs.readdirSync(root)) {
    if (!name.startsWith('.tmp-')) continue
    const dir = path.join(root, name)
    try {
      if (now - fs.statSync(dir).mtimeMs > STALE_TEMP_MS) {
        log.debug(`MassGen: removing leftover ${dir}`)
        fs.rmSync(dir, { recursive: true, force: true })
      }
    } catch {
      // Gone meanwhile.
    }
  }
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
