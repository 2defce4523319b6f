// Ballots never cast, end to end: the review of review-vote.test.ts (the
// bundled action, the REAL pinned MassGen run twice, three scripted agents,
// the loopback GitHub), but in the vote round agent_a answers with no votes
// block (as a 135M model's cut JSON does) and agent_c's model answers
// HTTP 500, so its ballot never comes back. In issue 44's real-model run a
// finding was posted "raised by 2, confirmed by 1" with no ballot cast: its
// raiser's own answer counted as its confirmation. Only a ballot that came
// back with a vote on a finding counts for it, and the comments say how
// many came back.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals'
import {
  startGitHubServer,
  type GitHubServer
} from '../../test-support/github-server.js'
import {
  startLlmServer,
  type LlmServer
} from '../../test-support/llm-server.js'
import { runAction, type ActionRun } from '../../test-support/run-action.js'
import { reviewPull } from '../../test-support/review-pull.js'
import {
  plantedBody,
  voteScript
} from '../../test-support/review-vote-script.js'
import type { LlmScript } from '../../test-support/llm-protocol.js'
import { event } from '../../test-support/fixtures.js'
import { threeAgentReview } from '../../test-support/pr-run.js'

// Two real MassGen runs of three agents in local mode on a loaded machine.
jest.setTimeout(900_000)

/**
 * The vote script; in the vote round agent_a's answer has no votes block
 * and agent_c's model fails every request.
 */
function ballotsNeverCast(): LlmScript {
  const script = voteScript()
  const agents = script.agents ?? {}
  return {
    ...script,
    agents: {
      ...agents,
      'model-a': {
        ...agents['model-a'],
        voteRound: { answer: 'I looked at the findings.' }
      },
      'model-c': { ...agents['model-c'], voteRound: { fail: 'http500' } }
    }
  }
}

let github: GitHubServer
let llm: LlmServer
let run: ActionRun
beforeAll(async () => {
  github = await startGitHubServer({ issues: [42] })
  github.state.pulls['42'] = { ...reviewPull(), body: plantedBody() }
  llm = await startLlmServer(ballotsNeverCast())
  run = await runAction({
    eventName: 'pull_request',
    payload: event('pull_request.opened'),
    githubApiUrl: github.url,
    inputs: threeAgentReview(llm.url)
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
  agreement: number
  confirmed: number | null
  posted: string
  votes: Array<{ agent: string; vote: string }> | null
}

describe('the vote on every finding with ballots never cast (real MassGen twice)', () => {
  it("agent_a's answer in the vote round holds no ballot, agent_c's never came back", () => {
    expect(run.outputs.status).toBe('success')
    const c = llm.requests.filter((r) => r.voteRound && r.model === 'model-c')
    expect(c.length).toBeGreaterThan(0)
    expect(c.every((r) => r.reply === 'http500')).toBe(true)
    expect(run.stdout).toMatch(/Finding vote: MassGen \S+ in .*2 answer\(s\)\./)
  })

  it("the finding agent_a and agent_b raised: confirmed by agent_b's ballot alone, never by agent_a's own answer; the inline comment says 1 of 3 ballots came back", () => {
    const findings = JSON.parse(run.outputs.findings ?? '[]') as FindingOut[]
    const recursion = findings.find((f) => f.file === 'src/parser.ts')
    expect(recursion).toMatchObject({ agreement: 2, confirmed: 1 })
    expect(recursion?.votes?.map((v) => [v.agent, v.vote])).toEqual([
      ['agent_b', 'confirm']
    ])
    const body = comments().find((c) => c.path === 'src/parser.ts')?.body ?? ''
    expect(body).toContain(
      'confirmed by 1/3 (raised by agent_a, agent_b), 1 of 3 ballots came back with a vote on it'
    )
    expect(body).not.toContain('agent_a raised it')
  })

  it('the finding agent_a alone raised rests on no ballot of its own: not posted inline, and the review says 1 of 3 ballots came back', () => {
    const findings = JSON.parse(run.outputs.findings ?? '[]') as FindingOut[]
    const planted = findings.find((f) => f.file === 'README.md')
    // agent_b's confirmation quotes the description only: set aside
    expect(planted?.votes?.map((v) => v.agent)).toEqual(['agent_b'])
    expect(planted?.posted).not.toBe('inline')
    expect(comments().map((c) => c.path)).not.toContain('README.md')
    expect(posted()?.body).toContain(
      'Every finding was put to all agents; 1 of 3 ballots came back'
    )
    const sticky =
      github.state.comments.find((c) => c.issueNumber === 42)?.body ?? ''
    expect(sticky).toContain('1 of 3 ballots came back')
    expect(sticky).not.toContain('stands as its confirmation')
  })
})
