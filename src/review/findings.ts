// `review: inline`: what the agents are asked for, and how their answers are
// read back. Every answer is hostile LLM text: the findings block is found by
// a linear line scan, capped in size and count, parsed as JSON, each finding
// checked on its own against a strict schema (a bad one is dropped, never
// the rest), and its file must be one the pull request changes.
import { z } from 'zod'
import { stripInvisible } from '../event/command.js'
import {
  answerLines,
  FINDINGS_FENCE,
  findingsFences
} from '../shared/findings-fence.js'

export const SEVERITIES = ['blocker', 'concern', 'nit'] as const
export type Severity = (typeof SEVERITIES)[number]

/** A larger block is ignored whole: no answer needs 64 KiB of findings. */
export const MAX_BLOCK_CHARS = 64 * 1024
/** Findings kept per agent; the rest are counted as dropped. */
export const MAX_FINDINGS_PER_AGENT = 25
export const MAX_TITLE_CHARS = 200
export const MAX_EXPLANATION_CHARS = 4000
export const MAX_SUGGESTION_CHARS = 4000
export const MAX_SUGGESTION_LINES = 60
/** A longer range is cut to its last line: GitHub shows ranges in full. */
export const MAX_RANGE_LINES = 100

/** One finding of one agent, checked and normalised (text not yet escaped). */
export interface Finding {
  agent: string
  /** A file the pull request changes, as GitHub names it. */
  file: string
  /** Line on the new side (RIGHT); with startLine, the range's last line. */
  line: number
  /** First line of a range, always < line. */
  startLine?: number
  severity: Severity
  /** One line, visible characters only, at most MAX_TITLE_CHARS. */
  title: string
  explanation: string
  /** Replacement for lines startLine..line (or line), when given. */
  suggestion?: string
}

export type BlockState = 'found' | 'missing' | 'invalid' | 'too-large'

export interface AgentFindings {
  agent: string
  findings: Finding[]
  /** Findings given but not kept: bad schema, unknown file, over the cap. */
  dropped: number
  block: BlockState
}

/**
 * Appended to the question. Fixed text: nothing from the pull request goes
 * in, so no author can rewrite the instructions.
 */
export function reviewInstructions(): string {
  return [
    '',
    '',
    '---',
    'Review mode: besides your answer in prose, report each problem you find in the',
    "pull request's changes as one item of a JSON array in a fenced block whose info",
    `string is \`${FINDINGS_FENCE}\` (write \`[]\` inside it when you find none). One item:`,
    '',
    '```json',
    '{"file": "path/changed/in/the/pull/request.ts", "start_line": 10, "line": 12,',
    ' "severity": "concern", "title": "Short title",',
    ' "explanation": "Why it is a problem and what to do.",',
    ' "suggestion": "replacement text for lines 10 to 12"}',
    '```',
    '',
    "- `file`: the path as in the pull request's changed files.",
    '- `line`: the line number in the NEW version of the file (the right side of the',
    '  diff); `start_line` (optional, less than `line`) makes it a range.',
    '- `severity`: `blocker` (must be fixed before merging), `concern` (should be',
    '  fixed or answered) or `nit` (minor).',
    '- `suggestion` (optional): the exact new text of those lines, with no fence, only',
    '  when you are sure of it.',
    `At most ${MAX_FINDINGS_PER_AGENT} findings, most important first. The block is read by a program:`,
    'write valid JSON and only one such block.'
  ].join('\n')
}

const severity = z
  .string()
  .transform((s) => s.trim().toLowerCase())
  .pipe(z.enum(SEVERITIES))
const lineNumber = z.number().int().min(1).max(10_000_000)

const findingSchema = z.object({
  file: z.string().min(1).max(1000),
  line: lineNumber,
  start_line: lineNumber.nullish(),
  severity,
  title: z.string().max(10_000),
  explanation: z.string().max(100_000).nullish(),
  suggestion: z.string().max(100_000).nullish()
})

/**
 * The last `massgen-findings` fenced block of an answer: a line scan, so
 * linear in the answer's length. The last one, because an agent may quote
 * another's block before giving its own.
 */
