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
//
// The protocol (script types, labels, decide) is in llm-protocol.ts, the
// agents' shell commands through MassGen's command tool in llm-commands.ts,
// what is recorded of a request in llm-requests.ts and the replies in
// llm-chunks.ts;
// every name this file exported is still exported here. Imports between
// test-support files carry the `.ts` suffix, which Node's type stripping
// needs (tsconfig: rewriteRelativeImportExtensions).

import http from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { completionJson, textChunks, toolCallChunks } from './llm-chunks.ts'
import { decide, scriptFor, toolFor, type LlmScript } from './llm-protocol.ts'
import { promptFile } from './llm-reads.ts'
import {
  parseBody,
  readBody,
  recordRequest,
  type RecordedRequest
} from './llm-requests.ts'
import { trackServer } from './live.ts'

export { textChunks, toolCallChunks } from './llm-chunks.ts'
export {
  answerWithEvidence,
  commandToolName,
  type CommandResult
} from './llm-commands.ts'
export {
  decide,
  findLabels,
  lowestLabel,
  resolveVote,
  type AgentScript,
  type FailureMode,
  type LlmScript
} from './llm-protocol.ts'
export {
  commandResultsOf,
  type RecordedRequest,
  type ReplyKind
} from './llm-requests.ts'

/** vLLM's body for a prompt over the model's context (its HTTP 400). */
export const CONTEXT_OVERFLOW = {
  object: 'error',
  message:
    "This model's maximum context length is 2048 tokens. However, you requested " +
    '6335 tokens (6235 in the messages, 100 in the completion). Please reduce the ' +
    'length of the messages or completion.',
  type: 'BadRequestError',
  param: null,
  code: 400
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
  /** How delays are waited (delayMs, chunkDelayMs); tests record them. */
  sleep?: (ms: number) => Promise<void>
}

/**
 * Delays that close() ends at once: a scripted delay of minutes (a model
 * that never answers in time) must not keep the test process alive once
 * its server is closed.
 */
function closableSleep(): {
  sleep: (ms: number) => Promise<void>
  endAll: () => void
} {
  const pending = new Map<NodeJS.Timeout, () => void>()
  return {
    sleep: (ms) =>
      new Promise((resolve) => {
        const timer = setTimeout(() => {
          pending.delete(timer)
          resolve()
        }, ms)
        pending.set(timer, resolve)
      }),
    endAll: () => {
      for (const [timer, resolve] of pending) {
        clearTimeout(timer)
        resolve()
      }
      pending.clear()
    }
  }
}

export async function startLlmServer(
  script: LlmScript = {},
  options: StartOptions = {}
): Promise<LlmServer> {
  const requests: RecordedRequest[] = []
  const sockets = new Set<Socket>()
  const failures = new Map<string, number>()
  // model -> chat requests it was sent
  const answeredBy = new Map<string, number>()
  // model -> the answer it gave once its commands had run
  const answered = new Map<string, string>()
  let closing = false
  const delays = closableSleep()
  const wait = options.sleep ?? delays.sleep

  async function writeSlowly(
    res: http.ServerResponse,
    pieces: string[],
    delay: number
  ): Promise<void> {
    for (const piece of pieces) {
      if (closing || res.destroyed) return
      res.write(piece)
      if (delay > 0) await wait(delay)
    }
    res.end()
  }

  async function handle(
    req: http.IncomingMessage,
    res: http.ServerResponse
  ): Promise<void> {
    const raw = await readBody(req)
    const path = (req.url ?? '').split('?')[0] ?? ''
    const body = parseBody(raw)
    const record = recordRequest(req.method ?? '', path, body)
    const { model, labels } = record
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

    const agent = scriptFor(
      script.agents?.[model] ?? script.default ?? {},
      record.voteRound
    )
    if (agent.delayMs) await wait(agent.delayMs)
    if (closing) {
      res.destroy()
      return
    }

    const served = (answeredBy.get(model) ?? 0) + 1
    answeredBy.set(model, served)
    if (agent.fail && served > (agent.failAfter ?? 0)) {
      const count = failures.get(model) ?? 0
      const limit = agent.failTimes ?? Infinity
      if (count < limit) {
        failures.set(model, count + 1)
        record.reply = agent.fail
        switch (agent.fail) {
          case 'context-overflow':
            // vLLM's reply to a prompt over the model's context (HTTP 400)
            res.writeHead(400, { 'content-type': 'application/json' })
            res.end(JSON.stringify(CONTEXT_OVERFLOW))
            return
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
              textChunks(
                model,
                agent.text ?? 'I will just talk, no tools.',
                agent.costPerRequest
              ),
              agent.chunkDelayMs ?? 0
            )
            return
          }
        }
      }
    }

    const decision = decide(
      model,
      record.hasVoteTool,
      labels,
      record.voteChoices,
      script,
      {
        toolNames: record.toolNames,
        results: record.commandResults,
        answered: record.voteRound ? undefined : answered.get(model),
        reads: record.readResults,
        voteRound: record.voteRound,
        readPath: (wanted) => promptFile(wanted, raw)
      }
    )
    const { kind, args } = decision
    const name = toolFor(decision)
    if (
      decision.kind !== 'command' &&
      decision.kind !== 'read' &&
      decision.withEvidence &&
      !record.voteRound
    ) {
      // later conversations of this agent answer without running them again
      answered.set(model, decision.args.content ?? '')
    }
    record.reply = kind
    record.replyTool = name
    record.replyArgs = args
    if (body.stream === false) {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify(completionJson(model, name, args, agent.costPerRequest))
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
      toolCallChunks(
        model,
        name,
        args,
        agent.argumentChunks ?? 2,
        agent.costPerRequest
      ),
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
  return trackServer<LlmServer>({
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    close(): Promise<void> {
      closing = true
      delays.endAll()
      for (const s of sockets) s.destroy()
      return new Promise((resolve) => server.close(() => resolve()))
    }
  })
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
