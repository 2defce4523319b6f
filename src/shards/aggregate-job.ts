// role 'aggregate': the one job of a matrix review that posts, with the
// token. It plans the pull request again itself (pull-plan.ts), so it knows
// which shards to expect; downloads each shard's record through the artifact
// service and checks it as hostile input (download.ts, record.ts); merges the
// findings with the very grouping one run uses (review/post.ts runReview:
// group.ts, counted.ts) and posts one sticky report, one review and one
// check run. A shard that is missing, failed or refused is said in the
// comment, the summary and the step's failure, never dropped silently.
import * as core from '@actions/core'
import * as path from 'node:path'
import { Inputs, Outputs } from '../core/constants.js'
import type { RunResult } from '../core/types.js'
import { runUrl } from '../github/run-url.js'
import { cutDiff } from '../github/pull.js'
import { pullFactsOf } from '../context/pull-facts.js'
import { runReview } from '../review/post.js'
import { gateFailure, setReviewOutputs } from '../review/review.js'
import { publishVerdict } from '../review/publish.js'
import type { ReviewReport } from '../core/review.js'
import {
  postComment,
  reportContext,
  writeSummary,
  type Destination
} from '../report/report.js'
import {
  artifactsNamed,
  attemptName,
  attemptOf,
  fetchArtifactFile,
  latestAttempt,
  runAttempt
} from './download.js'
import { planArtifactName } from './matrix-job.js'
import { PLAN_DIFF_MAX_BYTES, readPullPlan } from './pull-plan.js'
import { checkRecord, MAX_RECORD_BYTES, RECORD_FILE } from './record.js'
import { expectedAgents } from './expected-agents.js'
import { attemptCheck } from './attempt-start.js'
import { newSideLines, type DiffLines } from '../review/excerpt.js'
import { roundsTogether, shardVotes } from './shard-votes.js'
import {
  renderAggregate,
  totalsOf,
  type ShardOutcome
} from './aggregate-report.js'
import type { TokenRoleJob } from './role-job.js'

