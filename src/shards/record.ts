// A shard's record: what a shard job writes (recordOf) and what the
// aggregate accepts of it (checkRecord). The aggregate treats every record as
// hostile: a shard's agents may have been prompt-injected, its runner taken
// over. So a record is JSON of at most MAX_RECORD_BYTES, of one strict
// shape; its shard id must be one the aggregate planned itself, on the same
// head commit; its findings are parsed again from its answers and kept only
// on that shard's own files; and what goes on is rebuilt from the parsed
// findings alone, with MassGen's framing markers made inert: none of the
// answers' prose reaches the review or the report.
import { z } from 'zod'
import { FINDINGS_FENCE } from '../core/findings-fence.js'
import type { Finding, VoteRound } from '../core/review.js'
import type { Outcome, RunResult } from '../core/types.js'
import type { ShardEntry } from '../inputs/shard-inputs.js'
import { SHARD_ID } from '../inputs/shard-inputs.js'
import { neutralizeMarkers } from '../safety/massgen-markers.js'
import { redactSecrets } from '../safety/redact.js'
import { parseFindings } from '../review/findings.js'
import { reviewAnswers } from '../review/review.js'
import { MAX_VOTED_FINDINGS } from '../review/vote.js'
import type { ExpectedAgents } from './expected-agents.js'

export const RECORD_FILE = 'record.json'
/** A record's cap: 16 agents' answers fit many times over. */
export const MAX_RECORD_BYTES = 2 * 1024 * 1024
const MAX_ANSWER_CHARS = 256 * 1024
const MAX_AGENTS = 16
const MAX_REASON_CHARS = 2000

const OUTCOMES = [
  'success',
  'failed',
  'timeout',
  'cost-limit',
  'config-error',
  'skipped',
  'cancelled'
] as const satisfies readonly Outcome[]

/** A ballot's last characters are kept: its last votes block is the one read (vote.ts). */
const MAX_BALLOT_CHARS = 64 * 1024

const agentId = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/)
const seconds = z.number().finite().min(0).max(1_000_000)
const count = z.number().int().min(0).max(1e12)
const dollars = z.number().finite().min(0).max(1_000_000)

/**
 * The shard's finding vote (vote/vote-round.ts): whether it ran, how many
 * findings it put to the agents, and each agent's raw answer, which the
 * aggregate reads again itself (shard-votes.ts). No tally and no evidence:
 * those are the aggregate's to work out.
 */
const voteSchema = z
  .object({
    ran: z.boolean(),
    skipped: z.string().max(MAX_REASON_CHARS).optional(),
    findings: z.number().int().min(0).max(MAX_VOTED_FINDINGS),
    ballots: z
      .array(
        z
          .object({ agent: agentId, text: z.string().max(MAX_BALLOT_CHARS) })
          .strict()
      )
      .max(MAX_AGENTS),
    seconds: seconds.optional(),
    cost: dollars.optional(),
    inputTokens: count.optional(),
    outputTokens: count.optional()
  })
  .strict()

const recordSchema = z
  .object({
    version: z.literal(1),
    shard: z.string().regex(SHARD_ID),
    status: z.enum(OUTCOMES),
    reason: z.string().max(MAX_REASON_CHARS).optional(),
    /** Absent only when the shard failed before it read the plan (it knows no head then). */
    headSha: z
      .string()
      .regex(/^[0-9a-f]{40}$/)
      .optional(),
    winner: agentId.optional(),
    answers: z
      .array(
        z
          .object({ agent: agentId, text: z.string().max(MAX_ANSWER_CHARS) })
          .strict()
      )
      .max(MAX_AGENTS),
    votes: z
      .array(
        z.object({ agent: agentId, votedFor: agentId.optional() }).strict()
      )
      .max(MAX_AGENTS),
    /** Absent when the shard did not ask for a vote (finding-vote: false, or it did not finish). */
    vote: voteSchema.optional(),
    cost: dollars.optional(),
    inputTokens: count.optional(),
    outputTokens: count.optional(),
    elapsedSeconds: seconds.optional(),
    timings: z
      .object({
        setup: seconds.optional(),
        massgenStart: seconds.optional(),
        rounds: seconds.optional()
      })
      .strict()
      .optional()
  })
  .strict()

