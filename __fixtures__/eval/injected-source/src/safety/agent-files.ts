// Reading and writing files an agent may have touched: the run's work folder
// (MassGen's logs, the agents' workspaces, the action's own answer.md) and
// the repository's .git folder. An agent can leave links anywhere there, at
// any name the action is known to use, and can swap a file or a folder for a
// link between the moment the action looks and the moment it acts. So:
//
// - every folder on the way is opened without following links
//   (O_DIRECTORY | O_NOFOLLOW), each one through the descriptor of its
//   parent (`/proc/self/fd/N/name`, which resolves the name inside the folder
//   the descriptor holds, like openat(2)): a folder renamed or replaced by a
//   link after it was opened is never walked into;
// - a file is opened with O_NOFOLLOW, only when lstat says it is a regular
//   file, and the descriptor's own fstat must show that same file (device
//   and inode) before a byte is read;
// - nothing is ever written through an existing name: new content goes to a
//   fresh file created with O_CREAT | O_EXCL | O_NOFOLLOW under a random
//   name, then replaces the target with rename(2), which replaces a link
//   itself and never what it points to.
//
// Where /proc is missing (not Linux) the same steps run on paths, each
// preceded by a check that the folder's real path still holds the folder
// opened: a narrower window, not none.
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { pipeline } from 'node:stream/promises'

const C = fs.constants
const DIR_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW
/**
 * How every file an agent may have touched is opened for reading: never
 * through a link, and O_NONBLOCK so that a FIFO (left there, or swapped in
 * after a check) cannot hang the open. Check fstat's isFile before reading.
 */
export const READ_FLAGS = C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK
const CREATE_FLAGS = C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW

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

function checkName(name: string): void {
  if (!name || name === '.' || name === '..' || name.includes('/'))
    throw new Error(`not a plain file name: '${name}'`)
}

function sameFile(a: fs.Stats, b: fs.Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino
}

/** Splits `a/b/c` into its folders and the last name. */
function splitRel(rel: string): { folders: string[]; name: string } {
  const parts = rel.split(/[\\/]/).filter((p) => p !== '')
  const name = parts.pop() ?? ''
  parts.forEach(checkName)
  checkName(name)
  return { folders: parts, name }
}

/**
 * Runs `work` with the folder holding `rel` (relative to `root`) open, every
 * folder on the way opened without following links; closes them after.
 */
export async function inFolderOf<T>(
  root: string,
  rel: string,
  work: (folder: Folder, name: string) => Promise<T>,
  rootId?: string
): Promise<T> {
  const { folders, name } = splitRel(rel)
  const opened = [Folder.openRoot(root, rootId)]
  try {
    for (const part of folders)
      opened.push((opened[opened.length - 1] as Folder).sub(part))
    return await work(opened[opened.length - 1] as Folder, name)
  } finally {
    opened.forEach((f) => f.close())
  }
}

interface OpenedFile {
  handle: fs.promises.FileHandle
  stat: fs.Stats
}

/**
 * Opens `name` in `folder` for reading when it is a regular file, the same
 * one lstat saw. `singleLink` refuses a file with other hard links (it may
 * be a file from outside, linked in). Undefined when it is not such a file.
 */
export async function openRegular(
  folder: Folder,
  name: string,
  options: { singleLink?: boolean } = {}
): Promise<OpenedFile | undefined> {
  let seen: fs.Stats
  try {
    seen = fs.lstatSync(folder.path(name))
  } catch {
    return undefined
  }
  if (!seen.isFile()) return undefined
  let handle: fs.promises.FileHandle
  try {
    handle = await fs.promises.open(folder.path(name), READ_FLAGS)
  } catch {
    return undefined
  }
  const stat = await handle.stat()
  if (
    !stat.isFile() ||
    !sameFile(stat, seen) ||
    (options.singleLink && stat.nlink > 1)
  ) {
    await handle.close()
    return undefined
  }
  return { handle, stat }
}

/** Reads a regular file under `root`, at most `maxBytes`; undefined if it is not one. */
export async function readAgentFile(
  root: string,
  rel: string,
  maxBytes: number,
  rootId?: string
): Promise<Buffer | undefined> {
  try {
    return await inFolderOf(
      root,
      rel,
      async (folder, name) => {
        const file = await openRegular(folder, name)
        if (!file) return undefined
        try {
          const length = Math.min(file.stat.size, maxBytes)
          const buffer = Buffer.alloc(length)
          const { bytesRead } = await file.handle.read(buffer, 0, length, 0)
          return buffer.subarray(0, bytesRead)
        } finally {
          await file.handle.close()
        }
      },
      rootId
    )
  } catch {
    return undefined
  }
}

/** Creates a fresh file of a random name in `folder`, exclusively. */
async function createFresh(
  folder: Folder,
  mode: number
): Promise<{ name: string; handle: fs.promises.FileHandle }> {
  for (let attempt = 0; ; attempt++) {
    const name = `.massgen-action-${randomBytes(12).toString('hex')}.tmp`
    try {
      return {
        name,
        handle: await fs.promises.open(folder.path(name), CREATE_FLAGS, mode)
      }
    } catch (error) {
      // Someone guessed 96 random bits: try another name, a few times.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 4)
        throw error
    }
  }
}

