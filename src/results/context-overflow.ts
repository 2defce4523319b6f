// An agent whose request was over its model's context: the provider answers
// HTTP 400 ("maximum context length", "too many tokens"...), MassGen retries,
// compresses, gives up ("failed to use workflow tools after 3 attempts") and
// the cause stays in its log (seen with a real model, issue 44). MassGen
// 0.1.97 keeps the provider's error in status.json's enforcement attempts
// and writes it to events.jsonl as the agent's `❌ Error:` text; either is
// read here. The texts are the provider's (and may quote the prompt):
// hostile, shown only through the report's escaping.

import { eventsOf } from './events.js'

/** What OpenAI, vLLM, Anthropic, Mistral, OpenRouter, Groq and Cohere say (MassGen's _context_errors.py lists them). */
const OVER_CONTEXT =
  /context[ _]length|maximum context|context[ _]window|too many tokens|prompt is too long|request_too_large|context is too long/i

/** The provider's words kept, at most. */
const MAX_MESSAGE_CHARS = 400

/** Whether an API error says the request was over the model's context. */
export function overContext(message: string): boolean {
  return OVER_CONTEXT.test(message)
}

/** The first of these errors that says so, clipped; undefined when none does. */
export function contextOverflowOf(
  messages: readonly string[]
): string | undefined {
  const found = messages.find(overContext)
  if (found === undefined) return undefined
  const flat = found.replace(/\s+/g, ' ').trim()
  const chars = [...flat]
  return chars.length <= MAX_MESSAGE_CHARS
    ? flat
    : chars.slice(0, MAX_MESSAGE_CHARS - 1).join('') + '…'
}

/** MassGen's mark on an agent's API error in its text events. */
const ERROR_TEXT = '❌ Error:'

/**
 * Each agent's API errors as events.jsonl's `text` events show them; a
 * line that is not such an event is skipped.
 */
export function apiErrorsFromEvents(text: string): Record<string, string[]> {
  // No prototype: an agent id is text from a file MassGen writes.
  const errors = Object.create(null) as Record<string, string[]>
  for (const e of eventsOf(text, ERROR_TEXT)) {
    const content = e.data?.content
    if (
      e.event_type !== 'text' ||
      typeof e.agent_id !== 'string' ||
      typeof content !== 'string' ||
      !content.trimStart().startsWith(ERROR_TEXT)
    )
      continue
    const list = (errors[e.agent_id] ??= [])
    if (list.length < 20)
      list.push(content.trimStart().slice(ERROR_TEXT.length).trim())
  }
  return errors
}
