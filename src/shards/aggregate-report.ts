// The one report of a matrix review: a section per planned shard (what it
// reviewed, how it ended, what it cost), every shard that did not report
// said so, the merged findings, and the summed cost and time. Pure; every
// text a shard gave is redacted and escaped where it is placed.
import type { ReviewReport } from '../core/review.js'
import type { ShardEntry } from '../inputs/shard-inputs.js'
import { cell, codeBlock, link } from '../safety/markdown-parts.js'
import { truncateMarkdown } from '../safety/markdown.js'
import { findingsSection } from '../review/render.js'
import { pullFactsSection } from '../report/pull-facts.js'
import type { PullFacts } from '../core/types.js'
import type { AcceptedRecord } from './record.js'
import type { ShardVotes } from './shard-votes.js'

/** What became of one planned shard. */
export type ShardOutcome =
  | {
      entry: ShardEntry
      state: 'ok'
      accepted: AcceptedRecord
      /** Its vote, tallied by the aggregate; absent when its round did not run. */
      votes?: ShardVotes
    }
  /** It ran and said it did not finish (its record is valid). */
  | { entry: ShardEntry; state: 'failed'; accepted: AcceptedRecord }
  /** No artifact: the job failed before uploading, was cancelled or never ran. */
  | { entry: ShardEntry; state: 'missing'; reason: string }
  /** Its artifact was refused (size, shape, id, head, zip). */
  | { entry: ShardEntry; state: 'refused'; reason: string }

interface AggregateTotals {
  cost: number
  /** The slowest shard: the matrix's wall time, roughly. */
  slowestSeconds: number
  /** Every shard's time: the runner minutes, roughly. */
  sumSeconds: number
}

export function totalsOf(outcomes: ShardOutcome[]): AggregateTotals {
  const records = outcomes.flatMap((o) =>
    'accepted' in o ? [o.accepted.record] : []
  )
  const times = records.map((r) => r.elapsedSeconds ?? 0)
  return {
    // The vote round is a second MassGen run, paid on top of the answers.
    cost: records.reduce(
      (sum, r) => sum + (r.cost ?? 0) + (r.vote?.cost ?? 0),
      0
    ),
    slowestSeconds: Math.max(0, ...times),
    sumSeconds: Math.round(times.reduce((a, b) => a + b, 0) * 10) / 10
  }
}

const STATE_LABEL: Record<ShardOutcome['state'], string> = {
  ok: '✅ reviewed',
  failed: '❌ failed',
  missing: '⚠️ missing',
  refused: '🛑 refused'
}

function money(n: number): string {
  return `$${n.toFixed(n < 1 ? 4 : 2)}`
}

/**
 * The summed cost, and against what: max-cost caps each shard's run, so the
 * review may cost it times the shards (docs/matrix-review.md).
 */
export function costText(
  cost: number,
  maxCost: number | undefined,
  shards: number
): string {
  const summed = `cost ${money(cost)} (summed, MassGen's estimate)`
  if (maxCost === undefined || shards === 0) return summed
  return (
    `${summed} of at most ${money(maxCost * shards)} ` +
    `(max-cost ${money(maxCost)} a shard x ${shards} shard${shards === 1 ? '' : 's'})`
  )
}

function shardSection(
  o: ShardOutcome,
  review: ReviewReport | undefined,
  secrets: string[]
): string {
  const { entry } = o
  const title =
    `#### Shard \`${entry.id}\`` +
    (entry.question ? ` · ${cell(entry.question, secrets, 40)}` : '') +
    ` · ${STATE_LABEL[o.state]}`
  const files =
    `${entry.files.length} file${entry.files.length === 1 ? '' : 's'}: ` +
    entry.files
      .slice(0, 5)
      .map((f) => `\`${cell(f, secrets, 100).replace(/`/g, "'")}\``)
      .join(', ') +
    (entry.files.length > 5 ? `, …and ${entry.files.length - 5} more` : '')
  const lines = [title, '', files]
  if ('accepted' in o) {
    const r = o.accepted.record
    const found = review
      ? review.groups.filter((g) =>
          g.members.some((m) => m.agent.startsWith(`${entry.id}/`))
        ).length
      : 0
    lines.push(
      '',
      `${r.answers.length} agent(s), ${found} finding(s)` +
        (o.accepted.dropped ? `, ${o.accepted.dropped} dropped` : '') +
        (o.accepted.outside
          ? ` (${o.accepted.outside} on files outside this shard: not taken)`
          : '') +
        ` · ${r.elapsedSeconds ?? 0} s` +
        (r.cost !== undefined || r.vote?.cost !== undefined
          ? ` · ${money((r.cost ?? 0) + (r.vote?.cost ?? 0))}`
          : '')
    )
    if (o.state === 'ok') lines.push('', voteLine(o, secrets))
    if (o.state === 'failed')
      lines.push(
        '',
        `It ended \`${r.status}\`:`,
        '',
        codeBlock(r.reason ?? '(no reason given)', secrets, 600)
      )
  } else {
    lines.push('', codeBlock(o.reason, secrets, 600))
  }
  return lines.join('\n')
}

