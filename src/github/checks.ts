// Check runs (the Checks API): where teams gate merges on the review's
// verdict. The token needs `checks: write`; a refusal is a CheckRunRefused,
// which the caller turns into one warning.
import type { Octokit } from './client.js'
import { statusOf, toGitHubError, WriteRefused } from './errors.js'

/** GitHub takes at most 50 annotations in one create or update request. */
export const ANNOTATIONS_PER_REQUEST = 50

export type CheckConclusion =
  'success' | 'neutral' | 'failure' | 'timed_out' | 'cancelled'

export interface CheckAnnotation {
  path: string
  start_line: number
  end_line: number
  annotation_level: 'notice' | 'warning' | 'failure'
  message: string
  title?: string
  raw_details?: string
}

interface CheckOutput {
  title: string
  summary: string
  annotations?: CheckAnnotation[]
}

/** One request's body: the final one carries the conclusion. */
export interface CheckRunWrite {
  status: 'in_progress' | 'completed'
  conclusion?: CheckConclusion
  completedAt?: string
  detailsUrl?: string
  output: CheckOutput
}

export interface CheckRunRef {
  id: number
  url: string
}

/** The token may not write check runs (403, or 404 without the permission). */
export class CheckRunRefused extends WriteRefused {
  constructor(detail: string) {
    super(detail, 'CheckRunRefused')
  }
}

interface ChecksTarget {
  octokit: Octokit
  owner: string
  repo: string
}

/** Pages of 100 read at most when looking for the run: one name per commit. */
const MAX_PAGES = 5
/** Pages of 100 annotations read at most from an earlier run. */
const MAX_ANNOTATION_PAGES = 20

/** What makes two annotations the same one, for a re-run on the same commit. */
export function annotationKey(a: {
  path: string
  start_line: number
  end_line: number
  annotation_level?: string | null
  title?: string | null
  message?: string | null
}): string {
  return JSON.stringify([
    a.path,
    a.start_line,
    a.end_line,
    a.annotation_level ?? '',
    a.title ?? '',
    a.message ?? ''
  ])
}

function body(write: CheckRunWrite) {
  return {
    status: write.status,
    ...(write.conclusion ? { conclusion: write.conclusion } : {}),
    ...(write.completedAt ? { completed_at: write.completedAt } : {}),
    ...(write.detailsUrl ? { details_url: write.detailsUrl } : {}),
    output: write.output
  }
}

function refusedOrError(e: unknown, what: string): Error {
  const status = statusOf(e)
  if (status === 403 || status === 404)
    return new CheckRunRefused(toGitHubError(e, what).message)
  return toGitHubError(e, what)
}

export function createChecks(t: ChecksTarget) {
  const repo = { owner: t.owner, repo: t.repo }
  return {
    /**
     * The newest run of this name on the commit that the action made: its
     * external_id names the action and tag, so a workflow job of the same
     * name (GitHub's own check run for the job) is never taken.
     */
    async find(
      headSha: string,
      name: string,
      externalId: string
    ): Promise<CheckRunRef | undefined> {
      let pages = 0
      try {
        for await (const page of t.octokit.paginate.iterator(
          t.octokit.rest.checks.listForRef,
          { ...repo, ref: headSha, check_name: name, per_page: 100 }
        )) {
          const runs = page.data as unknown as Array<{
            id: number
            html_url: string | null
            name: string
            external_id: string | null
            head_sha: string
          }>
          const ours = runs.find(
            (r) =>
              r.name === name &&
              r.external_id === externalId &&
              r.head_sha === headSha
          )
          if (ours) return { id: ours.id, url: ours.html_url ?? '' }
          if (++pages >= MAX_PAGES) break
        }
        return undefined
      } catch (e) {
        throw refusedOrError(e, `Listing the check runs of ${headSha}`)
      }
    },

    async create(
      headSha: string,
      name: string,
      externalId: string,
      write: CheckRunWrite
    ): Promise<CheckRunRef> {
      try {
        const { data } = await t.octokit.rest.checks.create({
          ...repo,
          name,
          head_sha: headSha,
          external_id: externalId,
          ...body(write)
        })
        return { id: data.id, url: data.html_url ?? '' }
      } catch (e) {
        throw refusedOrError(e, `Creating the check run '${name}'`)
      }
    },

    /** The keys (annotationKey) of a run's annotations, read up to the page cap. */
    async annotationKeys(id: number): Promise<Set<string>> {
      const keys = new Set<string>()
      let pages = 0
      try {
        for await (const page of t.octokit.paginate.iterator(
          t.octokit.rest.checks.listAnnotations,
          { ...repo, check_run_id: id, per_page: 100 }
        )) {
          for (const a of page.data) keys.add(annotationKey(a))
          if (++pages >= MAX_ANNOTATION_PAGES) break
        }
        return keys
      } catch (e) {
        throw refusedOrError(e, `Listing the annotations of check run ${id}`)
      }
    },

    /** Annotations given are added to the run's earlier ones. */
    async update(id: number, write: CheckRunWrite): Promise<CheckRunRef> {
      try {
        const { data } = await t.octokit.rest.checks.update({
          ...repo,
          check_run_id: id,
          ...body(write)
        })
        return { id: data.id, url: data.html_url ?? '' }
      } catch (e) {
        throw refusedOrError(e, `Updating check run ${id}`)
      }
    }
  }
}
