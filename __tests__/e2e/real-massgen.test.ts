// The action end to end with the REAL MassGen from PyPI (scripts/setup-massgen.sh),
// in local mode, against the scripted LLM server and the loopback GitHub API.
import { describe, expect, it, jest } from '@jest/globals'
import type { LlmScript, LlmServer } from '../../test-support/llm-server.js'
import { runAction } from '../../test-support/run-action.js'
import {
  commentsOn,
  event,
  expectNoKeyLeak,
  loopbackServers,
  KEYS,
  massgenBinary
} from './helpers.js'

// Local mode starts MassGen's MCP servers each round: 40 to 120 s a run on 2 cores.
jest.setTimeout(600_000)

const loopback = loopbackServers()
const github = () => loopback.github()

const llm = (script: LlmScript) => loopback.llm(script)

async function realRun(
  tag: string,
  models: string,
  server: LlmServer,
  extra: Record<string, string> = {},
  trigger: { eventName: string; payload: unknown } = {
    eventName: 'pull_request',
    payload: event('pull_request.opened')
  }
) {
  return runAction({
    ...trigger,
    githubApiUrl: github().url,
    inputs: {
      query: 'Which parser change is safest?',
      models,
      'base-url': server.url,
      'openai-api-key': KEYS.openai,
      'massgen-command': massgenBinary(),
      'comment-tag': tag,
      'max-duration': '600',
      ...extra
    }
  })
}

describe('real MassGen', () => {
  it('two agents reach consensus: the real winner and vote table are posted', async () => {
    const server = await llm({
      agentIds: ['agent_a', 'agent_b'],
      agents: {
        'model-a': {
          answer: 'Answer A: keep the old parser.',
          voteFor: 'agent_b',
          voteReason: 'B measured it.'
        },
        'model-b': {
          answer: 'Answer B: the new parser is 2x faster.',
          voteFor: 'agent_b',
          voteReason: 'Mine has numbers.'
        }
      }
    })
    // chatcompletion sends the OpenAI key: no file MassGen writes may hold it.
    const run = await realRun(
      'real-two',
      'chatcompletion/model-a vllm/model-b',
      server
    )
    expect(run.outputs.status).toBe('success')
    expect(run.outputs.winner).toBe('agent_b')
    expect(run.outputs.answer).toContain(
      'Answer B: the new parser is 2x faster.'
    )
    const votes = JSON.parse(run.outputs.votes ?? '[]') as unknown
    expect(votes).toEqual([
      expect.objectContaining({
        agent: 'agent_a',
        votes: 0,
        voted_for: 'agent_b'
      }),
      expect.objectContaining({
        agent: 'agent_b',
        votes: 2,
        voted_for: 'agent_b'
      })
    ])
    const comment = commentsOn(github(), 42).find((b) =>
      b.includes('tag=real-two')
    )
    expect(comment).toContain('Answer B: the new parser is 2x faster.')
    expect(comment).toContain('Answer A: keep the old parser.')
    expect(comment).toMatch(
      /\| agent_b 🏆 \| vllm \/ model-b \| agent2\.1 \| 2 \|/
    )
    expect(run.summary).toContain('Mine has numbers.')
    expect(run.exitCode).toBe(0)
    expectNoKeyLeak(run, github())
  })
})

describe('real MassGen, more agents and failures', () => {
  it('three agents with split votes', async () => {
    const server = await llm({
      agentIds: ['agent_a', 'agent_b', 'agent_c'],
      agents: {
        'model-a': { answer: 'Plan A.', voteFor: 'agent_a' },
        'model-b': { answer: 'Plan B.', voteFor: 'agent_b' },
        'model-c': { answer: 'Plan C.', voteFor: 'agent_b' }
      }
    })
    const run = await realRun(
      'real-split',
      'vllm/model-a vllm/model-b vllm/model-c',
      server
    )
    expect(run.outputs.status).toBe('success')
    expect(run.outputs.winner).toBe('agent_b')
    const votes = JSON.parse(run.outputs.votes ?? '[]') as {
      agent: string
      votes: number
    }[]
    expect(votes.map((v) => v.votes)).toEqual([1, 2, 0])
    const comment =
      commentsOn(github(), 42).find((b) => b.includes('tag=real-split')) ?? ''
    expect(comment).toContain('Plan B.')
    expect((comment.match(/<details>/g) ?? []).length).toBeGreaterThanOrEqual(2)
  })

  it('one agent failing with HTTP 500 while the others finish', async () => {
    const server = await llm({
      agentIds: ['agent_a', 'agent_b', 'agent_c'],
      agents: { 'model-b': { fail: 'http500' } }
    })
    const run = await realRun(
      'real-partial',
      'vllm/model-a vllm/model-b vllm/model-c',
      server
    )
    expect(run.outputs.status).toBe('success')
    const votes = JSON.parse(run.outputs.votes ?? '[]') as {
      agent: string
      status: string
    }[]
    expect(votes.find((v) => v.agent === 'agent_b')?.status).toBe('error')
    expect(run.summary).toMatch(/500/)
  })

  it('every agent failing: MassGen exits 0, the action reports failed with the errors', async () => {
    const server = await llm({ default: { fail: 'http500' } })
    const run = await realRun('real-total', 'vllm/model-a vllm/model-b', server)
    expect(run.outputs['exit-code']).toBe('0')
    expect(run.outputs.status).toBe('failed')
    expect(run.exitCode).toBe(1)
    expect(run.summary).toMatch(/every agent failed/)
    expect(run.summary).toMatch(/Error code: 500/)
    const comment = commentsOn(github(), 42).find((b) =>
      b.includes('tag=real-total')
    )
    expect(comment).toMatch(/Error code: 500/)
    expectNoKeyLeak(run, github())
  })
})
