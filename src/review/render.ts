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
import type { FindingGroup, Verdict } from '../core/review.js'
import type { Posted, ReviewedGroup, ReviewReport } from '../core/review.js'
import { defuseStickyMarkers } from '../github/sticky-marker.js'
import { clip } from '../core/text.js'

const FINDING_MARKER = 'massgen-action:finding'
const DEFUSED_FINDING_MARKER = 'massgen-action\u2236finding'

const SEVERITY_LABEL: Record<Severity, string> = {
  blocker: '🔴 Blocker',
  concern: '🟠 Concern',
  nit: '🟡 Nit'
}

const VERDICT_LABEL: Record<Verdict, string> = {
  pass: '✅ pass',
  concerns: '🟠 concerns',
  blockers: '🔴 blockers'
}

const POSTED_LABEL: Record<Posted, string> = {
  inline: 'inline',
  body: 'review body (not a diff line)',
  refused: 'review body (GitHub refused the line)',
  hidden: `summary only (below min-agreement)`,
  duplicate: 'already posted'
}

/** Inline comments are review comments: GitHub's limit is the same. */
const COMMENT_CHARS = 60_000
const BODY_EXPLANATION_CHARS = 300
const MAX_TABLE_ROWS = 50

export interface ReviewTextContext {
  tag: string
  /** Agents whose answers were read: the denominator of `2/3 agents`. */
  agentCount: number
  secrets: string[]
  runUrl?: string
}

function safeTag(tag: string): string {
  return tag.replace(/[^A-Za-z0-9._-]/g, '_').replace(/-{2,}/g, '-')
}

/** The hidden marker of one finding: its tag, fingerprint and title words. */
function findingMarker(tag: string, group: FindingGroup): string {
  return `<!-- ${FINDING_MARKER} tag=${safeTag(tag)} fp=${group.fingerprint} -->`
}

interface MarkerFields {
  tag: string
  fingerprint: string
}

const MARKER_RE =
  /<!-- massgen-action:finding tag=([A-Za-z0-9._-]{1,64}) fp=([0-9a-f]{16}) -->/

/** The marker that is the whole first line of an inline comment. */
export function commentMarker(body: string): MarkerFields | undefined {
  const end = body.indexOf('\n')
  const first = (end < 0 ? body : body.slice(0, end)).trimEnd()
  const m = new RegExp(`^${MARKER_RE.source}$`).exec(first)
  return m ? { tag: m[1] as string, fingerprint: m[2] as string } : undefined
}

/** The markers that end lines of a review body (one per finding listed). */
export function bodyMarkers(body: string): MarkerFields[] {
  const ending = new RegExp(`${MARKER_RE.source}$`)
  return body
    .split('\n')
    .map((line) => ending.exec(line.trimEnd()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ tag: m[1] as string, fingerprint: m[2] as string }))
}

/** Any marker name in generated text is broken (same length, looks alike). */
export function defuseMarkers(text: string): string {
  const out = defuseStickyMarkers(text)
  return out.includes(FINDING_MARKER)
    ? out.split(FINDING_MARKER).join(DEFUSED_FINDING_MARKER)
    : out
}

function agreement(group: FindingGroup, agentCount: number): string {
  return `${group.agents.length}/${agentCount} agent${agentCount === 1 ? '' : 's'}`
}

function raisedBy(group: FindingGroup, ctx: ReviewTextContext): string {
  return group.agents.map((a) => cell(a, ctx.secrets, 60)).join(', ')
}

function headline(group: FindingGroup, ctx: ReviewTextContext): string {
  return (
    `**${SEVERITY_LABEL[group.severity]}** · ${agreement(group, ctx.agentCount)} ` +
    `(${raisedBy(group, ctx)}): **${cell(group.lead.title, ctx.secrets, 200)}**`
  )
}

