// The verdict as a check run: the pure parts (conclusion, annotations,
// batches of 50) and the writes through the real Octokit client against the
// loopback GitHub, whose check-run routes refuse any body GitHub's OpenAPI
// description refuses; every request sent and every answer given is checked
// against that description here too.
import { afterEach, describe, expect, it } from '@jest/globals'
import { createGitHub, type GitHubApi } from '../../src/github/api.js'
import { ANNOTATIONS_PER_REQUEST } from '../../src/github/checks.js'
import {
  annotationOf,
  checkRunExternalId,
  checkRunName,
  checkRunWrites,
  verdictConclusion
} from '../../src/review/check-run.js'
import type { Finding } from '../../src/core/review.js'
import { groupFindings } from '../../src/review/group.js'
import { gateFails } from '../../src/review/counted.js'
import { CHECKS_HINT, writeCheckRun } from '../../src/review/publish.js'
import { votesSplit } from '../../src/review/split.js'
import type { ReviewReport } from '../../src/core/review.js'
import {
  startGitHubServer,
  type GitHubServer
} from '../../test-support/github-server.js'
import { requestBodyErrors, schemaErrors } from '../../test-support/openapi.js'
import { reviewPull } from '../../test-support/review-pull.js'
import { FIXTURE_HEAD_SHA } from '../../test-support/sample-pull.js'

let server: GitHubServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

function finding(i: number, extra: Partial<Finding> = {}): Finding {
  return {
    agent: `agent_${'abc'[i % 3]}`,
    file: 'src/parser.ts',
    // Ten lines apart: never the same finding.
    line: 10 + i * 10,
    severity: (['blocker', 'concern', 'nit'] as const)[i % 3] ?? 'nit',
    title: `Problem number ${i} in the parser`,
    explanation: `Explanation ${i}.`,
    ...extra
  }
}

function reportOf(
  findings: Finding[],
  verdict: ReviewReport['verdict'] = 'blockers'
): ReviewReport {
  return {
    verdict,
    groups: groupFindings(findings, undefined).map((g) => ({
      ...g,
      posted: 'inline' as const
    })),
    agentCount: 3,
    agentsWithBlock: 3,
    minSeverity: 'nit',
    maxInlineComments: 50,
    dropped: 0,
    minAgreement: 1
  }
}

const quiet = () => {
  const warnings: string[] = []
  return {
    warnings,
    log: { info: () => {}, warning: (m: string) => void warnings.push(m) }
  }
}

async function connect(
  state: Parameters<typeof startGitHubServer>[0] = {}
): Promise<{ github: GitHubApi; server: GitHubServer }> {
  const s = await startGitHubServer({ issues: [42], ...state })
  s.state.pulls['42'] = reviewPull()
  server = s
  const github = createGitHub({
    token: 'ghs_test',
    owner: 'octo-org',
    repo: 'octo-repo',
    apiUrl: s.url,
    log: { info: () => {}, debug: () => {}, warning: () => {} },
    timing: { retryAfterBaseMs: 10, retries: 0 }
  })
  return { github, server: s }
}

const GATE = { failOn: 'blocker' as const, failOnUnclear: false }

function input(report: ReviewReport | undefined) {
  return {
    tag: 'massgen',
    headSha: FIXTURE_HEAD_SHA,
    report,
    result: { outcome: 'success' as const },
    settings: GATE,
    secrets: ['sk-secret-value-123456'],
    runUrl: 'https://github.com/octo-org/octo-repo/actions/runs/1'
  }
}

/** Every check-run request the server got, checked against the description. */
function expectRequestsFollowOpenApi(s: GitHubServer): void {
  for (const r of s.requests.filter((x) => x.path.includes('/check-runs'))) {
    if (r.method === 'POST')
      expect(
        requestBodyErrors('POST /repos/{owner}/{repo}/check-runs', r.body)
      ).toEqual([])
    if (r.method === 'PATCH')
      expect(
        requestBodyErrors(
          'PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}',
          r.body
        )
      ).toEqual([])
  }
}

describe('the conclusion', () => {
  it('is failure past fail-on, success on pass, neutral otherwise', () => {
    expect(verdictConclusion('blockers', GATE)).toBe('failure')
    expect(verdictConclusion('concerns', GATE)).toBe('neutral')
    expect(verdictConclusion('pass', GATE)).toBe('success')
    expect(verdictConclusion('unclear', GATE)).toBe('neutral')
    expect(
      verdictConclusion('unclear', { failOn: 'never', failOnUnclear: true })
    ).toBe('failure')
  })

  it('unclear fails the gate only when fail-on names it', () => {
    expect(gateFails('unclear', 'concern')).toBe(false)
    expect(gateFails('unclear', 'never', true)).toBe(true)
    expect(gateFails('blockers', 'blocker', true)).toBe(true)
  })
})

