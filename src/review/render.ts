// The review's texts: one inline comment per finding, the review body, and
// the findings table of the job summary and the sticky comment. Pure.
//
// Titles and explanations are LLM text: titles go through escapeTableCell
// (one line, no markup, no pings), explanations through safeMarkdown, and
// every text through the marker defusers, so no finding can fake the hidden
// marker that names an earlier finding (only the first line of a comment,
// or the start of a body line, written here, carries one).
import { fenceFor, safeMarkdown, truncateMarkdown } from '../safety/markdown.js'
import { redactSecrets } from '../safety/redact.js'
import { cell, link } from '../safety/markdown-parts.js'
import type { Severity } from '../core/review.js'
import type { FindingGroup, GroupSuggestion, Verdict } from '../core/review.js'
import type { Posted, ReviewedGroup, ReviewReport } from '../core/review.js'
import type { EarlierOutcome } from '../core/review.js'

import {
  defuseMarkers,
  findingMarker,
  reviewedMarker
} from '../github/review-markers.js'
// Where the review's other files and the tests found them before.
export {
  bodyMarkers,
  commentMarker,
  defuseMarkers,
  findingMarker,
  reviewedMarker
} from '../github/review-markers.js'
import { clip } from '../core/text.js'
import { standingFindings, standingSeverity } from './standing.js'
import { raisesAgain } from './earlier.js'
import { coverageLine, incompleteReason } from './coverage.js'
import { countedFindings } from './counted.js'
import { sincePushLine, verdictHeadline } from './headline.js'

const SEVERITY_LABEL: Record<Severity, string> = {
  blocker: '🔴 Blocker',
  concern: '🟠 Concern',
  nit: '🟡 Nit'
}

export const VERDICT_LABEL: Record<Verdict, string> = {
  pass: '✅ pass',
  concerns: '🟠 concerns',
  blockers: '🔴 blockers',
  unclear: '❔ unclear (the agents split)',
  incomplete: '⚠️ incomplete (not all of the change was read or voted on)'
}

const POSTED_LABEL: Record<Posted, string> = {
  inline: 'inline',
  body: 'review body (not a diff line)',
  refused: 'review body (GitHub refused the line)',
  hidden: `summary only (below min-agreement)`,
  unconfirmed: 'summary only (not confirmed in the vote)',
  'pr-text-only': "summary only (only the pull request's own text supports it)",
  'past-end': 'summary only (its line is past the end of the file)',
  'below-severity': 'summary only (below min-severity)',
  held: 'held back (over max-inline-comments)',
  duplicate: 'already posted'
}

/** The mark of a finding only the pull request's own words support. */
const PR_TEXT_ONLY_MARK =
  "⚠️ Only the pull request's own text (its description or a comment) supports this finding, not the code."

/** Inline comments are review comments: GitHub's limit is the same. */
const COMMENT_CHARS = 60_000
const BODY_EXPLANATION_CHARS = 300
const MAX_TABLE_ROWS = 50

export interface ReviewTextContext {
  tag: string
  /** Agents whose answers were read: the denominator of `2/3 agents`. */
  agentCount: number
  secrets: readonly string[]
  runUrl?: string
  /** The pull request's base commit, recorded in the review's own marker. */
  baseSha?: string
}

const REASON_CHARS = 160

/**
 * How many agents back a finding, every agent accounted for: `2/3 agents`
 * raised it, or with the vote `confirmed by 3/3`, or `confirmed by 1/3
 * (raised by 1), rejected by 1 (reason), 1 abstained`: confirmed, rejected,
 * abstained and no vote always add up to the agents.
 */
