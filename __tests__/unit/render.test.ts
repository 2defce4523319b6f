import {
  renderCancelled,
  renderProgress,
  renderReport,
  renderSkipped,
  type ReportContext
} from '../../src/report/render.js'
import type { AgentResult, RunResult } from '../../src/core/types.js'
import {
  detailsBalance,
  liveMentions,
  unclosedFence
} from './markdown-oracle.js'

const ctx: ReportContext = {
  target: 'comment',
  tag: 'massgen',
  runUrl: 'https://github.com/o/r/actions/runs/42',
  artifactUrl: 'https://github.com/o/r/actions/runs/42/artifacts/7',
  secrets: ['sk-secret-value-123'],
  maxChars: 65_536 - 40
}

function agent(id: string, extra: Partial<AgentResult> = {}): AgentResult {
  return {
    id,
    backend: 'openai',
    model: 'gpt-5.4',
    status: 'completed',
    votesReceived: 0,
    answerCount: 1,
    ...extra
  }
}

function success(extra: Partial<RunResult> = {}): RunResult {
  return {
    outcome: 'success',
    question: 'Is the retry loop correct?',
    exitCode: 0,
    winner: 'agent_b',
    winnerAnswer: '## Yes\n\nThe loop backs off **exponentially**.',
    agents: [
      agent('agent_a', {
        answerLabel: 'agent1.1',
        votesReceived: 0,
        votedFor: 'agent_b',
        voteReason: 'clearer',
        answer: 'Mostly yes.'
      }),
      agent('agent_b', {
        backend: 'gemini',
        model: 'gemini-3.1-pro-preview',
        answerLabel: 'agent2.1',
        votesReceived: 3,
        votedFor: 'agent_b',
        answer: 'ignored: winnerAnswer wins'
      }),
      agent('agent_c', {
        backend: 'claude',
        model: 'claude-opus-4-6',
        answerLabel: 'agent3.2',
        answerCount: 2,
        votedFor: 'agent_b',
        answer: 'It depends.'
      })
    ],
    votes: { 'agent2.1': 3 },
    elapsedSeconds: 185,
    cost: 0.04567,
    inputTokens: 120_000,
    outputTokens: 8_500,
    ...extra
  }
}

function expectWellFormed(md: string, max = ctx.maxChars): void {
  expect(md.length).toBeLessThanOrEqual(max)
  expect(unclosedFence(md)).toBeUndefined()
  expect(detailsBalance(md)).toBe(0)
  expect(liveMentions(md)).toEqual([])
}

