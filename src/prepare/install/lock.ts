// Versions MassGen's dependencies are held to when the action installs a
// pinned release: a fresh resolution changes whenever a dependency publishes,
// and on 2026-11-30 pip's resolution of massgen==0.1.97 picked mcp 2.3.0, which
// breaks `massgen` at import (streamablehttp_client is gone). Each lock is the
// set of a checked install (uv, Python 3.11, linux x86_64) plus the [docker]
// extra; it was checked to resolve on Python 3.11.5+ to 3.13 (linux x86_64 and
// aarch64, macOS arm64), not on 3.14. Passed to pip/uv as a constraints file.
//
// The locks are data, one JSON file per release (massgen-<version>.lock.json:
// the release, the Pythons it was checked on, the `name==version` lines),
// imported so that ncc inlines them into the bundle: nothing is read from
// src/ at run time.
import lock0197 from './massgen-0.1.97.lock.json' with { type: 'json' }

interface MassgenLock {
  massgen: string
  /** Python minor versions the lock was checked on. */
  pythons: string[]
  /**
   * Python patch releases at which the locked set's requirements change
   * (a `python_full_version` marker inside a minor, outside extras):
   * redis asks for async-timeout below 3.11.3. Found by reading every
   * installed distribution's METADATA; a virtualenv moves between patch
   * releases of one minor only on the same side of each split.
   */
  patchSplits: string[]
  /** pip/uv constraints, one `name==version` each. */
  constraints: string[]
}

const LOCKS: MassgenLock[] = [lock0197]

/** The constraints file text of a release, on a Python it was checked on. */
export function lockText(
  version: string,
  pythonMinor: string
): string | undefined {
  const lock = LOCKS.find((l) => l.massgen === version)
  if (!lock || !lock.pythons.includes(pythonMinor)) return undefined
  return lock.constraints.join('\n') + '\n'
}

/**
 * The Pythons a locked install of a release runs on, as a cache key part:
 * `py3.11.3+` for 3.11.7 (no split above it), `py3.12` where the lock has no
 * split in that minor; undefined without a lock (any patch may resolve
 * differently, so the key keeps the full version).
 */
export function pythonClass(
  version: string,
  python: { version: string; minor: string }
): string | undefined {
  const lock = LOCKS.find((l) => l.massgen === version)
  if (!lock || !lock.pythons.includes(python.minor)) return undefined
  const patch = (v: string) => Number(v.split('.')[2] ?? 0)
  const splits = lock.patchSplits.filter((split) =>
    split.startsWith(`${python.minor}.`)
  )
  if (splits.length === 0) return `py${python.minor}`
  const floor = splits
    .filter((split) => patch(split) <= patch(python.version))
    .sort((a, b) => patch(b) - patch(a))[0]
  return `py${floor ?? `${python.minor}.0`}+`
}
