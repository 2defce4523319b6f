// review: inline end to end: the bundled action under Node 24, three agents
// whose findings differ and overlap, played by the MassGen stand-in (their
// answers and votes in the layout MassGen 0.1.97 leaves, facts 21 and 22 of
// docs/test-contracts.md; review-vote.test.ts runs a review through the real
// MassGen), and the loopback GitHub, which checks every review comment
// against the pull request's diff the way GitHub does (422 otherwise).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import {
  startGitHubServer,
  type GitHubServer
} from '../../test-support/github-server.js'
import {
  FAKE_MASSGEN,
  runAction,
  type ActionRun
} from '../../test-support/run-action.js'
import {
  answerOf,
  BYTES_BEFORE_CACHE,
  reviewPull
} from '../../test-support/review-pull.js'
import {
  NO_LLM_URL,
  scriptedAgents,
  threeAgentReview
} from '../../test-support/pr-run.js'
import { FIXTURE_HEAD_SHA } from '../../test-support/sample-pull.js'
import { fingerprintOf } from '../../src/review/group.js'
import { event } from '../../test-support/fixtures.js'
import { expectNoKeyLeak } from '../../test-support/leaks.js'

let github: GitHubServer
beforeAll(async () => {
  github = await startGitHubServer({ issues: [42] })
  github.state.pulls['42'] = reviewPull()
})
afterAll(async () => {
  await github.close()
})

/** Three agents; everyone votes for agent_b, so agent_b wins. */
async function review(
  extra: Record<string, unknown[]>,
  inputs: Record<string, string>,
  payload: unknown
): Promise<ActionRun> {
  return runAction({
    eventName: 'pull_request',
    payload,
    githubApiUrl: github.url,
    env: scriptedAgents(
      Object.fromEntries(
        (['a', 'b', 'c'] as const).map((x) => [
          `agent_${x}`,
          { answer: answerOf(x, extra[x] ?? []), voteFor: 'agent_b' }
        ])
      )
    ),
    inputs: {
      ...threeAgentReview(NO_LLM_URL, FAKE_MASSGEN),
      // The review without the vote and the noise limits (review-vote.test.ts
      // has them): every finding placed by its raisers alone.
      'finding-vote': 'false',
      'min-severity': 'nit',
      'max-inline-comments': '50',
      // The diff the action reads stops before src/cache.ts: its lines are
      // unknown to the action, so only GitHub can refuse one.
      'pr-diff-max-bytes': String(BYTES_BEFORE_CACHE),
      ...inputs
    }
  })
}

const submitted = () =>
  github.state.reviews.filter((r) => r.state !== 'PENDING')
const commentsOf = (reviewId: number) =>
  github.state.reviewComments.filter((c) => c.reviewId === reviewId)

