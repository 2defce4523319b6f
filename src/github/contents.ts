// One file of the repository at a commit, read through the API (no checkout
// needed): the base branch's .gitattributes, which decides what the agents'
// context leaves out (pr-filter.ts).
import type { Octokit } from './client.js'
import { statusOf, toGitHubError } from './errors.js'
import type { Log } from '../core/log.js'

/** Larger files are not read: the contents API sends no text over 1 MB anyway. */
const MAX_BYTES = 1_000_000

export async function readFileAtRef(
  target: { octokit: Octokit; owner: string; repo: string; log: Log },
  file: string,
  ref: string
): Promise<string | undefined> {
  const { octokit, owner, repo } = target
  try {
    const { data } = await octokit.rest.repos.getContent({
      owner,
      repo,
      path: file,
      ref
    })
    if (Array.isArray(data) || data.type !== 'file') return undefined
    if (!('content' in data) || data.size > MAX_BYTES) return undefined
    if (data.encoding !== 'base64') return undefined
    return Buffer.from(data.content, 'base64').toString('utf8')
  } catch (e) {
    if (statusOf(e) === 404) return undefined
    throw toGitHubError(e, `Reading ${file} at ${ref.slice(0, 12)}`)
  }
}

/** A setup file at the base commit, or why it cannot be used. */
export type BaseFile =
  | { ok: true; text: string }
  | {
      ok: false
      why:
        'missing' | 'link' | 'submodule' | 'folder' | 'too-big' | 'unreadable'
      detail?: string
    }

/**
 * A file an input names (`config`, `instructions-file`, `query-file`) at the
 * base commit. Only a regular file at exactly that path counts: the contents
 * API answers a link to a file in the repository with that file's content
 * (and its own path), a link elsewhere or a submodule with an object of that
 * type, a folder with a list, and a file over 1 MB with no content.
 */
export async function readBaseFile(
  target: { octokit: Octokit; owner: string; repo: string; log: Log },
  file: string,
  ref: string,
  maxBytes: number
): Promise<BaseFile> {
  const { octokit, owner, repo } = target
  let data: unknown
  try {
    data = (
      await octokit.rest.repos.getContent({ owner, repo, path: file, ref })
    ).data
  } catch (e) {
    if (statusOf(e) === 404) return { ok: false, why: 'missing' }
    return {
      ok: false,
      why: 'unreadable',
      detail: toGitHubError(e, `Reading ${file} at ${ref.slice(0, 12)}`).message
    }
  }
  if (Array.isArray(data)) return { ok: false, why: 'folder' }
  const entry = data as Record<string, unknown>
  if (entry.type === 'symlink') return { ok: false, why: 'link' }
  if (entry.type === 'submodule') return { ok: false, why: 'submodule' }
  if (entry.type !== 'file') return { ok: false, why: 'unreadable' }
  // A link to a file is answered with the file it points to, under its path.
  if (entry.path !== file) return { ok: false, why: 'link' }
  if (typeof entry.size !== 'number' || entry.size > maxBytes)
    return { ok: false, why: 'too-big' }
  if (entry.encoding !== 'base64' || typeof entry.content !== 'string')
    return { ok: false, why: 'unreadable' }
  const bytes = Buffer.from(entry.content, 'base64')
  if (bytes.length !== entry.size) return { ok: false, why: 'unreadable' }
  return { ok: true, text: bytes.toString('utf8') }
}
