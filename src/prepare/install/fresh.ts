// A fresh install: the virtualenv is built in a temporary folder beside its
// final place with uv (or plain pip when uv could not be had), marked
// complete, then renamed into place, so a killed install never looks
// finished.
import * as fs from 'node:fs'
import * as path from 'node:path'
import {
  isComplete,
  isFile,
  MARKER_FILE,
  markerText,
  type VenvLayout
} from './layout.js'
import { describeExit, MassgenInstallError, tail } from './output.js'
import type { PythonInfo } from './python.js'
import { bootstrapUv, UV_VERSION } from './uv.js'
import type { ProcessRunner } from '../../core/process.js'
import { prunedFor } from './prune.js'
import { EXTRAS_MARKER_FILE, extrasMarkerText } from './split.js'
import type { Log } from '../../core/log.js'
import { removeLeftovers } from './leftovers.js'

const INSTALL_TIMEOUT_MS = 20 * 60_000
/** The temporary install folders beside the final place. */
const TEMP_PREFIX = '.tmp-'
/** Temporary install folders older than this are left over from a killed run. */
const STALE_TEMP_MS = 60 * 60_000

/** Builds the virtualenv beside its place, marks it, renames it in. Returns the installer used. */
export async function installFresh(
  runner: ProcessRunner,
  layout: VenvLayout,
  python: PythonInfo,
  env: NodeJS.ProcessEnv,
  log: Log
): Promise<string> {
  fs.mkdirSync(layout.root, { recursive: true })
  removeLeftovers(layout.root, TEMP_PREFIX, STALE_TEMP_MS, log)
  const uv = await bootstrapUv(runner, layout.root, env, log)
  const temp = fs.mkdtempSync(
    path.join(layout.root, `${TEMP_PREFIX}${layout.name}-`)
  )
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
  const step: InstallStep = {
    layout,
    env,
    log,
    temp,
    constrain,
    run: (command, args) =>
      runner.exec(command, args, {
        cwd: layout.root,
        env,
        timeoutMs: INSTALL_TIMEOUT_MS
      })
  }
  try {
    const installer = await installWith(
      step,
      uv ? uvInstaller(uv, python, temp) : pipInstaller(python, temp)
    )
    moveIntoPlace(step, installer)
    return installer
  } catch (error) {
    fs.rmSync(temp, { recursive: true, force: true })
    throw error
  } finally {
    fs.rmSync(constraints, { force: true })
  }
}

/** What each way of installing needs: the virtualenv is built at `temp`. */
interface InstallStep {
  layout: VenvLayout
  env: NodeJS.ProcessEnv
  log: Log
  temp: string
  constrain: string[]
  run: (command: string, args: string[]) => ReturnType<ProcessRunner['exec']>
}

/** One way of installing: the commands it runs, with the virtualenv at `temp`. */
interface Installer {
  /** Named in the log and the marker (`uv 0.x.y`, `pip`). */
  name: string
  /** The tool, as a failed step names it. */
  tool: string
  /** Says what the virtualenv is created with, if it fails. */
  createdWith: string
  /** Creates the virtualenv at `temp`. */
  venv: [string, string[]]
  /** Installs; the constraints and the requirement follow. */
  install: [string, string[]]
  /** Uninstalls; the names follow. */
  uninstall: [string, string[]]
  /** pip writes the folder's absolute path into each script's first line. */
  rewritesScripts: boolean
}

function uvInstaller(uv: string, python: PythonInfo, temp: string): Installer {
  const venvPython = path.join(temp, 'bin', 'python')
  return {
    name: `uv ${UV_VERSION}`,
    tool: 'uv',
    createdWith: 'with uv',
    venv: [
      uv,
      ['venv', '--quiet', '--relocatable', '--python', python.executable, temp]
    ],
    install: [
      uv,
      [
        'pip',
        'install',
        '--quiet',
        '--compile-bytecode',
        '--python',
        venvPython
      ]
    ],
    uninstall: [uv, ['pip', 'uninstall', '--quiet', '--python', venvPython]],
    rewritesScripts: false
  }
}

function pipInstaller(python: PythonInfo, temp: string): Installer {
  const venvPython = path.join(temp, 'bin', 'python')
  return {
    name: 'pip',
    tool: 'pip',
    createdWith: '(python3 -m venv)',
    venv: [python.executable, ['-m', 'venv', temp]],
    install: [venvPython, ['-m', 'pip', 'install', '--no-input', '--quiet']],
    uninstall: [venvPython, ['-m', 'pip', 'uninstall', '--yes', '--quiet']],
    rewritesScripts: true
  }
}

async function installWith(
  { layout, env, log, temp, constrain, run }: InstallStep,
  installer: Installer
): Promise<string> {
  log.info(`MassGen: installing ${layout.requirement} with ${installer.name}`)
  await must(
    `Creating the virtualenv ${installer.createdWith}`,
    layout,
    env,
    run(...installer.venv)
  )
  const [command, args] = installer.install
  await must(
    `Installing ${layout.requirement} with ${installer.tool}`,
    layout,
    env,
    run(command, [...args, ...constrain, layout.requirement])
  )
  const [uninstall, uninstallArgs] = installer.uninstall
  await prune(layout, log, (names) =>
    run(uninstall, [...uninstallArgs, ...names])
  )
  if (installer.rewritesScripts)
    rewriteScripts(path.join(temp, 'bin'), temp, layout.dir)
  return installer.name
}

/** The finished virtualenv, marked complete, moved to its folder at once. */
function moveIntoPlace(
  { layout, log, temp }: InstallStep,
  installer: string
): void {
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
  // A fresh install holds its extras (split.ts); the marker goes with them.
  const { extrasTag } = layout.entries
  if (extrasTag)
    fs.writeFileSync(
      path.join(temp, EXTRAS_MARKER_FILE),
      extrasMarkerText(extrasTag)
    )
  // mkdtemp made it private; a sandboxed run as root reads it as nobody.
  fs.chmodSync(temp, 0o755)
  try {
    fs.renameSync(temp, layout.dir)
  } catch (error) {
    // Another job on this runner finished the same install first.
    if (!isComplete(layout)) throw error
    log.debug(`MassGen: ${layout.dir} appeared meanwhile; using it`)
    fs.rmSync(temp, { recursive: true, force: true })
  }
}

/** Removes what MassGen never uses in the action's runs (prune.ts). */
async function prune(
  layout: VenvLayout,
  log: Log,
  uninstall: (names: string[]) => ReturnType<ProcessRunner['exec']>
) {
  const version = layout.requirement.split('==')[1] ?? ''
  const names = prunedFor(version, layout.lock !== undefined)
  if (names.length === 0) return
  const run = await uninstall(names)
  // A leftover only costs disk space: the install stays good.
  if (run.exitCode !== 0)
    log.warning(
      `MassGen: removing ${names.length} unused packages failed (${describeExit(run)}); the install is kept as it is.`
    )
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
