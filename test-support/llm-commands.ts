// Shell commands a scripted agent runs through MassGen's own command tool,
// and what MassGen reports back about them.
//
// MassGen 0.1.97 offers the tool as `mcp__command_line__execute_command`
// (the `command_line` MCP server, filesystem_manager/_code_execution_server.py)
// with parameters `{command: string, timeout?: int|null, work_dir?: string|null}`,
// in local mode and in docker mode alike: `enable_code_based_tools` keeps
// framework MCP servers (FRAMEWORK_MCPS, which lists `command_line`) as direct
// tools. It runs the call, then sends the next request with the assistant's
// `tool_calls` message and a `{role: 'tool', tool_call_id, content}` message
// whose content is the tool's JSON result: `success`, `exit_code`, `stdout`,
// `stderr`, `execution_time`, `command`, `work_dir`. In docker mode it runs
// `docker exec` and reports stdout and stderr together in `stdout`.

export const COMMAND_TOOL = 'execute_command'

export interface ToolCall {
  id?: string
  type?: string
  function?: { name?: string; arguments?: unknown }
}

export interface ChatMessage {
  role?: string
  content?: unknown
  tool_calls?: ToolCall[]
  tool_call_id?: string
}

/** One tool result in a request: the call it answers and MassGen's text. */
export interface ToolResult {
  callId: string
  /** Name of the tool called (from the assistant message with the call). */
  name: string
  /** The call's arguments, parsed when they are JSON. */
  args: Record<string, unknown>
  /** The `tool` message's content as MassGen sent it. */
  content: string
}

/** A result of the command tool, with the fields MassGen reported. */
export interface CommandResult {
  callId: string
  /** The command we asked for. */
  command: string
  content: string
  exitCode?: number
  stdout?: string
  stderr?: string
  workDir?: string
}

/**
 * MassGen's command tool among the offered tool names: `execute_command`,
 * bare or prefixed by its MCP server (`mcp__command_line__execute_command`).
 */
export function commandToolName(toolNames: string[]): string | undefined {
  return toolNames.find(
    (n) => n === COMMAND_TOOL || n.endsWith(`__${COMMAND_TOOL}`)
  )
}

export function isCommandTool(name: string): boolean {
  return commandToolName([name]) !== undefined
}

function text(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) =>
        part && typeof part === 'object' && 'text' in part
          ? text((part as { text?: unknown }).text)
          : typeof part === 'string'
            ? part
            : ''
      )
      .join('\n')
  }
  if (typeof content === 'number' || typeof content === 'boolean')
    return String(content)
  return content === undefined || content === null
    ? ''
    : JSON.stringify(content)
}

function parseObject(raw: unknown): Record<string, unknown> | undefined {
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    return raw as Record<string, unknown>
  }
  if (typeof raw !== 'string') return undefined
  try {
    const value: unknown = JSON.parse(raw)
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

/** Every tool result in the messages, matched with the call it answers. */
export function toolResults(messages: ChatMessage[]): ToolResult[] {
  const calls = new Map<string, ToolCall>()
  for (const m of messages) {
    for (const call of m.tool_calls ?? []) {
      if (call.id) calls.set(call.id, call)
    }
  }
  return messages
    .filter((m) => m.role === 'tool')
    .map((m) => {
      const callId = m.tool_call_id ?? ''
      const call = calls.get(callId)
      return {
        callId,
        name: call?.function?.name ?? '',
        args: parseObject(call?.function?.arguments) ?? {},
        content: text(m.content)
      }
    })
}

/**
 * The JSON object MassGen's command tool returned. A hook may append text
 * after it (MassGen injects peer updates into tool results), so when the
 * whole content is not JSON, the longest prefix that is wins.
 */
function resultObject(content: string): Record<string, unknown> | undefined {
  const start = content.indexOf('{')
  if (start < 0) return undefined
  for (let end = content.lastIndexOf('}'); end > start;) {
    const parsed = parseObject(content.slice(start, end + 1))
    if (parsed) return parsed
    end = content.lastIndexOf('}', end - 1)
  }
  return undefined
}

const str = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : undefined

export function commandResult(result: ToolResult): CommandResult {
  const fields = resultObject(result.content) ?? {}
  const exitCode = fields.exit_code
  return {
    callId: result.callId,
    command: str(result.args.command) ?? str(fields.command) ?? '',
    content: result.content,
    ...(typeof exitCode === 'number' ? { exitCode } : {}),
    ...(str(fields.stdout) !== undefined ? { stdout: str(fields.stdout) } : {}),
    ...(str(fields.stderr) !== undefined ? { stderr: str(fields.stderr) } : {}),
    ...(str(fields.work_dir) !== undefined
      ? { workDir: str(fields.work_dir) }
      : {})
  }
}

/** Results of the command tool in the messages, in order. */
export function commandResults(messages: ChatMessage[]): CommandResult[] {
  return toolResults(messages)
    .filter((r) => isCommandTool(r.name))
    .map(commandResult)
}

/**
 * The answer followed by each command and what MassGen reported of it, so a
 * test can read the evidence from the agent's answer. When MassGen's result
 * was not the expected JSON, its raw text stands in for the fields.
 */
export function answerWithEvidence(
  answer: string,
  results: CommandResult[]
): string {
  const blocks = results.map((r, i) => {
    const parsed = r.exitCode !== undefined
    return [
      `### Command ${i + 1}`,
      `$ ${r.command}`,
      `exit_code: ${parsed ? String(r.exitCode) : 'unknown'}`,
      ...(r.workDir !== undefined ? [`work_dir: ${r.workDir}`] : []),
      '--- stdout',
      parsed ? (r.stdout ?? '') : r.content,
      '--- stderr',
      r.stderr ?? '',
      '--- end'
    ].join('\n')
  })
  return [answer, ...blocks].join('\n\n')
}
