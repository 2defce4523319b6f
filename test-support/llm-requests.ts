// What the scripted LLM server records of each request: the model, the
// tools offered, the `<agentN.M>` labels of the answers shown, the results of
// MassGen's command tool it carries, and the reply it gave. Tests assert on
// these records.
import type http from 'node:http'
import { commandResults, type CommandResult } from './llm-commands.ts'
import { readResults, type ReadResult } from './llm-reads.ts'
import {
  findLabels,
  messageText,
  VOTE_ROUND_MARK,
  toolName,
  voteEnum,
  type ChatMessage,
  type ToolDef
} from './llm-protocol.ts'

export type ReplyKind =
  | 'new_answer'
  | 'command'
  | 'read'
  | 'vote'
  | 'final'
  | 'http500'
  | 'refuse'
  | 'hang'
  | 'plaintext'
  | 'context-overflow'
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
  /**
   * Results of MassGen's command tool in the messages (every one of this
   * conversation so far, so later requests repeat earlier results).
   */
  commandResults: CommandResult[]
  /** Results of the read tool in the messages (llm-reads.ts). */
  readResults: ReadResult[]
  /** The review's vote round asked this (its instructions are in the messages). */
  voteRound: boolean
  /** UTF-8 bytes of every message's text (system, user, tool results): what the model is sent to read. */
  promptBytes: number
  reply: ReplyKind
  /** The tool we called in the reply (for tool calls). */
  replyTool?: string
  /** Arguments we answered with (for tool calls). */
  replyArgs?: Record<string, string>
  body?: unknown
}

/** The JSON body of a request; `{}` when there is none or it is not JSON. */
export function parseBody(raw: string): Record<string, unknown> {
  try {
    return raw ? (JSON.parse(raw) as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

/** The record of one request, its reply still 'not_found'. */
export function recordRequest(
  method: string,
  path: string,
  body: Record<string, unknown>
): RecordedRequest {
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
  return {
    at: Date.now(),
    method,
    path,
    model,
    stream: body.stream === true,
    toolNames,
    hasVoteTool: toolNames.includes('vote'),
    hasNewAnswerTool: toolNames.includes('new_answer'),
    voteChoices: voteEnum(tools),
    labels: findLabels(text),
    messageCount: messages.length,
    roles: messages.map((m) => m.role ?? ''),
    commandResults: commandResults(messages),
    readResults: readResults(messages),
    voteRound: text.includes(VOTE_ROUND_MARK),
    promptBytes: messages.reduce(
      (n, m) => n + Buffer.byteLength(messageText(m.content), 'utf8'),
      0
    ),
    reply: 'not_found'
  }
}

/**
 * The command results MassGen sent for one model, each once (by call id), in
 * the order they first came.
 */
export function commandResultsOf(
  requests: RecordedRequest[],
  model: string
): CommandResult[] {
  // A conversation where MassGen could not reach its command server ends the
  // attempt ("not connected"); the agent tries again in its next one. Each
  // command's result is the last one it got, in the order first asked (a
  // Map keeps the order of first insertion).
  const seen = new Set<string>()
  const latest = new Map<string, CommandResult>()
  for (const r of requests.filter((q) => q.model === model))
    for (const result of r.commandResults) {
      if (seen.has(result.callId)) continue
      seen.add(result.callId)
      latest.set(result.command, result)
    }
  return [...latest.values()]
}

/** A request's whole body, as text. */
export function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = []
    req.on('data', (c: Buffer) => parts.push(c))
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')))
    req.on('error', reject)
  })
}

/** The system messages a kept request body (`keepBodies`) sent, joined; '' when none. */
export function systemPromptOf(request: RecordedRequest): string {
  const body = (request.body ?? {}) as { messages?: unknown }
  const messages = Array.isArray(body.messages) ? body.messages : []
  return (messages as Array<{ role?: unknown; content?: unknown }>)
    .filter((m) => m.role === 'system' && typeof m.content === 'string')
    .map((m) => m.content as string)
    .join('\n')
}