export function findingsBlock(answer: string): {
  state: BlockState
  text?: string
} {
  const last = findingsFences(answerLines(answer)).at(-1)
  if (!last) return { state: 'missing' }
  const size = last.body.reduce((sum, line) => sum + line.length + 1, 0)
  return size > MAX_BLOCK_CHARS
    ? { state: 'too-large' }
    : { state: 'found', text: last.body.join('\n') }
}

/** Checks a path the agent wrote against the files the pull request changes. */
export function normalisePath(
  raw: string,
  changed: ReadonlySet<string>
): string | undefined {
  // Control characters, backslashes and parent steps name no changed file.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(raw)) return undefined
  const trimmed = raw.trim().replace(/^\.\//, '')
  if (trimmed.startsWith('/') || trimmed.split('/').includes('..'))
    return undefined
  // `b/src/x.ts` is how a diff names src/x.ts on the new side.
  for (const candidate of [trimmed, trimmed.replace(/^b\//, '')])
    if (changed.has(candidate)) return candidate
  return undefined
}

function oneLineTitle(text: string): string {
  const flat = stripInvisible(text).replace(/\s+/g, ' ').trim()
  return [...flat].slice(0, MAX_TITLE_CHARS).join('')
}

function clipText(text: string, max: number): string {
  const chars = [...stripInvisible(text).replace(/\r\n?/g, '\n')]
  return chars.length <= max
    ? chars.join('')
    : chars.slice(0, max - 1).join('') + '…'
}

/** A suggestion longer than the caps is not offered: a cut one is wrong code. */
function suggestionOf(text: string | null | undefined): string | undefined {
  if (text === null || text === undefined) return undefined
  const body = text.replace(/\r\n?/g, '\n').replace(/\n$/, '')
  if (body.length > MAX_SUGGESTION_CHARS) return undefined
  if (body.split('\n').length > MAX_SUGGESTION_LINES) return undefined
  // Code with invisible or bidi characters is not offered for one-click
  // commit: stripping them would change the code, keeping them hides it.
  if (stripInvisible(body) !== body) return undefined
  return body
}

/** One finding, or undefined when it breaks the schema or names no changed file. */
export function checkFinding(
  agent: string,
  raw: unknown,
  changed: ReadonlySet<string>
): Finding | undefined {
  const parsed = findingSchema.safeParse(raw)
  if (!parsed.success) return undefined
  const f = parsed.data
  const file = normalisePath(f.file, changed)
  const title = oneLineTitle(f.title)
  if (!file || !title) return undefined
  let startLine = f.start_line ?? undefined
  // A range must run forward and stay short; otherwise only its last line.
  if (
    startLine !== undefined &&
    (startLine >= f.line || f.line - startLine >= MAX_RANGE_LINES)
  )
    startLine = undefined
  const suggestion = suggestionOf(f.suggestion)
  return {
    agent,
    file,
    line: f.line,
    ...(startLine !== undefined ? { startLine } : {}),
    severity: f.severity,
    title,
    explanation: clipText(f.explanation ?? '', MAX_EXPLANATION_CHARS),
    ...(suggestion !== undefined ? { suggestion } : {})
  }
}

/** The findings of one agent's answer. */
export function parseFindings(
  agent: string,
  answer: string,
  changed: ReadonlySet<string>
): AgentFindings {
  const block = findingsBlock(answer)
  if (block.state !== 'found')
    return { agent, findings: [], dropped: 0, block: block.state }
  let items: unknown
  try {
    items = JSON.parse(block.text ?? '')
  } catch {
    return { agent, findings: [], dropped: 0, block: 'invalid' }
  }
  if (!Array.isArray(items))
    return { agent, findings: [], dropped: 0, block: 'invalid' }
  const findings: Finding[] = []
  let dropped = 0
  for (const item of items) {
    const finding =
      findings.length < MAX_FINDINGS_PER_AGENT
        ? checkFinding(agent, item, changed)
        : undefined
    if (finding) findings.push(finding)
    else dropped++
  }
  return { agent, findings, dropped, block: 'found' }
}