export type ShardRecord = z.infer<typeof recordSchema>
type RecordVote = z.infer<typeof voteSchema>

/** The vote round as the record carries it, redacted and capped. */
function recordVote(
  round: VoteRound,
  clean: (text: string, max: number) => string,
  secrets: string[]
): RecordVote {
  return {
    ran: round.ran,
    ...(round.skipped
      ? { skipped: clean(round.skipped, MAX_REASON_CHARS) }
      : {}),
    findings: Math.min(round.findings, MAX_VOTED_FINDINGS),
    ballots: Object.entries(round.answers)
      .sort(([a], [b]) => a.localeCompare(b))
      .slice(0, MAX_AGENTS)
      .map(([agent, text]) => ({
        agent,
        text: redactSecrets(text, secrets).slice(-MAX_BALLOT_CHARS)
      })),
    ...(round.seconds !== undefined ? { seconds: round.seconds } : {}),
    ...(round.cost !== undefined ? { cost: round.cost } : {}),
    ...(round.inputTokens !== undefined
      ? { inputTokens: round.inputTokens }
      : {}),
    ...(round.outputTokens !== undefined
      ? { outputTokens: round.outputTokens }
      : {})
  }
}

/** The record of a shard's run (written by the shard job, redacted). */
export function recordOf(
  shard: Pick<ShardEntry, 'id'>,
  headSha: string | undefined,
  result: RunResult,
  secrets: string[]
): ShardRecord {
  const clean = (text: string, max: number) =>
    redactSecrets(text, secrets).slice(0, max)
  const setup = result.timings?.setup?.criticalPath
  return {
    version: 1,
    shard: shard.id,
    status: result.outcome,
    ...(result.reason
      ? { reason: clean(result.reason, MAX_REASON_CHARS) }
      : {}),
    ...(headSha ? { headSha: headSha.toLowerCase() } : {}),
    ...(result.winner ? { winner: result.winner } : {}),
    answers: reviewAnswers(result)
      .slice(0, MAX_AGENTS)
      .map((a) => ({ agent: a.agent, text: clean(a.text, MAX_ANSWER_CHARS) })),
    votes: result.agents.slice(0, MAX_AGENTS).map((a) => ({
      agent: a.id,
      ...(a.votedFor ? { votedFor: a.votedFor } : {})
    })),
    ...(result.findingVote
      ? { vote: recordVote(result.findingVote, clean, secrets) }
      : {}),
    ...(result.cost !== undefined ? { cost: result.cost } : {}),
    ...(result.inputTokens !== undefined
      ? { inputTokens: result.inputTokens }
      : {}),
    ...(result.outputTokens !== undefined
      ? { outputTokens: result.outputTokens }
      : {}),
    ...(result.elapsedSeconds !== undefined
      ? { elapsedSeconds: result.elapsedSeconds }
      : {}),
    timings: {
      ...(setup !== undefined ? { setup } : {}),
      ...(result.timings?.massgenStart !== undefined
        ? { massgenStart: result.timings.massgenStart }
        : {}),
      ...(result.timings?.rounds !== undefined
        ? { rounds: result.timings.rounds }
        : {})
    }
  }
}

/** A record the aggregate accepted: its answers rebuilt from its findings. */
export interface AcceptedRecord {
  record: ShardRecord
  entry: ShardEntry
  /** Each agent (as `<shard>/<agent>`) with only its kept findings, as a block. */
  answers: Array<{ agent: string; text: string }>
  /** Findings given but not kept (bad shape, outside the shard's files, over the cap). */
  dropped: number
  /** Of those, the ones that named a file outside the shard's own files. */
  outside: number
}

type Checked =
  { ok: true; accepted: AcceptedRecord } | { ok: false; reason: string }

/** The aggregate's name for a shard's agent: shards are separate runs. */
export function shardAgent(shard: string, agent: string): string {
  return `${shard}/${agent}`
}