export async function aggregateJob(job: TokenRoleJob): Promise<void> {
  const { settings, inputs } = job
  if (!job.pullNumber)
    throw new Error(
      `Role 'aggregate' reports on a pull request: run it on pull_request events, or set '${Inputs.IssueNumber}'.`
    )
  // Before any GitHub call: a config file here is a setup mistake.
  const agents = expectedAgents(settings)
  const github = job.github()
  const secrets = [settings.githubToken].filter(Boolean)
  const { pull, plan } = await readPullPlan(
    github,
    job.pullNumber,
    inputs,
    settings
  )
  // What one run says of the pull request as a whole, said here too.
  const facts = pullFactsOf(pull, settings)
  if (facts.steering.state !== 'none')
    core.warning(
      `Pull request #${pull.number}: ` +
        (facts.steering.state === 'unknown'
          ? `GitHub named ${facts.listedFiles} of its ${facts.changedFiles} changed files, so steering files (workflows, actions, instructions) cannot be ruled out.`
          : `it changes ${facts.steering.files.length} file(s) that steer CI or reviews once merged.`)
    )
  const door = await job.artifacts()
  const found = await artifactsNamed(door, inputs.resultsPrefix)
  const pullFiles = new Set(pull.files.map((f) => f.filename))
  const attempt = runAttempt(process.env)
  const ofItsAttempt = attemptCheck(github, process.env)
  const taken: ShardOutcome[] = []
  for (const entry of plan.shards) {
    const base = `${inputs.resultsPrefix}${entry.id}`
    const named = latestAttempt(found, base, attempt)
    const name = named[0]?.name ?? attemptName(base, attempt)
    if (named.length > 1) {
      core.warning(
        `Shard '${entry.id}': ${named.length} artifacts are named '${name}'; none is taken.`
      )
      taken.push({
        entry,
        state: 'refused',
        reason: `${named.length} artifacts are named '${name}': a job uploaded under this shard's name, so none of them is taken.`
      })
      continue
    }
    const artifact = named[0]
    if (!artifact) {
      taken.push({
        entry,
        state: 'missing',
        reason: `No artifact '${name}': the shard job failed before its upload, was cancelled or did not run.`
      })
      continue
    }
    const misdated = await ofItsAttempt({
      ...artifact,
      attempt: attemptOf(artifact.name, base) ?? 1
    })
    if (misdated) {
      core.warning(`Shard '${entry.id}': its artifact was refused: ${misdated}`)
      taken.push({
        entry,
        state: 'refused',
        reason: `Its artifact was refused: ${misdated}.`
      })
      continue
    }
    const fetched = await fetchArtifactFile(
      door,
      artifact,
      path.join(job.workDir, `shard-${entry.id}`),
      RECORD_FILE,
      MAX_RECORD_BYTES
    )
    const checked = fetched.ok
      ? checkRecord(fetched.text, {
          entry,
          headSha: pull.headSha,
          pullFiles,
          agents
        })
      : { ok: false as const, reason: fetched.reason }
    if (!checked.ok) {
      core.warning(
        `Shard '${entry.id}': its artifact was refused: ${checked.reason}`
      )
      taken.push({
        entry,
        state: 'refused',
        reason: `Its artifact was refused: ${checked.reason}.`
      })
    } else
      taken.push({
        entry,
        state: checked.accepted.record.status === 'success' ? 'ok' : 'failed',
        accepted: checked.accepted
      })
  }
  const diff = cutDiff(pull.diff, PLAN_DIFF_MAX_BYTES)
  const prTexts = [pull.title, pull.body].filter(Boolean)
  // Each shard's vote, tallied here from its ballots (shard-votes.ts); the
  // diff's lines are read once for all of them, and only if one voted.
  const voted = taken.some(
    (o) => o.state === 'ok' && o.accepted.record.vote?.ran === true
  )
  const diffLines: DiffLines = newSideLines(voted ? diff.diff : '')
  const outcomes = taken.map((o): ShardOutcome =>
    o.state === 'ok'
      ? { ...o, votes: shardVotes(o.accepted, diffLines, prTexts) }
      : o
  )
  const bases = [
    ...plan.shards.map((s) => `${inputs.resultsPrefix}${s.id}`),
    planArtifactName(settings.commentTag)
  ]
  const unplanned = found
    .map((a) => a.name)
    .filter((n) => bases.every((b) => attemptOf(n, b) === undefined))
  // An artifact's name does not prove which job uploaded it: a shard job
  // that did not succeed may have lost its upload to one forged under its
  // name by another shard, so the records alone give no verdict then.
  const jobsFailed = plan.shards.length > 0 && inputs.shardsResult !== 'success'
  const ok = outcomes.flatMap((o) => (o.state === 'ok' ? [o] : []))
  const reviewed = ok.map((o) => o.accepted)
  const tallied = ok.flatMap((o) => (o.votes ? [o.votes] : []))
  const vote = roundsTogether(
    ok.map((o) => ({
      id: o.entry.id,
      round: o.accepted.record.vote,
      votes: o.votes
    }))
  )
  const url = runUrl(process.env)
  const review: ReviewReport | undefined =
    reviewed.length > 0
      ? await runReview(
          {
            pullNumber: pull.number,
            headSha: pull.headSha,
            diff: diff.diff,
            diffTruncated: pull.diffTruncated || diff.truncated,
            changedFiles: [...new Set(reviewed.flatMap((r) => r.entry.files))],
            answers: reviewed.flatMap((r) => r.answers),
            winner: undefined,
            tag: settings.commentTag,
            minAgreement: settings.minAgreement,
            minSeverity: settings.minSeverity,
            maxInlineComments: settings.maxInlineComments,
            ...(vote ? { vote } : {}),
            roundVotes: {
              votes: tallied.flatMap((t) => t.votes),
              ballots: tallied.flatMap((t) => t.ballots)
            },
            checkout: undefined,
            prTexts,
            secrets,
            runUrl: url
          },
          github,
          core
        )
      : undefined
  const dest: Destination = {
    github,
    issueNumber: pull.number,
    settings,
    runUrl: url,
    secrets
  }
  const render = (target: 'comment' | 'summary') =>
    renderAggregate({
      pullNumber: pull.number,
      headSha: pull.headSha,
      outcomes,
      unplanned,
      facts,
      jobsFailed: jobsFailed ? jobsFailedReason(inputs.shardsResult) : '',
      review,
      tag: settings.commentTag,
      secrets,
      runUrl: url,
      maxCost: settings.maxCost,
      maxChars: reportContext(dest, target).maxChars
    })
  const commentUrl = await postComment(dest, render('comment'))
  await writeSummary(dest, render('summary'))
  const missing = outcomes.filter((o) => o.state !== 'ok')
  const totals = totalsOf(outcomes)
  const reasons = [
    missing.length
      ? `${missing.length} of ${outcomes.length} shard(s) did not report findings: ` +
        missing.map((o) => `${o.entry.id} (${o.state})`).join(', ')
      : '',
    jobsFailed ? jobsFailedReason(inputs.shardsResult) : '',
    facts.listedFiles < facts.changedFiles
      ? `GitHub named ${facts.listedFiles} of the ${facts.changedFiles} changed files, so the shards did not see the rest: no verdict on part of the pull request`
      : '',
    facts.summaryOnly
      ? `${facts.changedFiles} changed files is more than '${Inputs.MaxChangedFiles}' (${facts.summaryOnly.max}): no verdict`
      : ''
  ].filter(Boolean)
  const result: RunResult = {
    outcome: reasons.length === 0 ? 'success' : 'failed',
    ...(reasons.length ? { reason: reasons.join('; ') } : {}),
    question: '',
    pullFacts: facts,
    exitCode: null,
    agents: [],
    votes: {},
    cost: totals.cost,
    elapsedSeconds: totals.slowestSeconds,
    pullRequest: {
      number: pull.number,
      headSha: pull.headSha,
      diff: diff.diff,
      diffTruncated: diff.truncated,
      files: pull.files.map((f) => f.filename),
      ownTexts: []
    }
  }
  await setReviewOutputs(review, job.workDir, secrets)
  // A verdict on part of the pull request is no verdict: the check says which shards are missing.
  await publishVerdict(result, reasons.length ? undefined : review, {
    settings: { ...settings, review: 'inline' },
    workDir: job.workDir,
    secrets,
    runUrl: url,
    github
  })
  core.setOutput(Outputs.Status, result.outcome)
  core.setOutput(Outputs.CommentUrl, commentUrl ?? '')
  core.setOutput(Outputs.Cost, totals.cost.toFixed(4))
  core.setOutput(Outputs.DurationSeconds, String(totals.slowestSeconds))
  if (result.reason) core.setFailed(`Matrix review: ${result.reason}.`)
  const gate = gateFailure(review, settings)
  if (gate) core.setFailed(gate)
}

function jobsFailedReason(result: string | undefined): string {
  return (
    `the shard jobs' result is '${result ?? ''}', not 'success' (${Inputs.ShardsResult}): ` +
    "a record under a failed job's name may have been uploaded by another job, so there is no verdict"
  )
}
