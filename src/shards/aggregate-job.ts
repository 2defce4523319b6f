// role 'aggregate', the variant's stages the pipeline calls
// (pipeline/roles.ts): the one job of a matrix review that posts, with the
// token. It plans the pull request again itself (pull-plan.ts), so it knows
// which shards to expect; downloads each shard's record through the artifact
// service and checks it as hostile input (download.ts, record.ts); merges the
// findings with the very grouping one run uses (review/post.ts runReview:
// group.ts, counted.ts) and posts one sticky report, one review and one
// check run. A shard that is missing, failed or refused is said in the
// comment, the summary and the step's failure, never dropped silently.
import * as core from '@actions/core'
import * as path from 'node:path'
import { Inputs } from '../core/constants.js'
import type { PullFacts, RunResult } from '../core/types.js'
import type { GitHubApi } from '../github/api.js'
import type { PullRequestContext } from '../github/pull.js'
import type { ShardEntry } from '../inputs/shard-inputs.js'
import { runUrl } from '../github/run-url.js'
import { cutDiff } from '../github/pull.js'
import { pullFactsOf } from '../context/pull-facts.js'
import { coverageOf, filterContext, pathFilter } from '../context/pr-filter.js'
import type { GitAttributes } from '../context/gitattributes.js'
import { baseAttributes } from '../context/run-context.js'
import { runReview } from '../review/post.js'
import { publishVerdict } from '../review/publish.js'
import type { ReviewReport } from '../core/review.js'
import { postReport, type Destination } from '../report/report.js'
import {
  setAggregateOutputs,
  setReviewOutputs,
  setVerdictOutputs
} from '../report/outputs.js'
import {
  artifactsNamed,
  attemptName,
  attemptOf,
  fetchArtifactFile,
  latestAttempt,
  runAttempt,
  type ArtifactDoor,
  type ListedArtifact
} from './download.js'
import { planArtifactName } from './matrix-job.js'
import { PLAN_DIFF_MAX_BYTES, readPullPlan, shardSlice } from './pull-plan.js'
import { checkRecord, MAX_RECORD_BYTES, RECORD_FILE } from './record.js'
import { expectedAgents, type ExpectedAgents } from './expected-agents.js'
import { attemptCheck } from './attempt-start.js'
import { newSideLines, type DiffLines } from '../review/excerpt.js'
import {
  roundsTogether,
  shardVotes,
  votedFiles,
  votedGroups
} from './shard-votes.js'
import type { FileAtCommit } from '../github/contents.js'
import {
  renderAggregate,
  totalsOf,
  type ShardOutcome
} from './aggregate-report.js'
import type { Ending, TokenRoleJob } from './role-job.js'

/** The aggregate's plan: the pull request planned again, the agents a record may name. */
export interface AggregatePrepared {
  readonly job: TokenRoleJob
  readonly github: GitHubApi
  readonly secrets: string[]
  readonly pull: PullRequestContext
  readonly plan: Awaited<ReturnType<typeof readPullPlan>>['plan']
  readonly facts: PullFacts
  readonly agents: ExpectedAgents
}

/** What the gather stage took of the shards. */
export interface Gathered {
  readonly outcomes: ShardOutcome[]
  /** Artifacts under the shards' prefix that no planned shard names. */
  readonly unplanned: string[]
  /** Why the shard jobs' result gives no verdict ('' when it does). */
  readonly jobsFailed: string
  readonly diff: { diff: string; truncated: boolean }
  readonly prTexts: string[]
}

/** Role 'aggregate''s prepare stage: it plans the pull request again itself. */
export async function prepareAggregate(
  job: TokenRoleJob
): Promise<AggregatePrepared> {
  const { settings } = job
  if (!job.pullNumber)
    throw new Error(
      `Role 'aggregate' reports on a pull request: run it on pull_request events, or set '${Inputs.IssueNumber}'.`
    )
  // Before any GitHub call: a config file here is a setup mistake.
  const agents = expectedAgents(settings)
  const github = job.github()
  const { pull, plan } = await readPullPlan(
    github,
    job.pullNumber,
    job.inputs,
    settings
  )
  // What one run says of the pull request as a whole, said here too.
  const facts = pullFactsOf(pull, settings)
  warnOfSteering(pull.number, facts)
  const secrets = [settings.githubToken].filter(Boolean)
  return { job, github, secrets, pull, plan, facts, agents }
}

