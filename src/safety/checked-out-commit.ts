// Which commit the workflow checked out, read from the repository's own
// `.git` folder without running git: git would read the checkout's config,
// and a config can name programs to run. Only the files actions/checkout
// writes are read (HEAD, a loose ref, packed-refs), each through
// readWorkspaceFileSync: no link is followed on the way, no FIFO is opened,
// nothing past a small bound is read.
import * as path from 'node:path'
import { readWorkspaceFileSync } from './workspace-file.js'

const HEAD_MAX_BYTES = 4096
const PACKED_REFS_MAX_BYTES = 4 * 1024 * 1024
const SHA = /^[0-9a-f]{40}$/
const REF = /^refs\/[A-Za-z0-9._\-/]{1,200}$/

export type CheckedOut =
  { known: true; sha: string; repo: string } | { known: false; why: string }

/**
 * The commit checked out in the git repository holding `contextPath`: the
 * nearest folder from it up to the workspace that has a `.git` folder.
 */
export function readCheckedOutCommit(
  workspace: string,
  contextPath: string
): CheckedOut {
  const rel = path.relative(workspace, contextPath)
  if (rel.startsWith('..') || path.isAbsolute(rel))
    return { known: false, why: 'context-path is outside the workspace' }
  const parts = rel === '' ? [] : rel.split(path.sep)
  for (let depth = parts.length; depth >= 0; depth--) {
    const repo = parts.slice(0, depth).join('/')
    const head = read(workspace, repo, 'HEAD', HEAD_MAX_BYTES)
    if (head === undefined) continue
    const sha = resolveHead(workspace, repo, head.trim())
    return sha
      ? { known: true, sha, repo: repo || '.' }
      : { known: false, why: `${repo || '.'}/.git/HEAD names no commit` }
  }
  return { known: false, why: 'no .git folder holds context-path' }
}

/** HEAD is a commit (a detached checkout) or `ref: refs/...` (a branch). */
function resolveHead(
  workspace: string,
  repo: string,
  head: string
): string | undefined {
  if (SHA.test(head)) return head
  const ref = /^ref: (.+)$/.exec(head)?.[1]
  if (!ref || !REF.test(ref) || ref.split('/').includes('..')) return undefined
  const loose = read(workspace, repo, ref, HEAD_MAX_BYTES)?.trim()
  if (loose !== undefined) return SHA.test(loose) ? loose : undefined
  const packed = read(workspace, repo, 'packed-refs', PACKED_REFS_MAX_BYTES)
  for (const line of packed?.split('\n') ?? []) {
    const [sha, name] = line.trim().split(' ')
    if (name === ref && sha && SHA.test(sha)) return sha
  }
  return undefined
}

function read(
  workspace: string,
  repo: string,
  file: string,
  maxBytes: number
): string | undefined {
  const rel = [repo, '.git', file].filter((p) => p !== '').join('/')
  const got = readWorkspaceFileSync(workspace, rel, maxBytes)
  return got.ok ? got.text : undefined
}
