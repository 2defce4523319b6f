// The folder MassGen runs from when this run saves its fresh install: a copy
// of the install made of hard links, beside it, so the install itself stays
// as it was installed for the post step's save (deferred-save.ts).
//
// Why: MassGen 0.1.97 writes into its own virtualenv at its first start.
// beartype's import hook (fastmcp's key_value package uses it) caches the
// modules it rewrites as new `__pycache__/*.opt-beartype*.pyc` files (seen in
// Docker mode, where MassGen runs unsandboxed: 47 new files, and their
// folders' times). The fingerprint rightly refused that install, so no run
// ever saved one. A bytecode file can carry code, so ignoring them would not
// do; instead MassGen's new files land in the copy's own folders, never in
// the install. A write into an existing file would reach the shared inode and
// change its change time, which the install's fingerprint sees (so it is
// taken after the copy is made: a new link changes it too).
import * as fs from 'node:fs'
import * as path from 'node:path'
import type { VenvLayout } from './layout.js'
import type { Log } from '../../core/log.js'
import { removeLeftovers } from './leftovers.js'

const PREFIX = '.run-'
/** A copy older than this is left over from a job whose post step never ran. */
const STALE_COPY_MS = 24 * 60 * 60_000

/** Links the install into a new folder beside it; returns that folder. */
export function makeRunCopy(
  layout: Pick<VenvLayout, 'root' | 'dir' | 'name'>
): string {
  const copy = fs.mkdtempSync(
    path.join(layout.root, `${PREFIX}${layout.name}-`)
  )
  try {
    fs.chmodSync(copy, fs.statSync(layout.dir).mode & 0o7777)
    linkTree(layout.dir, copy, { installDir: layout.dir, copy })
  } catch (error) {
    fs.rmSync(copy, { recursive: true, force: true })
    throw error
  }
  return copy
}

interface Roots {
  installDir: string
  copy: string
}

function linkTree(from: string, to: string, roots: Roots): void {
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name)
    const target = path.join(to, entry.name)
    if (entry.isDirectory()) {
      fs.mkdirSync(target, { mode: fs.statSync(source).mode & 0o7777 })
      linkTree(source, target, roots)
    } else if (entry.isSymbolicLink()) {
      fs.symlinkSync(fs.readlinkSync(source), target)
    } else if (entry.isFile()) {
      if (!copyScript(source, target, roots)) fs.linkSync(source, target)
    } else {
      throw new Error(`${source} is neither a file, a folder nor a link`)
    }
  }
}

/**
 * pip's scripts name the install's folder in their first line (uv's
 * relocatable ones do not): such a script is written anew, naming the copy,
 * so that MassGen and its servers run the copy's Python.
 */
function copyScript(source: string, target: string, roots: Roots) {
  if (path.dirname(source) !== path.join(roots.installDir, 'bin')) return false
  const stat = fs.statSync(source)
  if (stat.size > 64 * 1024) return false
  const text = fs.readFileSync(source, 'utf8')
  const firstLine = text.split('\n', 1)[0] ?? ''
  if (!firstLine.startsWith('#!') || !firstLine.includes(roots.installDir))
    return false
  fs.writeFileSync(target, text.split(roots.installDir).join(roots.copy), {
    mode: stat.mode & 0o7777
  })
  return true
}

/** Removes a copy this module made beside `installDir`, and nothing else. */
export function removeRunCopy(copy: string, installDir: string): void {
  if (!isRunCopyOf(copy, installDir)) return
  fs.rmSync(copy, { recursive: true, force: true })
}

function isRunCopyOf(copy: string, installDir: string): boolean {
  const name = path.basename(installDir)
  return (
    path.isAbsolute(copy) &&
    path.dirname(copy) === path.dirname(installDir) &&
    path.basename(copy).startsWith(`${PREFIX}${name}-`)
  )
}

/** Copies a killed job left behind (its post step never ran). */
export function removeStaleRunCopies(root: string, log: Log): void {
  removeLeftovers(root, PREFIX, STALE_COPY_MS, log)
}