function suggestionBlock(text: string, secrets: string[]): string {
  const body = redactSecrets(text, secrets)
  const fence = fenceFor(body)
  return `${fence}suggestion\n${body}\n${fence}`
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
    explanation ? safeMarkdown(explanation, ctx.secrets) : '',
    withSuggestion && group.suggestion !== undefined
      ? suggestionBlock(group.suggestion, ctx.secrets)
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
      : ''
  ]
  const text = defuseMarkers(
    redactSecrets(parts.filter(Boolean).join('\n\n'), ctx.secrets)
  )
  return `${findingMarker(ctx.tag, group)}\n${truncateMarkdown(text, COMMENT_CHARS, '_✂️ Cut to fit._')}`
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
    ` ${findingMarker(ctx.tag, group)}`
  )
}

export function reviewBody(
  report: ReviewReport,
  ctx: ReviewTextContext
): string {
  const inline = report.groups.filter((g) => g.posted === 'inline').length
  const outside = report.groups.filter(
    (g) => g.posted === 'body' || g.posted === 'refused'
  )
  const hidden = report.groups.filter((g) => g.posted === 'hidden').length
  const tag = ctx.tag !== 'massgen' ? ` (${cell(ctx.tag, [], 64)})` : ''
  const parts = [
    `### 🔎 MassGen review${tag}: ${VERDICT_LABEL[report.verdict]}`,
    `${report.groups.length} finding${report.groups.length === 1 ? '' : 's'} from ` +
      `${report.agentCount} agent${report.agentCount === 1 ? '' : 's'}: ${inline} inline, ` +
      `${outside.length} below` +
      (hidden
        ? `, ${hidden} raised by fewer than ${report.minAgreement} agents (in the job summary only)`
        : '') +
      '. Each finding says how many agents raised it.',
    outside.length
      ? [
          '#### Findings outside the diff',
          ...outside.map((g) => bodyLine(g, ctx))
        ].join('\n\n')
      : '',
    link('Workflow run', ctx.runUrl)
  ]
  const text = parts.filter(Boolean).join('\n\n')
  return truncateMarkdown(
    text,
    COMMENT_CHARS,
    '_✂️ Cut to fit; the job summary has every finding._'
  )
}

/** The findings table for the job summary and the sticky comment. */
export function findingsSection(
  report: ReviewReport,
  ctx: ReviewTextContext
): string {
  const review = link('the review', report.reviewUrl)
  const head =
    `#### 🔎 Review findings: ${VERDICT_LABEL[report.verdict]}` +
    (review ? ` · see ${review}` : '')
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
  if (report.groups.length === 0)
    return [head, 'No findings.', note, dropped, noBlock]
      .filter(Boolean)
      .join('\n\n')
  const rows = report.groups
    .slice(0, MAX_TABLE_ROWS)
    .map(
      (g) =>
        `| ${agreement(g, ctx.agentCount)} | ${SEVERITY_LABEL[g.severity]} ` +
        `| ${cell(place(g), ctx.secrets, 200)} | ${cell(g.lead.title, ctx.secrets, 200)} ` +
        `| ${raisedBy(g, ctx)} | ${POSTED_LABEL[g.posted]} |`
    )
  const more = report.groups.length - rows.length
  return [
    head,
    [
      '| Agreement | Severity | Where | Finding | Raised by | Posted |',
      '| --- | --- | --- | --- | --- | --- |',
      ...rows
    ].join('\n'),
    more > 0 ? `_…and ${more} more (see the findings output)._` : '',
    note,
    dropped,
    noBlock
  ]
    .filter(Boolean)
    .join('\n\n')
}

/** The `findings` output: plain data, secrets redacted, clipped. */
export function findingsJson(
  report: ReviewReport,
  secrets: string[]
): unknown[] {
  const text = (s: string) => redactSecrets(s, secrets)
  return report.groups.map((g) => ({
    file: g.anchor.file,
    line: g.anchor.line,
    start_line: g.anchor.startLine ?? null,
    severity: g.severity,
    title: text(g.lead.title),
    explanation: text(clip(g.lead.explanation, 4000)),
    suggestion: g.suggestion === undefined ? null : text(g.suggestion),
    agreement: g.agents.length,
    agents: g.agents,
    of: report.agentCount,
    posted: g.posted,
    fingerprint: g.fingerprint
  }))
}