export function agreement(
  group: FindingGroup,
  agentCount: number,
  secrets: readonly string[] = [],
  /** The raisers by name (an inline comment), else their count. */
  raiserNames?: string
): string {
  const vote = group.vote
  if (!vote)
    return `${group.agents.length}/${agentCount} agent${agentCount === 1 ? '' : 's'}`
  if (vote.confirmed === agentCount && vote.confirmed > 0)
    return `confirmed by ${vote.confirmed}/${agentCount}`
  const rejection = vote.votes.find((v) => v.ballot === 'reject' && v.reason)
  const silent = Math.max(
    0,
    agentCount - vote.confirmed - vote.rejected - vote.abstained
  )
  const parts = [
    `confirmed by ${vote.confirmed}/${agentCount} (raised by ${raiserNames ?? group.agents.length})`,
    vote.rejected
      ? `rejected by ${vote.rejected}` +
        (rejection ? ` (${cell(rejection.reason, secrets, REASON_CHARS)})` : '')
      : '',
    vote.abstained ? `${vote.abstained} abstained` : '',
    // A ballot never cast is not a vote either way (vote.ts tallyVotes).
    silent
      ? `${agentCount - silent} of ${agentCount} ballot${agentCount === 1 ? '' : 's'} came back with a vote on it`
      : ''
  ]
  return parts.filter(Boolean).join(', ')
}

/** Each agent's vote with its evidence, for the inline comment. */
function voteLines(group: FindingGroup, secrets: readonly string[]): string {
  const vote = group.vote
  if (!vote) return ''
  const shown = vote.votes.filter((v) => v.ballot !== 'abstain')
  if (shown.length === 0) return ''
  const line = (v: (typeof shown)[number]): string => {
    const who = cell(v.agent, secrets, 60)
    if (v.ballot === 'reject') {
      const at = v.evidence === 'code' && v.line ? ` line ${v.line}` : ''
      return `❌ ${who} rejects${at}${v.reason ? `: ${cell(v.reason, secrets, REASON_CHARS)}` : ''}`
    }
    if (v.implicit) return `✅ ${who} raised it (no vote given)`
    const at = v.line ? ` line ${v.line}` : ''
    const source =
      v.evidence === 'code'
        ? ''
        : v.evidence === 'pull-request-text'
          ? " (quoting the pull request's own text)"
          : ' (its quote is not in the code)'
    return `✅ ${who} confirms${at}${source}${v.reason ? `: ${cell(v.reason, secrets, REASON_CHARS)}` : ''}`
  }
  return `<sub>Vote: ${shown.map(line).join(' · ')}</sub>`
}

function raisedBy(group: FindingGroup, ctx: ReviewTextContext): string {
  return group.agents.map((a) => cell(a, ctx.secrets, 60)).join(', ')
}

/** The lower severities other members gave (the group takes the highest). */
function alsoAs(group: FindingGroup): string {
  const others = group.otherSeverities ?? []
  return others.length ? ` (also raised as ${others.join(', ')})` : ''
}

function headline(group: FindingGroup, ctx: ReviewTextContext): string {
  const head = `**${SEVERITY_LABEL[group.severity]}**${alsoAs(group)}`
  const title = `**${cell(group.lead.title, ctx.secrets, 200)}**`
  const vote = group.vote
  // A split vote names its raisers inside the agreement, which adds up.
  if (vote && !(vote.confirmed === ctx.agentCount && vote.confirmed > 0))
    return `${head} · ${agreement(group, ctx.agentCount, ctx.secrets, raisedBy(group, ctx))}: ${title}`
  const raisers = vote
    ? `raised by ${raisedBy(group, ctx)}`
    : raisedBy(group, ctx)
  return `${head} · ${agreement(group, ctx.agentCount, ctx.secrets)} (${raisers}): ${title}`
}

/**
 * A member's replacement, attributed: a one-click suggestion only when the
 * tally offers it (tally.ts) and the comment covers its lines; else text.
 */
function suggestionBlock(
  suggestion: GroupSuggestion,
  secrets: readonly string[],
  coversLines: boolean
): string {
  const body = redactSecrets(suggestion.text, secrets)
  const fence = fenceFor(body)
  const who = cell(suggestion.agent, secrets, 60)
  const why =
    suggestion.notOffered ??
    (coversLines ? undefined : 'the comment could not cover its lines')
  return why
    ? `<sub>Replacement suggested by ${who}, shown as text, not offered as a one-click change (${why}):</sub>\n\n${fence}text\n${body}\n${fence}`
    : `<sub>Suggested by ${who}:</sub>\n\n${fence}suggestion\n${body}\n${fence}`
}

