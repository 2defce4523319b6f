// The repository's default branch and the commit it is at: where its policy
// (the repository config file) is read when a pull request's base is some
// other branch (context/base-setup.ts).
import type { Octokit } from './client.js'
import { toGitHubError } from './errors.js'

type Target = { octokit: Octokit; owner: string; repo: string }

/** The default branch's name (GET /repos/{owner}/{repo}). */
export async function readDefaultBranch({
  octokit,
  owner,
  repo
}: Target): Promise<string> {
  const what = `Reading the default branch of ${owner}/${repo}`
  let branch: unknown
  try {
    branch = (await octokit.rest.repos.get({ owner, repo })).data.default_branch
  } catch (e) {
    throw toGitHubError(e, what)
  }
  if (typeof branch !== 'string' || !branch.trim())
    throw new Error(`${what}: GitHub named none`)
  return branch
}

/** The commit a branch is at (GET /repos/{owner}/{repo}/git/ref/heads/{branch}). */
export async function readBranchHead(
  { octokit, owner, repo }: Target,
  branch: string
): Promise<string> {
  const what = `Reading the commit branch '${branch}' is at`
  let object: { type?: unknown; sha?: unknown }
  try {
    object = (
      await octokit.rest.git.getRef({ owner, repo, ref: `heads/${branch}` })
    ).data.object
  } catch (e) {
    throw toGitHubError(e, what)
  }
  if (object.type !== 'commit' || typeof object.sha !== 'string')
    throw new Error(`${what}: GitHub named no commit`)
  return object.sha
}
