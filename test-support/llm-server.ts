// A scripted OpenAI-compatible chat-completions server for driving the real
// MassGen CLI with no real LLM. node:http only; erasable TypeScript so Node 24
// runs it directly and ts-jest can import it.
//
// Protocol as MassGen 0.1.97 sends it (see docs/massgen-0.1.97.md):
// - every request is POST /v1/chat/completions with stream: true and tools;
// - coordination requests carry the workflow tools `new_answer` and `vote`;
// - the winner's final presentation carries no `vote` tool;
// - answers of the other agents appear in the user message as
//   `<agentN.M> text <end of agentN.M>`.
//
// CLI: node test-support/llm-server.ts [--port N] [--script file.json]
// prints `LLM_SERVER_URL=http://127.0.0.1:PORT/v1` and runs until killed.

import http from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'

export type FailureMode = 'http500' | 'refuse' | 'hang' | 'plaintext'

export interface AgentScript {
  /** Text of this agent's `new_answer`; default `Answer from <model>.`. */
  answer?: string
  /** Text of the final presentation; default: the answer text. */
  finalAnswer?: string
  /**
   * Whom to vote for: a real agent id (mapped to its anonymous label through
   * `LlmScript.agentIds`), an anonymous id like `agent2`, or 'lowest label'
   * (the default: the lowest `<agentN.M>` label in the user message).
   */
  voteFor?: string
  /** Reason sent with the vote. */
  voteReason?: string
  /** Wait this long before answering each request (ms). */
  delayMs?: number
  /** Wait this long between SSE chunks (ms): slow streaming. */
  chunkDelayMs?: number
  /** Split the tool-call arguments into this many chunks (default 2). */
  argumentChunks?: number
  fail?: FailureMode
  /** Fail only the first N requests of this model, then behave. */
  failTimes?: number
  /** Plain text used by `plaintext` failures. */
  text?: string
}

export interface LlmScript {
  /** Per agent, keyed by the backend's `model` name. */
  agents?: Record<string, AgentScript>
  /** Applied to models absent from `agents`. */
  default?: AgentScript
  /**
   * The real agent ids of the run. MassGen 0.1.97 numbers the anonymous ids
   * agent1..N in the SORTED order of the real ids
   * (coordination_tracker.get_anonymous_agent_mapping); needed to vote by
   * real id.
   */
  agentIds?: string[]
}

export type ReplyKind =
  | 'new_answer'
  | 'vote'
  | 'final'
  | 'http500'
  | 'refuse'
  | 'hang'
  | 'plaintext'
  | 'not_found'

export interface RecordedRequest {
  at: number
  method: string
  path: string
  model: string
  stream: boolean
  toolNames: string[]
  hasVoteTool: boolean
  hasNewAnswerTool: boolean
  /** Enum of the vote tool's agent_id parameter, if any. */
  voteChoices: string[]
  /** Distinct `<agentN.M>` labels in the messages, in order of appearance. */
  labels: string[]
  messageCount: number
  roles: string[]
  reply: ReplyKind
  /** Arguments we answered with (for tool calls). */
  replyArgs?: Record<string, string>
  body?: unknown
}

export interface LlmServer {
  url: string
  port: number
  requests: RecordedRequest[]
  close(): Promise<void>
}

export interface StartOptions {
  port?: number
  host?: string
  /** Keep the raw request body in each record. */
  keepBodies?: boolean
}

interface ToolDef {
  type?: string
  function?: { name?: string; parameters?: unknown }
  name?: string
}

interface ChatMessage {
  role?: string
  content?: unknown
}

const LABEL_RE = /<(agent\d+)\.(\d+)>/g

function messageText(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) => {
        if (typeof part === 'string') return part
        if (part && typeof part === 'object' && 'text' in part) {
          const t = (part as { text?: unknown }).text
          return typeof t === 'string' ? t : ''
        }
        return ''
      })
      .join('\n')
  }
  return ''
}

/** Distinct `<agentN.M>` labels found in the text, in order. */
export function findLabels(text: string): string[] {
  const seen: string[] = []
  for (const m of text.matchAll(LABEL_RE)) {
    const label = `${m[1]}.${m[2]}`
    // only count labels that are closed, i.e. real answer blocks
    if (!text.includes(`<end of ${label}>`)) continue
    if (!seen.includes(label)) seen.push(label)
  }
  return seen
}

function labelOrder(label: string): [number, number] {
  const m = /^agent(\d+)\.(\d+)$/.exec(label)
  return m ? [Number(m[1]), Number(m[2])] : [Infinity, Infinity]
}

/** The lowest label by agent number, then answer number. */
export function lowestLabel(labels: string[]): string | undefined {
  return [...labels].sort((a, b) => {
    const [a1, a2] = labelOrder(a)
    const [b1, b2] = labelOrder(b)
    return a1 - b1 || a2 - b2
  })[0]
}

function toolName(t: ToolDef): string {
  return t.function?.name ?? t.name ?? ''
}

