// After the review: the verdict as a check run on the head commit (where
// teams gate merges) and the counted findings as a SARIF file (code
// scanning). Neither can stop the run: a refusal is one warning that says
// what to change, and the report, the outputs and the gate go on.
import * as core from '@actions/core'
import type { GitHubApi } from '../github/api.js'
import { annotationKey, CheckRunRefused } from '../github/checks.js'
import { Inputs } from '../core/constants.js'
import type { RunResult, Settings } from '../core/types.js'
import { writeStepFile } from '../safety/agent-files.js'
import { redactSecrets } from '../safety/redact.js'
import { clip, errorText } from '../core/text.js'
import {
  annotationsOf,
  boundedSummary,
  checkRunExternalId,
  checkRunName,
  checkRunWrites,
  checkTitle,
  outcomeConclusion,
  verdictConclusion
} from './check-run.js'
import { findingsSection } from './render.js'
import { reviewSarif } from './sarif.js'
import type { ReviewReport } from '../core/review.js'
import type { StageLog } from '../core/log.js'

type CheckWriter = Pick<
  GitHubApi,
  | 'findCheckRun'
  | 'createCheckRun'
  | 'updateCheckRun'
  | 'checkRunAnnotationKeys'
>

export const CHECKS_HINT =
  " The token needs `checks: write` in the workflow's `permissions:` " +
  `(or set '${Inputs.CheckRun}' to 'false').`

interface CheckInput {
  tag: string
  headSha: string
  report: ReviewReport | undefined
  result: Pick<RunResult, 'outcome' | 'reason'>
  settings: Pick<Settings, 'failOn' | 'failOnUnclear'>
  secrets: readonly string[]
  runUrl: string | undefined
}

function content(input: CheckInput) {
  const { report, secrets } = input
  if (report) {
    const ctx = {
      tag: input.tag,
      agentCount: report.agentCount,
      secrets,
      runUrl: input.runUrl
    }
    return {
      title: checkTitle(report),
      summary: boundedSummary(findingsSection(report, ctx)),
      conclusion: verdictConclusion(report.verdict, input.settings),
      annotations: annotationsOf(report, secrets)
    }
  }
  if (input.result.outcome === 'success')
    return {
      title: 'No verdict: the review step failed',
      summary:
        'The run succeeded, but its findings could not be reviewed (see the log).',
      conclusion: 'failure' as const,
      annotations: []
    }
  const why = input.result.reason
    ? `: ${clip(redactSecrets(input.result.reason, secrets), 2000)}`
    : ''
  return {
    title: `No verdict: the run ended '${input.result.outcome}'`,
    summary: boundedSummary(
      `The MassGen run ended '${input.result.outcome}'${why}\n\nNo review, so no verdict.`
    ),
    conclusion: outcomeConclusion(input.result.outcome),
    annotations: []
  }
}

/** Creates the run, or updates the action's earlier one on the same commit. */
export async function writeCheckRun(
  input: CheckInput,
  github: CheckWriter,
  log: StageLog,
  now: () => string = () => new Date().toISOString()
): Promise<string | undefined> {
  const name = checkRunName(input.tag)
  const externalId = checkRunExternalId(input.tag)
  const wanted = content(input)
  try {
    const existing = await github.findCheckRun(input.headSha, name, externalId)
    // GitHub adds each update's annotations to the run's and never removes
    // one: a re-run on the same commit sends only those it does not have.
    const had = existing
      ? await github.checkRunAnnotationKeys(existing.id)
      : new Set<string>()
    const writes = checkRunWrites(
      {
        ...wanted,
        annotations: wanted.annotations.filter(
          (a) => !had.has(annotationKey(a))
        ),
        detailsUrl: input.runUrl
      },
      now()
    )
    const [first, ...rest] = writes
    if (!first) return undefined
    const run = existing
      ? await github.updateCheckRun(existing.id, first)
      : await github.createCheckRun(input.headSha, name, externalId, first)
    for (const write of rest) await github.updateCheckRun(run.id, write)
    log.info(
      `Check run '${name}' ${existing ? 'updated' : 'created'}: ${run.url}`
    )
    return run.url
  } catch (error) {
    const message = redactSecrets(errorText(error), input.secrets)
    log.warning(
      `Could not write the check run '${name}': ${message}.` +
        (error instanceof CheckRunRefused ? CHECKS_HINT : '')
    )
    return undefined
  }
}

/** The SARIF file in the run's work folder (under RUNNER_TEMP); '' when none. */
async function writeSarif(
  report: ReviewReport,
  result: RunResult,
  settings: Settings,
  workDir: string,
  secrets: readonly string[]
): Promise<string> {
  const { log, left } = reviewSarif(report, {
    massgenVersion: settings.massgenVersion,
    agents: result.agents.map((a) => ({
      id: a.id,
      backend: a.backend,
      model: a.model
    })),
    secrets
  })
  if (left > 0)
    core.warning(
      `${left} finding(s) were left out of the SARIF file (a path that is not repository-relative, or over the cap).`
    )
  return writeStepFile(
    workDir,
    'findings.sarif',
    JSON.stringify(log),
    'the SARIF file',
    { log: core, secrets }
  )
}

/** What publishVerdict wrote, for the outputs (report/outputs.ts): '' or undefined when nothing. */
export interface Published {
  readonly sarifFile: string
  readonly checkRunUrl: string | undefined
}

/** Check run and SARIF; only with review inline on a pull request. */
export async function publishVerdict(
  result: RunResult,
  /** The review as posted (review/review.ts), when there was one. */
  report: ReviewReport | undefined,
  run: {
    settings: Settings
    workDir: string
    secrets: readonly string[]
    runUrl: string | undefined
    github: CheckWriter | undefined
  }
): Promise<Published> {
  const { settings, secrets } = run
  const sarifFile = report
    ? await writeSarif(report, result, settings, run.workDir, secrets)
    : ''
  let url: string | undefined
  const pr = result.pullRequest
  if (settings.review === 'inline' && settings.checkRun && pr) {
    if (run.github)
      url = await writeCheckRun(
        {
          tag: settings.commentTag,
          headSha: pr.headSha,
          report,
          result,
          settings,
          secrets,
          runUrl: run.runUrl
        },
        run.github,
        core
      )
    else
      core.warning(
        `No check run was written: input '${Inputs.GithubToken}' is empty.`
      )
  }
  return { sarifFile, checkRunUrl: url }
}
