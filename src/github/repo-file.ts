// One regular file of the repository at a commit, through the contents API,
// never through a link: the repository's own instructions for agents
// (project-instructions.ts) are read this way from the base commit.
//
// GitHub answers a link's path with the link itself (`type: symlink`) when
// its target is outside the repository, and with the TARGET's content (and
// the target's path) when the target is a file inside it. Either way the
// file asked for is not a regular file: refused, whatever the target holds.
import type { Octokit } from './client.js'
import { statusOf, toGitHubError } from './errors.js'
import type { Log } from '../core/log.js'

export type RepoFile =
  | { kind: 'file'; text: string; bytes: number }
  | { kind: 'absent' }
  | { kind: 'link' }
  | { kind: 'not-a-file'; type: string }
  | { kind: 'too-large'; bytes: number }

export async function readRegularFileAtRef(
  target: { octokit: Octokit; owner: string; repo: string; log: Log },
  file: string,
  ref: string,
  maxBytes: number
): Promise<RepoFile> {
  const { octokit, owner, repo } = target
  try {
    const { data } = await octokit.rest.repos.getContent({
      owner,
      repo,
      path: file,
      ref
    })
    if (Array.isArray(data)) return { kind: 'not-a-file', type: 'dir' }
    if (data.type === 'symlink' || data.path !== file) return { kind: 'link' }
    if (data.type !== 'file') return { kind: 'not-a-file', type: data.type }
    if (data.size > maxBytes) return { kind: 'too-large', bytes: data.size }
    if (!('content' in data) || data.encoding !== 'base64')
      return { kind: 'too-large', bytes: data.size }
    const bytes = Buffer.from(data.content, 'base64')
    if (bytes.length > maxBytes)
      return { kind: 'too-large', bytes: bytes.length }
    return { kind: 'file', text: bytes.toString('utf8'), bytes: bytes.length }
  } catch (e) {
    if (statusOf(e) === 404) return { kind: 'absent' }
    throw toGitHubError(e, `Reading ${file} at ${ref.slice(0, 12)}`)
  }
}

/** The base commit of a pull request. */
export async function readPullBase(
  target: { octokit: Octokit; owner: string; repo: string },
  number: number
): Promise<string> {
  const { octokit, owner, repo } = target
  try {
    const { data } = await octokit.rest.pulls.get({
      owner,
      repo,
      pull_number: number
    })
    return data.base.sha
  } catch (e) {
    throw toGitHubError(e, `Reading the base of pull request #${number}`)
  }
}