function voteEnum(tools: ToolDef[]): string[] {
  const vote = tools.find((t) => toolName(t) === 'vote')
  const params = vote?.function?.parameters as
    { properties?: { agent_id?: { enum?: unknown } } } | undefined
  const e = params?.properties?.agent_id?.enum
  return Array.isArray(e) ? e.filter((x) => typeof x === 'string') : []
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** Resolve a voteFor setting to an anonymous agent id (agentN). */
export function resolveVote(
  voteFor: string | undefined,
  labels: string[],
  script: LlmScript,
  choices: string[]
): string {
  const lowest = lowestLabel(labels)
  const fallback = (lowest ? lowest.split('.')[0] : choices[0]) ?? 'agent1'
  if (!voteFor || voteFor === 'lowest label' || voteFor === 'lowest') {
    return fallback
  }
  if (/^agent\d+$/.test(voteFor) && !script.agentIds?.includes(voteFor)) {
    return voteFor
  }
  const ids = [...(script.agentIds ?? [])].sort()
  const index = ids.indexOf(voteFor)
  if (index < 0) return fallback
  const anon = `agent${index + 1}`
  // MassGen only accepts votes for agents whose answer it has shown
  return labels.some((l) => l.startsWith(`${anon}.`)) ? anon : fallback
}

/** The rule that converges, plus the script's overrides. */
export function decide(
  model: string,
  hasVoteTool: boolean,
  labels: string[],
  choices: string[],
  script: LlmScript
): { kind: 'new_answer' | 'vote' | 'final'; args: Record<string, string> } {
  const agent = script.agents?.[model] ?? script.default ?? {}
  const answer = agent.answer ?? `Answer from ${model}.`
  if (!hasVoteTool) {
    return { kind: 'final', args: { content: agent.finalAnswer ?? answer } }
  }
  if (labels.length === 0) {
    return { kind: 'new_answer', args: { content: answer } }
  }
  return {
    kind: 'vote',
    args: {
      agent_id: resolveVote(agent.voteFor, labels, script, choices),
      reason: agent.voteReason ?? `Voting as scripted for ${model}.`
    }
  }
}

function chunk(
  id: string,
  model: string,
  delta: Record<string, unknown>,
  finish: string | null
): string {
  const payload = {
    id,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, delta, finish_reason: finish }]
  }
  return `data: ${JSON.stringify(payload)}\n\n`
}

function usageChunk(id: string, model: string): string {
  const payload = {
    id,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [],
    usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 }
  }
  return `data: ${JSON.stringify(payload)}\n\n`
}

/** SSE chunks for one tool call. */
export function toolCallChunks(
  model: string,
  name: string,
  args: Record<string, string>,
  pieces = 2
): string[] {
  const id = `chatcmpl-${Math.random().toString(36).slice(2, 10)}`
  const callId = `call_${Math.random().toString(36).slice(2, 12)}`
  const json = JSON.stringify(args)
  const n = Math.max(1, pieces)
  const size = Math.ceil(json.length / n)
  const out = [
    chunk(id, model, { role: 'assistant', content: null }, null),
    chunk(
      id,
      model,
      {
        tool_calls: [
          {
            index: 0,
            id: callId,
            type: 'function',
            function: { name, arguments: '' }
          }
        ]
      },
      null
    )
  ]
  for (let i = 0; i < json.length; i += size) {
    out.push(
      chunk(
        id,
        model,
        {
          tool_calls: [
            { index: 0, function: { arguments: json.slice(i, i + size) } }
          ]
        },
        null
      )
    )
  }
  out.push(chunk(id, model, {}, 'tool_calls'))
  out.push(usageChunk(id, model))
  out.push('data: [DONE]\n\n')
  return out
}

/** SSE chunks for a plain text reply (no tool call). */
export function textChunks(model: string, text: string): string[] {
  const id = `chatcmpl-${Math.random().toString(36).slice(2, 10)}`
  return [
    chunk(id, model, { role: 'assistant', content: '' }, null),
    chunk(id, model, { content: text }, null),
    chunk(id, model, {}, 'stop'),
    usageChunk(id, model),
    'data: [DONE]\n\n'
  ]
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = []
    req.on('data', (c: Buffer) => parts.push(c))
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')))
    req.on('error', reject)
  })
}

