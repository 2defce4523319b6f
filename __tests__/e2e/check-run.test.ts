// The verdict as a check run and the findings as SARIF, end to end: the
// bundled action under Node 24, three agents played by the MassGen stand-in
// (their answers and votes in the layout MassGen 0.1.97 leaves: facts 21 and
// 22 of docs/test-contracts.md; what is proven here is the action's own),
// and the loopback GitHub, whose check-run routes refuse any body GitHub's
// OpenAPI description refuses (test-support/github-checks.ts).
// Run one: 75 findings, so the annotations go in batches of 50; run two on
// the same commit: the agents' votes split, the verdict is `unclear`, and
// the same check run is updated in place. Run three: a token without
// `checks: write` gets one warning, and the rest of the run goes on.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import { createRequire } from 'node:module'
import * as path from 'node:path'
import type { Ajv as AjvCore } from 'ajv'
import {
  startGitHubServer,
  type GitHubServer
} from '../../test-support/github-server.js'
import {
  FAKE_MASSGEN,
  ROOT,
  runAction,
  type ActionRun
} from '../../test-support/run-action.js'
import { findingsBlock, reviewPull } from '../../test-support/review-pull.js'
import { requestBodyErrors } from '../../test-support/openapi.js'
import { event } from '../../test-support/fixtures.js'
import {
  NO_LLM_URL,
  scriptedAgents,
  threeAgentReview
} from '../../test-support/pr-run.js'
import { FIXTURE_HEAD_SHA } from '../../test-support/sample-pull.js'

const AGENTS = ['agent_a', 'agent_b', 'agent_c'] as const
const NAME = 'MassGen review (massgen)'

let github: GitHubServer
beforeAll(async () => {
  github = await startGitHubServer({ issues: [42] })
  github.state.pulls['42'] = reviewPull()
})
afterAll(async () => {
  await github.close()
})

type Severity = 'blocker' | 'concern' | 'nit'

/** 25 findings of one agent (the cap), ten lines apart: never grouped. */
function findings(agent: number, severity: (i: number) => Severity) {
  return Array.from({ length: 25 }, (_, i) => ({
    file: 'src/parser.ts',
    line: 1000 + (agent * 25 + i) * 10,
    severity: severity(i),
    title: `Finding ${agent}-${i}: [click](https://evil.example/${i}) @octocat`,
    explanation: `Why ${agent}-${i}. \u001b[31m Red text.`
  }))
}

async function review(
  agents: Record<string, { findings: unknown[]; voteFor: string }>,
  inputs: Record<string, string>
): Promise<ActionRun> {
  const script = Object.fromEntries(
    (['a', 'b', 'c'] as const).map((x) => {
      const a = agents[x] as { findings: unknown[]; voteFor: string }
      return [
        `agent_${x}`,
        {
          answer: `Review by agent ${x}.\n\n${findingsBlock(a.findings)}`,
          voteFor: a.voteFor
        }
      ]
    })
  )
  return runAction({
    eventName: 'pull_request',
    payload: event('pull_request.opened'),
    githubApiUrl: github.url,
    env: scriptedAgents(script),
    inputs: {
      ...threeAgentReview(NO_LLM_URL, FAKE_MASSGEN),
      // Each finding counts on its raiser's word (min-agreement 1): the
      // check run is under test here, not the vote (review-vote.test.ts).
      'finding-vote': 'false',
      ...inputs
    }
  })
}

const checkRequests = () =>
  github.requests.filter((r) => r.path.includes('/check-runs'))

// The OASIS schema (draft-04); __fixtures__/sarif/README.md says where from.
const Ajv04 = createRequire(import.meta.url)('ajv-draft-04') as typeof AjvCore
const validateSarif = new Ajv04({
  allErrors: true,
  strict: false,
  validateFormats: false
}).compile(
  JSON.parse(
    fs.readFileSync(
      path.join(ROOT, '__fixtures__', 'sarif', 'sarif-schema-2.1.0.json'),
      'utf8'
    )
  ) as Record<string, unknown>
)

