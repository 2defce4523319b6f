// The step's outputs (action.yml `outputs:`), set here and nowhere else:
// each stage that learns one hands it to the function that names it. Text
// an agent wrote is redacted before it becomes an output, and a file an
// output names is written with writeStepFile (the work folder is MassGen's
// cwd: an agent may have left a link at its name).
import * as core from '@actions/core'
import { Outputs } from '../core/constants.js'
import type { ReviewReport } from '../core/review.js'
import type { Outcome, RunResult } from '../core/types.js'
import { runTotals } from '../results/results.js'
import type { Published } from '../review/publish.js'
import { findingsJson } from '../review/render.js'
import { writeStepFile } from '../safety/agent-files.js'
import { redactSecrets } from '../safety/redact.js'

/** How the step ended: success, failed, skipped, config-error... */
export function setStatus(outcome: Outcome): void {
  core.setOutput(Outputs.Status, outcome)
}

/** The pull request's head the run reviews (pipeline/head.ts). */
export function setHeadSha(sha: string): void {
  core.setOutput(Outputs.HeadSha, sha)
}

/** The answers' round's config (prepare/run-config.ts). */
export function setConfigFile(file: string): void {
  core.setOutput(Outputs.ConfigFile, file)
}

/** What one run's report gives: the answer, the votes, the totals, the links. */
export async function setRunOutputs(
  result: RunResult,
  where: {
    secrets: readonly string[]
    workDir: string | undefined
    commentUrl: string | undefined
    artifactUrl: string | undefined
  }
): Promise<void> {
  const { secrets, workDir } = where
  const answer =
    result.winnerAnswer === undefined
      ? ''
      : redactSecrets(result.winnerAnswer, secrets)
  // The redacted copy: MassGen's own file may hold a key an agent printed.
  const answerFile =
    workDir && result.winnerAnswer !== undefined
      ? await writeStepFile(workDir, 'answer.md', answer, 'the answer file', {
          log: core,
          secrets
        })
      : ''
  const votes = result.agents.map((a) => ({
    agent: a.id,
    backend: a.backend,
    model: a.model,
    label: a.answerLabel ?? null,
    votes: a.votesReceived,
    voted_for: a.votedFor ?? null,
    status: a.status
  }))
  setStatus(result.outcome)
  core.setOutput(Outputs.Winner, result.winner ?? '')
  core.setOutput(Outputs.Answer, answer)
  core.setOutput(Outputs.AnswerFile, answerFile)
  core.setOutput(Outputs.Votes, JSON.stringify(votes))
  core.setOutput(
    Outputs.ExitCode,
    result.exitCode === null ? '' : String(result.exitCode)
  )
  core.setOutput(Outputs.LogDir, result.logDir ?? '')
  core.setOutput(Outputs.StatusFile, result.statusFile ?? '')
  const totals = runTotals(result)
  core.setOutput(Outputs.DurationSeconds, totals.seconds?.toFixed(1) ?? '')
  core.setOutput(
    Outputs.Cost,
    totals.cost === undefined ? '' : totals.cost.toFixed(6)
  )
  core.setOutput(Outputs.CommentUrl, where.commentUrl ?? '')
  core.setOutput(Outputs.ArtifactUrl, where.artifactUrl ?? '')
}

/** verdict, findings and findings-file; empty when there was no review. */
export async function setReviewOutputs(
  report: ReviewReport | undefined,
  workDir: string,
  secrets: readonly string[]
): Promise<void> {
  core.setOutput(Outputs.Verdict, report?.verdict ?? '')
  if (!report) {
    core.setOutput(Outputs.Findings, '')
    core.setOutput(Outputs.FindingsFile, '')
    return
  }
  const json = JSON.stringify(findingsJson(report, secrets))
  core.setOutput(Outputs.Findings, json)
  core.setOutput(
    Outputs.FindingsFile,
    await writeStepFile(workDir, 'findings.json', json, 'the findings file', {
      log: core,
      secrets
    })
  )
}

/** The SARIF file and the check run (review/publish.ts), or ''. */
export function setVerdictOutputs(published: Published): void {
  core.setOutput(Outputs.SarifFile, published.sarifFile)
  core.setOutput(Outputs.CheckRunUrl, published.checkRunUrl ?? '')
}

/** Role 'matrix': the shard jobs' matrix. */
export function setMatrix(matrix: unknown): void {
  core.setOutput(Outputs.Matrix, JSON.stringify(matrix))
  setStatus('success')
}

/** Role 'shard': the record kept on the runner, and how its run ended. */
export function setShardOutputs(file: string, outcome: Outcome): void {
  core.setOutput(Outputs.ShardFile, file)
  setStatus(outcome)
}

/** Role 'aggregate': the shards' verdict, the comment, their totals. */
export function setAggregateOutputs(of: {
  outcome: Outcome
  commentUrl: string | undefined
  cost: number
  slowestSeconds: number
}): void {
  setStatus(of.outcome)
  core.setOutput(Outputs.CommentUrl, of.commentUrl ?? '')
  core.setOutput(Outputs.Cost, of.cost.toFixed(4))
  core.setOutput(Outputs.DurationSeconds, String(of.slowestSeconds))
}