export async function startLlmServer(
  script: LlmScript = {},
  options: StartOptions = {}
): Promise<LlmServer> {
  const requests: RecordedRequest[] = []
  const sockets = new Set<Socket>()
  const failures = new Map<string, number>()
  let closing = false

  async function writeSlowly(
    res: http.ServerResponse,
    pieces: string[],
    delay: number
  ): Promise<void> {
    for (const piece of pieces) {
      if (closing || res.destroyed) return
      res.write(piece)
      if (delay > 0) await sleep(delay)
    }
    res.end()
  }

  async function handle(
    req: http.IncomingMessage,
    res: http.ServerResponse
  ): Promise<void> {
    const raw = await readBody(req)
    const path = (req.url ?? '').split('?')[0] ?? ''
    let body: Record<string, unknown>
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {}
    } catch {
      body = {}
    }
    const model = typeof body.model === 'string' ? body.model : ''
    const tools = (Array.isArray(body.tools) ? body.tools : []) as ToolDef[]
    const messages = (
      Array.isArray(body.messages) ? body.messages : []
    ) as ChatMessage[]
    const toolNames = tools.map(toolName)
    // the system prompt quotes example labels: read only the other messages
    const text = messages
      .filter((m) => m.role !== 'system')
      .map((m) => messageText(m.content))
      .join('\n')
    const labels = findLabels(text)
    const record: RecordedRequest = {
      at: Date.now(),
      method: req.method ?? '',
      path,
      model,
      stream: body.stream === true,
      toolNames,
      hasVoteTool: toolNames.includes('vote'),
      hasNewAnswerTool: toolNames.includes('new_answer'),
      voteChoices: voteEnum(tools),
      labels,
      messageCount: messages.length,
      roles: messages.map((m) => m.role ?? ''),
      reply: 'not_found'
    }
    if (options.keepBodies) record.body = body
    requests.push(record)

    if (req.method === 'GET' && path.endsWith('/models')) {
      record.reply = 'final'
      const names = Object.keys(script.agents ?? {})
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          object: 'list',
          data: names.map((id) => ({ id, object: 'model' }))
        })
      )
      return
    }
    if (req.method !== 'POST' || !path.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: `no route ${path}` } }))
      return
    }

    const agent = script.agents?.[model] ?? script.default ?? {}
    if (agent.delayMs) await sleep(agent.delayMs)
    if (closing) {
      res.destroy()
      return
    }

    if (agent.fail) {
      const count = failures.get(model) ?? 0
      const limit = agent.failTimes ?? Infinity
      if (count < limit) {
        failures.set(model, count + 1)
        record.reply = agent.fail
        switch (agent.fail) {
          case 'http500':
            res.writeHead(500, { 'content-type': 'application/json' })
            res.end(
              JSON.stringify({
                error: {
                  message: 'scripted internal error',
                  type: 'server_error',
                  code: 500
                }
              })
            )
            return
          case 'refuse':
            req.socket.destroy()
            return
          case 'hang':
            // never answer; the socket is destroyed on close()
            return
          case 'plaintext': {
            res.writeHead(200, {
              'content-type': 'text/event-stream',
              'cache-control': 'no-cache'
            })
            await writeSlowly(
              res,
              textChunks(model, agent.text ?? 'I will just talk, no tools.'),
              agent.chunkDelayMs ?? 0
            )
            return
          }
        }
      }
    }

    const { kind, args } = decide(
      model,
      record.hasVoteTool,
      labels,
      record.voteChoices,
      script
    )
    record.reply = kind
    record.replyArgs = args
    const name = kind === 'vote' ? 'vote' : 'new_answer'
    if (body.stream === false) {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          id: 'chatcmpl-nostream',
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model,
          choices: [
            {
              index: 0,
              finish_reason: 'tool_calls',
              message: {
                role: 'assistant',
                content: null,
                tool_calls: [
                  {
                    id: 'call_nostream',
                    type: 'function',
                    function: { name, arguments: JSON.stringify(args) }
                  }
                ]
              }
            }
          ],
          usage: {
            prompt_tokens: 100,
            completion_tokens: 20,
            total_tokens: 120
          }
        })
      )
      return
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive'
    })
    await writeSlowly(
      res,
      toolCallChunks(model, name, args, agent.argumentChunks ?? 2),
      agent.chunkDelayMs ?? 0
    )
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'text/plain' })
      }
      res.end(String(err))
    })
  })
  server.on('connection', (s: Socket) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () =>
      resolve()
    )
  })
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    close(): Promise<void> {
      closing = true
      for (const s of sockets) s.destroy()
      return new Promise((resolve) => server.close(() => resolve()))
    }
  }
}

async function main(argv: string[]): Promise<void> {
  let port = 0
  let script: LlmScript = {}
  let logFile: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    const value = argv[i + 1] ?? ''
    if (arg === '--port') {
      port = Number(value)
      i++
    } else if (arg === '--script') {
      script = JSON.parse(readFileSync(value, 'utf8')) as LlmScript
      i++
    } else if (arg === '--log') {
      logFile = value
      i++
    }
  }
  const server = await startLlmServer(script, { port, keepBodies: !!logFile })
  process.stdout.write(`LLM_SERVER_URL=${server.url}\n`)
  const { appendFileSync } = await import('node:fs')
  let written = 0
  const flush = (): void => {
    if (!logFile) return
    for (; written < server.requests.length; written++) {
      appendFileSync(logFile, JSON.stringify(server.requests[written]) + '\n')
    }
  }
  const timer = setInterval(flush, 200)
  const stop = (): void => {
    clearInterval(timer)
    flush()
    void server.close().then(() => process.exit(0))
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

const entry = process.argv[1]
if (entry && import.meta.url === pathToFileURL(entry).href) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(`${String(err)}\n`)
    process.exit(1)
  })
}