/**
 * One inline comment. `withSuggestion` is false when the comment could not
 * cover the lines the replacement is for (the range was cut to one line).
 */
export function inlineCommentBody(
  group: FindingGroup,
  ctx: ReviewTextContext,
  withSuggestion: boolean
): string {
  const explanation = group.lead.explanation.trim()
  const others = group.members.filter((m) => m !== group.lead)
  const parts = [
    headline(group, ctx),
    group.vote?.prTextOnly ? `_${PR_TEXT_ONLY_MARK}_` : '',
    explanation ? safeMarkdown(explanation, ctx.secrets) : '',
    group.suggestion
      ? suggestionBlock(group.suggestion, ctx.secrets, withSuggestion)
      : '',
    others.length
      ? '<sub>Also raised as: ' +
        others
          .map(
            (m) =>
              `${cell(m.agent, ctx.secrets, 60)}: ${cell(m.title, ctx.secrets, 120)}`
          )
          .join(' · ') +
        '</sub>'
      : '',
    voteLines(group, ctx.secrets)
  ]
  const text = defuseMarkers(
    redactSecrets(parts.filter(Boolean).join('\n\n'), ctx.secrets)
  )
  return `${findingMarker(ctx.tag, group, markerFacts(group, ctx))}\n${truncateMarkdown(text, COMMENT_CHARS, '_✂️ Cut to fit._')}`
}

/**
 * The facts a later run reads back from the marker. Only counted findings
 * are posted (post.ts heldOut), so a posted one is counted; its agreement is
 * its confirmations with the vote, else its raisers.
 */
function markerFacts(group: FindingGroup, ctx: ReviewTextContext) {
  return {
    counted: true,
    agreed: group.vote ? group.vote.confirmed : group.agents.length,
    of: ctx.agentCount,
    title: redactSecrets(group.lead.title, ctx.secrets)
  }
}

function place(group: FindingGroup): string {
  const { file, line, startLine } = group.anchor
  return `${file} line${startLine ? `s ${startLine}-${line}` : ` ${line}`}`
}

/**
 * One line of the review body; ends with the finding's marker (at the start
 * it would make the line an HTML block, shown without its markdown).
 */
function bodyLine(group: ReviewedGroup, ctx: ReviewTextContext): string {
  const why = group.posted === 'refused' ? ' (GitHub refused the line)' : ''
  const explanation = group.lead.explanation.trim()
  return (
    `- ${headline(group, ctx)} · ${cell(place(group), ctx.secrets, 300)}${why}` +
    (explanation
      ? ` — ${cell(explanation, ctx.secrets, BODY_EXPLANATION_CHARS)}`
      : '') +
    ` ${findingMarker(ctx.tag, group, markerFacts(group, ctx))}`
  )
}

function voteLine(vote: ReviewReport['vote'], agentCount: number): string {
  if (!vote?.ran) return '. Each finding says how many agents raised it.'
  const voters = vote.byShard
    ? "its own shard's agents (a shard's agents vote on that shard's findings only)"
    : 'all agents'
  // A ballot that never came back confirms nothing (vote.ts tallyVotes).
  const back =
    !vote.byShard && vote.agentsWithBlock < agentCount
      ? `; ${vote.agentsWithBlock} of ${agentCount} ballots came back`
      : ''
  return `. Every finding was put to ${voters}${back}: each says who raised it and who confirmed or rejected it.`
}

