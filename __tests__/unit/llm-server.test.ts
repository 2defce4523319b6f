import http from 'node:http'
import {
  answerWithEvidence,
  commandResultsOf,
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
    chunks: datas
      .filter((d) => d !== '[DONE]')
      .map((d) => JSON.parse(d) as Chunk)
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

  it("fails as scripted: vLLM's HTTP 400 for a prompt over the context; failAfter serves first", async () => {
    server = await startLlmServer({
      agents: {
        c: { fail: 'context-overflow' },
        s: { fail: 'context-overflow', failAfter: 1 }
      }
    })
    const c = await post(server.url, body('c', answers([])))
    expect(c.status).toBe(400)
    expect(JSON.parse(c.text)).toMatchObject({
      message: expect.stringMatching(/maximum context length/) as unknown
    })
    const s1 = await post(server.url, body('s', answers([])))
    expect(toolCall(s1.text).name).toBe('new_answer')
    expect((await post(server.url, body('s', answers([])))).status).toBe(400)
    expect(server.requests.map((r) => r.reply)).toEqual([
      'context-overflow',
      'new_answer',
      'context-overflow'
    ])
  })

  it('delays replies and streams slowly', async () => {
    const waits: number[] = []
    server = await startLlmServer(
      { default: { delayMs: 150, chunkDelayMs: 20 } },
      {
        sleep: (ms) => {
          waits.push(ms)
          return Promise.resolve()
        }
      }
    )
    const r = await post(server.url, body('any', answers([])))
    const pieces = r.text.split('\n\n').filter((p) => p.trim()).length
    // The reply waits first, then after each piece it streams.
    expect(waits).toEqual([150, ...Array<number>(pieces).fill(20)])
    expect(pieces).toBeGreaterThanOrEqual(5)
    expect(toolCall(r.text).args.content).toBe('Answer from any.')
  })

  it('closes with a hanging request open, ending that request', async () => {
    server = await startLlmServer({ default: { fail: 'hang' } })
    // The client would wait a minute: only the server's close can end it
    // within the test's time.
    const pending = post(server.url, body('x', answers([])), 60_000).catch(
      (e: unknown) => e as Error
    )
    await until(() => server.requests.length === 1)
    await server.close()
    // A reset socket (the server's doing), not the client's own timeout.
    const error = await pending
    expect(error).toHaveProperty('message')
    expect((error as Error).message).not.toBe('timeout')
    server = await startLlmServer({})
  })
})

/** Resolves once `condition` holds (checked every 10 ms). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 10))
}

const COMMAND_TOOL = 'mcp__command_line__execute_command'
const commandTool = (name = COMMAND_TOOL) => ({
  type: 'function',
  function: {
    name,
    parameters: {
      properties: { command: { type: 'string' } },
      required: ['command']
    }
  }
})

/** What MassGen's command tool returns (fastmcp sends the dict as JSON). */
function toolJson(
  command: string,
  exitCode: number,
  stdout: string,
  stderr = ''
) {
  return JSON.stringify({
    success: exitCode === 0,
    exit_code: exitCode,
    stdout,
    stderr,
    execution_time: 0.01,
    command,
    work_dir: '/ws/agent_a'
  })
}

/** A request as MassGen sends it after running the given calls. */
function withResults(
  model: string,
  user: string,
  done: { id: string; command: string; content: string }[],
  options: { withVote?: boolean; tool?: string | null } = {}
): unknown {
  const base = body(model, user, options.withVote ?? true) as {
    tools: unknown[]
    messages: unknown[]
  }
  const tool = options.tool === undefined ? COMMAND_TOOL : options.tool
  return {
    ...base,
    tools: tool ? [...base.tools, commandTool(tool)] : base.tools,
    messages: [
      ...base.messages,
      ...done.flatMap((d) => [
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: d.id,
              type: 'function',
              function: {
                name: tool ?? COMMAND_TOOL,
                arguments: JSON.stringify({ command: d.command })
              }
            }
          ]
        },
        { role: 'tool', tool_call_id: d.id, content: d.content }
      ])
    ]
  }
}