describe('unclear: the votes split on the outcome', () => {
  const parsed = (agent: string, findings: Finding[]) => ({
    agent,
    findings,
    dropped: 0,
    block: 'found' as const
  })
  const blocker = finding(0, { agent: 'agent_a' })
  const answers = [
    parsed('agent_a', [blocker]),
    parsed('agent_b', []),
    parsed('agent_c', [finding(1, { agent: 'agent_c' })])
  ]

  it('three votes for three outcomes: no majority', () => {
    expect(
      votesSplit(answers, [
        { agent: 'agent_a', votedFor: 'agent_a' },
        { agent: 'agent_b', votedFor: 'agent_b' },
        { agent: 'agent_c', votedFor: 'agent_c' }
      ])
    ).toBe(true)
  })

  it('different answers with the same outcome are not a split', () => {
    const same = [
      parsed('agent_a', [blocker]),
      parsed('agent_b', [finding(3, { agent: 'agent_b' })])
    ]
    expect(
      votesSplit(same, [
        { agent: 'agent_a', votedFor: 'agent_b' },
        { agent: 'agent_b', votedFor: 'agent_a' }
      ])
    ).toBe(false)
  })

  it('a majority, or no vote at all, is not a split', () => {
    expect(
      votesSplit(answers, [
        { agent: 'agent_a', votedFor: 'agent_b' },
        { agent: 'agent_b', votedFor: 'agent_b' },
        { agent: 'agent_c', votedFor: 'agent_a' }
      ])
    ).toBe(false)
    expect(
      votesSplit(answers, [{ agent: 'agent_a', votedFor: undefined }])
    ).toBe(false)
  })

  it('two votes, two outcomes: a tie is no majority', () => {
    expect(
      votesSplit(answers, [
        { agent: 'agent_a', votedFor: 'agent_a' },
        { agent: 'agent_b', votedFor: 'agent_b' }
      ])
    ).toBe(true)
  })
})

describe('annotations', () => {
  it('attack: hostile finding text is plain, redacted and cut to the limits', () => {
    const [group] = reportOf([
      finding(0, {
        title: `T${'x'.repeat(400)}`,
        explanation: 'leak sk-secret-value-123456 \u001b[31m red\u0000 @octocat'
      })
    ]).groups
    if (!group) throw new Error('no group')
    const a = annotationOf(group, 3, ['sk-secret-value-123456'])
    expect([...(a.title ?? '')].length).toBeLessThanOrEqual(255)
    expect(a.message).not.toContain('sk-secret-value-123456')
    // eslint-disable-next-line no-control-regex
    expect(a.message).not.toMatch(/[\u0000\u001b]/)
    expect(a).toMatchObject({
      path: 'src/parser.ts',
      start_line: 10,
      end_line: 10,
      annotation_level: 'failure'
    })
  })

  it('go 50 to a request, every request concluded', () => {
    const annotations = Array.from({ length: 120 }, (_, i) =>
      annotationOf(
        reportOf([finding(i)]).groups[0] as ReviewReport['groups'][0],
        3,
        []
      )
    )
    const writes = checkRunWrites(
      { title: 't', summary: 's', conclusion: 'failure', annotations },
      '2026-12-02T17:00:00Z'
    )
    expect(writes.map((w) => w.output.annotations?.length)).toEqual([
      50, 50, 20
    ])
    expect(writes.every((w) => w.conclusion === 'failure')).toBe(true)
    expect(ANNOTATIONS_PER_REQUEST).toBe(50)
  })
})