/** The execute stage of role 'aggregate': each planned shard's record gathered and checked. */
export async function gatherShards(
  prepared: AggregatePrepared
): Promise<Gathered> {
  const { job, github, pull, plan } = prepared
  const { inputs, settings } = job
  const door = await job.artifacts()
  const found = await artifactsNamed(door, inputs.resultsPrefix)
  const take = shardTaker({
    door,
    found,
    github,
    pull,
    agents: prepared.agents,
    prefix: inputs.resultsPrefix,
    workDir: job.workDir
  })
  const taken: ShardOutcome[] = []
  for (const entry of plan.shards) taken.push(await take(entry))
  const diff = cutDiff(pull.diff, PLAN_DIFF_MAX_BYTES)
  const prTexts = [pull.title, pull.body].filter(Boolean)
  const outcomes = await withVotes(taken, diff.diff, prTexts, (file) =>
    github.getFileAtCommit(file, pull.headSha, MAX_UNSHOWN_FILE_BYTES)
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
  const jobsFailed =
    plan.shards.length > 0 && inputs.shardsResult !== 'success'
      ? jobsFailedReason(inputs.shardsResult)
      : ''
  return { outcomes, unplanned, jobsFailed, diff, prTexts }
}

/**
 * The finish stage of role 'aggregate': the shards' findings merged into one
 * review, one report, one check run; the step's failure, if any, and the
 * review for the gate.
 */
export async function reportAggregate(
  prepared: AggregatePrepared,
  gathered: Gathered
): Promise<Ending> {
  const { job, github, secrets, pull, facts } = prepared
  const { settings } = job
  const { outcomes, jobsFailed, diff } = gathered
  const url = runUrl(process.env)
  const review = await reviewOfShards(
    outcomes,
    { pull, diff, settings, prTexts: gathered.prTexts, secrets, runUrl: url },
    github
  )
  const dest: Destination = {
    github,
    issueNumber: pull.number,
    settings,
    runUrl: url,
    secrets
  }
  const commentUrl = await postReport(dest, ({ maxChars }) =>
    renderAggregate({
      pullNumber: pull.number,
      headSha: pull.headSha,
      outcomes,
      unplanned: gathered.unplanned,
      facts,
      jobsFailed,
      review,
      tag: settings.commentTag,
      secrets,
      runUrl: url,
      maxCost: settings.maxCost,
      maxChars
    })
  )
  const reasons = noVerdictReasons(outcomes, jobsFailed, facts)
  const totals = totalsOf(outcomes)
  const result = aggregateResult(reasons, totals, facts, pull, diff)
  await setReviewOutputs(review, job.workDir, secrets)
  // A verdict on part of the pull request is no verdict: the check says which shards are missing.
  const published = await publishVerdict(
    result,
    reasons.length ? undefined : review,
    {
      settings: { ...settings, review: 'inline' },
      workDir: job.workDir,
      secrets,
      runUrl: url,
      github
    }
  )
  setVerdictOutputs(published)
  setAggregateOutputs({ outcome: result.outcome, commentUrl, ...totals })
  return {
    failure: result.reason ? `Matrix review: ${result.reason}.` : undefined,
    review
  }
}

function warnOfSteering(pullNumber: number, facts: PullFacts): void {
  if (facts.steering.state === 'none') return
  core.warning(
    `Pull request #${pullNumber}: ` +
      (facts.steering.state === 'unknown'
        ? `GitHub named ${facts.listedFiles} of its ${facts.changedFiles} changed files, so steering files (workflows, actions, instructions) cannot be ruled out.`
        : `it changes ${facts.steering.files.length} file(s) that steer CI or reviews once merged.`)
  )
}

/**
 * What became of one planned shard: its one artifact of this attempt,
 * downloaded and checked as hostile input, or why none was taken.
 */
function shardTaker(from: {
  door: ArtifactDoor
  found: ListedArtifact[]
  github: GitHubApi
  pull: PullRequestContext
  agents: ExpectedAgents
  prefix: string
  workDir: string
}): (entry: ShardEntry) => Promise<ShardOutcome> {
  const pullFiles = new Set(from.pull.files.map((f) => f.filename))
  const attempt = runAttempt(process.env)
  const ofItsAttempt = attemptCheck(from.github, process.env)
  const refused = (entry: ShardEntry, reason: string): ShardOutcome => {
    core.warning(`Shard '${entry.id}': its artifact was refused: ${reason}`)
    return {
      entry,
      state: 'refused',
      reason: `Its artifact was refused: ${reason}.`
    }
  }
  return async (entry) => {
    const base = `${from.prefix}${entry.id}`
    const named = latestAttempt(from.found, base, attempt)
    const name = named[0]?.name ?? attemptName(base, attempt)
    if (named.length > 1) {
      core.warning(
        `Shard '${entry.id}': ${named.length} artifacts are named '${name}'; none is taken.`
      )
      return {
        entry,
        state: 'refused',
        reason: `${named.length} artifacts are named '${name}': a job uploaded under this shard's name, so none of them is taken.`
      }
    }
    const artifact = named[0]
    if (!artifact)
      return {
        entry,
        state: 'missing',
        reason: `No artifact '${name}': the shard job failed before its upload, was cancelled or did not run.`
      }
    const misdated = await ofItsAttempt({
      ...artifact,
      attempt: attemptOf(artifact.name, base) ?? 1
    })
    if (misdated) return refused(entry, misdated)
    const fetched = await fetchArtifactFile(
      from.door,
      artifact,
      path.join(from.workDir, `shard-${entry.id}`),
      RECORD_FILE,
      MAX_RECORD_BYTES
    )
    if (!fetched.ok) return refused(entry, fetched.reason)
    const checked = checkRecord(fetched.text, {
      entry,
      headSha: from.pull.headSha,
      pullFiles,
      agents: from.agents
    })
    if (!checked.ok) return refused(entry, checked.reason)
    return {
      entry,
      state: checked.accepted.record.status === 'success' ? 'ok' : 'failed',
      accepted: checked.accepted
    }
  }
}

/** Files the diff shows nothing of, read at the head for the votes' quotes, at most. */
const MAX_UNSHOWN_FILES = 30
/** A larger one is not read (the contents API sends no text over 1 MB). */
const MAX_UNSHOWN_FILE_BYTES = 1_000_000

/**
 * Each shard's vote, tallied here from its ballots (shard-votes.ts); the
 * diff's lines are read once for all of them, and only if one voted. The
 * aggregate has no checkout: a file voted on that the diff shows nothing of
 * (a name git quotes, past the diff's budget, a patch GitHub leaves out) is
 * read at the head commit through the API, a regular file at exactly that
 * path and size-bounded (getFileAtCommit), so an exact quote of it is checkable.
 */
async function withVotes(
  taken: ShardOutcome[],
  diff: string,
  prTexts: string[],
  readAtHead: (file: string) => Promise<FileAtCommit>
): Promise<ShardOutcome[]> {
  const voted = taken.some(
    (o) => o.state === 'ok' && o.accepted.record.vote?.ran === true
  )
  const diffLines: DiffLines = newSideLines(voted ? diff : '')
  // Each shard's answers grouped once, for the files to show and the tally.
  const groupsOf = new Map(
    taken.flatMap((o) =>
      o.state === 'ok' ? [[o, votedGroups(o.accepted)] as const] : []
    )
  )
  const unshown = [
    ...new Set([...groupsOf.values()].flatMap((groups) => votedFiles(groups)))
  ].filter((file) => !diffLines.get(file)?.size)
  for (const file of unshown.slice(0, MAX_UNSHOWN_FILES)) {
    const read = await readAtHead(file).catch((): FileAtCommit => ({
      kind: 'unreadable'
    }))
    if (read.kind === 'file')
      diffLines.set(
        file,
        new Map(read.text.split('\n').map((text, i) => [i + 1, text]))
      )
  }
  return taken.map((o): ShardOutcome =>
    o.state === 'ok'
      ? {
          ...o,
          votes: shardVotes(
            o.accepted,
            groupsOf.get(o) ?? [],
            diffLines,
            prTexts
          )
        }
      : o
  )
}

/** The findings of the shards that finished, grouped as one run groups its agents'. */
async function reviewOfShards(
  outcomes: ShardOutcome[],
  of: {
    pull: PullRequestContext
    diff: { diff: string; truncated: boolean }
    settings: TokenRoleJob['settings']
    prTexts: string[]
    secrets: string[]
    runUrl: ReturnType<typeof runUrl>
  },
  github: GitHubApi
): Promise<ReviewReport | undefined> {
  const ok = outcomes.flatMap((o) => (o.state === 'ok' ? [o] : []))
  const reviewed = ok.map((o) => o.accepted)
  if (reviewed.length === 0) return undefined
  const tallied = ok.flatMap((o) => (o.votes ? [o.votes] : []))
  const vote = roundsTogether(
    ok.map((o) => ({
      id: o.entry.id,
      round: o.accepted.record.vote,
      votes: o.votes
    }))
  )
  const { settings } = of
  return runReview(
    {
      coverage: shardCoverage(
        of.pull,
        reviewed,
        settings,
        await baseAttributes(github, of.pull.baseSha)
      ),
      pullNumber: of.pull.number,
      headSha: of.pull.headSha,
      baseSha: of.pull.baseSha,
      diff: of.diff.diff,
      diffTruncated: of.pull.diffTruncated || of.diff.truncated,
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
      prTexts: of.prTexts,
      secrets: of.secrets,
      runUrl: of.runUrl
    },
    github,
    core
  )
}

/**
 * What the shards read of the pull request: a changed file no shard that
 * reported was given (excluded by a pattern, left out of the plan) is
 * unread, and so is a file a shard's own run left out of what its agents
 * were given (a diff over pr-diff-max-bytes, a linguist-generated mark),
 * worked out here again the way the shard's run does (pr-filter.ts), not
 * taken from its record. Any of them makes the verdict `incomplete`.
 */
function shardCoverage(
  pull: PullRequestContext,
  reviewed: readonly { entry: ShardEntry }[],
  settings: Pick<
    TokenRoleJob['settings'],
    'include' | 'exclude' | 'prDiffMaxBytes' | 'allowUnread'
  >,
  attributes: GitAttributes | undefined
) {
  const inShards = new Set(reviewed.flatMap((r) => r.entry.files))
  const leftOut = pull.files
    .filter((f) => !inShards.has(f.filename))
    .map((f) => ({
      file: f.filename,
      reason:
        'in no shard that reported (excluded by a pattern or left out of the plan)'
    }))
  // A file whose diff the read of the pull request left out, whole
  // (github/pull.ts cutDiff): its shard was given its name, not its code.
  const named = new Set(leftOut.map((l) => l.file))
  const cutAtRead = (pull.diffCut ?? [])
    .filter((c) => !named.has(c.path))
    .map((c) => ({
      file: c.path,
      reason: `diff of ${c.bytes} bytes: over what the action reads of a diff`
    }))
  for (const c of cutAtRead) named.add(c.file)
  const filter = pathFilter({
    include: settings.include,
    exclude: settings.exclude,
    ...(attributes ? { attributes } : {})
  })
  const leftByShards = reviewed.flatMap((r) => {
    const slice = shardSlice(pull, r.entry.files)
    return filterContext(
      slice.files,
      slice.diff,
      filter,
      settings.prDiffMaxBytes
    ).leftOut.filter((l) => !named.has(l.file))
  })
  const changed = Math.max(pull.changedFiles ?? 0, pull.files.length)
  return coverageOf(
    changed,
    [
      ...leftOut,
      ...cutAtRead,
      ...leftByShards.map((l) => ({
        file: l.file,
        reason: `left out of shard's run: ${l.reason}`
      }))
    ],
    settings.allowUnread
  )
}

/** Why the shards' findings are no verdict on the pull request ([] when they are). */
function noVerdictReasons(
  outcomes: ShardOutcome[],
  jobsFailed: string,
  facts: PullFacts
): string[] {
  const missing = outcomes.filter((o) => o.state !== 'ok')
  return [
    missing.length
      ? `${missing.length} of ${outcomes.length} shard(s) did not report findings: ` +
        missing.map((o) => `${o.entry.id} (${o.state})`).join(', ')
      : '',
    jobsFailed,
    facts.listedFiles < facts.changedFiles
      ? `GitHub named ${facts.listedFiles} of the ${facts.changedFiles} changed files, so the shards did not see the rest: no verdict on part of the pull request`
      : '',
    facts.summaryOnly
      ? `${facts.changedFiles} changed files is more than '${Inputs.MaxChangedFiles}' (${facts.summaryOnly.max}): no verdict`
      : ''
  ].filter(Boolean)
}

function aggregateResult(
  reasons: string[],
  totals: ReturnType<typeof totalsOf>,
  facts: PullFacts,
  pull: PullRequestContext,
  diff: { diff: string; truncated: boolean }
): RunResult {
  return {
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
}

function jobsFailedReason(result: string | undefined): string {
  return (
    `the shard jobs' result is '${result ?? ''}', not 'success' (${Inputs.ShardsResult}): ` +
    "a record under a failed job's name may have been uploaded by another job, so there is no verdict"
  )
}