export function reviewBody(
  report: ReviewReport,
  ctx: ReviewTextContext
): string {
  const inline = report.groups.filter((g) => g.posted === 'inline').length
  const outside = report.groups.filter(
    (g) => g.posted === 'body' || g.posted === 'refused'
  )
  const count = (posted: Posted) =>
    report.groups.filter((g) => g.posted === posted).length
  const hidden = count('hidden')
  const kept = [
    hidden
      ? `${hidden} raised by fewer than ${report.minAgreement} agents`
      : '',
    count('unconfirmed')
      ? `${count('unconfirmed')} not confirmed in the vote`
      : '',
    count('pr-text-only')
      ? `${count('pr-text-only')} backed only by the pull request's own text`
      : '',
    count('past-end')
      ? `${count('past-end')} on a line past the end of its file`
      : '',
    count('below-severity')
      ? `${count('below-severity')} below min-severity (${report.minSeverity})`
      : ''
  ].filter(Boolean)
  const held = count('held')
  const tag = ctx.tag !== 'massgen' ? ` (${cell(ctx.tag, [], 64)})` : ''
  const parts = [
    // The same first line as the sticky comment's: the verdict in words.
    verdictHeadline(report, tag),
    sincePushLine(report),
    `${report.groups.length} finding${report.groups.length === 1 ? '' : 's'} from ` +
      `${report.agentCount} agent${report.agentCount === 1 ? '' : 's'}: ${inline} inline, ` +
      `${outside.length} below` +
      (held
        ? `, ${held} held back by max-inline-comments (${report.maxInlineComments}; the weaker ones, listed in the run's report)`
        : '') +
      (kept.length ? `; in the job summary only: ${kept.join(', ')}` : '') +
      voteLine(report.vote, report.agentCount),
    outside.length
      ? [
          '#### Findings outside the diff',
          ...outside.map((g) => bodyLine(g, ctx))
        ].join('\n\n')
      : '',
    scopeLine(report),
    report.coverage ? `_${coverageLine(report.coverage)}._` : '',
    report.verdict === 'incomplete'
      ? `**Incomplete:** ${incompleteReason(report.coverage, report)}; the check run and the job summary name the files and the votes.`
      : '',
    earlierLine(report.earlier),
    link('Workflow run', ctx.runUrl)
  ]
  const text = parts.filter(Boolean).join('\n\n')
  // Last, after the cut: the line that names this tag's review (earlier.ts).
  return `${truncateMarkdown(
    text,
    COMMENT_CHARS - 200,
    '_✂️ Cut to fit; the job summary has every finding._'
  )}\n\n${reviewedMarker(ctx.tag, ctx.baseSha, untracked(report))}`
}

/** Where a counted finding has no thread of its own (not inline). */
const UNTHREADED: ReadonlySet<Posted> = new Set([
  'body',
  'refused',
  'held',
  'below-severity',
  'duplicate'
])

/**
 * Counted blockers and concerns no review thread tracks: in the body or the
 * summary only, or a duplicate of no earlier thread's finding; and the ones
 * whose vote is missing ballots (coverage.ts), which have no thread either.
 * The next run reviews the whole pull request when there are any
 * (earlier-record.ts): only threads carry a finding across an incremental
 * review.
 */
function untracked(report: ReviewReport): number {
  const threads = (report.earlier ?? []).map((o) => o.finding)
  return (
    report.groups.filter(
      (g) =>
        g.severity !== 'nit' &&
        UNTHREADED.has(g.posted) &&
        !threads.some((e) => raisesAgain(g, e))
    ).length + (report.unvoted?.length ?? 0)
  )
}

/** What this run reviewed: the whole pull request or the changes since the last review. */
/** Unread files listed at most, in the report and the check run. */
const MAX_UNREAD_ROWS = 30

/** What the review read and did not, and why the verdict is `incomplete`. */
function coverageSection(
  report: ReviewReport,
  secrets: readonly string[]
): string {
  const coverage = report.coverage
  const why =
    report.verdict === 'incomplete'
      ? `**Incomplete:** ${incompleteReason(coverage, report)}. What was not read or voted on can hold a blocker, so the verdict is not \`pass\`; \`fail-on\` fails on it.`
      : ''
  const unvoted = unvotedLines(report, secrets)
  if (!coverage) return [why, unvoted].filter(Boolean).join('\n\n')
  const rows = coverage.unread
    .slice(0, MAX_UNREAD_ROWS)
    .map(
      (u) =>
        `| ${cell(u.file, secrets, 200)} | ${cell(u.reason, secrets, 300)}` +
        `${u.allowed ? ' (allowed by allow-unread)' : ''} |`
    )
  const more = coverage.unread.length - rows.length
  return [
    `_${coverageLine(coverage)}._`,
    why,
    rows.length
      ? ['| Not read | Why |', '| --- | --- |', ...rows].join('\n')
      : '',
    more > 0 ? `_…and ${more} more (left-out.tsv in the logs)._` : '',
    unvoted
  ]
    .filter(Boolean)
    .join('\n\n')
}