describe('renderReport', () => {
  it("the footer's time, tokens and cost count the vote on findings (a real local-model review: answers 144 s, 3,896/369 tokens; vote round 63.5 s, 1,500/96)", () => {
    const md = renderReport(
      success({
        elapsedSeconds: 144,
        inputTokens: 3896,
        outputTokens: 369,
        cost: 0.01,
        findingVote: {
          ran: true,
          findings: 1,
          seconds: 63.5,
          inputTokens: 1500,
          outputTokens: 96,
          cost: 0.02,
          answers: {}
        }
      }),
      ctx
    )
    expect(md).toMatch(/⏱️ 3m 2[78]s/)
    expect(md).toContain('🔤 5,396 in / 465 out tokens')
    expect(md).toContain('💰 $0.0300 (estimated)')
  })
  it('a tie is named a tie and no vote is named so, never a consensus (issue 44: a real model tied 1-1)', () => {
    const tie = renderReport(
      success({
        decision: { kind: 'tie', agents: ['agent_a', 'agent_b'], votes: 1 }
      }),
      ctx
    )
    expectWellFormed(tie)
    expect(tie).not.toContain('Consensus on')
    expect(tie).toContain(
      "No consensus: a tie at 1 vote each (agent_a, agent_b); MassGen's tie-break named **agent_b**."
    )
    const none = renderReport(success({ decision: { kind: 'no-votes' } }), ctx)
    expect(none).not.toContain('Consensus on')
    expect(none).toContain(
      'No agent voted; MassGen named **agent_b** without a vote.'
    )
  })
  it('puts the winner first, then the vote table, other answers and footer', () => {
    const md = renderReport(success(), ctx)
    expectWellFormed(md)
    const order = [
      '### ✅ MassGen answered',
      'Consensus on **agent_b** with 3 of 3 votes',
      '**Question:** Is the retry loop correct?',
      '#### 🏆 Winning answer: **agent_b** (gemini / gemini-3.1-pro-preview)',
      'The loop backs off',
      '<details>\n<summary>How the run went with 3 models: who voted for which answer, the other answers</summary>',
      '| Model | Votes for its answer | Voted for | Why |',
      '#### Other answers',
      '<summary>agent_a · openai / gpt-5.4 · 0 votes</summary>',
      'Mostly yes.',
      '\n---\n',
      '⏱️ 3m 05s'
    ]
    const at = order.map((s) => md.indexOf(s))
    expect(at).not.toContain(-1)
    expect([...at].sort((a, b) => a - b)).toEqual(at)
    // The author's words: names and models, no MassGen answer labels, no
    // always-`voted` status, the reason apart from the choice.
    expect(md).toContain(
      '| agent_b (gemini / gemini-3.1-pro-preview) 🏆 chosen | 3 | agent_b | — |'
    )
    expect(md).toContain(
      '| agent_a (openai / gpt-5.4) | 0 | agent_b | clearer |'
    )
    expect(md).toContain('(2 drafts)')
    expect(md).not.toMatch(/agent\d\.\d/)
    expect(md).not.toContain('| completed |')
    expect(md).toContain(
      '💰 $0.0457 (estimated) · 🔤 120,000 in / 8,500 out tokens'
    )
    expect(md).toContain(
      '[Workflow run](https://github.com/o/r/actions/runs/42) · [Logs artifact](https://github.com/o/r/actions/runs/42/artifacts/7)'
    )
    expect(md).not.toContain('ignored: winnerAnswer wins')
  })

  it("leaves the answers' massgen-findings blocks out: the findings table shows them", () => {
    const block = (title: string) =>
      [
        '```massgen-findings',
        `[{"file":"a.ts","line":1,"title":"${title}"}]`,
        '```'
      ].join('\n')
    const md = renderReport(
      success({
        winnerAnswer: `Two problems.\n\n${block('winner json')}\n\nFix both.`,
        agents: [
          agent('agent_a', {
            answer: `One problem.\n\n~~~~ massgen-findings\n[]\n~~~~\nDone.`
          }),
          agent('agent_b', { answer: 'x' }),
          agent('agent_c', { answer: `Unclosed:\n${block('c').slice(0, -4)}` })
        ]
      }),
      ctx
    )
    expectWellFormed(md)
    expect(md).not.toContain('massgen-findings')
    expect(md).not.toContain('winner json')
    for (const prose of [
      'Two problems.',
      'Fix both.',
      'One problem.',
      'Done.',
      'Unclosed:'
    ])
      expect(md).toContain(prose)
  })

  it('shows split votes as they fell', () => {
    const result = success({
      winner: 'agent_a',
      winnerAnswer: 'A',
      agents: [
        agent('agent_a', { votesReceived: 2, votedFor: 'agent_a' }),
        agent('agent_b', { votesReceived: 1, votedFor: 'agent_a' }),
        agent('agent_c', {
          votesReceived: 0,
          votedFor: 'agent_b',
          voteReason: 'pipes | and `ticks`'
        })
      ]
    })
    const md = renderReport(result, ctx)
    expect(md).toContain('with 2 of 3 votes')
    expect(md).toContain('| agent_b (openai / gpt-5.4) | 1 | agent_a | — |')
    expect(md).toContain('| agent_b | pipes \\| and \\`ticks\\` |')
  })

  it('shows the reason and the agents errors on failure', () => {
    const md = renderReport(
      {
        outcome: 'failed',
        reason: 'MassGen exited with code 2',
        question: 'q',
        exitCode: 2,
        agents: [
          agent('agent_a', { status: 'error', error: 'HTTP 401 from provider' })
        ],
        votes: {},
        phase: 'initial_answer'
      },
      ctx
    )
    expectWellFormed(md)
    expect(md).toMatch(
      /^### ❌ MassGen failed\n\n\*\*Reason:\*\* MassGen exited with code 2/
    )
    expect(md).toContain('| no vote | ⚠️ HTTP 401 from provider |')
    expect(md).toContain('**Phase reached:** initial_answer')
    expect(md).toContain('exit code 2')
  })

  it('keeps the partial answers and votes of a timeout', () => {
    const md = renderReport(
      {
        outcome: 'timeout',
        reason: 'No consensus within 1800 s',
        question: 'q',
        exitCode: null,
        signal: 'SIGKILL',
        agents: [
          agent('agent_a', {
            answerLabel: 'agent1.1',
            votesReceived: 1,
            answer: 'Partial A'
          }),
          agent('agent_b', {
            answerLabel: 'agent2.1',
            status: 'voting',
            answer: 'Partial B'
          })
        ],
        votes: { 'agent1.1': 1 },
        phase: 'enforcement'
      },
      ctx
    )
    expectWellFormed(md)
    expect(md).toContain('### ⏱️ MassGen ran out of time')
    expect(md).toContain('#### Answers so far')
    expect(md).toContain('Partial A')
    expect(md).toContain('Partial B')
    // MassGen's label agent1.1 is the first agent's answer: named so.
    expect(md).toContain('**Votes so far** (by answer): agent_a 1')
    expect(md).toContain('signal SIGKILL')
    expect(md).not.toContain('Winning answer')
  })

  it('lists MassGen config validation errors', () => {
    const md = renderReport(
      {
        outcome: 'config-error',
        reason: 'MassGen rejected the generated config',
        question: 'q',
        exitCode: 1,
        agents: [],
        votes: {},
        configErrors: [
          'agents[0].backend.type: unknown backend "gpt"',
          'orchestrator.timeout: must be > 0'
        ]
      },
      ctx
    )
    expectWellFormed(md)
    expect(md).toContain('### ⚙️ MassGen did not run: a setting needs fixing')
    // A list, not a code block: each error wraps on GitHub.
    expect(md).toContain(
      '**MassGen config validation errors:**\n\n- agents\\[0].backend.type: unknown backend "gpt"\n- orchestrator.timeout: must be > 0'
    )
  })

  it('cuts a 1 MiB answer to the comment limit with fences and details closed', () => {
    const huge =
      (
        '```js\nconst x = 1 // @octocat\n' +
        'line of code\n'.repeat(50) +
        '```\n\n<details>\nprose @octocat\n\n'
      ).repeat(2000) + '```\nunclosed'
    expect(huge.length).toBeGreaterThan(1024 * 1024)
    const md = renderReport(success({ winnerAnswer: huge }), ctx)
    expectWellFormed(md)
    expect(md).toContain('_✂️ Answer cut to fit (')
    expect(md).toContain(
      'The full text is in the job summary and the [logs artifact]('
    )
    expect(md).toContain('#### 🗳️ Votes')
    expect(
      md
        .trimEnd()
        .endsWith(
          '[Logs artifact](https://github.com/o/r/actions/runs/42/artifacts/7)'
        )
    ).toBe(true)
  })

  it('shrinks the other answers before the winner', () => {
    const md = renderReport(
      success({
        winnerAnswer: 'W'.repeat(20_000),
        agents: [
          agent('agent_b', { votesReceived: 2 }),
          agent('x', { answer: 'o '.repeat(40_000) }),
          agent('y', { answer: 'p '.repeat(40_000) })
        ]
      }),
      ctx
    )
    expectWellFormed(md)
    expect(md).toContain('W'.repeat(20_000))
    expect(md).toContain('_✂️ Cut to fit.')
  })

  it('never pings and never shows a secret', () => {
    const md = renderReport(
      success({
        question: 'Ask @octocat about sk-secret-value-123',
        winnerAnswer: 'cc @octocat and @github/team; key sk-secret-value-123',
        reason: 'ignored on success'
      }),
      ctx
    )
    expect(md).not.toContain('sk-secret-value-123')
    expect(md).toContain('@\u200Boctocat')
    expect(liveMentions(md)).toEqual([])
  })

  it('keeps an answer from breaking the page', () => {
    const md = renderReport(
      success({ winnerAnswer: '</details>\n</details>\n```\n@a\n<!--' }),
      ctx
    )
    expectWellFormed(md)
    expect(md).toContain('&lt;/details>')
  })
})