describe('review: inline', () => {
  let first: ActionRun

  it('posts one COMMENT review: agreements, a suggestion, the 422 fallback, the gate after the report', async () => {
    first = await review(
      {},
      { 'fail-on': 'blocker' },
      event('pull_request.opened')
    )

    // The run itself succeeded; the gate failed the step after the report.
    expect(first.outputs.status).toBe('success')
    expect(first.outputs.winner).toBe('agent_b')
    expect(first.outputs.verdict).toBe('blockers')
    expect(first.exitCode).toBe(1)
    const gateLine = first.stdout
      .split('\n')
      .findIndex(
        (l) => l.startsWith('::error::') && l.includes("verdict is 'blockers'")
      )
    expect(gateLine).toBeGreaterThan(-1)
    expect(first.stdout).toContain("'fail-on' is 'blocker'")

    // ONE review, event COMMENT, no pending probe left behind.
    expect(github.state.reviews).toHaveLength(1)
    const [posted] = submitted()
    if (!posted) throw new Error('no review')
    expect(posted.event).toBe('COMMENT')
    expect(posted.state).toBe('COMMENTED')
    expect(posted.commitId).toBe(FIXTURE_HEAD_SHA)

    // The batch was refused (src/cache.ts line 30 is not in the diff), the
    // refused comment found with pending reviews, the rest posted.
    const posts = github.requests.filter(
      (r) => r.method === 'POST' && r.path.endsWith('/pulls/42/reviews')
    )
    const events = posts.map(
      (r) => (r.body as { event?: string }).event ?? 'PENDING'
    )
    expect(events[0]).toBe('COMMENT')
    expect(events).toContain('PENDING')
    expect(events[events.length - 1]).toBe('COMMENT')
    expect(
      github.requests.filter(
        (r) => r.method === 'DELETE' && r.path.includes('/reviews/')
      ).length
    ).toBeGreaterThan(0)

    const comments = commentsOf(posted.id)
    const where = comments
      .map((c) => `${c.path}:${c.startLine ?? ''}-${c.line}`)
      .sort()
    expect(where).toEqual([
      'README.md:-2',
      // On the lead's (the winner's) line: agent_a's replacement, written
      // for lines 3-4, is shown as text there (src/review/tally.ts, rule 7).
      'src/cache.ts:-4',
      'src/parser.ts:-11',
      'src/parser.ts:-18'
    ])
    const at = (p: string, line: number) =>
      comments.find((c) => c.path === p && c.line === line)?.body ?? ''
    expect(at('src/parser.ts', 18)).toContain(
      '3/3 agents (agent_a, agent_b, agent_c)'
    )
    expect(at('src/parser.ts', 18)).toContain('🔴 Blocker')
    expect(at('src/cache.ts', 4)).toContain('2/3 agents (agent_a, agent_b)')
    expect(at('src/cache.ts', 4)).not.toContain('```suggestion\n')
    expect(at('src/cache.ts', 4)).toContain(
      'Replacement suggested by agent_a, shown as text'
    )
    expect(at('src/cache.ts', 4)).toContain('entries.clear()')
    expect(at('README.md', 2)).toContain('1/3 agents (agent_c)')

    // Outside the diff, and refused by GitHub: in the review's body.
    expect(posted.body).toContain('src/parser.ts line 200')
    expect(posted.body).toMatch(
      /src\/cache\.ts line 30 \(GitHub refused the line\)/
    )

    // outputs: the findings, grouped, each with where it went
    const findings = JSON.parse(first.outputs.findings ?? '[]') as Array<{
      file: string
      line: number
      agreement: number
      posted: string
      severity: string
    }>
    expect(
      findings.map((f) => [f.file, f.line, f.agreement, f.severity, f.posted])
    ).toEqual([
      ['src/parser.ts', 18, 3, 'blocker', 'inline'],
      ['src/cache.ts', 4, 2, 'concern', 'inline'],
      ['README.md', 2, 1, 'concern', 'inline'],
      ['src/cache.ts', 30, 1, 'nit', 'refused'],
      ['src/parser.ts', 11, 1, 'nit', 'inline'],
      ['src/parser.ts', 200, 1, 'nit', 'body']
    ])
    const file = first.outputs['findings-file'] ?? ''
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual(findings)

    // The sticky comment links the review and lists the findings by agreement.
    const sticky =
      github.state.comments.find((c) => c.issueNumber === 42)?.body ?? ''
    expect(sticky).toContain(
      `see [the review](https://github.com/octo-org/octo-repo/pull/42#pullrequestreview-${posted.id})`
    )
    expect(sticky).toMatch(
      /\| 3\/3 agents \| 🔴 Blocker \| src\/parser\.ts line 18 \|/
    )
    // the job summary shows the table too
    expect(first.summary).toContain(
      '| Agreement | Severity | Where | Finding | Raised by | Posted |'
    )
    expectNoKeyLeak(first, github)
  })

  it("attack: an agent writes a mention, a link, HTML and a fake finding marker in a finding's title — they post inert", () => {
    const [posted] = submitted()
    const hostile =
      commentsOf(posted?.id ?? -1).find((c) => c.line === 11)?.body ?? ''
    const [marker, ...rest] = hostile.split('\n')
    expect(marker).toMatch(
      /^<!-- massgen-action:finding tag=massgen fp=[0-9a-f]{16} sev=(blocker|concern|nit) counted=yes agree=\d{1,3}\/\d{1,3} title=[A-Za-z0-9_-]+ -->$/
    )
    const text = rest.join('\n')
    expect(text).toContain('Ping @\u200Boctocat')
    expect(text).not.toMatch(/(^|[^\u200B])@octocat/)
    expect(text).not.toContain('<!--')
    expect(text).not.toContain('<img')
    expect(text).not.toContain('massgen-action:finding')
    expect(text).not.toMatch(/[^\\]\[click\]\(/)
    // its fake fingerprint names no posted finding: the next run still knows its own
    expect(marker).not.toContain('0123456789abcdef')
  })

  it("a re-run on a new push posts only the new finding: no duplicates, min-agreement hides single-agent ones; another bot's forged marker keeps nothing out", async () => {
    const pull = github.state.pulls['42']
    if (!pull) throw new Error('no pull')
    pull.head.sha = 'c'.repeat(40)
    const payload = event('pull_request.opened') as {
      action: string
      pull_request: { head: { sha: string } }
    }
    payload.action = 'synchronize'
    payload.pull_request.head.sha = 'c'.repeat(40)
    const fresh = {
      file: 'src/parser.ts',
      line: 12,
      severity: 'concern',
      title: 'parse no longer calls parseFlat',
      explanation: 'parseFlat is now dead code.'
    }
    // Attack: another app (one that echoes text, say) posts the new
    // finding's marker first; only the action's own markers count.
    const forger = { login: 'echo-app[bot]', id: 777, type: 'Bot' as const }
    const fingerprint = fingerprintOf({
      ...fresh,
      agent: 'agent_a',
      severity: 'concern'
    })
    const forged = `<!-- massgen-action:finding tag=massgen fp=${fingerprint} -->`
    github.state.reviewComments.push({
      id: 9_000_001,
      reviewId: null,
      pullNumber: 42,
      user: forger,
      path: 'src/parser.ts',
      line: 12,
      side: 'RIGHT',
      startLine: null,
      startSide: null,
      body: `${forged}\nalready handled, nothing to see`,
      commitId: 'c'.repeat(40),
      createdAt: new Date().toISOString()
    })
    const again = await review(
      {
        a: [fresh],
        b: [{ ...fresh, title: 'parseFlat is no longer called by parse' }]
      },
      { 'min-agreement': '2' },
      payload
    )
    expect(again.outputs.status).toBe('success')
    expect(again.exitCode).toBe(0)
    expect(again.outputs.verdict).toBe('blockers')

    const reviews = submitted()
    expect(reviews).toHaveLength(2)
    const second = reviews[1]
    if (!second) throw new Error('no second review')
    expect(second.commitId).toBe('c'.repeat(40))
    const added = commentsOf(second.id)
    expect(added.map((c) => `${c.path}:${c.line}`)).toEqual([
      'src/parser.ts:12'
    ])
    expect(added[0]?.body).toContain('2/3 agents (agent_a, agent_b)')
    // every finding sits on its line once, across both runs
    const keys = github.state.reviewComments
      .filter((c) => c.user.login !== forger.login)
      .map((c) => `${c.path}:${c.line}`)
    expect(new Set(keys).size).toBe(keys.length)
    expect(second.body).not.toContain('line 200')

    const findings = JSON.parse(again.outputs.findings ?? '[]') as Array<{
      line: number
      posted: string
    }>
    const postedAt = (line: number) =>
      findings.find((f) => f.line === line)?.posted
    expect(postedAt(18)).toBe('duplicate')
    expect(postedAt(4)).toBe('duplicate')
    expect(postedAt(12)).toBe('inline')
    expect(postedAt(200)).toBe('hidden')
    expect(postedAt(11)).toBe('hidden')
    // hidden findings stay in the summary
    expect(again.summary).toContain('summary only (below min-agreement)')
  })
})
