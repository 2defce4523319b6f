// The pull request and its shards as the token's jobs read them: the matrix
// job (to print the matrix and hand the shards the diff) and the aggregate
// (to know which shards it asked for). Both read the same pull request
// through the GitHub door and plan it the same way.
import type { GitHubApi } from '../github/api.js'
import type { PullRequestContext } from '../github/pull.js'
import { pathFilter } from '../context/pr-filter.js'
import { onlyFiles } from '../context/review-scope.js'
import type { ShardInputs } from '../inputs/shard-inputs.js'
import { planShards, type ShardPlan } from './plan-shards.js'

/** The largest diff read; each shard's run cuts its own at pr-diff-max-bytes. */
export const PLAN_DIFF_MAX_BYTES = 20_000_000

interface PullPlan {
  pull: PullRequestContext
  plan: ShardPlan
}

/** The files a shard may be given: not removed, not left out by include/exclude. */
function reviewableFiles(
  pull: PullRequestContext,
  filters: { include: string[]; exclude: string[] }
): PullRequestContext['files'] {
  const filter = pathFilter(filters)
  return pull.files.filter(
    (f) => f.status !== 'removed' && filter.reasonFor(f.filename) === undefined
  )
}

export async function readPullPlan(
  github: GitHubApi,
  number: number,
  inputs: ShardInputs,
  filters: { include: string[]; exclude: string[] }
): Promise<PullPlan> {
  const pull = await github.getPullRequestContext(number, PLAN_DIFF_MAX_BYTES)
  const plan = planShards(
    reviewableFiles(pull, filters),
    inputs.questions,
    inputs.maxShards,
    inputs.paths
  )
  return { pull, plan }
}

/** The pull request narrowed to a shard's files: what that shard's run is given. */
export function shardSlice(
  pull: PullRequestContext,
  files: readonly string[]
): PullRequestContext {
  const own = new Set(files)
  return {
    ...pull,
    files: pull.files.filter((f) => own.has(f.filename)),
    diff: onlyFiles(pull.diff, own)
  }
}
