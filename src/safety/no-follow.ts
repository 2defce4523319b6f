// The one way the action walks a path it does not trust (a folder an agent
// may have touched, a checkout a pull request shaped) without following a
// link: agent-files.ts (the run's work folder, .git), workspace-file.ts (a
// file an input names) and context-path.ts (the folder the agents get) all
// walk through here.
//
// - every folder on the way is looked at with lstat, then opened without
//   following links (O_DIRECTORY | O_NOFOLLOW), each one through the
//   descriptor of its parent (`/proc/self/fd/N/name`, which resolves the name
//   inside the folder the descriptor holds, like openat(2)): a folder renamed
//   or replaced by a link after it was opened is never walked into, and one
//   swapped between the look and the open stops the walk;
// - a file is opened with O_NOFOLLOW and O_NONBLOCK, only when lstat says it
//   is a regular file, and the descriptor's own fstat must show that same
//   file (device and inode) before a byte is read.
//
// Where /proc is missing (not Linux) the same steps run on paths, each
// preceded by a check that the folder's real path still holds the folder
// opened: a narrower window, not none.
import * as fs from 'node:fs'
import * as path from 'node:path'

const C = fs.constants
const DIR_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW
/**
 * How every file an agent may have touched is opened for reading: never
 * through a link, and O_NONBLOCK so that a FIFO (left there, or swapped in
 * after a check) cannot hang the open. Check fstat's isFile before reading.
 */
export const READ_FLAGS = C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK

/** A folder held open by descriptor; names are resolved inside it. */
export class Folder {
  private constructor(
    private readonly fd: number,
    /** Real path when opened; used for messages and without /proc. */
    readonly where: string
  ) {}

  /** Opens a folder the action made or chose itself (not an agent's name). */
  static openRoot(dir: string, id?: string): Folder {
    const real = fs.realpathSync(dir)
    const folder = new Folder(fs.openSync(real, DIR_FLAGS), real)
    if (id !== undefined && folderIdOf(fs.fstatSync(folder.fd)) !== id) {
      folder.close()
      throw new Error(`${dir} is no longer the folder it was`)
    }
    return folder
  }

  /** Opens the sub-folder `name`, never through a link. */
  sub(name: string): Folder {
    checkName(name)
    return new Folder(
      fs.openSync(this.path(name), DIR_FLAGS),
      path.join(this.where, name)
    )
  }

  /** A path for `name` that resolves inside this very folder. */
  path(name: string): string {
    if (PROC_FD) return `/proc/self/fd/${this.fd}/${name}`
    this.checkStillHere()
    return path.join(this.where, name)
  }

  /**
   * The folder's entries, by type, links reported as links, one at a time:
   * an agent may leave millions of names in one folder.
   */
  *entries(): Generator<fs.Dirent> {
    const dir = fs.opendirSync(
      PROC_FD ? `/proc/self/fd/${this.fd}` : this.path('.')
    )
    try {
      for (let entry = dir.readSync(); entry; entry = dir.readSync())
        yield entry
    } finally {
      dir.closeSync()
    }
  }

  close(): void {
    try {
      fs.closeSync(this.fd)
    } catch {
      // Already closed.
    }
  }

  private checkStillHere(): void {
    const held = fs.fstatSync(this.fd)
    const now = fs.lstatSync(fs.realpathSync(this.where))
    if (fs.realpathSync(this.where) !== this.where || !sameFile(held, now))
      throw new Error(`${this.where} was moved or replaced`)
  }
}

/** `/proc/self/fd/N/name` resolves inside the folder N holds (Linux). */
const PROC_FD = (() => {
  try {
    return fs.statSync('/proc/self/fd').isDirectory()
  } catch {
    return false
  }
})()

function folderIdOf(stat: fs.Stats): string {
  return `${stat.dev}:${stat.ino}`
}

/**
 * Names a folder for later (device and inode): a root given with its id is
 * opened only if a folder of its path is still that very folder, not one an
 * agent put there (or linked there) since.
 */
export function folderId(dir: string): string {
  return folderIdOf(fs.statSync(dir))
}

/** A name of one component: no '', '.', '..' or '/'; throws otherwise. */
export function checkName(name: string): void {
  if (!name || name === '.' || name === '..' || name.includes('/'))
    throw new Error(`not a plain file name: '${name}'`)
}

export function sameFile(a: fs.Stats, b: fs.Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino
}

/** What a name in a folder is, seen without following it. */
export type Kind = 'folder' | 'file' | 'link' | 'other' | 'missing'

function kindOf(stat: fs.Stats): Exclude<Kind, 'missing'> {
  if (stat.isSymbolicLink()) return 'link'
  if (stat.isDirectory()) return 'folder'
  return stat.isFile() ? 'file' : 'other'
}

/** `name` in `folder`: lstat's answer, or 'missing'. */
function lookIn(folder: Folder, name: string): fs.Stats | 'missing' {
  try {
    return fs.lstatSync(folder.path(name))
  } catch {
    return 'missing'
  }
}

/**
 * A walk stopped at `parts[index]`: it is not a folder (`kind`; a link's
 * target in `linkTarget`), or it changed between the look and the open.
 */
export class WalkStopped extends Error {
  constructor(
    readonly index: number,
    readonly kind: Exclude<Kind, 'folder'> | 'changed',
    readonly linkTarget?: string
  ) {
    super(`component ${index + 1} of the path is ${kind}`)
  }
}

/**
 * Opens the folder `parts` names below `root` (a folder the action chose;
 * with `rootId`, it must still be that very folder), one component at a
 * time, never through a link. Throws WalkStopped at the first component
 * that is not a plain folder. The caller closes the folder returned.
 */
export function openFolderPath(
  root: string,
  parts: readonly string[],
  rootId?: string
): Folder {
  parts.forEach(checkName)
  let folder = Folder.openRoot(root, rootId)
  try {
    for (const [index, part] of parts.entries()) {
      const seen = lookIn(folder, part)
      const kind = seen === 'missing' ? seen : kindOf(seen)
      if (kind === 'link')
        throw new WalkStopped(index, kind, readLink(folder, part))
      if (kind !== 'folder') throw new WalkStopped(index, kind)
      const sub = openSub(folder, part, index)
      folder.close()
      folder = sub
    }
    return folder
  } catch (error) {
    folder.close()
    throw error
  }
}

function openSub(folder: Folder, part: string, index: number): Folder {
  try {
    return folder.sub(part)
  } catch {
    throw new WalkStopped(index, 'changed')
  }
}

function readLink(folder: Folder, part: string): string {
  try {
    return fs.readlinkSync(folder.path(part))
  } catch {
    return '?'
  }
}

/**
 * `name` in `folder` as lstat sees it when it is a regular file; what it is
 * otherwise. Open it with READ_FLAGS, then hold the descriptor's fstat
 * against this with isSameRegular.
 */
export function regularIn(
  folder: Folder,
  name: string
): fs.Stats | Exclude<Kind, 'file'> {
  const seen = lookIn(folder, name)
  if (seen === 'missing') return seen
  const kind = kindOf(seen)
  return kind === 'file' ? seen : kind
}

/** The opened file is a regular file, the very one lstat saw before the open. */
export function isSameRegular(opened: fs.Stats, seen: fs.Stats): boolean {
  return opened.isFile() && sameFile(opened, seen)
}
