// One file of the repository at a commit, read through the contents API (no
// checkout needed), the one way the action reads one: the base branch's
// .gitattributes (context/run-context.ts, shards/matrix-job.ts), the
// repository's instructions for agents (context/project-instructions.ts),
// the files the setup inputs name (context/base-setup.ts) and a voted file
// the aggregate's diff leaves out (shards/aggregate-job.ts).
//
// Only a regular file at exactly that path counts. GitHub answers a link
// with the link itself (`type: symlink`) when its target is outside the
// repository, and with the TARGET's content (and the target's path) when
// the target is a file inside it; a submodule with an object of that type, a
// folder with a list, and a file over 1 MB with no content. A link is
// refused whatever its target holds: the file asked for is not a regular
// file.
import type { Octokit } from './client.js'
import { statusOf, toGitHubError } from './errors.js'
import type { Log } from '../core/log.js'

/** The file's text, or why there is none to use. */
export type FileAtCommit =
  | { kind: 'file'; text: string; bytes: number }
  | { kind: 'absent' }
  | { kind: 'link' }
  /** GitHub's type: `dir` or `submodule`. */
  | { kind: 'not-a-file'; type: string }
  | { kind: 'too-large'; bytes: number }
  /** GitHub answered something else (no text, a size its text does not have), or could not be asked. */
  | { kind: 'unreadable'; detail?: string }

/**
 * `file` at `ref`, at most `maxBytes`. A failed request (other than a 404:
 * absent) throws the GitHubError.
 */
export async function readFileAtCommit(
  target: { octokit: Octokit; owner: string; repo: string; log: Log },
  file: string,
  ref: string,
  maxBytes: number
): Promise<FileAtCommit> {
  const { octokit, owner, repo } = target
  let data: unknown
  try {
    data = (
      await octokit.rest.repos.getContent({ owner, repo, path: file, ref })
    ).data
  } catch (e) {
    if (statusOf(e) === 404) return { kind: 'absent' }
    throw toGitHubError(e, `Reading ${file} at ${ref.slice(0, 12)}`)
  }
  if (Array.isArray(data)) return { kind: 'not-a-file', type: 'dir' }
  const entry = data as Record<string, unknown>
  if (entry.type === 'symlink') return { kind: 'link' }
  if (entry.type === 'submodule' || entry.type === 'dir')
    return { kind: 'not-a-file', type: entry.type }
  if (entry.type !== 'file')
    return {
      kind: 'unreadable',
      detail: `GitHub's type '${String(entry.type)}'`
    }
  // A link to a file is answered with the file it points to, under its path.
  if (entry.path !== file) return { kind: 'link' }
  if (typeof entry.size !== 'number')
    return { kind: 'unreadable', detail: 'no size' }
  if (entry.size > maxBytes) return { kind: 'too-large', bytes: entry.size }
  if (entry.encoding !== 'base64' || typeof entry.content !== 'string')
    return { kind: 'unreadable', detail: 'no base64 content' }
  const bytes = Buffer.from(entry.content, 'base64')
  if (bytes.length !== entry.size)
    return { kind: 'unreadable', detail: 'content of another size' }
  return { kind: 'file', text: bytes.toString('utf8'), bytes: bytes.length }
}

/** What a file that could not be used was, for a message: "a link", "too large (N bytes)". */
export function notAFile(
  read: Exclude<FileAtCommit, { kind: 'file' }>
): string {
  switch (read.kind) {
    case 'absent':
      return 'absent'
    case 'link':
      return 'a link'
    case 'not-a-file':
      return `not a regular file (${read.type})`
    case 'too-large':
      return `too large (${read.bytes} bytes)`
    case 'unreadable':
      return `unreadable${read.detail ? ` (${read.detail})` : ''}`
  }
}
