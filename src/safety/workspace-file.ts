// A file an input names in the workspace (`config`, `instructions-file`,
// `query-file`), read on events whose checkout is the repository's own code
// (push, schedule, dispatch): the path is walked as no-follow.ts does (no
// link followed, the file opened only when it is a regular file, O_NONBLOCK:
// a FIFO cannot hang the step), and never read past maxBytes.
import * as fs from 'node:fs'
import {
  type Folder,
  isSameRegular,
  type Kind,
  openFolderPath,
  READ_FLAGS,
  regularIn,
  WalkStopped
} from './no-follow.js'

type Why = 'missing' | 'link' | 'not-file' | 'too-big' | 'unreadable'

type WorkspaceRead = { ok: true; text: string } | { ok: false; why: Why }

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
  let folder: Folder
  try {
    folder = openFolderPath(workspace, parts)
  } catch (error) {
    return {
      ok: false,
      why: error instanceof WalkStopped ? whyOf(error.kind) : 'unreadable'
    }
  }
  try {
    return readIn(folder, name, maxBytes)
  } finally {
    folder.close()
  }
}

function whyOf(kind: Kind | 'changed'): Why {
  if (kind === 'missing' || kind === 'link') return kind
  return kind === 'changed' ? 'unreadable' : 'not-file'
}

function readIn(folder: Folder, name: string, maxBytes: number): WorkspaceRead {
  const seen = regularIn(folder, name)
  if (typeof seen === 'string') return { ok: false, why: whyOf(seen) }
  let fd: number | undefined
  try {
    fd = fs.openSync(folder.path(name), READ_FLAGS)
    const stat = fs.fstatSync(fd)
    if (!isSameRegular(stat, seen)) return { ok: false, why: 'not-file' }
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
