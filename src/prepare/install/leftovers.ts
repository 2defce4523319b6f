// Folders a killed job left beside the install (its clean-up never ran):
// the temporary folders of a fresh install, the per-run copies.
import * as fs from 'node:fs'
import * as path from 'node:path'
import type { Log } from '../../core/log.js'

/**
 * Removes the folders in `root` whose name starts with `prefix` and that
 * were last changed more than `maxAgeMs` ago; a link is removed, never
 * followed. A root that cannot be read has none.
 */
export function removeLeftovers(
  root: string,
  prefix: string,
  maxAgeMs: number,
  log: Log
): void {
  let names: string[]
  try {
    names = fs.readdirSync(root)
  } catch {
    return
  }
  const now = Date.now()
  for (const name of names.filter((n) => n.startsWith(prefix))) {
    const dir = path.join(root, name)
    try {
      if (now - fs.lstatSync(dir).mtimeMs > maxAgeMs) {
        log.debug(`MassGen: removing leftover ${dir}`)
        fs.rmSync(dir, { recursive: true, force: true })
      }
    } catch {
      // Gone meanwhile.
    }
  }
}