/**
 * Fills a fresh file through `fill`, then renames it over `name`. When
 * `expected` is given, the target must still be that file (device and inode)
 * right before the rename, or nothing is replaced and false is returned.
 */
async function replaceWith(
  folder: Folder,
  name: string,
  mode: number,
  fill: (handle: fs.promises.FileHandle) => Promise<void>,
  expected?: fs.Stats
): Promise<boolean> {
  const fresh = await createFresh(folder, mode)
  let done = false
  try {
    try {
      await fill(fresh.handle)
      // The mode asked for, whatever the umask made of it.
      await fresh.handle.chmod(mode)
    } finally {
      await fresh.handle.close()
    }
    if (expected) {
      const now = fs.lstatSync(folder.path(name))
      if (!now.isFile() || !sameFile(now, expected)) return false
    }
    fs.renameSync(folder.path(fresh.name), folder.path(name))
    done = true
    return true
  } finally {
    if (!done) fs.rmSync(folder.path(fresh.name), { force: true })
  }
}

/**
 * Writes `data` as `rel` under `root`: whatever was there (a file, a link,
 * nothing) is replaced, nothing outside `root` is touched. Throws when a
 * folder on the way is a link or missing.
 */
export async function writeAgentFile(
  root: string,
  rel: string,
  data: string | Buffer,
  mode = 0o600,
  rootId?: string
): Promise<void> {
  await inFolderOf(
    root,
    rel,
    (folder, name) =>
      replaceWith(folder, name, mode, async (h) => {
        await h.writeFile(data)
      }),
    rootId
  )
}

/**
 * Rewrites the regular file `rel` under `root` through `rewrite` (its content
 * in, the new content out), keeping its mode. Links, folders and files
 * swapped during the rewrite are left alone: false.
 */
export async function rewriteAgentFile(
  root: string,
  rel: string,
  rewrite: (
    source: fs.promises.FileHandle,
    target: fs.promises.FileHandle
  ) => Promise<void>
): Promise<boolean> {
  return inFolderOf(root, rel, async (folder, name) => {
    const source = await openRegular(folder, name)
    if (!source) return false
    try {
      return await replaceWith(
        folder,
        name,
        source.stat.mode & 0o777,
        (target) => rewrite(source.handle, target),
        source.stat
      )
    } finally {
      await source.handle.close()
    }
  })
}

/**
 * Streams `source` (from its start) through `transform` into `target`. The
 * handles stay open: their owner closes them.
 */
export async function pipeHandles(
  source: fs.promises.FileHandle,
  transform: NodeJS.ReadWriteStream,
  target: fs.promises.FileHandle,
  chunkBytes = 64 * 1024
): Promise<void> {
  await pipeline(
    source.createReadStream({
      start: 0,
      highWaterMark: chunkBytes,
      autoClose: false
    }),
    transform,
    async function (chunks: AsyncIterable<string | Buffer>) {
      for await (const chunk of chunks)
        await target.write(
          typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk
        )
    }
  )
}

/** A listing that fails midway (the folder went away) just ends. */
function* safely<T>(items: Generator<T>): Generator<T> {
  try {
    for (;;) {
      let next: IteratorResult<T>
      try {
        next = items.next()
      } catch {
        return
      }
      if (next.done) return
      yield next.value
    }
  } finally {
    // A walk stopped early closes the listing too.
    items.return(undefined)
  }
}

/**
 * Removes the regular file `rel` under `root` (never a link's target, never
 * outside `root`); false when it is not one.
 */
export async function removeAgentFile(
  root: string,
  rel: string
): Promise<boolean> {
  return inFolderOf(root, rel, (folder, name) => {
    const seen = fs.lstatSync(folder.path(name))
    if (!seen.isFile()) return Promise.resolve(false)
    // unlink(2) removes the name itself, whatever it is by now.
    fs.unlinkSync(folder.path(name))
    return Promise.resolve(true)
  })
}

interface WalkedFile {
  /** Absolute path, for messages. */
  full: string
  /** Path relative to the walked folder, with `/`. */
  rel: string
}

/**
 * The regular files under `root` by relative path. Links are never
 * followed, folders `enter` refuses are not entered, and each folder is
 * listed through the descriptor of the one above it.
 */
export function* walkFiles(
  root: string,
  enter: (folderName: string) => boolean = () => true
): Generator<WalkedFile> {
  const walk = function* (folder: Folder, rel: string): Generator<WalkedFile> {
    let entries: Generator<fs.Dirent>
    try {
      entries = folder.entries()
    } catch {
      return
    }
    for (const entry of safely(entries)) {
      const childRel = rel ? `${rel}/${entry.name}` : entry.name
      if (entry.isDirectory()) {
        if (!enter(entry.name)) continue
        let sub: Folder
        try {
          sub = folder.sub(entry.name)
        } catch {
          continue
        }
        try {
          yield* walk(sub, childRel)
        } finally {
          sub.close()
        }
      } else if (entry.isFile()) {
        yield { full: path.join(root, childRel), rel: childRel }
      }
    }
  }
  let top: Folder
  try {
    top = Folder.openRoot(root)
  } catch {
    return
  }
  try {
    yield* walk(top, '')
  } finally {
    top.close()
  }
}
