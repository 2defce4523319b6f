// `review: inline`: what the agents are asked for, and how their answers are
// read back. Every answer is hostile LLM text: the findings block is found by
// a linear line scan, capped in size and count, parsed as JSON, each finding
// checked on its own against a strict schema (a bad one is dropped, never
// the rest), and its file must be one the pull request changes.
import { z } from 'zod'
import { stripInvisible } from '../safety/visible-text.js'
import {
  answerLines,
  findingsFences,
  MAX_FINDINGS_PER_AGENT
} from '../core/findings-fence.js'
import { SEVERITIES, type Finding } from '../core/review.js'
import { EXAMPLE_FINDING } from '../context/review-prompt.js'

/** A larger block is ignored whole: no answer needs 64 KiB of findings. */
export const MAX_BLOCK_CHARS = 64 * 1024
const MAX_TITLE_CHARS = 200
const MAX_EXPLANATION_CHARS = 4000
const MAX_SUGGESTION_CHARS = 4000
const MAX_SUGGESTION_LINES = 60
/** A longer range is cut to its last line: GitHub shows ranges in full. */
const MAX_RANGE_LINES = 100

type BlockState = 'found' | 'missing' | 'invalid' | 'too-large'

export interface AgentFindings {
  agent: string
  findings: Finding[]
  /** Findings given but not kept: bad schema, unknown file, over the cap. */
  dropped: number
  block: BlockState
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

/** White space that looks like a space but is not one to a compiler. */
const ODD_SPACE = /[\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u

/** A word (letters, marks, digits, `_`) as an identifier is written. */
const WORD = /[\p{L}\p{M}\p{N}_]+/gu
const ASCII_LETTER = /[A-Za-z]/
/**
 * Inside a word of ASCII letters, any other letter, mark or digit is a
 * possible look-alike: Cyrillic and Greek letters, full-width forms, Latin
 * ones such as the dotless i, combining marks. Strict on purpose: a
 * withheld suggestion still shows as a finding.
 */
const NOT_ASCII = /[^ -~\t\n]/
/** `U+0430` for each distinct character, at most five. */
function codePoints(chars: string[]): string {
  return [...new Set(chars)]
    .slice(0, 5)
    .map(
      (c) =>
        `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`
    )
    .join(', ')
}

/**
 * Why a suggestion would commit something else than it shows, or
 * undefined: a look-alike letter inside an ASCII word (`v\u0430lue`, with
 * a Cyrillic a, names another variable) or a space that is not one.
 */
function lookAlikeProblem(body: string): string | undefined {
  const spaces = body.match(new RegExp(ODD_SPACE.source, 'gu')) ?? []
  if (spaces.length > 0)
    return `it holds a space that is not an ASCII space (${codePoints(spaces)})`
  const foreign: string[] = []
  for (const [word] of body.matchAll(WORD)) {
    if (!ASCII_LETTER.test(word)) continue
    for (const c of word) if (NOT_ASCII.test(c)) foreign.push(c)
  }
  if (foreign.length > 0)
    return `a word mixes ASCII letters with other letters or marks that can look alike (${codePoints(foreign)})`
  return undefined
}

/**
 * The replacement offered for one-click commit, or why it is not: longer
 * than the caps (a cut one is wrong code), or hiding what it commits.
 */
function suggestionOf(text: string | null | undefined): {
  suggestion?: string
  withheld?: string
} {
  if (text === null || text === undefined) return {}
  const body = text.replace(/\r\n?/g, '\n').replace(/\n$/, '')
  if (body.length > MAX_SUGGESTION_CHARS) return {}
  if (body.split('\n').length > MAX_SUGGESTION_LINES) return {}
  // Code with invisible or bidi characters is not offered for one-click
  // commit: stripping them would change the code, keeping them hides it.
  if (stripInvisible(body) !== body)
    return { withheld: 'it holds invisible or direction-changing characters' }
  const lookAlike = lookAlikeProblem(body)
  return lookAlike ? { withheld: lookAlike } : { suggestion: body }
}

/** The explanation, with a note saying why a suggestion was not offered. */
function explained(explanation: string, withheld: string | undefined): string {
  const text = clipText(explanation, MAX_EXPLANATION_CHARS)
  if (!withheld) return text
  const note = `(A suggested change was not offered for commit: ${withheld}.)`
  return text ? `${text}\n\n${note}` : note
}

/** The instructions' example copied: its placeholder title, explanation or suggestion. */
function copiesTheExample(f: {
  title: string
  explanation?: string | null
  suggestion?: string | null
}): boolean {
  return (
    f.title.trim() === EXAMPLE_FINDING.title ||
    f.explanation?.trim() === EXAMPLE_FINDING.explanation ||
    f.suggestion?.trim() === EXAMPLE_FINDING.suggestion
  )
}

/**
 * One finding, or undefined when it breaks the schema, names no changed file
 * or copies the instructions' example.
 */
function checkFinding(
  agent: string,
  raw: unknown,
  changed: ReadonlySet<string>
): Finding | undefined {
  const parsed = findingSchema.safeParse(raw)
  if (!parsed.success) return undefined
  const f = parsed.data
  const file = normalisePath(f.file, changed)
  const title = oneLineTitle(f.title)
  if (!file || !title || copiesTheExample(f)) return undefined
  let startLine = f.start_line ?? undefined
  // A range must run forward and stay short; otherwise only its last line.
  if (
    startLine !== undefined &&
    (startLine >= f.line || f.line - startLine >= MAX_RANGE_LINES)
  )
    startLine = undefined
  const { suggestion, withheld } = suggestionOf(f.suggestion)
  return {
    agent,
    file,
    line: f.line,
    ...(startLine !== undefined ? { startLine } : {}),
    severity: f.severity,
    title,
    explanation: explained(f.explanation ?? '', withheld),
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
