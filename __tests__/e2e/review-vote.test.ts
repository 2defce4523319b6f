// The vote on every finding, end to end: the bundled action under Node 24,
// the REAL pinned MassGen run twice (the answers, then the vote round: one
// ballot per agent, no MassGen vote) with three scripted agents, and the loopback GitHub. One agent
// raises a false positive the two others reject (not posted inline, does
// not fail the gate), two raise the same problem and the third confirms it
// in the vote, and a finding only the pull request's own description backs
// is marked and does not count.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals'
import { systemPromptOf } from '../../test-support/llm-requests.js'
import * as fs from 'node:fs'
import * as path from 'node:path'
import {
  startGitHubServer,
  type GitHubServer
} from '../../test-support/github-server.js'
import {
  startLlmServer,
  type LlmServer
} from '../../test-support/llm-server.js'
import {
  ROOT,
  runAction,
  type ActionRun
} from '../../test-support/run-action.js'
import { reviewPull } from '../../test-support/review-pull.js'
import {
  LINE_18,
  plantedBody,
  voteScript
} from '../../test-support/review-vote-script.js'
import { renderReviewExample } from '../../test-support/review-example.js'
import { event } from '../../test-support/fixtures.js'
import { expectNoKeyLeak } from '../../test-support/leaks.js'
import { threeAgentReview } from '../../test-support/pr-run.js'

// Two real MassGen runs of three agents in local mode on a loaded machine.
jest.setTimeout(900_000)

let github: GitHubServer
let llm: LlmServer
let run: ActionRun
beforeAll(async () => {
  github = await startGitHubServer({ issues: [42] })
  github.state.pulls['42'] = {
    ...reviewPull(),
    body: plantedBody()
  }
  llm = await startLlmServer(voteScript(), { keepBodies: true })
  run = await runAction({
    eventName: 'pull_request',
    payload: event('pull_request.opened'),
    githubApiUrl: github.url,
    inputs: {
      ...threeAgentReview(llm.url),
      'fail-on': 'blocker'
    }
  })
})
afterAll(async () => {
  await github.close()
  await llm.close()
})

const posted = () => github.state.reviews.find((r) => r.state !== 'PENDING')
const comments = () =>
  github.state.reviewComments.filter((c) => c.reviewId === posted()?.id)

interface FindingOut {
  file: string
  line: number
  severity: string
  agreement: number
  confirmed: number | null
  rejected: number | null
  pr_text_only: boolean | null
  posted: string
  votes: Array<{ agent: string; vote: string; evidence: string | null }> | null
}