describe('llm server: agents that run commands', () => {
  let server: LlmServer
  afterEach(async () => {
    await server.close()
  })

  const first = 'echo hello-from-$(whoami); pwd'
  const second = 'echo oops >&2; exit 3'
  const done = [
    {
      id: 'call_1',
      command: first,
      content: toolJson(first, 0, 'hello-from-runner\n/ws/agent_a\n')
    },
    {
      id: 'call_2',
      command: second,
      content: toolJson(second, 3, '', 'oops\n')
    }
  ]

  it('calls the command tool once per request, in order, then answers with the evidence', async () => {
    server = await startLlmServer({
      agents: { 'model-a': { answer: 'A looked.', commands: [first, second] } }
    })
    const r1 = await post(server.url, withResults('model-a', answers([]), []))
    const opener = parseSse(r1.text).chunks.find(
      (c) => c.choices[0]?.delta.tool_calls?.[0]?.id
    )
    expect(opener?.choices[0]?.delta.tool_calls?.[0]?.id).toMatch(/^call_/)
    expect(toolCall(r1.text)).toEqual({
      name: COMMAND_TOOL,
      args: { command: first }
    })

    const r2 = await post(
      server.url,
      withResults('model-a', answers([]), done.slice(0, 1))
    )
    expect(toolCall(r2.text)).toEqual({
      name: COMMAND_TOOL,
      args: { command: second }
    })

    const r3 = await post(server.url, withResults('model-a', answers([]), done))
    const answer = toolCall(r3.text)
    expect(answer.name).toBe('new_answer')
    expect(answer.args.content).toBe(
      [
        'A looked.',
        [
          '### Command 1',
          `$ ${first}`,
          'exit_code: 0',
          'work_dir: /ws/agent_a',
          '--- stdout',
          'hello-from-runner\n/ws/agent_a\n',
          '--- stderr',
          '',
          '--- end'
        ].join('\n'),
        [
          '### Command 2',
          `$ ${second}`,
          'exit_code: 3',
          'work_dir: /ws/agent_a',
          '--- stdout',
          '',
          '--- stderr',
          'oops\n',
          '--- end'
        ].join('\n')
      ].join('\n\n')
    )

    expect(server.requests.map((r) => [r.reply, r.replyTool])).toEqual([
      ['command', COMMAND_TOOL],
      ['command', COMMAND_TOOL],
      ['new_answer', 'new_answer']
    ])
    expect(server.requests[0]?.replyArgs).toEqual({ command: first })
    expect(server.requests[2]?.commandResults).toEqual([
      {
        callId: 'call_1',
        command: first,
        content: done[0]?.content,
        exitCode: 0,
        stdout: 'hello-from-runner\n/ws/agent_a\n',
        stderr: '',
        workDir: '/ws/agent_a'
      },
      expect.objectContaining({
        callId: 'call_2',
        exitCode: 3,
        stderr: 'oops\n'
      })
    ])
    // Each result once per model, though every later request repeats it.
    expect(
      commandResultsOf(server.requests, 'model-a').map((r) => r.callId)
    ).toEqual(['call_1', 'call_2'])
    expect(commandResultsOf(server.requests, 'model-b')).toEqual([])
  })

  it('runs the commands once: later answers and the final presentation repeat the evidence, votes run nothing', async () => {
    server = await startLlmServer({
      agents: { 'model-a': { answer: 'A looked.', commands: [first, second] } }
    })
    const evidence = answerWithEvidence(
      'A looked.',
      done.map((d, i) => ({
        callId: d.id,
        command: d.command,
        content: d.content,
        exitCode: i === 0 ? 0 : 3,
        stdout: i === 0 ? 'hello-from-runner\n/ws/agent_a\n' : '',
        stderr: i === 0 ? '' : 'oops\n',
        workDir: '/ws/agent_a'
      }))
    )
    const answered = await post(
      server.url,
      withResults('model-a', answers([]), done)
    )
    expect(toolCall(answered.text).args.content).toBe(evidence)

    const vote = await post(
      server.url,
      withResults('model-a', answers(['agent1.1']), [])
    )
    expect(toolCall(vote.text).name).toBe('vote')
    const again = await post(
      server.url,
      withResults('model-a', answers([]), [])
    )
    expect(toolCall(again.text)).toEqual({
      name: 'new_answer',
      args: { content: evidence }
    })
    const final = await post(
      server.url,
      withResults('model-a', answers([]), [], { withVote: false })
    )
    expect(toolCall(final.text)).toEqual({
      name: 'new_answer',
      args: { content: evidence }
    })
    expect(server.requests.map((r) => r.reply)).toEqual([
      'new_answer',
      'vote',
      'new_answer',
      'final'
    ])
  })

  it('runs them first even when other answers are shown, and never in a final presentation', async () => {
    server = await startLlmServer({
      agents: { 'model-a': { commands: [first], finalAnswer: 'Final words.' } }
    })
    const final = await post(
      server.url,
      withResults('model-a', answers([]), [], { withVote: false })
    )
    expect(toolCall(final.text)).toEqual({
      name: 'new_answer',
      args: { content: 'Final words.' }
    })
    const shown = await post(
      server.url,
      withResults('model-a', answers(['agent2.1']), [])
    )
    expect(toolCall(shown.text)).toEqual({
      name: COMMAND_TOOL,
      args: { command: first }
    })
  })

  it('finalCommands run in the final presentation, one per request, then the presentation carries their evidence; without the tool it is given plainly', async () => {
    server = await startLlmServer({
      agents: {
        'model-a': { finalCommands: [first, second], finalAnswer: 'Final.' }
      }
    })
    const final = (results: typeof done, tool?: null) =>
      post(
        server.url,
        withResults('model-a', answers(['agent1.1']), results, {
          withVote: false,
          ...(tool === null ? { tool } : {})
        })
      )
    expect(toolCall((await final([])).text)).toEqual({
      name: COMMAND_TOOL,
      args: { command: first }
    })
    expect(toolCall((await final(done.slice(0, 1))).text)).toEqual({
      name: COMMAND_TOOL,
      args: { command: second }
    })
    const presented = toolCall((await final(done)).text)
    expect(presented.args.content).toMatch(/^Final\.\n\n### Command 1\n/)
    expect(presented.args.content).toContain('exit_code: 3')
    expect(toolCall((await final([], null)).text)).toEqual({
      name: 'new_answer',
      args: { content: 'Final.' }
    })
    // While competing, an agent with only finalCommands runs nothing.
    const competing = await post(
      server.url,
      withResults('model-a', answers([]), [])
    )
    expect(toolCall(competing.text).name).toBe('new_answer')
  })

  it('without a command tool it says which tools were offered, and runs the commands once the tool comes', async () => {
    server = await startLlmServer({
      agents: { 'model-a': { answer: 'A.', commands: [first] } }
    })
    const plain = await post(
      server.url,
      withResults('model-a', answers([]), [], { tool: null })
    )
    const content = toolCall(plain.text).args.content
    expect(content).toMatch(
      /^A\.\n\nCommands not run: no command tool offered \(tools: new_answer, vote, custom_tool__list_background_tools\)\.$/
    )
    const vote = await post(
      server.url,
      withResults('model-a', answers(['agent1.1']), [], { tool: null })
    )
    expect(toolCall(vote.text).name).toBe('vote')
    // The bare name counts too (a backend without MCP prefixes).
    const later = await post(
      server.url,
      withResults('model-a', answers(['agent1.1']), [], {
        tool: 'execute_command'
      })
    )
    expect(toolCall(later.text)).toEqual({
      name: 'execute_command',
      args: { command: first }
    })
  })

  it('reads results with text after the JSON (a peer update MassGen appended)', async () => {
    server = await startLlmServer({
      agents: { 'model-a': { answer: 'A.', commands: [first] } }
    })
    const injected = `${toolJson(first, 0, 'ok {x}\n')}\n\n[UPDATE] <agent2.1> peer {answer} <end of agent2.1>`
    const r = await post(
      server.url,
      withResults('model-a', answers([]), [
        { id: 'c1', command: first, content: injected }
      ])
    )
    expect(server.requests[0]?.commandResults).toEqual([
      expect.objectContaining({ callId: 'c1', exitCode: 0, stdout: 'ok {x}\n' })
    ])
    expect(toolCall(r.text).args.content).toContain('--- stdout\nok {x}\n')
  })

  it('when MassGen cannot reach the tool, answers or votes plainly saying why, and runs every command again in the next conversation', async () => {
    server = await startLlmServer({
      agents: { 'model-a': { answer: 'A.', commands: [first, second] } }
    })
    const unreachable = [
      { id: 'c1', command: first, content: done[0]?.content ?? '' },
      {
        id: 'c2',
        command: second,
        content:
          "Error: Server 'command_line' not connected | Context: server_name=command_line"
      }
    ]
    const plain = await post(
      server.url,
      withResults('model-a', answers([]), unreachable)
    )
    expect(toolCall(plain.text)).toEqual({
      name: 'new_answer',
      args: {
        content: `A.\n\nCommands not run: MassGen could not run \`${second}\`: Error: Server 'command_line' not connected | Context: server_name=command_line.`
      }
    })
    expect(server.requests[0]?.commandResults[1]).toEqual({
      callId: 'c2',
      command: second,
      content: unreachable[1]?.content
    })
    const vote = await post(
      server.url,
      withResults('model-a', answers(['agent2.1']), unreachable)
    )
    expect(toolCall(vote.text).name).toBe('vote')
    const retry = await post(
      server.url,
      withResults('model-a', answers(['agent2.1']), [])
    )
    expect(toolCall(retry.text)).toEqual({
      name: COMMAND_TOOL,
      args: { command: first }
    })
  })

  it('shows a result that is not JSON as it came', () => {
    expect(
      answerWithEvidence('A.', [
        { callId: 'c', command: 'ls', content: 'Error: odd' }
      ])
    ).toBe(
      'A.\n\n### Command 1\n$ ls\nexit_code: unknown\n--- stdout\nError: odd\n--- stderr\n\n--- end'
    )
  })

  it('answers a command call without streaming when asked', async () => {
    server = await startLlmServer({
      agents: { 'model-a': { commands: [first] } }
    })
    const r = await post(server.url, {
      ...(withResults('model-a', answers([]), []) as object),
      stream: false
    })
    const message = (
      JSON.parse(r.text) as {
        choices: {
          message: {
            tool_calls: { function: { name: string; arguments: string } }[]
          }
        }[]
      }
    ).choices[0]?.message.tool_calls[0]?.function
    expect(message?.name).toBe(COMMAND_TOOL)
    expect(JSON.parse(message?.arguments ?? '{}')).toEqual({ command: first })
  })
})
