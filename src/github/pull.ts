// A pull request as the prompt needs it: title, body, refs, changed files
// and the diff, cut to a size the agents can read.
import type { Octokit } from './client.js'
import { apiMessage, statusOf, toGitHubError } from './errors.js'
import { fitDiff, parseDiff, type CutFile } from '../core/unified-diff.js'
import { rebuildDiff, type RebuiltDiff } from './rebuilt-diff.js'
import type { Log } from '../core/log.js'

export interface ChangedFile {
  filename: string
  status: string
  additions: number
  deletions: number
  /** The old name of a renamed file. */
  previousFilename?: string
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
  /** Unified diff, whole files fitted into at most maxDiffBytes (cutDiff). */
  diff: string
  /** The diff was cut, or GitHub refused to produce it (too large). */
  diffTruncated: boolean
  /** Files whose diff the cut left out, whole (cutDiff). */
  diffCut?: CutFile[]
  /** GitHub refused the diff (406): it was rebuilt from the files list. */
  diffRebuilt?: boolean
  /** Changed files GitHub gave no patch for (rebuilt diffs), and why. */
  withoutPatch?: RebuiltDiff['withoutPatch']
  /**
   * How many files GitHub says the pull request changes (`changed_files`):
   * more than `files` when the files list stopped at its 3,000.
   */
  changedFiles?: number
}

/** GitHub's files list names at most this many files of a pull request. */
export const FILES_LIST_MAX = 3000

/** Some changed files are not named: the files list stopped at its cap. */
export function filesIncomplete(
  pr: Pick<PullRequestContext, 'files' | 'changedFiles'>
): boolean {
  return (pr.changedFiles ?? 0) > pr.files.length
}

/**
 * A diff fitted into maxBytes of UTF-8 by whole files (core/unified-diff.ts
 * fitDiff): a file too large is left out and named in `cut`, never a cut
 * inside a file or before the files after it.
 */
export function cutDiff(
  diff: string,
  maxBytes: number
): { diff: string; truncated: boolean; cut: CutFile[] } {
  if (Buffer.byteLength(diff, 'utf8') <= maxBytes)
    return { diff, truncated: false, cut: [] }
  const fitted = fitDiff(parseDiff(diff), maxBytes)
  return { diff: fitted.diff, truncated: true, cut: fitted.cut }
}

interface PullRequestTarget {
  octokit: Octokit
  owner: string
  repo: string
  log: Log
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
      readFilesList(octokit, params),
      octokit.rest.pulls.get({ ...params, mediaType: { format: 'diff' } }).then(
        (r) => r.data as unknown as string,
        (e: unknown) => {
          // 406 too_large: GitHub renders no diff over 300 files or 20,000
          // lines, and points at the files list, which carries the hunks.
          if (statusOf(e) !== 406) throw e
          log.warning(
            `${what}: ${apiMessage(e)}; the diff is rebuilt from the files list's patches`
          )
          return undefined
        }
      )
    ])
    const rebuilt = raw === undefined ? rebuildDiff(files) : undefined
    const cut = cutDiff(raw ?? rebuilt?.diff ?? '', maxDiffBytes)
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
        deletions: f.deletions,
        ...(f.previousFilename ? { previousFilename: f.previousFilename } : {})
      })),
      diff: cut.diff,
      diffTruncated: cut.truncated,
      diffCut: cut.cut,
      diffRebuilt: rebuilt !== undefined,
      withoutPatch: rebuilt?.withoutPatch ?? [],
      // Never fewer than listed: a count GitHub lacks cannot hide files.
      changedFiles: Math.max(pr.data.changed_files ?? 0, files.length)
    }
  } catch (e) {
    throw toGitHubError(e, what)
  }
}

interface ListedFile {
  filename: string
  status: string
  additions: number
  deletions: number
  changes: number
  previousFilename?: string
  patch?: string
}

/** The files list, every page (GitHub stops at FILES_LIST_MAX files). */
async function readFilesList(
  octokit: Octokit,
  params: { owner: string; repo: string; pull_number: number }
): Promise<ListedFile[]> {
  const listed: ListedFile[] = []
  for await (const page of octokit.paginate.iterator(
    octokit.rest.pulls.listFiles,
    { ...params, per_page: 100 }
  )) {
    for (const f of page.data)
      listed.push({
        filename: f.filename,
        status: f.status,
        additions: f.additions,
        deletions: f.deletions,
        changes: f.changes,
        ...(f.previous_filename
          ? { previousFilename: f.previous_filename }
          : {}),
        ...(typeof f.patch === 'string' ? { patch: f.patch } : {})
      })
    // A server that pages on past the cap is not believed further.
    if (listed.length >= FILES_LIST_MAX) break
  }
  return listed.slice(0, FILES_LIST_MAX)
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

/** A pull request's base: the branch it would merge into and its commit. */
export interface PullBase {
  sha: string
  ref: string
}

/** The base branch and commit of a pull request. */
export async function readPullBase(
  target: { octokit: Octokit; owner: string; repo: string },
  number: number
): Promise<PullBase> {
  const { octokit, owner, repo } = target
  try {
    const { data } = await octokit.rest.pulls.get({
      owner,
      repo,
      pull_number: number
    })
    return { sha: data.base.sha, ref: data.base.ref }
  } catch (e) {
    throw toGitHubError(e, `Reading the base of pull request #${number}`)
  }
}
