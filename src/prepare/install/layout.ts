// Where an install lives and how a finished one is recognised: the folder
// and cache key name the release, extras, Python and runner image, and a
// marker written last says the install completed. scripts/setup-massgen.sh
// runs this same code (prepareMassgen), so both find the same folder.
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import type { PythonInfo } from './python.js'
import { lockText, pythonClass } from './lock.js'
import { pruneTag } from './prune.js'
import { cacheEntries, type CacheEntries } from './split.js'

/** Bump to make every cached install stale (layout or marker change). */
const LAYOUT_VERSION = 1
/** Written last into a finished virtualenv. */
export const MARKER_FILE = '.massgen-action-install'

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
  /** Constraints (lock.ts) for this release and Python, if any. */
  lock: string | undefined
  /** The key of the whole install; its entries' keys extend it (split.ts). */
  cacheKey: string
  /** The Actions cache entries it is saved as and restored from. */
  entries: CacheEntries
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
  // The runner image, and the Pythons the install runs on: a locked install
  // moves to another patch release of its minor (relink.ts points it at the
  // runner's interpreter) on the same side of the lock's patch splits; an
  // unlocked one keeps the full version.
  const image = env.ImageOS ? `-${env.ImageOS}` : ''
  const lock = lockText(version, python.minor)
  const pythons = pythonClass(version, python) ?? `py${python.version}`
  const locked = lock
    ? `-lock${createHash('sha256').update(lock).digest('hex').slice(0, 8)}`
    : ''
  const cacheKey =
    `massgen-action-v${LAYOUT_VERSION}-massgen-${version}-${extras}` +
    `-${pythons}-${python.os}-${python.arch}${image}${locked}` +
    pruneTag(version, lock !== undefined)
  const dir = path.join(root, name)
  return {
    root,
    name,
    dir,
    extras,
    requirement: docker ? `massgen[docker]==${version}` : `massgen==${version}`,
    lock,
    cacheKey,
    entries: cacheEntries(
      dir,
      version,
      python.minor,
      lock !== undefined,
      cacheKey
    )
  }
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
export function isComplete(
  layout: Pick<VenvLayout, 'dir' | 'requirement' | 'extras'>
): boolean {
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

export function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}