/**
 * Each finding whose vote is missing ballots that could have counted it
 * (tally.ts rule 8): which agents gave no vote on it, in plain words.
 */
function unvotedLines(
  report: ReviewReport,
  secrets: readonly string[]
): string {
  return (report.unvoted ?? [])
    .map(
      (u) =>
        `- **Vote missing ballots:** the ${u.severity} **${cell(u.title, secrets, 200)}** ` +
        `(${cell(`${u.file}:${u.line}`, secrets, 200)}) got no vote from ` +
        `${u.agents.map((a) => cell(a, secrets, 60)).join(', ')} ` +
        '(the ballot did not come back, or could not be read): without those ballots it neither counts nor is ruled out.'
    )
    .join('\n')
}

function scopeLine(report: ReviewReport): string {
  const scope = report.scope
  if (!scope) return ''
  return scope.kind === 'incremental'
    ? `_Incremental review: ${cell(scope.reason, [], 300)}; the whole diff was given for reference._`
    : `_Full review: ${cell(scope.reason, [], 300)}._`
}

const EARLIER_LABEL = {
  confirmed: 'confirmed (raised again)',
  fixed: 'fixed',
  carried: 'carried forward (its lines did not change)',
  dismissed: 'dismissed (its thread resolved by a person with write access)'
} as const

const THREAD_LABEL = {
  resolved: 'thread resolved',
  answered: 'thread left open: someone replied in it',
  off: "thread left open: resolve-threads is 'off'",
  failed: 'thread left open: GitHub refused (see the log)',
  'was-resolved': 'thread already resolved'
} as const

/** Who resolved an earlier finding's thread, and what it was worth. */
function resolutionNote(e: EarlierOutcome): string {
  const r = e.finding.resolution
  if (!r) return ''
  const who = r.by === null ? 'someone GitHub does not name' : `@${r.by}`
  return r.worth === 'dismissed'
    ? ` · by ${who} (${r.why})`
    : ` · resolved by ${who}, ignored: ${r.why}`
}

/** Earlier findings in one sentence: how many of each. */
function earlierLine(earlier: EarlierOutcome[] | undefined): string {
  if (!earlier?.length) return ''
  const count = (s: string) => earlier.filter((e) => e.status === s).length
  const resolved = earlier.filter((e) => e.thread === 'resolved').length
  const ignored = earlier.filter(
    (e) => e.finding.resolution?.worth === 'ignored'
  ).length
  return (
    `Earlier findings still open before this run: ${earlier.length} — ` +
    `${count('confirmed')} confirmed, ${count('fixed')} fixed (${resolved} thread${resolved === 1 ? '' : 's'} resolved), ` +
    `${count('carried')} carried forward` +
    (count('dismissed') ? `, ${count('dismissed')} dismissed` : '') +
    (ignored
      ? `; ${ignored} resolved by someone without write access (ignored: still counted unless fixed)`
      : '') +
    '. Confirmed and carried-forward findings count for the verdict.'
  )
}

function earlierPlace(e: EarlierOutcome): string {
  const f = e.finding
  const line = f.line ?? f.originalLine
  return `${f.file}${line ? ` line ${line}` : ''}${f.outdated ? ' (outdated)' : ''}${movedNote(f.moved)}`
}

/** Where an earlier finding's file went, when it is gone from the head. */
function movedNote(moved: EarlierOutcome['finding']['moved']): string {
  switch (moved?.kind) {
    case 'renamed':
      return `, file renamed to ${moved.to}`
    case 'removed':
      return ', file removed'
    case 'unknown':
      return ', file gone from the head (removed or renamed: unknown)'
    default:
      return ''
  }
}

