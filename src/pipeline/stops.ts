// The ways the main step ends before MassGen runs: skipped, refused, or
// failed with the reason where the run would have reported it.
import * as core from '@actions/core'
import { saveStepState } from '../core/step-state.js'
import { errorText } from '../core/text.js'
import type { Settings } from '../core/types.js'
import { IntakeError } from '../event/intake.js'
import { ModelsError } from '../inputs/models.js'
import { InputError } from '../inputs/settings.js'
import { renderReport, renderSkipped } from '../report/render.js'
import { postReport, type Destination } from '../report/report.js'
import { redactSecrets } from '../safety/redact.js'
import { summaryOnly } from './destination.js'
import { readReportSettings } from '../inputs/settings.js'
import { actionSecrets, actionToken } from './step-env.js'
import { setStatus } from '../report/outputs.js'

/**
 * Quiet skips (a comment not meant for us) leave no trace but a log line;
 * the others are said in the job summary, and on `dest` when given.
 */
export async function skip(
  reason: string,
  quiet: boolean,
  settings: Settings,
  dest: Destination = summaryOnly(settings, [])
): Promise<void> {
  setStatus('skipped')
  saveStepState('reported', true)
  if (quiet) return core.info(`Nothing to do: ${reason}`)
  core.notice(`MassGen run skipped: ${reason}`)
  await postReport(dest, (ctx) => renderSkipped(reason, ctx))
}

/** A run the workflow's settings forbid here: said in the summary, and failed. */
export async function refuse(
  reason: string,
  settings: Settings
): Promise<void> {
  await skip(reason, false, settings)
  setStatus('config-error')
  core.setFailed(reason)
}

/** The head moved after the command: skipped, and said where it is seen. */
export async function refuseMovedHead(
  reason: string,
  settings: Settings,
  dest: Destination
): Promise<void> {
  await skip(reason, false, settings, dest)
}

/**
 * A check the run depends on could not be made (the permission API, the
 * pull request's head), or an error no stage caught: nothing more runs, and
 * the step fails so that the pull request does not silently go without its
 * review. The reason is in the summary and, where the run would have
 * reported, a comment.
 */
export async function failVisibly(
  reason: string,
  dest: Destination,
  outcome: 'failed' | 'config-error'
): Promise<void> {
  const shown = redactSecrets(reason, dest.secrets)
  setStatus(outcome)
  saveStepState('reported', true)
  await postReport(dest, (ctx) =>
    renderReport(
      {
        outcome,
        reason: shown,
        question: '',
        exitCode: null,
        agents: [],
        votes: {}
      },
      ctx
    )
  )
  core.setFailed(shown)
}

/**
 * Bad inputs or setup: the step fails with the message, and the job summary
 * says it (an annotation alone is easy to miss). `dest` posts it on the
 * pull request too, once the inputs name a token that can.
 */
export async function failBeforeRun(
  error: unknown,
  dest?: Destination
): Promise<void> {
  await failVisibly(
    failureText(error),
    dest ?? summaryByInputs(),
    'config-error'
  )
}

/**
 * Where a failure before the run's destination goes: the job summary alone,
 * as the report inputs say.
 */
export function summaryByInputs(): Destination {
  return summaryOnly(
    {
      comment: false,
      ...readReportSettings({ getInput: (name) => core.getInput(name) })
    },
    actionSecrets(actionToken())
  )
}

export function failureText(error: unknown): string {
  return error instanceof InputError ||
    error instanceof IntakeError ||
    error instanceof ModelsError
    ? error.message
    : `Unexpected error: ${errorText(error)}`
}