describe('the verdict as a check run', () => {
  it('run one creates it with 75 annotations in batches of 50, and writes a valid SARIF file', async () => {
    const sev = (i: number): Severity =>
      (['blocker', 'concern', 'nit'] as const)[i % 3] ?? 'nit'
    const run = await review(
      {
        a: { findings: findings(0, sev), voteFor: 'agent_b' },
        b: { findings: findings(1, sev), voteFor: 'agent_b' },
        c: { findings: findings(2, sev), voteFor: 'agent_b' }
      },
      { 'fail-on': 'blocker' }
    )
    expect(run.outputs.status).toBe('success')
    expect(run.outputs.verdict).toBe('blockers')
    expect(run.exitCode).toBe(1)
    // The report opens with the verdict in words and counts.
    expect(run.summary.split('\n')[0]).toMatch(
      /^### 🔴 MassGen review( \(.+\))?: \d+ blockers \((each )?(raised|confirmed) by [^)]+ of 3 models\) and \d+ concerns \([^)]+\) to fix before merging$/
    )

    expect(github.state.checkRuns).toHaveLength(1)
    const check = github.state.checkRuns[0]
    if (!check) throw new Error('no check run')
    expect(check).toMatchObject({
      name: NAME,
      headSha: FIXTURE_HEAD_SHA,
      status: 'completed',
      conclusion: 'failure'
    })
    expect(check.annotations).toHaveLength(75)
    expect(check.output.title).toContain('blockers')
    // The first request creates it; the rest are updates, 50 at most each.
    const writes = checkRequests().filter((r) => r.method !== 'GET')
    expect(writes.map((r) => r.method)).toEqual(['POST', 'PATCH'])
    const sizes = writes.map(
      (r) =>
        (r.body as { output?: { annotations?: unknown[] } }).output?.annotations
          ?.length
    )
    expect(sizes).toEqual([50, 25])
    expect(run.outputs['check-run-url']).toBe(
      `https://github.com/octo-org/octo-repo/runs/${check.id}`
    )
    // attack: annotation text holds no control character.
    // eslint-disable-next-line no-control-regex
    expect(check.annotations.some((a) => /\u001b/.test(a.message))).toBe(false)

    const file = run.outputs['sarif-file'] ?? ''
    expect(file).not.toBe('')
    const sarif = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      runs: Array<{
        results: Array<{ message: { text: string } }>
        tool: { extensions: Array<{ name: string; properties: unknown }> }
      }>
    }
    expect(validateSarif(sarif)).toBe(true)
    expect(sarif.runs[0]?.results).toHaveLength(75)
    expect(sarif.runs[0]?.tool.extensions.map((e) => e.name)).toEqual([
      ...AGENTS
    ])
    // attack: no embedded link survives in a result's text.
    for (const r of sarif.runs[0]?.results ?? [])
      expect(r.message.text).not.toMatch(/(^|[^\\])\[click\]/)
  })

  it("run two on the same commit: the votes split, 'unclear' fails the gate, the same run is updated in place", async () => {
    const before = checkRequests().length
    const run = await review(
      {
        a: {
          findings: findings(0, () => 'blocker').slice(0, 3),
          voteFor: 'agent_a'
        },
        b: {
          findings: findings(1, () => 'concern').slice(0, 3),
          voteFor: 'agent_b'
        },
        c: {
          findings: findings(2, () => 'nit').slice(0, 3),
          voteFor: 'agent_c'
        }
      },
      // min-agreement 2: no finding counts (each agent raised its own), so
      // the split decides; a counted blocker would (src/review/tally.ts).
      { 'fail-on': 'blocker, unclear', 'min-agreement': '2' }
    )
    expect(run.outputs.status).toBe('success')
    expect(run.outputs.verdict).toBe('unclear')
    expect(run.exitCode).toBe(1)
    expect(run.summary.split('\n')[0]).toMatch(
      /^### ❔ MassGen review( \(.+\))? unclear: the models' votes split with no majority on the outcome$/
    )
    expect(run.stdout).toContain("verdict is 'unclear'")

    expect(github.state.checkRuns).toHaveLength(1)
    const check = github.state.checkRuns[0]
    expect(check?.conclusion).toBe('failure')
    expect(check?.output.title).toContain('unclear')
    const now = checkRequests().slice(before)
    // Find it, read its annotations (only new ones are sent), update it.
    expect(now.map((r) => r.method)).toEqual(['GET', 'GET', 'PATCH'])
    expect(now[2]?.path).toBe(
      `/repos/octo-org/octo-repo/check-runs/${check?.id}`
    )
    for (const r of checkRequests().filter((x) => x.method !== 'GET'))
      expect(
        requestBodyErrors(
          r.method === 'POST'
            ? 'POST /repos/{owner}/{repo}/check-runs'
            : 'PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}',
          r.body
        )
      ).toEqual([])
  })

  it('run three without checks: write: one warning naming the permission, and the review still goes out', async () => {
    github.state.checksPermission = 'none'
    const reviews = github.state.reviews.length
    const run = await review(
      {
        // Places no earlier run named: new findings, so a new review.
        a: {
          findings: findings(3, () => 'concern').slice(0, 2),
          voteFor: 'agent_b'
        },
        b: {
          findings: findings(4, () => 'concern').slice(0, 2),
          voteFor: 'agent_b'
        },
        c: { findings: [], voteFor: 'agent_b' }
      },
      {}
    )
    expect(run.outputs.status).toBe('success')
    expect(run.exitCode).toBe(0)
    expect(run.outputs['check-run-url']).toBe('')
    const warnings = run.stdout
      .split('\n')
      .filter((l) => l.startsWith('::warning::') && l.includes('check run'))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('checks: write')
    expect(github.state.reviews.length).toBeGreaterThan(reviews)
    expect(run.summary).toContain('🔎 Findings')
  })
})
