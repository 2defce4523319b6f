// Files a scripted agent reads through the filesystem MCP server the action
// gives it (src/read-tools.ts), offered by MassGen as
// `mcp__filesystem__read_text_file` with parameters `{path, head?, tail?}`.
// The tool's result is the file's text (MassGen passes the server's text
// content on as the `tool` message).
import { toolResults, type ChatMessage } from './llm-commands.ts'

export const READ_TOOL = 'read_text_file'

/** One file read: the path asked for and what MassGen sent back. */
export interface ReadResult {
  callId: string
  path: string
  content: string
}

/** The read tool among the offered tool names, bare or prefixed by its server. */
export function readToolName(toolNames: string[]): string | undefined {
  return toolNames.find((n) => n === READ_TOOL || n.endsWith(`__${READ_TOOL}`))
}

/** Results of the read tool in the messages, in order. */
export function readResults(messages: ChatMessage[]): ReadResult[] {
  return toolResults(messages)
    .filter((r) => readToolName([r.name]) !== undefined)
    .map((r) => ({
      callId: r.callId,
      path: typeof r.args.path === 'string' ? r.args.path : '',
      content: r.content
    }))
}

/** The answer followed by each file read, quoted, so a test finds the quote. */
export function answerWithQuotes(
  answer: string,
  results: ReadResult[]
): string {
  const blocks = results.map((r) =>
    [
      `### Read ${r.path}`,
      '> ' + r.content.trim().split('\n').join('\n> ')
    ].join('\n')
  )
  return [answer, ...blocks].join('\n\n')
}
