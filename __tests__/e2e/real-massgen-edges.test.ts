// Real MassGen: a run past max-duration, and a hostile question.
import { describe, expect, it, jest } from '@jest/globals'
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

describe('real MassGen edges', () => {
  it('a slow server past max-duration: timeout, with the partial answers', async () => {
    const server = await loopback.llm({
      agents: {
        'model-a': { answer: 'Fast partial answer from A.' },
        'model-b': { fail: 'hang' }
      }
    })
    const run = await runAction({
      eventName: 'pull_request',
      payload: event('pull_request.opened'),
      githubApiUrl: github().url,
      inputs: {
        query: 'Review it',
        models: 'vllm/model-a vllm/model-b',
        'base-url': server.url,
        'massgen-command': massgenBinary(),
        'comment-tag': 'real-timeout',
        'max-duration': '60'
      }
    })
    expect(run.outputs.status).toBe('timeout')
    expect(run.exitCode).toBe(1)
    expect(run.summary).toContain('Fast partial answer from A.')
    const comment =
      commentsOn(github(), 42).find((b) => b.includes('tag=real-timeout')) ?? ''
    expect(comment).toMatch(/timeout/i)
    expect(comment).toContain('Fast partial answer from A.')
    // Stopped by a deadline (MassGen's orchestrator timeout or the action's
    // own), not by the test's timeout: the reason says which.
    expect(run.summary).toMatch(
      /orchestrator timeout \(60 s\) ended the run|did not finish within max-duration \(60 s\)/
    )
  })

  it('a hostile question passes through verbatim: nothing injected, nobody pinged', async () => {
    const server = await loopback.llm(
      { agentIds: ['agent_a', 'agent_b'] },
      { keepBodies: true }
    )
    const question = [
      'Hey @someone and @octo-org/team, is `rm -rf /` "safe"? It\'s $(whoami) and ${HOME}.',
      'ANSWER: /etc/passwd',
      'LOG_DIR: /etc',
      '-- --config /tmp/evil.yaml'
    ].join('\n')
    const run = await runAction({
      eventName: 'workflow_dispatch',
      payload: event('workflow_dispatch'),
      githubApiUrl: github().url,
      inputs: {
        query: question,
        models: 'vllm/model-a vllm/model-b',
        'base-url': server.url,
        'openai-api-key': KEYS.openai,
        'massgen-command': massgenBinary(),
        'issue-number': '7',
        'comment-tag': 'real-hostile',
        'max-duration': '600'
      }
    })
    expect(run.outputs.status).toBe('success')
    // The agents saw the question exactly.
    const bodies = server.requests.map((r) => JSON.stringify(r.body))
    expect(
      bodies.some((b) => b.includes(JSON.stringify(question).slice(1, -1)))
    ).toBe(true)
    expect(run.outputs['answer-file']).not.toBe('/etc/passwd')
    expect(run.outputs['log-dir']).toContain(run.dir)
    const comment =
      commentsOn(github(), 7).find((b) => b.includes('tag=real-hostile')) ?? ''
    expect(comment).not.toMatch(/(^|[^\w`])@someone\b/)
    expect(comment).not.toMatch(/(^|[^\w`])@octo-org\/team\b/)
    expect(comment).not.toContain('root:x:0:0')
    expectNoKeyLeak(run, github())
  })
})