/** What became of a reviewed shard's vote: tallied here, or why its raisers alone count. */
function voteLine(
  o: Extract<ShardOutcome, { state: 'ok' }>,
  secrets: string[]
): string {
  const round = o.accepted.record.vote
  if (o.votes) {
    const readable = o.votes.ballots.filter((b) => b.block === 'found').length
    const dropped = o.votes.ballots.reduce((n, b) => n + b.dropped, 0)
    return (
      `Vote: ${o.votes.findings} finding(s) put to its agents, ` +
      `${readable} of ${o.votes.ballots.length} ballot(s) readable` +
      (dropped ? `, ${dropped} vote(s) dropped (not valid)` : '') +
      (round?.seconds !== undefined ? ` · ${round.seconds} s` : '')
    )
  }
  const why = !round
    ? 'none asked (finding-vote off)'
    : round.ran
      ? 'no ballot given'
      : cell(round.skipped ?? 'it did not run', secrets, 200)
  return `No vote: ${why}; its findings count by their raisers.`
}

export function renderAggregate(input: {
  pullNumber: number
  headSha: string
  outcomes: ShardOutcome[]
  /** Artifacts under the results prefix that the plan did not ask for. */
  unplanned: string[]
  /** What one run says of the pull request as a whole (its size, steering files). */
  facts: PullFacts
  /** Why the shard jobs' result gives no verdict ('' when they all succeeded). */
  jobsFailed: string
  review: ReviewReport | undefined
  tag: string
  secrets: string[]
  runUrl: string | undefined
  /** The aggregate's max-cost: the cap each shard's run had, when the workflow gives both the same. */
  maxCost?: number | undefined
  maxChars: number
}): string {
  const { outcomes, secrets } = input
  const ok = outcomes.filter((o) => o.state === 'ok').length
  const totals = totalsOf(outcomes)
  const complete =
    ok === outcomes.length &&
    !input.jobsFailed &&
    input.facts.listedFiles >= input.facts.changedFiles &&
    !input.facts.summaryOnly
  const head =
    `### ${complete ? '✅' : '⚠️'} MassGen matrix review: ` +
    `${ok} of ${outcomes.length} shard${outcomes.length === 1 ? '' : 's'} reviewed` +
    (complete ? '' : ', the report is incomplete')
  const summary =
    `Pull request #${input.pullNumber} at \`${input.headSha.slice(0, 12)}\` · ` +
    `${costText(totals.cost, input.maxCost, outcomes.length)} · ` +
    `slowest shard ${totals.slowestSeconds} s · all shards ${totals.sumSeconds} s` +
    (link('run', input.runUrl) ? ` · ${link('run', input.runUrl)}` : '')
  const problems = outcomes.filter((o) => o.state !== 'ok')
  const warn = problems.length
    ? `> [!WARNING]\n> ${problems.length} shard(s) did not report findings: ` +
      problems.map((o) => `\`${o.entry.id}\` (${o.state})`).join(', ') +
      '. Their files were not reviewed.'
    : ''
  const jobs = input.jobsFailed
    ? `> [!WARNING]\n> No verdict: ${cell(input.jobsFailed, secrets, 300)}.`
    : ''
  const unplanned = input.unplanned.length
    ? `_${input.unplanned.length} artifact(s) that this review did not plan were ignored: ` +
      input.unplanned
        .slice(0, 10)
        .map((n) => `\`${cell(n, secrets, 80).replace(/`/g, "'")}\``)
        .join(', ') +
      '._'
    : ''
  const findings = input.review
    ? findingsSection(input.review, {
        tag: input.tag,
        agentCount: input.review.agentCount,
        secrets,
        runUrl: input.runUrl
      })
    : '_No shard reported findings, so there is no review._'
  const body = [
    head,
    summary,
    pullFactsSection(input.facts, secrets),
    warn,
    jobs,
    unplanned,
    findings,
    '---',
    ...outcomes.map((o) => shardSection(o, input.review, secrets))
  ]
    .filter(Boolean)
    .join('\n\n')
  return truncateMarkdown(
    body,
    input.maxChars,
    '_…cut at the comment size limit; the job summary has the rest._'
  )
}
