// What the local model (local-model.ts) is asked for one request of MassGen
// 0.1.97, and how its output becomes the tool call MassGen expects. Pure, so
// unit tests check it without the native runtime.
//
// A 135M model cannot follow MassGen's ~6,000-token prompt nor pick a tool on
// its own, so (docs/local-model.md says why each):
// - the prompt is rebuilt short from the request: the question (without the
//   review instructions' example), the diff it read, the other answers, the
//   findings put to a vote, each clipped (PROMPT_BUDGET);
// - the tool is chosen by the protocol, not the model: a first turn that
//   offers the read tool reads the pull request's diff.patch (no model call);
//   an agent that has answered once votes; otherwise it answers;
// - the model's output is constrained by a JSON schema to that tool's
//   arguments, and the review's fenced blocks are written around its JSON.
// What it says (summary, findings, votes, reasons) is the model's own.
import { createHash } from 'node:crypto'
import { toolResults, type ChatMessage } from './llm-commands.ts'
import { promptFile, readToolName } from './llm-reads.ts'
import {
  messageText,
  VOTE_ROUND_MARK,
  type ToolDef,
  toolName,
  voteEnum,
  findLabels
} from './llm-protocol.ts'

/** The fences of src/core/findings-fence.ts (the action reads them back). */
const FINDINGS_FENCE = 'massgen-findings'
const FINDING_VOTES_FENCE = 'massgen-finding-votes'
const WALKTHROUGH_FENCE = 'massgen-walkthrough'

/**
 * Characters of each part of the rebuilt prompt: about 700 tokens in all.
 * Each turn's maxTokens is above the longest JSON its schema admits, so the
 * model's JSON is never cut short.
 */
export const PROMPT_BUDGET = {
  question: 600,
  diff: 1200,
  answer: 250,
  findings: 1200
} as const

/** A JSON schema in the subset node-llama-cpp turns into a grammar. */
export type Schema = Record<string, unknown>

/** The reply to one request: a tool call made without the model, or a model call. */
export type Turn =
  | { kind: 'forced'; tool: string; args: Record<string, string> }
  | {
      kind: 'model'
      /** new_answer or vote */
      tool: string
      role: 'answer' | 'review' | 'ballot' | 'vote'
      system: string
      prompt: string
      schema: Schema
      maxTokens: number
    }

interface RequestBody {
  messages?: ChatMessage[]
  tools?: ToolDef[]
  model?: unknown
}

/** A string of at most `maxLength` characters, not empty (the model likes `""`). */
const str = (maxLength: number): Schema => ({
  type: 'string',
  minLength: 8,
  maxLength
})

function clip(text: string, chars: number): string {
  const t = text.trim()
  return t.length <= chars ? t : `${t.slice(0, chars)} [...]`
}

/** The question between MassGen's ORIGINAL MESSAGE markers, else the whole user text. */
export function originalQuestion(userText: string): string {
  const m = /<ORIGINAL MESSAGE>([\s\S]*?)<END OF ORIGINAL MESSAGE>/.exec(
    userText
  )
  return (m?.[1] ?? userText).trim()
}

/** The question without the review instructions' appendix (its example would be copied). */
function questionOnly(question: string): string {
  const cut = question.indexOf('\n---\nReview mode:')
  return cut < 0 ? question : question.slice(0, cut)
}

/** `<agentN.M> text <end of agentN.M>` blocks of the user message. */
function answersShown(userText: string): { label: string; text: string }[] {
  return findLabels(userText).map((label) => {
    const start = userText.indexOf(`<${label}>`) + label.length + 2
    const end = userText.indexOf(`<end of ${label}>`, start)
    return { label, text: userText.slice(start, end < 0 ? undefined : end) }
  })
}

/** Paths of the files a diff changes (`+++ b/path`). */
export function diffFiles(diff: string): string[] {
  const files = new Set<string>()
  for (const m of diff.matchAll(/^\+\+\+ b\/(.+)$/gm)) files.add(m[1] as string)
  return [...files]
}

/** Finding ids (`F1`...) the vote round's question lists. */
function findingIds(text: string): string[] {
  return [
    ...new Set([...text.matchAll(/\bF(\d{1,2})\b/g)].map((m) => `F${m[1]}`))
  ]
}

/**
 * The key of one agent's conversation about one question: the server
 * remembers, per key, that the agent has answered (it then votes).
 */
export function conversationKey(model: string, question: string): string {
  return `${model} ${createHash('sha256').update(question).digest('hex').slice(0, 16)}`
}

export interface TurnInput {
  body: RequestBody
  /** The raw request text (promptFile looks for the read-only folder in it). */
  raw: string
  /** This agent has given an answer to this question already. */
  answered: boolean
}

