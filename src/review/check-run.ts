// The check run's content: its name, conclusion, title, summary and the
// annotations, one per counted finding, split into the batches of 50 the
// Checks API takes per request. Pure.
//
// Annotations are shown as plain text (no markdown), but still hostile:
// control characters out, secrets redacted, every field cut to GitHub's
// limits (title 255 characters, message 64 KB; summary 65,535 characters).
import type {
  CheckAnnotation,
  CheckConclusion,
  CheckRunWrite
} from '../github/checks.js'
import { ANNOTATIONS_PER_REQUEST } from '../github/checks.js'
import type { Outcome } from '../core/types.js'
import { redactSecrets } from '../safety/redact.js'
import { truncateMarkdown } from '../safety/markdown.js'
import { clip } from '../core/text.js'
import { gateFails } from './counted.js'
import {
  countsBySeverity,
  gatingFindings,
  standingFindings,
  standingSeverity
} from './standing.js'
import { VERDICT_LABEL } from './render.js'
import type {
  EarlierFinding,
  FailOn,
  ReviewedGroup,
  ReviewReport,
  Severity
} from '../core/review.js'

/** The Checks API's limit on output.summary (characters). */
const SUMMARY_CHARS = 65_535
const ANNOTATION_TITLE_CHARS = 255
/** Far under GitHub's 64 KB: the finding's explanation is at most 4,000. */
const ANNOTATION_MESSAGE_CHARS = 8_000

const LEVEL: Record<Severity, CheckAnnotation['annotation_level']> = {
  blocker: 'failure',
  concern: 'warning',
  nit: 'notice'
}

/** The check run's name: after the comment tag, so matrix jobs keep theirs apart. */
export function checkRunName(tag: string): string {
  return `MassGen review (${tag})`
}

/** Names the action's own run, so a job of the same name is never taken for it. */
export function checkRunExternalId(tag: string): string {
  return `massgen-action:${tag}`
}

interface Gate {
  failOn: FailOn
  failOnUnclear: boolean
}

/** failure when the verdict crosses `fail-on`, success on pass, else neutral. */
export function verdictConclusion(
  verdict: ReviewReport['verdict'],
  gate: Gate
): CheckConclusion {
  if (gateFails(verdict, gate.failOn, gate.failOnUnclear)) return 'failure'
  return verdict === 'pass' ? 'success' : 'neutral'
}

/** A run that gave no verdict: the check says so rather than passing. */
export function outcomeConclusion(outcome: Outcome): CheckConclusion {
  if (outcome === 'timeout') return 'timed_out'
  if (outcome === 'cancelled') return 'cancelled'
  return 'failure'
}

/** Plain text: no control characters but line breaks, secrets redacted. */
function plain(text: string, secrets: readonly string[], max: number): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, ' ')
  return clip(redactSecrets(clean, secrets).trim(), max)
}

export function annotationOf(
  group: ReviewedGroup,
  agentCount: number,
  secrets: readonly string[]
): CheckAnnotation {
  const { file, line, startLine } = group.anchor
  const who = `Raised by ${group.agents.length}/${agentCount} agents: ${group.agents.join(', ')}.`
  const explanation = group.lead.explanation.trim()
  return {
    path: file,
    start_line: startLine ?? line,
    end_line: line,
    annotation_level: LEVEL[group.severity],
    title: plain(
      `${group.severity}: ${group.lead.title}`,
      secrets,
      ANNOTATION_TITLE_CHARS
    ),
    message: plain(
      explanation ? `${explanation}\n\n${who}` : who,
      secrets,
      ANNOTATION_MESSAGE_CHARS
    )
  }
}

/** An earlier finding that still stands (standing.ts), at its line. */
function standingAnnotation(
  f: EarlierFinding,
  secrets: readonly string[]
): CheckAnnotation[] {
  const line = f.line ?? f.originalLine
  if (!line) return []
  const severity = standingSeverity(f)
  const agreed =
    f.raisedBy !== undefined && f.of !== undefined
      ? ` by ${f.raisedBy}/${f.of} agents`
      : ''
  return [
    {
      path: f.file,
      start_line: line,
      end_line: line,
      annotation_level: LEVEL[severity],
      title: plain(
        `${severity}: ${f.title || 'a finding of an earlier review'}`,
        secrets,
        ANNOTATION_TITLE_CHARS
      ),
      message: plain(
        `Raised${agreed} in an earlier review and still open: ${f.url}`,
        secrets,
        ANNOTATION_MESSAGE_CHARS
      )
    }
  ]
}

export function annotationsOf(
  report: ReviewReport,
  secrets: readonly string[]
): CheckAnnotation[] {
  return [
    ...gatingFindings(report).map((g) =>
      annotationOf(g, report.agentCount, secrets)
    ),
    ...standingFindings(report).flatMap((f) => standingAnnotation(f, secrets))
  ]
}

export function checkTitle(report: ReviewReport): string {
  const counts = countsBySeverity(report)
  const standing = standingFindings(report).length
  const label = VERDICT_LABEL[report.verdict]
  return (
    `${label}: ${counts.blocker} blocker(s), ${counts.concern} concern(s), ` +
    `${counts.nit} nit(s)` +
    (standing ? ` (${standing} left open by earlier reviews)` : '')
  )
}

export function boundedSummary(markdown: string): string {
  return truncateMarkdown(
    markdown,
    SUMMARY_CHARS,
    '_✂️ Cut to fit; the job summary has every finding._'
  )
}

/**
 * The requests that write one run, each with at most 50 annotations (GitHub
 * appends each update's to the run's). Every one carries the conclusion: a
 * later batch that fails leaves the run concluded, never stuck in progress
 * (an in-progress required check blocks the merge).
 */
export function checkRunWrites(
  content: {
    title: string
    summary: string
    conclusion: CheckConclusion
    detailsUrl?: string
    annotations: CheckAnnotation[]
  },
  completedAt: string
): CheckRunWrite[] {
  const batches: CheckAnnotation[][] = []
  for (let i = 0; i < content.annotations.length; i += ANNOTATIONS_PER_REQUEST)
    batches.push(content.annotations.slice(i, i + ANNOTATIONS_PER_REQUEST))
  if (batches.length === 0) batches.push([])
  const output = { title: content.title, summary: content.summary }
  return batches.map((annotations): CheckRunWrite => ({
    status: 'completed',
    conclusion: content.conclusion,
    completedAt,
    ...(content.detailsUrl ? { detailsUrl: content.detailsUrl } : {}),
    output: annotations.length ? { ...output, annotations } : output
  }))
}
