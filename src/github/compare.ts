// Two commits compared (GET /repos/{owner}/{repo}/compare/{base}...{head}):
// whether the head still contains the base, the change between them, and
// the paths it renamed or removed.
import { parseDiff } from '../core/unified-diff.js'
import type { Octokit } from './client.js'
import { statusOf, toGitHubError } from './errors.js'

/** A path the change renamed: its old and new name, and the old lines it changed. */
export interface RenamedPath {
  from: string
  to: string
  /**
   * Lines of the old file the rename removed or rewrote (its patch's `-`
   * lines); none for a rename that changed no line, and none when GitHub
   * gave no patch (not known to change: review/earlier.ts lets it stand).
   */
  changedLines: number[]
}

/** The paths a change touched (GitHub's files list of the comparison). */
export interface PathMoves {
  renamed: RenamedPath[]
  removed: string[]
  /** Every other path it names: at the head under that name. */
  kept: string[]
}

export type Comparison =
  /**
   * The head contains the base: `diff` is the change since it; `moves` its
   * renames and removals, absent when GitHub's files list may be cut short.
   */
  | { status: 'ahead'; diff: string; aheadBy: number; moves?: PathMoves }
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
/** GitHub's comparison names at most this many files, and says nothing of the rest. */
export const COMPARE_FILES_MAX = 300

interface ListedChange {
  filename?: unknown
  status?: unknown
  previous_filename?: unknown
  patch?: unknown
}

/**
 * Old-side numbers of a patch's removed lines, read by the one diff reader
 * (GitHub gives a file's patch from its first hunk header on: the file's
 * header is put back for it).
 */
export function removedLines(patch: string): number[] {
  const [file] = parseDiff(
    `diff --git a/f b/f\n--- a/f\n+++ b/f\n${patch}\n`
  ).files
  return (file?.hunks ?? []).flatMap((h) =>
    h.lines.flatMap((l) => (l.kind === '-' && l.old ? [l.old] : []))
  )
}

/**
 * The renames and removals among a comparison's files; undefined when the
 * list is missing or at GitHub's cap (a rename past it would go unseen).
 */
export function pathMoves(files: unknown): PathMoves | undefined {
  if (!Array.isArray(files) || files.length >= COMPARE_FILES_MAX)
    return undefined
  const moves: PathMoves = { renamed: [], removed: [], kept: [] }
  for (const f of files as ListedChange[]) {
    if (typeof f?.filename !== 'string') return undefined
    if (f.status === 'removed') moves.removed.push(f.filename)
    else if (f.status === 'renamed') {
      if (typeof f.previous_filename !== 'string') return undefined
      moves.renamed.push({
        from: f.previous_filename,
        to: f.filename,
        changedLines: typeof f.patch === 'string' ? removedLines(f.patch) : []
      })
    } else moves.kept.push(f.filename)
  }
  return moves
}

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
    const moves = pathMoves(data.files)
    return {
      status: 'ahead',
      diff: typeof diff === 'string' ? diff : '',
      aheadBy,
      ...(moves ? { moves } : {})
    }
  } catch (e) {
    const s = statusOf(e)
    // 404: a commit GitHub does not know (any more); 406: a diff too large.
    if (s === 404 || s === 406 || s === 422)
      return { status: 'unknown', why: `GitHub answered ${s}` }
    throw toGitHubError(e, what)
  }
}
