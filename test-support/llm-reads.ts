// Files a scripted agent reads through the filesystem MCP server the action
// gives it (src/plan/read-tools.ts), offered by MassGen as
// `mcp__filesystem__read_text_file` with parameters `{path, head?, tail?}`.
// The tool's result is the file's text (MassGen passes the server's text
// content on as the `tool` message).
import { existsSync } from 'node:fs'
import * as path from 'node:path'
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

/** A script's read written `prompt:NAME`: the file NAME in a folder the prompt names. */
export const PROMPT_FILE = 'prompt:'

/**
 * The path of `prompt:NAME`: NAME in the first read-only folder the prompt
 * names ("... in the read-only folder /x/pr-context (" or "...;") that holds
 * it, as an agent following the prompt would read it. Other paths as given.
 */
export function promptFile(wanted: string, text: string): string {
  if (!wanted.startsWith(PROMPT_FILE)) return wanted
  const name = wanted.slice(PROMPT_FILE.length)
  for (const m of text.matchAll(/read-only folder (\/[^\s;()]+)/g)) {
    const file = path.join(m[1] as string, name)
    if (existsSync(file)) return file
  }
  return name
}