/** The table of earlier findings for the job summary and the sticky comment. */
function earlierSection(
  earlier: EarlierOutcome[] | undefined,
  secrets: readonly string[]
): string {
  if (!earlier?.length) return ''
  const rows = earlier.slice(0, MAX_TABLE_ROWS).map((e) => {
    const f = e.finding
    const agreed =
      f.raisedBy !== undefined && f.of !== undefined
        ? `${f.raisedBy}/${f.of} agents`
        : '—'
    const severity = f.severity
      ? SEVERITY_LABEL[f.severity]
      : 'unknown (counted as a blocker)'
    const status =
      EARLIER_LABEL[e.status] +
      (e.thread ? ` · ${THREAD_LABEL[e.thread]}` : '') +
      resolutionNote(e)
    const where = cell(earlierPlace(e), secrets, 200)
    return (
      `| ${agreed} | ${severity} | ${link(where, f.url) || where} ` +
      `| ${cell(f.title, secrets, 200)} | ${cell(status, secrets, 400)} |`
    )
  })
  const more = earlier.length - rows.length
  return [
    '##### Earlier findings',
    earlierLine(earlier),
    [
      '| Agreement | Severity | Where | Finding | Now |',
      '| --- | --- | --- | --- | --- |',
      ...rows
    ].join('\n'),
    more > 0 ? `_…and ${more} more._` : ''
  ]
    .filter(Boolean)
    .join('\n\n')
}

/**
 * One row of the findings table. A finding that does not count is quieter:
 * small type, its severity without the colour mark, and `not counted`.
 */
function tableRow(
  g: ReviewedGroup,
  counts: boolean,
  ctx: ReviewTextContext
): string {
  const quiet = (text: string) => (counts ? text : `<sub>${text}</sub>`)
  const severity = counts
    ? SEVERITY_LABEL[g.severity]
    : `<sub>${g.severity}, not counted</sub>`
  const title =
    cell(g.lead.title, ctx.secrets, 200) +
    (g.vote?.prTextOnly
      ? " ⚠️ only the pull request's own text supports it"
      : '')
  const cells = [
    quiet(agreement(g, ctx.agentCount, ctx.secrets)),
    severity,
    quiet(cell(place(g), ctx.secrets, 200)),
    counts ? `**${title}**` : quiet(title),
    quiet(raisedBy(g, ctx)),
    quiet(POSTED_LABEL[g.posted])
  ]
  return `| ${cells.join(' | ')} |`
}

/** The findings table for the job summary and the sticky comment. */
export function findingsSection(
  report: ReviewReport,
  ctx: ReviewTextContext
): string {
  const review = link('the review', report.reviewUrl)
  const head =
    `#### 🔎 Findings` +
    (review ? ` · see ${review} for the inline comments` : '')
  const note = report.notPosted
    ? `_${cell(report.notPosted, ctx.secrets, 300)}_`
    : ''
  const dropped = report.dropped
    ? `_${report.dropped} finding${report.dropped === 1 ? '' : 's'} dropped (not valid, or on a file the pull request does not change)._`
    : ''
  const missing = report.agentCount - report.agentsWithBlock
  const noBlock = missing
    ? `_${missing} agent${missing === 1 ? '' : 's'} gave no readable findings block._`
    : ''
  const scope = [scopeLine(report), coverageSection(report, ctx.secrets)]
    .filter(Boolean)
    .join('\n\n')
  const earlier = earlierSection(report.earlier, ctx.secrets)
  const findings =
    report.groups.length === 0
      ? [noFindingsLine(report)]
      : findingsTable(report, ctx)
  return [
    head,
    scope,
    ...findings,
    voteNote(report),
    note,
    dropped,
    noBlock,
    earlier
  ]
    .filter(Boolean)
    .join('\n\n')
}

function noFindingsLine(report: ReviewReport): string {
  const standing = standingFindings(report).length
  return standing
    ? `No new findings; ${standing} left open by earlier reviews still count (below).`
    : 'No findings.'
}