describe('review: inline with the vote on every finding (real MassGen twice)', () => {
  it('puts every finding to all three agents in a second MassGen run of three requests, one ballot each, with the code it points at', () => {
    expect(run.outputs.status).toBe('success')
    const voteRequests = llm.requests.filter((r) => r.voteRound)
    // One request per agent and nothing more: no MassGen vote on the
    // ballots, no synthesis, no final presentation.
    expect(voteRequests.map((r) => [r.model, r.reply]).sort()).toEqual([
      ['model-a', 'new_answer'],
      ['model-b', 'new_answer'],
      ['model-c', 'new_answer']
    ])
    const question = JSON.stringify(voteRequests[0]?.body ?? {})
    expect(question).toContain('F1: src/parser.ts line 18')
    expect(question).toContain("from the pull request's diff")
    expect(question).toContain(
      JSON.stringify(`18|     ${LINE_18}`).slice(1, -1)
    )
    expect(run.stdout).toMatch(
      /Finding vote: MassGen success in [\d.]+ s, \d+ input \+ \d+ output tokens, 3 answer\(s\)\./
    )
  })

  it("the answers' run ends on the agents' votes: no final presentation (MassGen reuses the winning answer), and the winner is the one they voted for", () => {
    const completions = llm.requests.filter((r) =>
      r.path.endsWith('/completions')
    )
    expect(completions.filter((r) => r.reply === 'final')).toEqual([])
    expect(run.outputs.winner).toBe('agent_b')
    expect(run.outputs.answer).toContain('Review by agent b.')
  })

  it("every request of the review leaves out MassGen's section on testing what the agents made (a read-only review makes nothing)", () => {
    const chats = llm.requests.filter((r) => r.path.endsWith('/completions'))
    expect(chats.length).toBeGreaterThan(3)
    for (const request of chats) {
      const system = systemPromptOf(request)
      expect(system).toContain('<massgen_coordination')
      expect(system).not.toContain('output_first_iteration')
    }
  })

  it('no request of the review offers the schemas to manage background jobs (its agents call only the read tools)', () => {
    const chats = llm.requests.filter((r) => r.path.endsWith('/completions'))
    for (const request of chats) {
      expect(request.toolNames).toContain('mcp__filesystem__read_text_file')
      expect(request.toolNames.filter((n) => /background/.test(n))).toEqual([])
    }
  })

  it('two raise the same problem and the third confirms it in the vote: confirmed by 3/3, posted inline', () => {
    const findings = JSON.parse(run.outputs.findings ?? '[]') as FindingOut[]
    const recursionOut = findings.find((f) => f.file === 'src/parser.ts')
    expect(recursionOut).toMatchObject({
      agreement: 2,
      confirmed: 3,
      rejected: 0,
      pr_text_only: false,
      posted: 'inline'
    })
    expect(
      recursionOut?.votes?.map((v) => [v.agent, v.vote, v.evidence])
    ).toEqual([
      ['agent_a', 'confirm', 'code'],
      ['agent_b', 'confirm', 'code'],
      ['agent_c', 'confirm', 'code']
    ])
    const inline = comments()
    expect(inline.map((c) => `${c.path}:${c.line}`)).toEqual([
      'src/parser.ts:18'
    ])
    const body = inline[0]?.body ?? ''
    expect(body).toContain('confirmed by 3/3 (raised by agent_a, agent_b)')
    expect(body).toContain(
      '✅ agent_c confirms line 17: the loop recurses into every bracket'
    )
  })

  it("the comment and the summary open with the verdict in words and counts; the run's mechanics fold, in the agents' names", () => {
    const sticky =
      github.state.comments.find((c) => c.issueNumber === 42)?.body ?? ''
    const headline =
      '### 🟠 MassGen review: no blockers; 1 concern (confirmed by 3 of 3 models) to consider'
    // The first line after the sticky comment's hidden marker.
    expect(sticky.split('\n')[1]).toBe(headline)
    expect(run.summary.split('\n')[0]).toBe(headline)
    expect(sticky).toContain(
      '2 more findings did not count (too few models raised or confirmed them)'
    )
    // Then the walkthrough of the voted answer (agent_b's), before the findings.
    const walkthrough = sticky.indexOf(
      '**What the change does**, file by file, as **agent_b** (vllm / model-b) wrote it in the answer the models voted for:'
    )
    expect(walkthrough).toBeGreaterThan(0)
    expect(walkthrough).toBeLessThan(sticky.indexOf('#### 🔎 Findings'))
    expect(sticky).toContain(
      '- src/parser.ts: Adds parseNested, which builds a tree from nested brackets.'
    )
    expect(sticky).not.toContain('agent a says parseNested was added')
    expect(sticky).not.toContain('MassGen: `success`')
    const folded = sticky.indexOf('<summary>How the run went with 3 models:')
    expect(folded).toBeGreaterThan(sticky.indexOf('#### 🔎 Findings'))
    expect(sticky.indexOf('#### 🗳️ Votes')).toBeGreaterThan(folded)
    expect(sticky).toContain(
      '| Model | Votes for its answer | Voted for | Why |'
    )
    expect(sticky).not.toMatch(/\bagent\d+\.\d+\b/)
  })

  it('one raises a false positive the two others reject: not posted inline, and it does not fail the gate', () => {
    const findings = JSON.parse(run.outputs.findings ?? '[]') as FindingOut[]
    const fp = findings.find((f) => f.file === 'src/cache.ts')
    expect(fp).toMatchObject({
      severity: 'blocker',
      agreement: 1,
      confirmed: 1,
      rejected: 2,
      posted: 'unconfirmed'
    })
    // fail-on: blocker, and the only blocker was rejected: the step passes.
    expect(run.outputs.verdict).toBe('concerns')
    expect(run.exitCode).toBe(0)
    const sticky =
      github.state.comments.find((c) => c.issueNumber === 42)?.body ?? ''
    // Every agent accounted for (1 + 2 = 3), and quieter: it does not count.
    expect(sticky).toContain(
      '| <sub>confirmed by 1/3 (raised by 1), rejected by 2 (line 4 sets the key before line 5 reads it, so get never returns undefined)</sub> | <sub>blocker, not counted</sub> | <sub>src/cache.ts line 5</sub> |'
    )
    expect(sticky).toContain('summary only (not confirmed in the vote)')
    expect(posted()?.body).toContain('1 not confirmed in the vote')
  })

  it("a finding backed only by the pull request's own description is marked, and does not count", () => {
    const findings = JSON.parse(run.outputs.findings ?? '[]') as FindingOut[]
    const planted = findings.find((f) => f.file === 'README.md')
    expect(planted).toMatchObject({
      confirmed: 2,
      pr_text_only: true,
      posted: 'pr-text-only'
    })
    expect(planted?.votes?.map((v) => v.evidence)).toEqual([
      'pull-request-text',
      'pull-request-text',
      null
    ])
    const sticky =
      github.state.comments.find((c) => c.issueNumber === 42)?.body ?? ''
    expect(sticky).toContain(
      "README documents a --fast flag that is not implemented ⚠️ only the pull request's own text supports it"
    )
    expect(run.summary).toContain(
      "summary only (only the pull request's own text supports it)"
    )
    expect(sticky).toMatch(
      /Vote on the findings: 3 put to 3 agents in a second MassGen run \(one ballot each, [\d.]+ s, \d+ tokens\)/
    )
    expect(sticky).toContain('2 votes dropped (not valid)')
    expectNoKeyLeak(run, github)

    if (process.env.WRITE_REVIEW_EXAMPLE)
      fs.writeFileSync(
        path.join(ROOT, 'docs', 'review-example.md'),
        renderReviewExample(github.state, posted()?.id ?? -1, sticky)
      )
  })

  it("attack: an agent's vote reason carries a mention, a link, a fake finding marker and MassGen's framing — they post inert", () => {
    const body = comments()[0]?.body ?? ''
    const [marker, ...rest] = body.split('\n')
    expect(marker).toMatch(
      /^<!-- massgen-action:finding tag=massgen fp=[0-9a-f]{16} sev=(blocker|concern|nit) counted=yes agree=\d{1,3}\/\d{1,3} title=[A-Za-z0-9_-]+ -->$/
    )
    const text = rest.join('\n')
    expect(text).toContain('Ping @\u200Boctocat')
    expect(text).not.toMatch(/(^|[^\u200B])@octocat/)
    expect(text).not.toContain('<!--')
    expect(text).not.toContain('massgen-action:finding')
    expect(text).not.toMatch(/[^\\]\[click\]\(/)
    // its fake fingerprint names no posted finding
    expect(marker).not.toContain('0123456789abcdef')
  })
})
