// The replies of an OpenAI-compatible chat-completions server: SSE chunks
// for a streamed tool call or text, and the whole completion when the client
// asked not to stream.

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

/**
 * `cost`: USD reported with the usage, as OpenRouter does; MassGen 0.1.97
 * takes it as the request's cost (backend/base.py) instead of litellm's.
 */
/** Tokens a reply reports; the scripted server's are a fixed 100 in, 20 out. */
export interface Tokens {
  prompt: number
  completion: number
}

const SCRIPTED: Tokens = { prompt: 100, completion: 20 }

function usage(cost?: number, tokens: Tokens = SCRIPTED) {
  return {
    prompt_tokens: tokens.prompt,
    completion_tokens: tokens.completion,
    total_tokens: tokens.prompt + tokens.completion,
    ...(cost === undefined ? {} : { cost })
  }
}

function usageChunk(
  id: string,
  model: string,
  cost?: number,
  tokens?: Tokens
): string {
  const payload = {
    id,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [],
    usage: usage(cost, tokens)
  }
  return `data: ${JSON.stringify(payload)}\n\n`
}

/** SSE chunks for one tool call. */
export function toolCallChunks(
  model: string,
  name: string,
  args: Record<string, string>,
  pieces = 2,
  cost?: number,
  tokens?: Tokens
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
  out.push(usageChunk(id, model, cost, tokens))
  out.push('data: [DONE]\n\n')
  return out
}

/** SSE chunks for a plain text reply (no tool call). */
export function textChunks(
  model: string,
  text: string,
  cost?: number
): string[] {
  const id = `chatcmpl-${Math.random().toString(36).slice(2, 10)}`
  return [
    chunk(id, model, { role: 'assistant', content: '' }, null),
    chunk(id, model, { content: text }, null),
    chunk(id, model, {}, 'stop'),
    usageChunk(id, model, cost),
    'data: [DONE]\n\n'
  ]
}

/** The whole completion carrying one tool call, for `stream: false`. */
export function completionJson(
  model: string,
  name: string,
  args: Record<string, string>,
  cost?: number,
  tokens?: Tokens
) {
  return {
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
    usage: usage(cost, tokens)
  }
}
