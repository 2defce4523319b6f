// A real model behind the OpenAI-compatible API MassGen 0.1.97 speaks: the
// scripted server's protocol (llm-protocol.ts, llm-requests.ts, llm-chunks.ts:
// streaming, a tool call sent as SSE chunks, `/v1/models`) answered by
// SmolLM2-135M-Instruct on the CPU through node-llama-cpp's prebuilt
// binaries. What the model is asked and how its output is constrained:
// local-model-turn.ts and docs/local-model.md.
//
// CLI (Node 24 runs it directly; scripts/fetch-model.sh gives the model):
//   node test-support/local-model.ts --model FILE [--port N] [--log FILE]
//     [--models a,b] [--seed N] [--temperature T] [--context N] [--threads N]
// prints `LLM_SERVER_URL=http://127.0.0.1:PORT/v1` once the model is
// loaded, then serves on the loopback until SIGTERM/SIGINT. Each request is
// appended to --log as one JSON line (RecordedRequest plus `turn`, the
// request's bytes, the tokens and the model's milliseconds). Only one generation runs at a time.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { appendFileSync } from 'node:fs'
import { getLlama, LlamaChatSession, LlamaLogLevel } from 'node-llama-cpp'
import { completionJson, toolCallChunks } from './llm-chunks.ts'
import { parseBody, readBody, recordRequest } from './llm-requests.ts'
import {
  conversationKey,
  originalQuestion,
  planTurn,
  toolArgs,
  type Turn
} from './local-model-turn.ts'
import { messageText, type ChatMessage } from './llm-protocol.ts'

interface Options {
  model: string
  port: number
  log?: string
  models: string[]
  seed: number
  temperature: number
  context: number
  threads: number
}

function options(argv: string[]): Options {
  const o: Options = {
    model: '',
    port: 0,
    models: ['local-a', 'local-b'],
    seed: 1,
    temperature: 0.7,
    context: 2048,
    // llama.cpp's threads spin: on a loaded machine two of them starve each
    // other (a request once took minutes of CPU); one is steady
    threads: 1
  }
  for (let i = 0; i < argv.length; i += 2) {
    const value = argv[i + 1] ?? ''
    switch (argv[i]) {
      case '--model':
        o.model = value
        break
      case '--port':
        o.port = Number(value)
        break
      case '--log':
        o.log = value
        break
      case '--models':
        o.models = value.split(',').filter(Boolean)
        break
      case '--seed':
        o.seed = Number(value)
        break
      case '--temperature':
        o.temperature = Number(value)
        break
      case '--context':
        o.context = Number(value)
        break
      case '--threads':
        o.threads = Number(value)
        break
      default:
        throw new Error(`unknown option ${argv[i]}`)
    }
  }
  if (!o.model) throw new Error('--model FILE is required')
  return o
}

/** One generation at a time: the context has one sequence, the machine two cores. */
function serial() {
  let last: Promise<unknown> = Promise.resolve()
  return <T>(work: () => Promise<T>): Promise<T> => {
    const next = last.then(work, work)
    last = next.catch(() => undefined)
    return next
  }
}

