// The counted findings as SARIF 2.1.0, for code scanning (upload-sarif):
// this run's and every earlier one that still stands (standing.ts), so an
// incremental run does not close the alerts of findings still open.
// Pure. One rule per severity; each result carries its agreement in its
// properties and a partial fingerprint (the group's), so code scanning
// tracks one alert across runs; the agents' models are the tool's
// extensions.
//
// Finding text is hostile. SARIF message text is plain text, but `[text](n)`
// is an embedded link there (SARIF 2.1.0 §3.11.6): every `[`, `]` and `\` is
// escaped, so a finding cannot link anywhere. Locations are repo-relative
// URIs only: no scheme, no leading `/`, no `.` or `..` segment, no
// backslash or control character; a finding whose path is not that is left
// out (and counted). Every text is cut, and the results are capped.
import type { Log, ReportingDescriptor, Result, ToolComponent } from 'sarif'
import { redactSecrets } from '../safety/redact.js'
import { clip } from '../core/text.js'
import {
  gatingFindings,
  standingFindings,
  standingSeverity
} from './standing.js'
import type { EarlierFinding, ReviewReport, Severity } from '../core/review.js'

export const SARIF_SCHEMA_URI =
  'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json'
/** Far below code scanning's 25,000 results per run. */
const MAX_SARIF_RESULTS = 1_000
const SARIF_MESSAGE_CHARS = 4_500
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f]/g
const INFORMATION_URI = 'https://github.com/massgen/massgen-action'

const LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = {
  blocker: 'error',
  concern: 'warning',
  nit: 'note'
}

const RULES: Record<Severity, ReportingDescriptor> = {
  blocker: rule(
    'blocker',
    'A problem the agents say must be fixed before merging.'
  ),
  concern: rule('concern', 'A problem the agents say should be looked at.'),
  nit: rule('nit', 'A small improvement the agents suggest.')
}

function rule(severity: Severity, description: string): ReportingDescriptor {
  return {
    id: `massgen/${severity}`,
    name: `MassGen${severity[0]?.toUpperCase()}${severity.slice(1)}`,
    shortDescription: { text: `MassGen review: ${severity}` },
    fullDescription: { text: description },
    defaultConfiguration: { level: LEVEL[severity] },
    properties: { tags: ['massgen', 'review'] }
  }
}

interface SarifAgent {
  id: string
  backend?: string
  model?: string
}

/** A repo-relative path as a URI reference, or undefined when it is not one. */
export function repoRelativeUri(file: string): string | undefined {
  if (!file || file.length > 1024) return undefined
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(file)) return undefined
  if (file.startsWith('/')) return undefined
  const segments = file.split('/')
  if (segments.some((s) => s === '' || s === '.' || s === '..'))
    return undefined
  // A scheme (`https:`, `file:`) would make it absolute: encodeURIComponent
  // turns every `:` into %3A.
  return segments.map((s) => encodeURIComponent(s)).join('/')
}

/** Plain message text: no embedded links, no control characters, cut. */
export function sarifText(
  text: string,
  secrets: readonly string[],
  max: number
): string {
  const clean = redactSecrets(text, secrets).replace(CONTROL, ' ')
  return clip(clean.trim(), max).replace(/[\\[\]]/g, (c) => `\\${c}`)
}

function extension(
  agent: SarifAgent,
  secrets: readonly string[]
): ToolComponent {
  const clean = (s: string | undefined) =>
    s === undefined ? undefined : sarifText(s, secrets, 200)
  return {
    name: clean(agent.id) ?? 'agent',
    properties: {
      ...(agent.backend ? { backend: clean(agent.backend) } : {}),
      ...(agent.model ? { model: clean(agent.model) } : {})
    }
  }
}

export function reviewSarif(
  report: ReviewReport,
  context: {
    massgenVersion: string
    agents: SarifAgent[]
    secrets: readonly string[]
  }
): { log: Log; left: number } {
  const counted = gatingFindings(report)
  const results: Result[] = []
  let left = 0
  for (const g of counted) {
    const uri = repoRelativeUri(g.anchor.file)
    if (!uri || results.length >= MAX_SARIF_RESULTS) {
      left++
      continue
    }
    const { line, startLine } = g.anchor
    const title = g.lead.title.trim()
    const explanation = g.lead.explanation.trim()
    results.push({
      ruleId: `massgen/${g.severity}`,
      level: LEVEL[g.severity],
      message: {
        text: sarifText(
          explanation ? `${title}: ${explanation}` : title,
          context.secrets,
          SARIF_MESSAGE_CHARS
        )
      },
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri },
            region: { startLine: startLine ?? line, endLine: line }
          }
        }
      ],
      partialFingerprints: { 'massgenFinding/v1': g.fingerprint },
      properties: {
        agreement: g.agents.length,
        agents: g.agents.map((a) => sarifText(a, context.secrets, 200)),
        of: report.agentCount,
        posted: g.posted
      }
    })
  }
  for (const f of standingFindings(report)) {
    const result = standingResult(f, context.secrets)
    if (!result || results.length >= MAX_SARIF_RESULTS) left++
    else results.push(result)
  }
  const severities: Severity[] = ['blocker', 'concern', 'nit']
  return {
    log: {
      $schema: SARIF_SCHEMA_URI,
      version: '2.1.0',
      runs: [
        {
          tool: {
            driver: {
              name: 'MassGen review',
              informationUri: INFORMATION_URI,
              version: sarifText(context.massgenVersion, [], 100),
              rules: severities.map((s) => RULES[s])
            },
            extensions: context.agents.map((a) => extension(a, context.secrets))
          },
          results,
          properties: {
            verdict: report.verdict,
            minAgreement: report.minAgreement
          }
        }
      ]
    },
    left
  }
}

/** An earlier finding still open, under the fingerprint it was first posted with. */
function standingResult(
  f: EarlierFinding,
  secrets: readonly string[]
): Result | undefined {
  const uri = repoRelativeUri(f.file)
  const line = f.line ?? f.originalLine
  if (!uri || !line) return undefined
  const severity = standingSeverity(f)
  return {
    ruleId: `massgen/${severity}`,
    level: LEVEL[severity],
    message: {
      text: sarifText(
        `${f.title || 'A finding of an earlier review'} (left open by an earlier review)`,
        secrets,
        SARIF_MESSAGE_CHARS
      )
    },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri },
          region: { startLine: line, endLine: line }
        }
      }
    ],
    partialFingerprints: { 'massgenFinding/v1': f.fingerprint },
    properties: {
      ...(f.raisedBy !== undefined ? { agreement: f.raisedBy } : {}),
      ...(f.of !== undefined ? { of: f.of } : {}),
      posted: 'earlier'
    }
  }
}
