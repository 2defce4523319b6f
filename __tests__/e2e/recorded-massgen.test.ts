// The bundled action on runs MassGen 0.1.97 really made, replayed
// (test-support/replay-massgen.mjs, __fixtures__/massgen/): split votes, one
// agent failing, every agent failing. What MassGen does in these cases is a
// recorded fact (the fixture's README and __tests__/unit/results.test.ts);
// what these tests prove is that the action turns exactly those files and
// lines into outputs, comment and summary. docs/test-contracts.md lists which
// MassGen fact is proven by a live run and which by a recording.
import { describe, expect, it } from '@jest/globals'
import * as path from 'node:path'
import { ROOT, runAction } from '../../test-support/run-action.js'
import { commentsOn, loopbackServers } from '../../test-support/loopback.js'
import { event, KEYS } from '../../test-support/fixtures.js'
import { expectNoKeyLeak } from '../../test-support/leaks.js'

const REPLAY = path.join(ROOT, 'test-support', 'replay-massgen.mjs')
const loopback = loopbackServers()
const github = () => loopback.github()

/** The agents of the recordings: agent_a.. on model-a.. */
const MODELS = {
  2: 'vllm/model-a vllm/model-b',
  3: 'vllm/model-a vllm/model-b vllm/model-c'
}

function replay(fixture: string, agents: 2 | 3, maxDuration = 120) {
  return runAction({
    eventName: 'pull_request',
    payload: event('pull_request.opened'),
    githubApiUrl: github().url,
    inputs: {
      query: 'What is 2+2? Ping @octocat.',
      models: MODELS[agents],
      'base-url': 'http://127.0.0.1:9/v1',
      'openai-api-key': KEYS.openai,
      'massgen-command': `node ${REPLAY}`,
      'comment-tag': `recorded-${fixture}`,
      'max-duration': String(maxDuration)
    },
    env: { REPLAY_MASSGEN_FIXTURE: fixture }
  })
}

function commentOf(fixture: string): string {
  return (
    commentsOn(github(), 42).find((b) =>
      b.includes(`tag=recorded-${fixture}`)
    ) ?? ''
  )
}

describe('recorded MassGen runs through the bundled action', () => {
  it('three agents with split votes: the winner with 2 of 3 votes, every answer shown', async () => {
    const run = await replay('split-3-agents', 3)
    expect(run.outputs.status).toBe('success')
    expect(run.outputs.winner).toBe('agent_b')
    const votes = JSON.parse(run.outputs.votes ?? '[]') as {
      agent: string
      votes: number
    }[]
    expect(votes.map((v) => [v.agent, v.votes])).toEqual([
      ['agent_a', 1],
      ['agent_b', 2],
      ['agent_c', 0]
    ])
    expect(run.outputs.answer).toBe('Answer from model-b.')
    const comment = commentOf('split-3-agents')
    expect(comment).toContain('Answer from model-b.')
    expect((comment.match(/<details>/g) ?? []).length).toBeGreaterThanOrEqual(2)
    expect(run.exitCode).toBe(0)
  })

  it('one agent failing with HTTP 500 while the others finish: success, that agent shown with its error', async () => {
    const run = await replay('partial-failure', 3)
    expect(run.outputs.status).toBe('success')
    expect(run.outputs.winner).toBe('agent_a')
    const votes = JSON.parse(run.outputs.votes ?? '[]') as {
      agent: string
      status: string
    }[]
    expect(votes.find((v) => v.agent === 'agent_b')?.status).toBe('error')
    expect(run.summary).toMatch(/500/)
    expect(run.exitCode).toBe(0)
  })

  it('every agent failing: MassGen exits 0, the action reports failed with the errors', async () => {
    const run = await replay('total-failure', 2)
    expect(run.outputs['exit-code']).toBe('0')
    expect(run.outputs.status).toBe('failed')
    expect(run.exitCode).toBe(1)
    expect(run.summary).toMatch(/every agent failed/)
    expect(run.summary).toMatch(/Error code: 500/)
    expect(commentOf('total-failure')).toMatch(/Error code: 500/)
    expectNoKeyLeak(run, github())
  })

  // Recorded against the scripted server (__fixtures__/massgen/README.md):
  // the replay moves the events' times so the recording's end is its own.
  it("MassGen's timeout after the model server stopped answering (stalled-model): the report names a hang, not a slow model", async () => {
    const run = await replay('stalled-model', 2, 60)
    expect(run.outputs.status).toBe('timeout')
    expect(run.summary).toMatch(
      /No model activity for the last 5\d(\.\d)? s of the run/
    )
    expect(run.summary).toMatch(/A hang, not a slow model/)
    expect(commentOf('stalled-model')).toMatch(/A hang, not a slow model/)
  })

  it("MassGen's timeout with every reply 25 s late (slow-model): the report names a slow model, not a hang", async () => {
    const run = await replay('slow-model', 2, 60)
    expect(run.outputs.status).toBe('timeout')
    expect(run.summary).toMatch(/The agents were still working/)
    expect(run.summary).toMatch(/A slow model, not a hang/)
    expect(commentOf('slow-model')).toMatch(/A slow model, not a hang/)
  })

  it("an agent's model answering HTTP 400 'maximum context length' (context-overflow): the agent named with the cause", async () => {
    const run = await replay('context-overflow', 2)
    expect(run.outputs.status).toBe('success')
    const named =
      /⚠️ \*\*agent_b failed: its request was over its model's context\.\*\* The provider said: .*maximum context length is 2048 tokens/
    expect(run.summary).toMatch(named)
    expect(commentOf('context-overflow')).toMatch(named)
  })
})