describe("an agent's request over its model's context", () => {
  it("names the agent; the provider's text (hostile) escaped, redacted and inert", () => {
    const hostile =
      'Error code: 400 - maximum context length is 2048 tokens <img src=x onerror=alert(1)> @octocat ``` | col | [x](javascript:alert(1)) sk-secret-value-123'
    const md = renderReport(
      success({
        agents: [
          agent('agent_a', { votesReceived: 1, votedFor: 'agent_a' }),
          agent('agent_b', {
            status: 'error',
            error: 'error: Agent failed to use workflow tools after 3 attempts',
            contextOverflow: hostile
          })
        ],
        winner: 'agent_a'
      }),
      ctx
    )
    expect(md).toContain(
      "⚠️ **agent_b failed: its request was over its model's context.** The provider said: "
    )
    expect(md).not.toContain('<img')
    expect(md).not.toContain('sk-secret-value-123')
    expectWellFormed(md)
  })
})

describe('renderSkipped and renderCancelled', () => {
  it('says why the run was skipped', () => {
    const md = renderSkipped('No API key is set for any model', ctx)
    expect(md).toMatch(
      /^### ⏭️ MassGen skipped this run\n\n\*\*Reason:\*\* No API key is set for any model/
    )
  })

  it('reports a cancelled run with what it left', () => {
    const md = renderCancelled(
      {
        phase: 'voting',
        agents: [agent('agent_a', { answer: 'so far' })],
        votes: {}
      },
      ctx
    )
    expectWellFormed(md)
    expect(md).toContain('### 🚫 MassGen was cancelled')
    expect(md).toContain(
      'The job was cancelled, or the step stopped before it could report.'
    )
    expect(md).toContain('so far')
  })

  it('names a non-default comment tag', () => {
    expect(renderSkipped('x', { ...ctx, tag: 'review' })).toContain(
      'MassGen skipped this run (review)'
    )
  })
})

describe('renderProgress', () => {
  it('shows phase, agents, votes, elapsed time and the run link', () => {
    const md = renderProgress(
      {
        phase: 'voting',
        completionPercentage: 66.6,
        elapsedSeconds: 75,
        agents: [
          {
            id: 'agent_a',
            backend: 'openai',
            model: 'gpt-5.4',
            status: 'voted',
            answerCount: 1,
            votedFor: 'agent_b'
          },
          { id: '@octocat', status: 'answering', answerCount: 0 }
        ],
        votes: { 'agent2.1': 1 }
      },
      ctx
    )
    expectWellFormed(md)
    expect(md).toContain(
      '**Phase:** voting · `▓▓▓▓▓▓▓░░░` 67% · ⏱️ 1m 15s elapsed'
    )
    expect(md).toContain('| agent_a | openai / gpt-5.4 | voted | 1 | agent_b |')
    expect(md).toContain('**Votes so far:** @\u200Boctocat 1')
    expect(md).toContain(
      '[Follow the workflow run](https://github.com/o/r/actions/runs/42)'
    )
    expect(md).toContain('will be replaced by the final report')
  })
})