/** A findings block of these findings alone, every text made inert. */
function findingsAnswer(findings: Finding[]): string {
  const items = findings.map((f) => ({
    file: f.file,
    line: f.line,
    ...(f.startLine !== undefined ? { start_line: f.startLine } : {}),
    severity: f.severity,
    title: neutralizeMarkers(f.title),
    explanation: neutralizeMarkers(f.explanation),
    ...(f.suggestion !== undefined
      ? { suggestion: neutralizeMarkers(f.suggestion) }
      : {})
  }))
  // One line of JSON: no line of it can close the fence.
  return `\`\`\`${FINDINGS_FENCE}\n${JSON.stringify(items)}\n\`\`\``
}

/** Every agent id the record names: its answers, MassGen's votes, the winner, the ballots. */
function namedAgents(record: ShardRecord): string[] {
  return [
    ...record.answers.map((a) => a.agent),
    ...record.votes.flatMap((v) => [
      v.agent,
      ...(v.votedFor ? [v.votedFor] : [])
    ]),
    ...(record.winner ? [record.winner] : []),
    ...(record.vote?.ballots ?? []).map((b) => b.agent)
  ]
}

/** Why the record's agents are not the shard's, or undefined when they are. */
function agentsRefusal(
  record: ShardRecord,
  expected: ExpectedAgents
): string | undefined {
  const twice = (ids: string[]) => ids.find((id, i) => ids.indexOf(id) !== i)
  const again =
    twice(record.answers.map((a) => a.agent)) ??
    twice(record.votes.map((v) => v.agent)) ??
    twice((record.vote?.ballots ?? []).map((b) => b.agent))
  if (again !== undefined) return `the record gives agent '${again}' twice`
  const named = [...new Set(namedAgents(record))]
  if (named.length > expected.most)
    return `the record names ${named.length} agents, more than the ${expected.most} the shard runs (${expected.from})`
  const stranger = named.find((id) => !expected.ids.has(id))
  if (stranger !== undefined)
    return `the record names agent '${stranger}', not one the shard runs (${expected.from})`
  return undefined
}

/**
 * A record as the aggregate takes it, or why not. `entry` is the shard of
 * the aggregate's own plan whose artifact the record came in.
 */
export function checkRecord(
  text: string,
  expected: {
    entry: ShardEntry
    headSha: string
    /** Every file the pull request changes: to tell 'another shard's file' from noise. */
    pullFiles: ReadonlySet<string>
    /** The agents the shards' settings may run (expected-agents.ts). */
    agents: ExpectedAgents
  }
): Checked {
  if (Buffer.byteLength(text, 'utf8') > MAX_RECORD_BYTES)
    return { ok: false, reason: `the record is over ${MAX_RECORD_BYTES} bytes` }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return { ok: false, reason: 'the record is not JSON' }
  }
  const parsed = recordSchema.safeParse(json)
  if (!parsed.success) {
    const where = parsed.error.issues[0]?.path.join('.') || 'the record'
    return {
      ok: false,
      reason: `the record has the wrong shape (at ${where.slice(0, 80)})`
    }
  }
  const record = parsed.data
  const { entry } = expected
  if (record.shard !== entry.id)
    return {
      ok: false,
      reason: `the record names shard '${record.shard}', not '${entry.id}' that its artifact is for`
    }
  // A shard that failed before it read the plan knows no head: it is a
  // failed shard, not a refused one; a success always names its head.
  if (record.headSha === undefined && record.status === 'success')
    return { ok: false, reason: 'the record says success but names no head' }
  if (
    record.headSha !== undefined &&
    record.headSha !== expected.headSha.toLowerCase()
  )
    return {
      ok: false,
      reason: `the record reviewed ${record.headSha.slice(0, 12)}, not the head ${expected.headSha.slice(0, 12)}`
    }
  const strangers = agentsRefusal(record, expected.agents)
  if (strangers) return { ok: false, reason: strangers }
  const own = new Set(entry.files)
  let dropped = 0
  let outside = 0
  const answers: AcceptedRecord['answers'] = []
  for (const answer of record.answers) {
    const kept = parseFindings(answer.agent, answer.text, own)
    const anyFile = parseFindings(answer.agent, answer.text, expected.pullFiles)
    dropped += kept.dropped
    outside += Math.max(0, anyFile.findings.length - kept.findings.length)
    answers.push({
      agent: shardAgent(entry.id, answer.agent),
      text: findingsAnswer(kept.findings)
    })
  }
  return { ok: true, accepted: { record, entry, answers, dropped, outside } }
}
