// After the run: the logs artifact, the review, the report and the outputs,
// then no key left on disk.
import * as core from '@actions/core'
import * as path from 'node:path'
import type { ReviewReport } from '../core/review.js'
import type { RunResult, Settings } from '../core/types.js'
import type { GitHubApi } from '../github/api.js'
import { uploadLogs } from '../report/artifact.js'
import { deliverReport, type Destination } from '../report/report.js'
import { publishVerdict } from '../review/publish.js'
import { reviewRun } from '../review/review.js'
import { setReviewOutputs, setVerdictOutputs } from '../report/outputs.js'
import { redactSecrets } from '../safety/redact.js'
import { defaultModels } from '../inputs/models.js'
import {
  SCRUB_LIMITS,
  scrubSecrets,
  type ScrubResult
} from '../safety/scrub.js'

/** The artifact client retries for ~30 s on errors and minutes on a stall. */
const ARTIFACT_UPLOAD_LIMIT_SECONDS = 60

interface FinishedRun {
  readonly settings: Settings
  readonly dest: Destination
  readonly workDir: string
  readonly github: () => GitHubApi
}

/** Everything the run reports, in order; returns the review, for the gate. */
export async function finish(
  result: RunResult,
  run: FinishedRun
): Promise<ReviewReport | undefined> {
  const { settings, workDir } = run
  const secrets = run.dest.secrets
  const artifactUrl =
    result.logDir && settings.uploadLogs
      ? await attachLogs(result.logDir, result, settings, run.dest)
      : undefined
  const dest: Destination = artifactUrl
    ? { ...run.dest, artifactUrl }
    : run.dest
  const github = settings.githubToken ? run.github() : undefined
  // Before the report, so the sticky comment can link the review.
  const review = await reviewRun(
    result,
    settings,
    github,
    secrets,
    dest.runUrl
  ).catch((error: unknown) => {
    core.warning(
      `The review step failed: ${redactSecrets(String(error), secrets)}`
    )
    return undefined
  })
  await deliverReport(
    withReportTime(result),
    dest,
    workDir,
    review,
    modelsFromKeys(settings)
  )
  await setReviewOutputs(review, workDir, secrets)
  const published = await publishVerdict(result, review, {
    settings,
    workDir,
    secrets,
    runUrl: dest.runUrl,
    github
  })
  setVerdictOutputs(published)
  reportScrub(await scrubSecrets(workDir, secrets))
  return review
}

/**
 * The providers whose default model ran because their key was given, when
 * neither `models` nor the config named the agents: a key added to the
 * repository for another tool adds an agent, and the report says so.
 */
function modelsFromKeys(settings: Settings): string[] | undefined {
  if (settings.models.length > 0) return undefined
  if (settings.userConfig && 'agents' in settings.userConfig.config)
    return undefined
  return defaultModels(settings.keys).map((m) => m.backend)
}

/** The report's share of the time: MassGen's exit to now (report/timings.ts). */
function withReportTime(result: RunResult): RunResult {
  const ended = result.timings?.massgenEndedAt
  if (ended === undefined) return result
  const report = Math.round(performance.now() - ended) / 1000
  return { ...result, timings: { ...result.timings, report } }
}

/** What the end-of-run scrub did that a reader should know. */
function reportScrub(scrub: ScrubResult): void {
  if (scrub.scrubbed.length > 0)
    core.warning(
      `${scrub.scrubbed.length} file(s) of the run held an API key (an agent printed it); ` +
        'they were redacted on disk, and every posted text was redacted too.'
    )
  if (scrub.removed.length > 0)
    core.warning(
      `${scrub.removed.length} file(s) of the run were over ${SCRUB_LIMITS.fileBytes} bytes, too ` +
        'large to check for keys, and were removed.'
    )
  if (scrub.stopped)
    core.warning(
      `The key scrub of the run's folder stopped at its ${scrub.stopped === 'time' ? `${SCRUB_LIMITS.seconds}-second` : `${SCRUB_LIMITS.totalBytes}-byte`} ` +
        `limit after ${scrub.scanned} file(s); files after that were not checked (RUNNER_TEMP is removed when the job ends).`
    )
}

/**
 * Uploads MassGen's logs before the report, so both the summary and the
 * comment can link them; bounded, so a stalled artifact service cannot hold
 * the report back.
 */
async function attachLogs(
  logDir: string,
  result: RunResult,
  settings: Settings,
  dest: Destination
): Promise<string | undefined> {
  const logs = await withinSeconds(
    ARTIFACT_UPLOAD_LIMIT_SECONDS,
    uploadLogs(logDir, {
      // Unique per job and re-run: matrix jobs may share a comment tag.
      name: `massgen-logs-${settings.commentTag}-${path.basename(logDir)}`,
      log: core,
      secrets: dest.secrets,
      winningAnswer: result.winnerAnswer,
      scope: settings.uploadLogsScope
    })
  )
  if (logs !== 'late') return logs?.url
  core.warning(
    `The logs artifact upload did not finish within ${ARTIFACT_UPLOAD_LIMIT_SECONDS} s; ` +
      'the report goes out without its link.'
  )
  return undefined
}

function withinSeconds<T>(
  seconds: number,
  work: Promise<T>
): Promise<T | 'late'> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), seconds * 1000)
  })
  return Promise.race([work, late]).finally(() => clearTimeout(timer))
}
