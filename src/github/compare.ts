// Two commits compared (GET /repos/{owner}/{repo}/compare/{base}...{head}):
// whether the head still contains the base, and the change between them.
import type { Octokit } from './client.js'
import { statusOf, toGitHubError } from './errors.js'

export type Comparison =
  /** The head contains the base: `diff` is the change since it. */
  | { status: 'ahead'; diff: string; aheadBy: number }
  /** The head no longer contains the base (force push, rebase), or is it. */
  | { status: 'diverged' | 'behind' | 'identical' }
  /** GitHub knows no such commit (gone with a force push), or will not compare. */
  | { status: 'unknown'; why: string }

interface CompareTarget {
  octokit: Octokit
  owner: string
  repo: string
}

const STATUSES = new Set(['ahead', 'diverged', 'behind', 'identical'])
const SHA = /^[0-9a-f]{40}$/

export async function compareCommits(
  { octokit, owner, repo }: CompareTarget,
  base: string,
  head: string
): Promise<Comparison> {
  if (!SHA.test(base) || !SHA.test(head))
    return { status: 'unknown', why: 'not a commit id' }
  const basehead = `${base}...${head}`
  const what = `Comparing ${base.slice(0, 12)} with ${head.slice(0, 12)}`
  try {
    const { data } = await octokit.rest.repos.compareCommitsWithBasehead({
      owner,
      repo,
      basehead,
      per_page: 1
    })
    const status = String(data.status)
    if (!STATUSES.has(status))
      return { status: 'unknown', why: 'GitHub gave no comparison status' }
    if (status !== 'ahead')
      return { status: status as 'diverged' | 'behind' | 'identical' }
    const raw = await octokit.rest.repos.compareCommitsWithBasehead({
      owner,
      repo,
      basehead,
      mediaType: { format: 'diff' }
    })
    const aheadBy = Number.isSafeInteger(data.ahead_by) ? data.ahead_by : 0
    // The diff media type answers text, which the types do not know.
    const diff = raw.data as unknown
    return {
      status: 'ahead',
      diff: typeof diff === 'string' ? diff : '',
      aheadBy
    }
  } catch (e) {
    const s = statusOf(e)
    // 404: a commit GitHub does not know (any more); 406: a diff too large.
    if (s === 404 || s === 406 || s === 422)
      return { status: 'unknown', why: `GitHub answered ${s}` }
    throw toGitHubError(e, what)
  }
}
