// A file an input names in the workspace (`config`, `instructions-file`,
// `query-file`), read on events whose checkout is the repository's own code
// (push, schedule, dispatch): every folder on the way is opened without
// following a link, the file itself only when it is a regular file (O_NOFOLLOW,
// O_NONBLOCK: a FIFO cannot hang the step), and never past maxBytes.
import * as fs from 'node:fs'
import { Folder, READ_FLAGS } from './agent-files.js'

type WorkspaceRead =
  | { ok: true; text: string }
  | {
      ok: false
      why: 'missing' | 'link' | 'not-file' | 'too-big' | 'unreadable'
    }

/** `rel` is a workspace-relative path already checked not to leave it (no `..`). */
export function readWorkspaceFileSync(
  workspace: string,
  rel: string,
  maxBytes: number
): WorkspaceRead {
  const parts = rel.split(/[\\/]/).filter((p) => p !== '' && p !== '.')
  const name = parts.pop()
  if (!name || parts.includes('..') || name === '..')
    return { ok: false, why: 'unreadable' }
  const opened: Folder[] = []
  try {
    opened.push(Folder.openRoot(workspace))
    for (const part of parts) {
      const step = lstatIn(opened[opened.length - 1] as Folder, part)
      if (step !== 'dir') return { ok: false, why: step }
      opened.push((opened[opened.length - 1] as Folder).sub(part))
    }
    return readIn(opened[opened.length - 1] as Folder, name, maxBytes)
  } catch {
    return { ok: false, why: 'unreadable' }
  } finally {
    opened.forEach((f) => f.close())
  }
}

function lstatIn(
  folder: Folder,
  name: string
): 'dir' | 'missing' | 'link' | 'not-file' {
  try {
    const stat = fs.lstatSync(folder.path(name))
    if (stat.isSymbolicLink()) return 'link'
    return stat.isDirectory() ? 'dir' : 'not-file'
  } catch {
    return 'missing'
  }
}

function readIn(folder: Folder, name: string, maxBytes: number): WorkspaceRead {
  let seen: fs.Stats
  try {
    seen = fs.lstatSync(folder.path(name))
  } catch {
    return { ok: false, why: 'missing' }
  }
  if (seen.isSymbolicLink()) return { ok: false, why: 'link' }
  if (!seen.isFile()) return { ok: false, why: 'not-file' }
  let fd: number | undefined
  try {
    fd = fs.openSync(folder.path(name), READ_FLAGS)
    const stat = fs.fstatSync(fd)
    if (!stat.isFile() || stat.ino !== seen.ino || stat.dev !== seen.dev)
      return { ok: false, why: 'not-file' }
    if (stat.size > maxBytes) return { ok: false, why: 'too-big' }
    const buffer = Buffer.alloc(maxBytes + 1)
    const length = fs.readSync(fd, buffer, 0, maxBytes + 1, 0)
    if (length > maxBytes) return { ok: false, why: 'too-big' }
    return { ok: true, text: buffer.subarray(0, length).toString('utf8') }
  } catch (error) {
    return {
      ok: false,
      why:
        (error as NodeJS.ErrnoException).code === 'ELOOP'
          ? 'link'
          : 'unreadable'
    }
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}
