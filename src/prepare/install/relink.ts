// A virtualenv restored from the Actions cache may have been made with
// another patch release of the same Python minor (the key allows it,
// layout.ts): its `bin/python` link and `pyvenv.cfg` name that interpreter's
// folder, which this runner may not have. Both are pointed at the runner's
// own interpreter; everything else in the virtualenv is the same for every
// patch release of a minor (CPython keeps the ABI within a minor, and the
// lock's patch splits keep the requirements the same).
import * as fs from 'node:fs'
import * as path from 'node:path'
import type { PythonInfo } from './python.js'
import type { Log } from '../../core/log.js'

/** True when something was changed. */
export function relinkInterpreter(
  dir: string,
  python: Pick<PythonInfo, 'version' | 'executable'>,
  log: Log
): boolean {
  const cfgFile = path.join(dir, 'pyvenv.cfg')
  const link = path.join(dir, 'bin', 'python')
  const cfg = fs.readFileSync(cfgFile, 'utf8')
  const home = path.dirname(python.executable)
  const wanted = rewriteConfig(cfg, home, python)
  const linkTarget = readLink(link)
  if (wanted === cfg && linkTarget === python.executable) return false
  const temp = `${cfgFile}.${process.pid}.tmp`
  fs.writeFileSync(temp, wanted)
  fs.renameSync(temp, cfgFile)
  if (linkTarget !== undefined) {
    fs.rmSync(link, { force: true })
    fs.symlinkSync(python.executable, link)
  }
  log.info(
    `MassGen: pointed the restored virtualenv at ${python.executable} (Python ${python.version})`
  )
  return true
}

/** `home`, the version lines and `executable` for this interpreter. */
function rewriteConfig(
  cfg: string,
  home: string,
  python: Pick<PythonInfo, 'version' | 'executable'>
): string {
  const values: Record<string, string> = {
    home,
    version: python.version,
    version_info: python.version,
    executable: python.executable
  }
  return cfg
    .split('\n')
    .map((line) => {
      const match = /^(\s*)([A-Za-z_]+)(\s*=\s*)(.*)$/.exec(line)
      const key = match?.[2]
      if (!match || key === undefined || !(key in values)) return line
      return `${match[1]}${key}${match[3]}${values[key]}`
    })
    .join('\n')
}

function readLink(file: string): string | undefined {
  try {
    return fs.readlinkSync(file)
  } catch {
    return undefined
  }
}