async function main(o: Options): Promise<void> {
  const llama = await getLlama({
    gpu: false,
    build: 'never',
    logLevel: LlamaLogLevel.error
  })
  const model = await llama.loadModel({ modelPath: o.model })
  const context = await model.createContext({
    contextSize: o.context,
    sequences: 1,
    threads: o.threads
  })
  const inTurn = serial()
  const answered = new Set<string>()
  let count = 0

  async function generate(
    turn: Extract<Turn, { kind: 'model' }>,
    signal: AbortSignal
  ) {
    return inTurn(async () => {
      const sequence = context.getSequence()
      const session = new LlamaChatSession({
        contextSequence: sequence,
        systemPrompt: turn.system
      })
      try {
        const grammar = await llama.createGrammarForJsonSchema(
          turn.schema as never
        )
        const started = Date.now()
        const before = sequence.tokenMeter.getState()
        const text = await session.prompt(turn.prompt, {
          grammar,
          maxTokens: turn.maxTokens,
          temperature: o.temperature,
          seed: o.seed + count++,
          repeatPenalty: { penalty: 1.2 },
          signal,
          stopOnAbortSignal: true
        })
        const meter = sequence.tokenMeter.diff(before)
        let output: unknown
        try {
          output = grammar.parse(text)
        } catch {
          // maxTokens cut the JSON short: the call carries what was written
          output = undefined
        }
        return {
          text,
          output,
          ms: Date.now() - started,
          promptTokens: meter.usedInputTokens,
          completionTokens: meter.usedOutputTokens
        }
      } finally {
        session.dispose({ disposeSequence: true })
      }
    })
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const raw = await readBody(req)
    const path = (req.url ?? '').split('?')[0] ?? ''
    if (req.method === 'GET' && path.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          object: 'list',
          data: o.models.map((id) => ({ id, object: 'model' }))
        })
      )
      return
    }
    if (req.method !== 'POST' || !path.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: `no route ${path}` } }))
      return
    }
    const body = parseBody(raw)
    const record = recordRequest(req.method, path, body)
    const user = ((body.messages ?? []) as ChatMessage[])
      .filter((m) => m.role === 'user')
      .map((m) => messageText(m.content))
      .join('\n')
    const key = conversationKey(
      `${record.model}${record.voteRound ? ' ballot' : ''}`,
      originalQuestion(user)
    )
    const turn = planTurn({
      body: body,
      raw,
      answered: answered.has(key)
    })
    const abort = new AbortController()
    res.on('close', () => {
      if (!res.writableFinished) abort.abort()
    })
    let name: string
    let args: Record<string, string>
    let tokens = { prompt: 0, completion: 0 }
    const log: Record<string, unknown> = {
      turn: turn.kind === 'forced' ? 'read' : turn.role,
      // What MassGen sent: the model's own prompt is rebuilt short (local-model-turn.ts).
      bodyBytes: Buffer.byteLength(raw, 'utf8')
    }
    if (turn.kind === 'forced') {
      name = turn.tool
      args = turn.args
    } else {
      const made = await generate(turn, abort.signal)
      if (abort.signal.aborted) return
      name = turn.tool
      args =
        made.output === undefined
          ? turn.tool === 'vote'
            ? { agent_id: '', reason: made.text }
            : { content: made.text }
          : toolArgs(turn, made.output)
      tokens = { prompt: made.promptTokens, completion: made.completionTokens }
      Object.assign(log, {
        ms: made.ms,
        promptTokens: made.promptTokens,
        completionTokens: made.completionTokens,
        complete: made.output !== undefined
      })
      if (turn.tool === 'new_answer' && turn.role !== 'answer')
        answered.add(key)
      if (turn.role === 'answer' && record.hasVoteTool) answered.add(key)
    }
    record.reply =
      name === 'vote'
        ? 'vote'
        : turn.kind === 'forced'
          ? 'read'
          : record.hasVoteTool
            ? 'new_answer'
            : 'final'
    record.replyTool = name
    record.replyArgs = args
    if (o.log)
      appendFileSync(o.log, JSON.stringify({ ...record, ...log }) + '\n')
    if (body.stream === false) {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify(
          completionJson(record.model, name, args, undefined, tokens)
        )
      )
      return
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive'
    })
    // one delta with the whole arguments, as a local server sends them
    for (const piece of toolCallChunks(
      record.model,
      name,
      args,
      1,
      undefined,
      tokens
    ))
      res.write(piece)
    res.end()
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent)
        res.writeHead(500, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: String(err) } }))
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(o.port, '127.0.0.1', () => resolve())
  })
  const port = (server.address() as AddressInfo).port
  process.stdout.write(`LLM_SERVER_URL=http://127.0.0.1:${port}/v1\n`)
  const stop = (): void => {
    server.closeAllConnections()
    server.close(() => {
      void model.dispose().then(() => process.exit(0))
    })
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

main(options(process.argv.slice(2))).catch((err: unknown) => {
  process.stderr.write(`local-model: ${String(err)}\n`)
  process.exit(1)
})