/** The table of this run's findings, and what it left out. */
function findingsTable(report: ReviewReport, ctx: ReviewTextContext): string[] {
  const counted = new Set(countedFindings(report))
  const rows = report.groups
    .slice(0, MAX_TABLE_ROWS)
    .map((g) => tableRow(g, counted.has(g), ctx))
  const held = report.groups.filter((g) => g.posted === 'held').length
  const more = report.groups.length - rows.length
  return [
    [
      '| Agreement | Severity | Where | Finding | Raised by | Posted |',
      '| --- | --- | --- | --- | --- | --- |',
      ...rows
    ].join('\n'),
    more > 0 ? `_…and ${more} more (see the findings output)._` : '',
    held
      ? `_${held} finding${held === 1 ? '' : 's'} held back from the inline comments by max-inline-comments (${report.maxInlineComments}): the strongest (confirmations × severity) went inline._`
      : ''
  ]
}

/** What the vote round did, and what it cost. */
function voteNote(report: ReviewReport): string {
  const vote = report.vote
  if (!vote) return ''
  // With no findings the report already says so: a skipped vote adds nothing.
  if (!vote.ran && report.groups.length === 0) return ''
  if (!vote.ran)
    return `_No vote on the findings: ${vote.skipped ?? 'it did not run'}; the raisers alone count._`
  const tokens =
    vote.inputTokens !== undefined || vote.outputTokens !== undefined
      ? `, ${(vote.inputTokens ?? 0) + (vote.outputTokens ?? 0)} tokens`
      : ''
  const time =
    vote.seconds !== undefined
      ? `, ${Math.round(vote.seconds * 10) / 10} s`
      : ''
  const missing = report.agentCount - vote.agentsWithBlock
  return (
    `_Vote on the findings: ${vote.findings} put to ${report.agentCount} agent${report.agentCount === 1 ? '' : 's'} ` +
    `in a second MassGen run (one ballot each${time}${tokens})` +
    (missing > 0
      ? `; ${vote.agentsWithBlock} of ${report.agentCount} ballots came back (one that did not confirms nothing, not even its raiser's own finding)`
      : '') +
    (vote.dropped
      ? `; ${vote.dropped} vote${vote.dropped === 1 ? '' : 's'} dropped (not valid)`
      : '') +
    '._'
  )
}

/**
 * The `findings` output: plain data, secrets redacted, clipped. This run's
 * findings, then each earlier one that still counts (`posted: 'earlier'`).
 */
export function findingsJson(
  report: ReviewReport,
  secrets: readonly string[]
): unknown[] {
  const text = (s: string) => redactSecrets(s, secrets)
  const standing = standingFindings(report).map((f) => ({
    file: f.file,
    line: f.line ?? f.originalLine,
    start_line: null,
    severity: standingSeverity(f),
    title: text(f.title),
    explanation: null,
    suggestion: null,
    agreement: f.raisedBy ?? null,
    agents: null,
    confirmed: null,
    rejected: null,
    pr_text_only: null,
    votes: null,
    of: f.of ?? null,
    posted: 'earlier',
    fingerprint: f.fingerprint,
    url: f.url
  }))
  return [...thisRunJson(report, text), ...standing]
}

function thisRunJson(
  report: ReviewReport,
  text: (s: string) => string
): unknown[] {
  return report.groups.map((g) => ({
    file: g.anchor.file,
    line: g.anchor.line,
    start_line: g.anchor.startLine ?? null,
    severity: g.severity,
    title: text(g.lead.title),
    explanation: text(clip(g.lead.explanation, 4000)),
    suggestion: g.suggestion === undefined ? null : text(g.suggestion.text),
    suggested_by: g.suggestion?.agent ?? null,
    one_click: g.suggestion ? g.suggestion.notOffered === undefined : null,
    agreement: g.agents.length,
    agents: g.agents,
    confirmed: g.vote ? g.vote.confirmed : null,
    rejected: g.vote ? g.vote.rejected : null,
    pr_text_only: g.vote ? g.vote.prTextOnly : null,
    votes: g.vote
      ? g.vote.votes.map((v) => ({
          agent: v.agent,
          vote: v.ballot,
          line: v.line ?? null,
          evidence: v.evidence ?? null,
          reason: text(v.reason)
        }))
      : null,
    of: report.agentCount,
    posted: g.posted,
    fingerprint: g.fingerprint
  }))
}