export function planTurn({ body, raw, answered }: TurnInput): Turn {
  const messages = body.messages ?? []
  const tools = body.tools ?? []
  const toolNames = tools.map(toolName)
  const user = messages
    .filter((m) => m.role === 'user')
    .map((m) => messageText(m.content))
    .join('\n')
  const question = originalQuestion(user)
  const ballotRound = user.includes(VOTE_ROUND_MARK)
  const reads = toolResults(messages).filter(
    (r) => readToolName([r.name]) !== undefined
  )
  const readTool = readToolName(toolNames)
  const diffPath = promptFile('prompt:diff.patch', raw)
  if (
    readTool &&
    !ballotRound &&
    reads.length === 0 &&
    diffPath !== 'diff.patch'
  )
    return { kind: 'forced', tool: readTool, args: { path: diffPath } }

  const diff = reads.map((r) => r.content).join('\n')
  const shown = answersShown(user)
  const choices = voteEnum(tools).filter((id) =>
    shown.some((a) => a.label.startsWith(`${id}.`))
  )
  const parts = [
    `Question:\n${clip(questionOnly(question), PROMPT_BUDGET.question)}`
  ]
  if (diff) parts.push(`The diff:\n${clip(diff, PROMPT_BUDGET.diff)}`)
  const answersPart = shown.map(
    (a) =>
      `Answer of ${a.label.split('.')[0]}:\n${clip(a.text, PROMPT_BUDGET.answer)}`
  )

  if (answered && toolNames.includes('vote') && choices.length > 0)
    return {
      kind: 'model',
      tool: 'vote',
      role: 'vote',
      system: 'You judge answers. Reply in JSON.',
      prompt: [
        ...parts,
        ...answersPart,
        'Vote for the best answer: its agent id and a short reason.'
      ].join('\n\n'),
      schema: {
        type: 'object',
        properties: { agent_id: { enum: choices }, reason: str(120) },
        required: ['agent_id', 'reason']
      },
      maxTokens: 200
    }

  if (ballotRound) {
    const ids = findingIds(question)
    const at = question.indexOf('# The findings')
    const findings = at < 0 ? question : question.slice(at)
    return {
      kind: 'model',
      tool: 'new_answer',
      role: 'ballot',
      system: 'You check findings of a code review. Reply in JSON.',
      prompt: [
        `Findings:\n${clip(findings, PROMPT_BUDGET.findings)}`,
        'Vote on each finding: confirm, reject or abstain, with the line, the code quoted and a reason.'
      ].join('\n\n'),
      schema: {
        type: 'array',
        minItems: 1,
        maxItems: Math.max(1, ids.length),
        items: {
          type: 'object',
          properties: {
            finding: { enum: ids.length > 0 ? ids : ['F1'] },
            vote: { enum: ['confirm', 'reject', 'abstain'] },
            line: { type: 'integer' },
            quote: str(80),
            reason: str(120)
          },
          required: ['finding', 'vote', 'line', 'quote', 'reason']
        }
      },
      maxTokens: 60 + 250 * Math.max(1, ids.length)
    }
  }

  const review = question.includes(FINDINGS_FENCE)
  const files = diffFiles(diff)
  const fileSchema = files.length > 0 ? { enum: files } : str(80)
  const task = toolNames.includes('vote')
    ? 'Write your own answer.'
    : 'Write the final answer.'
  if (review)
    return {
      kind: 'model',
      tool: 'new_answer',
      role: 'review',
      system: 'You review code changes. Reply in JSON.',
      prompt: [
        ...parts,
        ...answersPart,
        `${task} Give a short summary, what the change does to each file (walkthrough), and at most two problems in the changed code, each with its file, line, severity, title and explanation.`
      ].join('\n\n'),
      schema: {
        type: 'object',
        properties: {
          summary: str(160),
          // The voted answer's walkthrough shows in the report: optional for
          // the action, at least one line here (left free, the model writes
          // an empty list).
          walkthrough: {
            type: 'array',
            minItems: 1,
            maxItems: 3,
            items: {
              type: 'object',
              properties: { file: fileSchema, change: str(80) },
              required: ['file', 'change']
            }
          },
          findings: {
            type: 'array',
            maxItems: 2,
            items: {
              type: 'object',
              properties: {
                file: fileSchema,
                line: { type: 'integer' },
                severity: { enum: ['blocker', 'concern', 'nit'] },
                title: str(60),
                explanation: str(160)
              },
              required: ['file', 'line', 'severity', 'title', 'explanation']
            }
          }
        },
        required: ['summary', 'findings']
      },
      maxTokens: 1200
    }
  return {
    kind: 'model',
    tool: 'new_answer',
    role: 'answer',
    system: 'You answer questions about code. Reply in JSON.',
    prompt: [...parts, ...answersPart, `${task} Be brief.`].join('\n\n'),
    schema: {
      type: 'object',
      properties: { answer: str(200) },
      required: ['answer']
    },
    maxTokens: 300
  }
}

/** The tool call's arguments from the model's JSON (already schema-valid). */
export function toolArgs(
  turn: Extract<Turn, { kind: 'model' }>,
  output: unknown
): Record<string, string> {
  const o = output as Record<string, unknown>
  switch (turn.role) {
    case 'vote':
      return { agent_id: String(o.agent_id), reason: String(o.reason) }
    case 'ballot':
      return {
        content: [
          '```' + FINDING_VOTES_FENCE,
          JSON.stringify(output),
          '```'
        ].join('\n')
      }
    case 'review': {
      const walkthrough = Array.isArray(o.walkthrough)
        ? (o.walkthrough as Array<{ file: string; change: string }>)
        : []
      return {
        content: [
          String(o.summary),
          '',
          ...(walkthrough.length
            ? [
                '```' + WALKTHROUGH_FENCE,
                ...walkthrough.map((w) => `${w.file}: ${w.change}`),
                '```',
                ''
              ]
            : []),
          '```' + FINDINGS_FENCE,
          JSON.stringify(o.findings),
          '```'
        ].join('\n')
      }
    }
    case 'answer':
      return { content: String(o.answer) }
  }
}
