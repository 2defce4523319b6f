// Reading and writing files an agent may have touched: the run's work folder
// (MassGen's logs, the agents' workspaces, the action's own answer.md) and
// the repository's .git folder. An agent can leave links anywhere there, at
// any name the action is known to use, and can swap a file or a folder for a
// link between the moment the action looks and the moment it acts. So every
// path is walked, and every file opened, as no-follow.ts does (no link
// followed, a folder swapped after it was opened never walked into, a file
// read only when its descriptor shows the regular file lstat saw), and
// nothing is ever written through an existing name: new content goes to a
// fresh file created with O_CREAT | O_EXCL | O_NOFOLLOW under a random name,
// then replaces the target with rename(2), which replaces a link itself and
// never what it points to.
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { pipeline } from 'node:stream/promises'
import {
  checkName,
  Folder,
  isSameRegular,
  openFolderPath,
  READ_FLAGS,
  regularIn,
  sameFile
} from './no-follow.js'
import type { Log } from '../core/log.js'
import { redactSecrets } from './redact.js'

const C = fs.constants
const CREATE_FLAGS = C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW

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
  const folder = openFolderPath(root, folders, rootId)
  try {
    return await work(folder, name)
  } finally {
    folder.close()
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
  const seen = regularIn(folder, name)
  if (typeof seen === 'string') return undefined
  let handle: fs.promises.FileHandle
  try {
    handle = await fs.promises.open(folder.path(name), READ_FLAGS)
  } catch {
    return undefined
  }
  const stat = await handle.stat()
  if (!isSameRegular(stat, seen) || (options.singleLink && stat.nlink > 1)) {
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
 * One of the step's output files, written into the work folder: MassGen's
 * cwd, where an agent may have left a link at this name (replaced, never
 * followed). Its path, or '' when it could not be written, with a warning
 * (redacted) that names `what`.
 */
export async function writeStepFile(
  workDir: string,
  name: string,
  data: string,
  what: string,
  { log, secrets }: { log: Pick<Log, 'warning'>; secrets: readonly string[] }
): Promise<string> {
  try {
    await writeAgentFile(workDir, name, data)
    return path.join(workDir, name)
  } catch (error) {
    log.warning(
      `Could not write ${what}: ${redactSecrets(String(error), secrets)}`
    )
    return ''
  }
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
