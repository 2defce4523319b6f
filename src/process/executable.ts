// Finds a command the way a shell would, without running a shell.
import * as fs from 'node:fs'
import * as path from 'node:path'

/**
 * The absolute path of `command`: a path (with `/`) is taken relative to
 * `cwd`, a bare name is searched on PATH. Undefined unless it is an
 * executable file.
 */
export function findExecutable(
  command: string,
  env: NodeJS.ProcessEnv,
  cwd: string = process.cwd()
): string | undefined {
  if (!command) return undefined
  if (command.includes('/')) {
    const file = path.resolve(cwd, command)
    return isExecutable(file) ? file : undefined
  }
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue
    const file = path.join(dir, command)
    if (isExecutable(file)) return file
  }
  return undefined
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK)
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}
