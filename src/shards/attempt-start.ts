// Whether an artifact named for a re-run attempt was made in that attempt.
// Names prove nothing: a taken-over job of attempt 1 holds
// ACTIONS_RUNTIME_TOKEN and can upload `<shard>-a2` for a shard it is not,
// which a re-run that does not re-run that shard would take over the
// shard's real `-a1` record. What it cannot do is date its upload after
// attempt 2 started: the artifact service sets `createdAt`, GitHub the
// attempt's `run_started_at`.
import type { GitHubApi } from '../github/api.js'
import { errorText } from '../core/text.js'

type AttemptCheck = (artifact: {
  name: string
  attempt: number
  createdAt?: Date
}) => Promise<string>

/**
 * A check giving why an artifact is not of the attempt its name gives, or
 * '' when it is. Attempt 1 is the run's first: nothing came before it.
 * When GitHub cannot say when attempt N started, no artifact of attempt N
 * is taken.
 */
export function attemptCheck(
  github: Pick<GitHubApi, 'getRunAttemptStart'>,
  env: NodeJS.ProcessEnv
): AttemptCheck {
  const runId = Number(env.GITHUB_RUN_ID)
  const starts = new Map<number, Promise<Date>>()
  const startOf = (attempt: number): Promise<Date> => {
    const known = starts.get(attempt)
    if (known) return known
    const read =
      Number.isSafeInteger(runId) && runId > 0
        ? github.getRunAttemptStart(runId, attempt)
        : Promise.reject(
            new Error(
              `GITHUB_RUN_ID is '${env.GITHUB_RUN_ID ?? ''}', not a run id`
            )
          )
    starts.set(attempt, read)
    return read
  }
  return async ({ name, attempt, createdAt }) => {
    if (attempt <= 1) return ''
    let started: Date
    try {
      started = await startOf(attempt)
    } catch (error) {
      return `'${name}' is named for attempt ${attempt}, and when that attempt started could not be read (${errorText(error)}), so it cannot be told from an upload of an earlier attempt`
    }
    if (!createdAt || Number.isNaN(createdAt.getTime()))
      return `'${name}' is named for attempt ${attempt}, and the artifact service gives no time it was made`
    if (createdAt.getTime() < started.getTime())
      return `'${name}' is named for attempt ${attempt} but was made at ${createdAt.toISOString()}, before that attempt started (${started.toISOString()}): an earlier attempt's job uploaded it under this shard's name`
    return ''
  }
}
