// The SARIF file of the counted findings: valid against the published OASIS
// SARIF 2.1.0 schema (__fixtures__/sarif/README.md says where it is from),
// checked with ajv; hostile finding text and paths cannot link or climb.
import { describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { createRequire } from 'node:module'
import type { Ajv as AjvCore } from 'ajv'
import type { Finding } from '../../src/core/review.js'
import { groupFindings } from '../../src/review/group.js'
import {
  repoRelativeUri,
  reviewSarif,
  sarifText,
  SARIF_SCHEMA_URI
} from '../../src/review/sarif.js'
import type { ReviewReport } from '../../src/core/review.js'
import { ROOT } from '../../test-support/run-action.js'

const schema = JSON.parse(
  fs.readFileSync(
    path.join(ROOT, '__fixtures__', 'sarif', 'sarif-schema-2.1.0.json'),
    'utf8'
  )
) as Record<string, unknown>

// The schema's formats (uri, uri-reference, date-time) are checked too.
// CommonJS without a named export: required, not imported (NodeNext).
const Ajv04 = createRequire(import.meta.url)('ajv-draft-04') as typeof AjvCore
const ajv = new Ajv04({ allErrors: true, strict: false })
const FORMATS: Record<string, RegExp> = {
  uri: /^[a-z][a-z0-9+.-]*:[^\s]*$/i,
  'uri-reference': /^[^\s\\]*$/,
  'date-time':
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/
}
for (const [name, re] of Object.entries(FORMATS)) ajv.addFormat(name, re)
const validate = ajv.compile(schema)

function finding(i: number, extra: Partial<Finding> = {}): Finding {
  return {
    agent: `agent_${'abc'[i % 3]}`,
    file: 'src/parser.ts',
    line: 10 + i * 10,
    severity: (['blocker', 'concern', 'nit'] as const)[i % 3] ?? 'nit',
    title: `Problem number ${i}`,
    explanation: `Explanation ${i}.`,
    ...extra
  }
}

function reportOf(findings: Finding[], minAgreement = 1): ReviewReport {
  return {
    verdict: 'blockers',
    groups: groupFindings(findings, undefined).map((g) => ({
      ...g,
      posted: 'inline' as const
    })),
    agentCount: 3,
    agentsWithBlock: 3,
    minSeverity: 'nit',
    maxInlineComments: 50,
    dropped: 0,
    minAgreement
  }
}

const AGENTS = [
  { id: 'agent_a', backend: 'openai', model: 'gpt-5.4' },
  { id: 'agent_b', backend: 'gemini', model: 'gemini-3.1-pro-preview' },
  { id: 'agent_c', backend: 'claude', model: 'claude-opus-4-5' }
]

describe('SARIF 2.1.0', () => {
  it('validates against the published schema: rules, locations, levels, agreement, the models', () => {
    const shared = finding(0)
    const report = reportOf([
      shared,
      { ...shared, agent: 'agent_b', line: 11 },
      finding(1, { startLine: 15, line: 20 }),
      finding(2)
    ])
    const { log, left } = reviewSarif(report, {
      massgenVersion: '0.1.97',
      agents: AGENTS,
      secrets: []
    })
    expect(left).toBe(0)
    // The validator does refuse: a driver needs a name, a result a message.
    expect(
      validate({ version: '2.1.0', runs: [{ tool: { driver: {} } }] })
    ).toBe(false)
    expect(validate(log)).toBe(true)
    expect(validate.errors ?? []).toEqual([])
    expect(log.$schema).toBe(SARIF_SCHEMA_URI)
    const run = log.runs[0]
    if (!run) throw new Error('no run')
    expect(run.tool.driver.rules?.map((r) => r.id)).toEqual([
      'massgen/blocker',
      'massgen/concern',
      'massgen/nit'
    ])
    expect(
      run.tool.extensions?.map((e) => e.properties?.model as unknown)
    ).toEqual(AGENTS.map((a) => a.model))
    const [first] = run.results ?? []
    expect(first).toMatchObject({
      ruleId: 'massgen/blocker',
      level: 'error',
      properties: { agreement: 2, agents: ['agent_a', 'agent_b'], of: 3 }
    })
    expect(first?.locations?.[0]?.physicalLocation?.artifactLocation?.uri).toBe(
      'src/parser.ts'
    )
    const ranged = run.results?.find((r) => r.level === 'warning')
    expect(ranged?.locations?.[0]?.physicalLocation?.region).toEqual({
      startLine: 15,
      endLine: 20
    })
  })

  it('holds only the counted findings (min-agreement)', () => {
    const shared = finding(0)
    const report = reportOf(
      [shared, { ...shared, agent: 'agent_b' }, finding(1)],
      2
    )
    const { log } = reviewSarif(report, {
      massgenVersion: '0.1.97',
      agents: AGENTS,
      secrets: []
    })
    expect(log.runs[0]?.results).toHaveLength(1)
    expect(validate(log)).toBe(true)
  })

  it('attack: finding text cannot link, ping or leak, and stays bounded', () => {
    const report = reportOf([
      finding(0, {
        title: 'Click [here](https://evil.example/x) or [me](0)',
        explanation: `sk-secret-value-123456 \\[x](1) \u0007${'y'.repeat(20_000)}`
      })
    ])
    const { log } = reviewSarif(report, {
      massgenVersion: '0.1.97',
      agents: [{ id: 'agent_[a](https://evil.example)', model: '[m](1)' }],
      secrets: ['sk-secret-value-123456']
    })
    expect(validate(log)).toBe(true)
    const text = log.runs[0]?.results?.[0]?.message.text ?? ''
    expect(text).not.toContain('sk-secret-value-123456')
    expect(text).not.toContain('\u0007')
    expect(text.length).toBeLessThan(10_000)
    // Every bracket is escaped: no `[text](target)` is left to link.
    expect(text.replace(/\\[\\[\]]/g, '')).not.toMatch(/[[\]]/)
    expect(JSON.stringify(log.runs[0]?.tool.extensions)).not.toMatch(/[^\\]\[/)
  })

  it('attack: a path that climbs, is absolute, has a scheme or a backslash is left out', () => {
    for (const bad of [
      '../etc/passwd',
      'src/../../x',
      '/etc/passwd',
      'src/./a.ts',
      'a\\b.ts',
      'src//a.ts',
      'a\u0000b'
    ])
      expect(repoRelativeUri(bad)).toBeUndefined()
    expect(repoRelativeUri('https://evil.example/x')).toBeUndefined()
    expect(repoRelativeUri('https:/x')).toBe('https%3A/x')
    expect(repoRelativeUri('docs/a b#c.md')).toBe('docs/a%20b%23c.md')
    const report = reportOf([finding(0, { file: '../etc/passwd' }), finding(1)])
    const { log, left } = reviewSarif(report, {
      massgenVersion: '0.1.97',
      agents: AGENTS,
      secrets: []
    })
    expect(left).toBe(1)
    expect(log.runs[0]?.results).toHaveLength(1)
    expect(validate(log)).toBe(true)
  })

  it('escapes brackets and backslashes in plain text', () => {
    expect(sarifText('a [b](c) \\ d', [], 100)).toBe('a \\[b\\](c) \\\\ d')
  })
})
