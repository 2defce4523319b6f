import http from 'node:http'
import {
  findLabels,
  lowestLabel,
  resolveVote,
  startLlmServer,
  type LlmServer
} from '../../test-support/llm-server.js'

const workflowTools = [
  {
    type: 'function',
    function: {
      name: 'new_answer',
      parameters: { properties: { content: { type: 'string' } } }
    }
  },
  {
    type: 'function',
    function: {
      name: 'vote',
      parameters: {
        properties: {
          agent_id: { type: 'string', enum: ['agent1', 'agent2', 'agent3'] },
          reason: { type: 'string' }
        }
      }
    }
  },
  { type: 'function', function: { name: 'custom_tool__list_background_tools' } }
]

function body(model: string, user: string, withVote = true): unknown {
  return {
    model,
    stream: true,
    stream_options: { include_usage: true },
    tools: withVote
      ? workflowTools
      : workflowTools.filter((t) => t.function.name !== 'vote'),
    messages: [
      { role: 'system', content: 'Labels look like `<agent1.2>`.' },
      { role: 'user', content: user }
    ]
  }
}

interface Reply {
  status: number
  text: string
}

function post(url: string, payload: unknown, timeoutMs = 2000): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}/chat/completions`,
      { method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => (text += c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
        res.on('error', reject)
      }
    )
    req.setTimeout(timeoutMs, () => req.destroy(new Error('timeout')))
    req.on('error', reject)
    req.end(JSON.stringify(payload))
  })
}

interface Chunk {
  choices: {
    delta: {
      tool_calls?: {
        id?: string
        type?: string
        function: { name?: string; arguments?: string }
      }[]
      content?: string | null
    }
    finish_reason: string | null
  }[]
  usage?: { prompt_tokens: number }
}

function parseSse(text: string): { chunks: Chunk[]; done: boolean } {
  const datas = text
    .split('\n\n')
    .filter((b) => b.startsWith('data: '))
    .map((b) => b.slice(6))
  return {
    done: datas.at(-1) === '[DONE]',
    chunks: datas.filter((d) => d !== '[DONE]').map((d) => JSON.parse(d))
  }
}

function toolCall(text: string): {
  name: string
  args: Record<string, string>
} {
  const { chunks } = parseSse(text)
  let name = ''
  let args = ''
  for (const c of chunks) {
    for (const tc of c.choices[0]?.delta.tool_calls ?? []) {
      if (tc.function.name) name = tc.function.name
      args += tc.function.arguments ?? ''
    }
  }
  return { name, args: JSON.parse(args) as Record<string, string> }
}

const answers = (labels: string[]): string =>
  '<ORIGINAL MESSAGE> q <END OF ORIGINAL MESSAGE>\n<CURRENT ANSWERS from the agents>\n' +
  labels.map((l) => `<${l}> text of ${l} <end of ${l}>`).join('\n') +
  '\n<END OF CURRENT ANSWERS>'

describe('label helpers', () => {
  it('finds closed labels only and sorts numerically', () => {
    expect(findLabels(answers(['agent2.1', 'agent10.1', 'agent1.2']))).toEqual([
      'agent2.1',
      'agent10.1',
      'agent1.2'
    ])
    expect(findLabels('see `<agent1.2>` in the docs')).toEqual([])
    expect(lowestLabel(['agent2.1', 'agent10.1', 'agent1.2'])).toBe('agent1.2')
  })

  it('maps real ids through the sorted id order', () => {
    const script = { agentIds: ['zeta', 'alpha'] }
    expect(resolveVote('zeta', ['agent1.1', 'agent2.1'], script, [])).toBe(
      'agent2'
    )
    expect(resolveVote('alpha', ['agent2.1'], script, [])).toBe('agent2')
    expect(resolveVote('alpha', ['agent1.1'], script, [])).toBe('agent1')
    expect(resolveVote(undefined, ['agent2.1'], script, [])).toBe('agent2')
  })
})

describe('llm server', () => {
  let server: LlmServer
  afterEach(async () => {
    await server.close()
  })

  it('answers, votes and presents with well-formed tool-call SSE', async () => {
    server = await startLlmServer({
      agentIds: ['agent_a', 'agent_b'],
      agents: { 'model-b': { answer: 'B says 4', voteFor: 'agent_b' } }
    })
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/v1`)

    const first = await post(server.url, body('model-b', answers([])))
    expect(first.status).toBe(200)
    const { chunks, done } = parseSse(first.text)
    expect(done).toBe(true)
    const opener = chunks.find((c) => c.choices[0]?.delta.tool_calls?.[0]?.id)
    expect(opener?.choices[0]?.delta.tool_calls?.[0]).toMatchObject({
      type: 'function',
      function: { name: 'new_answer' }
    })
    expect(
      chunks.some((c) => c.choices[0]?.finish_reason === 'tool_calls')
    ).toBe(true)
    expect(chunks.at(-1)?.usage?.prompt_tokens).toBeGreaterThan(0)
    expect(toolCall(first.text)).toEqual({
      name: 'new_answer',
      args: { content: 'B says 4' }
    })

    const vote = await post(
      server.url,
      body('model-b', answers(['agent1.1', 'agent2.1']))
    )
    expect(toolCall(vote.text)).toMatchObject({
      name: 'vote',
      args: { agent_id: 'agent2' }
    })

    const byDefault = await post(
      server.url,
      body('model-a', answers(['agent2.1', 'agent1.1']))
    )
    expect(toolCall(byDefault.text).args.agent_id).toBe('agent1')

    const final = await post(server.url, body('model-b', answers([]), false))
    expect(toolCall(final.text)).toEqual({
      name: 'new_answer',
      args: { content: 'B says 4' }
    })

    expect(server.requests.map((r) => r.reply)).toEqual([
      'new_answer',
      'vote',
      'vote',
      'final'
    ])
    expect(server.requests[1]).toMatchObject({
      model: 'model-b',
      hasVoteTool: true,
      labels: ['agent1.1', 'agent2.1'],
      voteChoices: ['agent1', 'agent2', 'agent3']
    })
    expect(server.requests[3]?.hasVoteTool).toBe(false)
  })

  it('fails as scripted: http500, plaintext, refuse, hang, failTimes', async () => {
    server = await startLlmServer({
      agents: {
        e: { fail: 'http500', failTimes: 1 },
        p: { fail: 'plaintext', text: 'just words' },
        r: { fail: 'refuse' },
        h: { fail: 'hang' }
      }
    })
    const e1 = await post(server.url, body('e', answers([])))
    expect(e1.status).toBe(500)
    expect(JSON.parse(e1.text)).toHaveProperty('error.message')
    const e2 = await post(server.url, body('e', answers([])))
    expect(toolCall(e2.text).name).toBe('new_answer')

    const p = await post(server.url, body('p', answers([])))
    const { chunks } = parseSse(p.text)
    expect(chunks.some((c) => c.choices[0]?.delta.tool_calls)).toBe(false)
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(
      'just words'
    )

    await expect(post(server.url, body('r', answers([])))).rejects.toThrow()
    await expect(post(server.url, body('h', answers([])), 300)).rejects.toThrow(
      'timeout'
    )
    expect(server.requests.map((r) => r.reply)).toEqual([
      'http500',
      'new_answer',
      'plaintext',
      'refuse',
      'hang'
    ])
  })

  it('delays replies and streams slowly', async () => {
    server = await startLlmServer({
      default: { delayMs: 150, chunkDelayMs: 20 }
    })
    const t0 = Date.now()
    const r = await post(server.url, body('any', answers([])))
    expect(Date.now() - t0).toBeGreaterThanOrEqual(150 + 20 * 5)
    expect(toolCall(r.text).args.content).toBe('Answer from any.')
  })

  it('closes promptly with a hanging request open', async () => {
    server = await startLlmServer({ default: { fail: 'hang' } })
    const pending = post(server.url, body('x', answers([])), 5000).catch(
      (e: unknown) => e
    )
    await new Promise((r) => setTimeout(r, 50))
    const t0 = Date.now()
    await server.close()
    expect(Date.now() - t0).toBeLessThan(1000)
    expect(await pending).toHaveProperty('message')
    server = await startLlmServer({})
  })
})
