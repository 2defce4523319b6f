// An error no stage caught still ends in a report: the step fails with it,
// the job summary says so and, once the run has a destination (a pull
// request or an issue to comment on), the comment says so too.
import { errorText } from '../core/text.js'
import type { RunResult } from '../core/types.js'
import { ModelsError } from '../inputs/models.js'
import type { Destination } from '../report/report.js'
import { ContextPathError } from '../safety/context-path.js'
import { failVisibly, summaryByInputs } from './stops.js'

/**
 * `dest` is the run's destination once the main step built it; before
 * that (index.ts) the summary alone, as the inputs say, by the same rules.
 */
export async function failUnexpectedly(
  error: unknown,
  dest?: Destination
): Promise<void> {
  await failVisibly(
    `Unexpected error: ${errorText(error)}`,
    dest ?? summaryByInputs(),
    'failed'
  )
}

/** The result of a run that a stage stopped before MassGen's result was read. */
export function failedBefore(
  question: string,
  error: unknown,
  started: number
): RunResult {
  // Said once, by the step's failure (finish): a second annotation would repeat it.
  const message = errorText(error)
  return {
    outcome:
      error instanceof ModelsError || error instanceof ContextPathError
        ? 'config-error'
        : 'failed',
    reason: message,
    question,
    exitCode: null,
    agents: [],
    votes: {},
    elapsedSeconds: Math.round((Date.now() - started) / 100) / 10
  }
}
