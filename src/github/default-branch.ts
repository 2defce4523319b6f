// The repository's default branch and the commit it is at: where its policy
// (the repository config file) is read when a pull request's base is some
// other branch (context/base-setup.ts).
import type { Octokit } from './client.js'
import { callGitHub } from './errors.js'

type Target = { octokit: Octokit; owner: string; repo: string }

/** The default branch's name (GET /repos/{owner}/{repo}). */
export async function readDefaultBranch({
  octokit,
  owner,
  repo
}: Target): Promise<string> {
  const what = `Reading the default branch of ${owner}/${repo}`
  const { data } = await callGitHub(what, () =>
    octokit.rest.repos.get({ owner, repo })
  )
  const branch: unknown = data.default_branch
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
  const { data } = await callGitHub(what, () =>
    octokit.rest.git.getRef({ owner, repo, ref: `heads/${branch}` })
  )
  const object: { type?: unknown; sha?: unknown } = data.object
  if (object.type !== 'commit' || typeof object.sha !== 'string')
    throw new Error(`${what}: GitHub named no commit`)
  return object.sha
}
