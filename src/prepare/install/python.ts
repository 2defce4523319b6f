// The Python MassGen is installed with: which one it is (it names the
// virtualenv's folder) and the environment pip and uv run in.
import { MassgenInstallError } from './output.js'
import { installerBaseEnv } from '../../safety/child-env.js'
import type { ProcessRunner } from '../../core/process.js'

const PROBE_TIMEOUT_MS = 60_000

/** Prints version, platform, machine and executable, one per line. */
const PYTHON_PROBE =
  'import sys, platform; ' +
  "print('%d.%d.%d' % sys.version_info[:3]); " +
  'print(sys.platform); ' +
  'print(platform.machine().lower()); ' +
  'print(sys.executable)'

export interface PythonInfo {
  /** e.g. 3.11.7 */
  version: string
  /** e.g. 3.11 */
  minor: string
  os: string
  arch: string
  executable: string
}

/**
 * The environment pip and uv run with: the allow-list and their own
 * settings (no key, no token), never waiting for input, never downloading
 * Python.
 */
export function installerEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = installerBaseEnv(base)
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

export async function probePython(
  runner: ProcessRunner,
  env: NodeJS.ProcessEnv
): Promise<PythonInfo> {
  const run = await runner.exec('python3', ['-c', PYTHON_PROBE], {
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
