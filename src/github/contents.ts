// One file of the repository at a commit, read through the API (no checkout
// needed): the base branch's .gitattributes, which decides what the agents'
// context leaves out (pr-filter.ts).
import type { GitHubLog, Octokit } from './client.js'
import { statusOf, toGitHubError } from './errors.js'

/** Larger files are not read: the contents API sends no text over 1 MB anyway. */
const MAX_BYTES = 1_000_000

export async function readFileAtRef(
  target: { octokit: Octokit; owner: string; repo: string; log: GitHubLog },
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
