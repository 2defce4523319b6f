// A pull request as the prompt needs it: title, body, refs, changed files
// and the diff, cut to a size the agents can read.
import type { GitHubLog, Octokit } from './client.js'
import { apiMessage, statusOf, toGitHubError } from './errors.js'
import { clipBytes } from '../core/text.js'

export interface ChangedFile {
  filename: string
  status: string
  additions: number
  deletions: number
}
export interface PullRequestContext {
  number: number
  title: string
  body: string
  baseRef: string
  baseSha: string
  headRef: string
  headSha: string
  /** `owner/name` of the head repository; undefined when the fork is gone. */
  headRepo: string | undefined
  files: ChangedFile[]
  /** Unified diff, cut at a line boundary to at most maxDiffBytes. */
  diff: string
  /** The diff was cut, or GitHub refused to produce it (too large). */
  diffTruncated: boolean
}

/** Cut a diff to maxBytes of UTF-8 at the last whole line. */
export function cutDiff(
  diff: string,
  maxBytes: number
): { diff: string; truncated: boolean } {
  if (Buffer.byteLength(diff, 'utf8') <= maxBytes)
    return { diff, truncated: false }
  const head = clipBytes(diff, maxBytes)
  const nl = head.lastIndexOf('\n')
  return { diff: nl >= 0 ? head.slice(0, nl + 1) : head, truncated: true }
}

interface PullRequestTarget {
  octokit: Octokit
  owner: string
  repo: string
  log: GitHubLog
}

export async function readPullRequestContext(
  { octokit, owner, repo, log }: PullRequestTarget,
  number: number,
  maxDiffBytes: number
): Promise<PullRequestContext> {
  const params = { owner, repo, pull_number: number }
  const what = `Reading pull request #${number}`
  try {
    const [pr, files, raw] = await Promise.all([
      octokit.rest.pulls.get(params),
      octokit.paginate(octokit.rest.pulls.listFiles, {
        ...params,
        per_page: 100
      }),
      octokit.rest.pulls.get({ ...params, mediaType: { format: 'diff' } }).then(
        (r) => r.data as unknown as string,
        (e: unknown) => {
          // 406: GitHub will not render diffs over 300 files/20k lines.
          if (statusOf(e) !== 406) throw e
          log.warning(`${what}: ${apiMessage(e)}; no diff given`)
          return undefined
        }
      )
    ])
    const cut = cutDiff(raw ?? '', maxDiffBytes)
    return {
      number,
      title: pr.data.title,
      body: pr.data.body ?? '',
      baseRef: pr.data.base.ref,
      baseSha: pr.data.base.sha,
      headRef: pr.data.head.ref,
      headSha: pr.data.head.sha,
      headRepo: pr.data.head.repo?.full_name ?? undefined,
      files: files.map((f) => ({
        filename: f.filename,
        status: f.status,
        additions: f.additions,
        deletions: f.deletions
      })),
      diff: cut.diff,
      diffTruncated: raw === undefined || cut.truncated
    }
  } catch (e) {
    throw toGitHubError(e, what)
  }
}

/** What GitHub says of a pull request's head, for the time-of-check rule. */
export interface PullHead {
  sha: string
  /** The head commit's committer date (set by whoever made the commit). */
  committedAt: string | undefined
  /** When GitHub recorded each force push of the head branch (server time). */
  forcePushedAt: string[]
  /** GitHub's test merge commit of head and base now; none while it is computed or on conflicts. */
  mergeSha?: string | undefined
}

/** The head commit and GitHub's test merge commit (`merge_commit_sha`) now. */
export interface PullTip {
  sha: string
  mergeSha: string | undefined
}

/** The pull request's head and merge commits now: one request, for pull_request events. */
export async function readPullTip(
  { octokit, owner, repo }: PullRequestTarget,
  number: number
): Promise<PullTip> {
  try {
    const pr = await octokit.rest.pulls.get({
      owner,
      repo,
      pull_number: number
    })
    return {
      sha: pr.data.head.sha,
      mergeSha: pr.data.merge_commit_sha ?? undefined
    }
  } catch (e) {
    throw toGitHubError(e, `Reading the head of pull request #${number}`)
  }
}

/** Timeline items read at most, newest pages included (100 per page). */
const MAX_TIMELINE_PAGES = 30

export async function readPullHead(
  { octokit, owner, repo }: PullRequestTarget,
  number: number
): Promise<PullHead> {
  const what = `Reading the head of pull request #${number}`
  try {
    const pr = await octokit.rest.pulls.get({
      owner,
      repo,
      pull_number: number
    })
    const sha = pr.data.head.sha
    const [commit, timeline] = await Promise.all([
      // A fork's commits are reachable from the base repository too.
      octokit.rest.repos.getCommit({ owner, repo, ref: sha }),
      readTimeline(octokit, owner, repo, number)
    ])
    return {
      sha,
      committedAt: commit.data.commit.committer?.date ?? undefined,
      forcePushedAt: timeline
        .filter((e) => e.event === 'head_ref_force_pushed' && e.created_at)
        .map((e) => e.created_at as string),
      mergeSha: pr.data.merge_commit_sha ?? undefined
    }
  } catch (e) {
    throw toGitHubError(e, what)
  }
}

async function readTimeline(
  octokit: Octokit,
  owner: string,
  repo: string,
  number: number
): Promise<Array<{ event?: string; created_at?: string }>> {
  const items: Array<{ event?: string; created_at?: string }> = []
  let pages = 0
  for await (const page of octokit.paginate.iterator(
    octokit.rest.issues.listEventsForTimeline,
    { owner, repo, issue_number: number, per_page: 100 }
  )) {
    for (const item of page.data as Array<Record<string, unknown>>)
      items.push({
        event: typeof item.event === 'string' ? item.event : undefined,
        created_at:
          typeof item.created_at === 'string' ? item.created_at : undefined
      })
    if (++pages >= MAX_TIMELINE_PAGES) break
  }
  return items
}
