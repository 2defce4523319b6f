// When one attempt of a workflow run started (GET /repos/{owner}/{repo}/
// actions/runs/{run_id}/attempts/{attempt_number}, its `run_started_at`):
// what a matrix review's aggregate dates a re-run's artifacts against.
import type { Octokit } from './client.js'
import { toGitHubError } from './errors.js'

export async function readRunAttemptStart(
  { octokit, owner, repo }: { octokit: Octokit; owner: string; repo: string },
  runId: number,
  attempt: number
): Promise<Date> {
  const what = `Reading when attempt ${attempt} of run ${runId} started`
  let started: unknown
  try {
    const { data } = await octokit.rest.actions.getWorkflowRunAttempt({
      owner,
      repo,
      run_id: runId,
      attempt_number: attempt
    })
    started = data.run_started_at
  } catch (e) {
    throw toGitHubError(e, what)
  }
  const at = typeof started === 'string' ? new Date(started) : undefined
  if (!at || Number.isNaN(at.getTime()))
    throw new Error(`${what}: GitHub gave no run_started_at`)
  return at
}
