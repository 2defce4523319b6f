// The real MassGen that tests, the demo and the bench run: installed (or
// reused) by scripts/setup-massgen.sh, whose last line is the binary.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { ROOT } from './run-action.ts'

/** The base install, or the one with the [docker] extra that Docker mode needs. */
export function massgenBinary(extras: 'base' | 'docker' = 'base'): string {
  const cached = extras === 'base' ? 'MASSGEN_BIN' : 'MASSGEN_DOCKER_BIN'
  const known = process.env[cached]
  if (known) return known
  const out = execFileSync(
    'bash',
    [path.join(ROOT, 'scripts', 'setup-massgen.sh')],
    {
      encoding: 'utf8',
      env: { ...process.env, MASSGEN_EXTRAS: extras },
      stdio: ['ignore', 'pipe', 'inherit']
    }
  )
  const bin = out.trim().split('\n').pop() ?? ''
  process.env[cached] = bin
  return bin
}

/**
 * MassGen's virtualenv and the Python it links to. Local mode's sandbox
 * binds back the folders of the command it runs; when that command is a
 * wrapper, these go on PATH, whose folders it binds too.
 */
export function virtualenvFolders(massgen: string): string[] {
  const venv = path.dirname(path.dirname(massgen))
  try {
    const python = fs.realpathSync(path.join(venv, 'bin', 'python'))
    return [venv, path.dirname(path.dirname(python))]
  } catch {
    return [venv]
  }
}