describe('the check run in the loopback GitHub', () => {
  it('is created, then updated in place on a second run, with >50 annotations batched', async () => {
    const { github, server: s } = await connect()
    const report = reportOf(Array.from({ length: 75 }, (_, i) => finding(i)))
    const { log } = quiet()

    const first = await writeCheckRun(input(report), github, log)
    expect(first).toMatch(/\/runs\/\d+$/)
    expect(s.state.checkRuns).toHaveLength(1)
    const run = s.state.checkRuns[0]
    if (!run) throw new Error('no check run')
    expect(run).toMatchObject({
      name: checkRunName('massgen'),
      externalId: checkRunExternalId('massgen'),
      headSha: FIXTURE_HEAD_SHA,
      status: 'completed',
      conclusion: 'failure'
    })
    expect(run.annotations).toHaveLength(75)
    expect(run.output.summary).toContain('🔎 Findings')
    expect(run.output.summary).not.toContain('sk-secret-value-123456')
    const methods = () =>
      s.requests
        .filter((r) => r.path.includes('/check-runs'))
        .map((r) => r.method)
    expect(methods()).toEqual(['GET', 'POST', 'PATCH'])

    const second = await writeCheckRun(
      input(reportOf([finding(1)], 'concerns')),
      github,
      log
    )
    expect(second).toBe(first)
    expect(s.state.checkRuns).toHaveLength(1)
    expect(run.conclusion).toBe('neutral')
    expect(methods().slice(3)).toEqual(['GET', 'GET', 'PATCH'])
    expectRequestsFollowOpenApi(s)
  })

  it('a re-run on the same commit adds only the annotations the run does not have', async () => {
    const { github, server: s } = await connect()
    const many = Array.from({ length: 60 }, (_, i) => finding(i))
    await writeCheckRun(input(reportOf(many)), github, quiet().log)
    await writeCheckRun(
      input(reportOf([...many, finding(60), finding(61)])),
      github,
      quiet().log
    )
    expect(s.state.checkRuns).toHaveLength(1)
    expect(s.state.checkRuns[0]?.annotations).toHaveLength(62)
    // One read of the earlier annotations (100 to a page).
    const pages = s.requests.filter((r) => r.path.endsWith('/annotations'))
    expect(pages.length).toBe(1)
    expectRequestsFollowOpenApi(s)
  })

  it("answers as GitHub's description says a check run looks", async () => {
    const { github, server: s } = await connect()
    await writeCheckRun(input(reportOf([finding(0)])), github, quiet().log)
    const { checkRunJson } = await import('../../test-support/github-checks.js')
    const run = s.state.checkRuns[0]
    if (!run) throw new Error('no check run')
    expect(
      schemaErrors('check-run', checkRunJson(run, s.state, s.url))
    ).toEqual([])
  })

  it("refuses what GitHub's description refuses: 51 annotations, completed without a conclusion", async () => {
    const { server: s } = await connect()
    const post = (body: unknown) =>
      fetch(`${s.url}/repos/octo-org/octo-repo/check-runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body)
      })
    const annotation = {
      path: 'src/parser.ts',
      start_line: 1,
      end_line: 1,
      annotation_level: 'notice',
      message: 'm'
    }
    const many = await post({
      name: 'x',
      head_sha: FIXTURE_HEAD_SHA,
      output: {
        title: 't',
        summary: 's',
        annotations: Array(51).fill(annotation)
      }
    })
    expect(many.status).toBe(422)
    expect(await many.text()).toContain('50')
    const noSummary = await post({
      name: 'x',
      head_sha: FIXTURE_HEAD_SHA,
      output: { title: 't' }
    })
    expect(noSummary.status).toBe(422)
    const created = await post({ name: 'x', head_sha: FIXTURE_HEAD_SHA })
    expect(created.status).toBe(201)
    const { id } = (await created.json()) as { id: number }
    const patch = await fetch(
      `${s.url}/repos/octo-org/octo-repo/check-runs/${id}`,
      {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ status: 'completed' })
      }
    )
    expect(patch.status).toBe(422)
  })

  it("never takes a workflow job's check run of the same name", async () => {
    const { github, server: s } = await connect()
    const job = await github.createCheckRun(
      FIXTURE_HEAD_SHA,
      checkRunName('massgen'),
      'some-job-uuid',
      { status: 'in_progress', output: { title: 'job', summary: 'job' } }
    )
    await writeCheckRun(input(reportOf([finding(0)])), github, quiet().log)
    expect(s.state.checkRuns).toHaveLength(2)
    expect(s.state.checkRuns.find((r) => r.id === job.id)?.status).toBe(
      'in_progress'
    )
  })

  it('without checks: write, one warning that says so, and nothing thrown', async () => {
    const { github } = await connect({ checksPermission: 'none' })
    const { warnings, log } = quiet()
    const url = await writeCheckRun(input(reportOf([finding(0)])), github, log)
    expect(url).toBeUndefined()
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain(CHECKS_HINT.trim())
    expect(warnings[0]).toContain('403')
  })
})
