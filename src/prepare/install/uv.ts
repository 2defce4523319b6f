// uv, the fast installer: bootstrapped from PyPI with pip, pinned, and kept
// beside the virtualenvs so later installs on the runner reuse it.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { isFile } from './layout.js'
import { describeExit, tail } from './output.js'
import type { ProcessRunner } from '../../core/process.js'
import type { Log } from '../../core/log.js'

/** uv release bootstrapped from PyPI for installs. */
export const UV_VERSION = '0.13.9'

const BOOTSTRAP_TIMEOUT_MS = 5 * 60_000

/** uv from PyPI, pinned, kept beside the virtualenvs; undefined when that fails (pip takes over). */
export async function bootstrapUv(
  runner: ProcessRunner,
  root: string,
  env: NodeJS.ProcessEnv,
  log: Log
): Promise<string | undefined> {
  const home = path.join(root, `uv-${UV_VERSION}`)
  const uv = path.join(home, 'bin', 'uv')
  if (isFile(uv)) return uv
  const temp = fs.mkdtempSync(path.join(root, `.tmp-uv-${UV_VERSION}-`))
  // --target installs outside any environment, so an externally managed
  // system Python (PEP 668) allows it.
  const run = await runner.exec(
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
