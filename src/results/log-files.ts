// Reads what MassGen left in its log folder. Every read is bounded in size and
// confined to LOG_DIR (links are resolved first), so neither a huge answer nor
// a spoofed path can make the action read too much or the wrong file.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { LogReader } from '../safety/log-reader.js'
import { eventsOf } from './events.js'
import { apiErrorsFromEvents } from './context-overflow.js'
import { replyTimes, type ReplyTimes } from './model-activity.js'
import {
  MAX_JSON_BYTES,
  parseStatus,
  voteFileSchema,
  type MassgenStatus,
  type VoteFile
} from '../run/status-file.js'

/** Largest answer kept per agent: the job summary's own limit. */
export const MAX_ANSWER_BYTES = 1024 * 1024
/** Least read of a losing answer, however many agents there are. */
const MIN_OTHER_ANSWER_BYTES = 64 * 1024
/** Read past a losing answer's share, so a cut one is still seen as cut. */
const OTHER_ANSWER_MARGIN = 16 * 1024

/**
 * Bytes read of one agent's answer. The job summary (the largest report)
 * shows at most MAX_ANSWER_BYTES of all answers, split evenly among the
 * losing ones, so a losing answer past its share is never shown: reading it
 * whole would only cost memory and render time (16 agents x 1 MiB answers
 * took 2.4 s to render). The winner, and any agent when the winner is not
 * known, gets the full MAX_ANSWER_BYTES.
 */
export function answerReadLimit(agentCount: number, isWinner: boolean): number {
  const others = agentCount - 1
  if (isWinner || others <= 1) return MAX_ANSWER_BYTES
  const share = Math.ceil(MAX_ANSWER_BYTES / others) + OTHER_ANSWER_MARGIN
  return Math.min(MAX_ANSWER_BYTES, Math.max(MIN_OTHER_ANSWER_BYTES, share))
}

export interface RunFiles {
  attemptDir?: string
  statusFile?: string
  status?: MassgenStatus
  /** True when status.json existed but could not be parsed. */
  statusUnreadable: boolean
  /** Latest answer text per agent id. */
  answers: Record<string, string>
  /** Latest vote per agent id (full reason, unlike status.json's preview). */
  votes: Record<string, VoteFile>
  finalAnswer?: string
  finalAnswerFile?: string
  /** True when an answer was cut at its read limit (answerReadLimit). */
  answersTruncated: boolean
  /**
   * Paths each agent asked a read tool for (events.jsonl's `tool_start`);
   * undefined when the attempt left no events.jsonl.
   */
  reads?: Record<string, string[]>
  /** When the models answered (events.jsonl); undefined without one. */
  replies?: ReplyTimes
  /** Each agent's API errors as events.jsonl shows them. */
  apiErrors?: Record<string, string[]>
}

/** Most of events.jsonl read for the agents' reads: a long run's log is cut there. */
const MAX_EVENTS_BYTES = 8 * 1024 * 1024

/**
 * The paths each agent's read tools were called with (MassGen 0.1.97 logs
 * every tool call as a `tool_start` event with its arguments), from the
 * text of events.jsonl; a line that is not such an event is skipped.
 */
export function readsFromEvents(text: string): Record<string, string[]> {
  // No prototype: an agent id is text from a file MassGen writes.
  const reads: Record<string, string[]> = Object.create(null) as Record<
    string,
    string[]
  >
  for (const e of eventsOf(text, '"tool_start"')) {
    const tool = e.data?.tool_name
    if (
      e.event_type !== 'tool_start' ||
      typeof e.agent_id !== 'string' ||
      typeof tool !== 'string' ||
      !/(^|__)read_/.test(tool)
    )
      continue
    const args = e.data?.args ?? {}
    const many: unknown[] = Array.isArray(args.paths) ? args.paths : []
    const paths = [args.path, ...many]
    const list = (reads[e.agent_id] ??= [])
    for (const p of paths) if (typeof p === 'string') list.push(p)
  }
  return reads
}

export function readRunFiles(
  logDir: string,
  /** The agents to read answers for; undefined: those status.json names. */
  agentIds: string[] | undefined,
  hints: { statusFile?: string; winner?: string; answerFile?: string } = {}
): RunFiles {
  const reader = new LogReader(logDir)
  const files: RunFiles = {
    statusUnreadable: false,
    answers: {},
    votes: {},
    answersTruncated: false
  }
  const attemptDir = reader.newestAttempt()
  files.attemptDir = attemptDir
  const statusFile = attemptDir
    ? path.join(attemptDir, 'status.json')
    : hints.statusFile
  if (statusFile) {
    const raw = reader.readText(statusFile, MAX_JSON_BYTES)
    if (raw) {
      files.statusFile = statusFile
      files.status = parseStatus(raw.text)
      files.statusUnreadable = files.status === undefined
    }
  }
  if (!attemptDir) return files

  const events = reader.readText(
    path.join(attemptDir, 'events.jsonl'),
    MAX_EVENTS_BYTES
  )
  if (events) {
    files.reads = readsFromEvents(events.text)
    const replies = replyTimes(events.text)
    if (replies) files.replies = replies
    files.apiErrors = apiErrorsFromEvents(events.text)
  }

  const winnerId = files.status?.results?.winner ?? undefined
  const ids = agentIds ?? Object.keys(files.status?.agents ?? {})
  for (const id of ids) {
    const limit = answerReadLimit(ids.length, !winnerId || id === winnerId)
    // Answer and vote folders are named by timestamp: newest first.
    const folders = reader.list(path.join(attemptDir, id)).sort().reverse()
    for (const folder of folders) {
      const dir = path.join(attemptDir, id, folder)
      if (files.answers[id] === undefined) {
        const answer = reader.readText(path.join(dir, 'answer.txt'), limit)
        if (answer) {
          files.answers[id] = answer.text
          files.answersTruncated ||= answer.truncated
        }
      }
      if (files.votes[id] === undefined) {
        const vote = reader.readText(
          path.join(dir, 'vote.json'),
          MAX_JSON_BYTES
        )
        const parsed = vote ? safeJson(vote.text, voteFileSchema) : undefined
        if (parsed) files.votes[id] = parsed
      }
    }
  }

  const winner = winnerId
  if (winner) {
    const candidates = [
      path.join(attemptDir, 'final', winner, 'answer.txt'),
      path.join(path.dirname(attemptDir), 'final', winner, 'answer.txt'),
      ...(hints.answerFile ? [hints.answerFile] : [])
    ]
    for (const file of candidates) {
      const answer = reader.readText(file, MAX_ANSWER_BYTES)
      if (answer) {
        files.finalAnswer = answer.text
        files.finalAnswerFile = file
        files.answersTruncated ||= answer.truncated
        break
      }
    }
  }
  return files
}

function safeJson<T>(
  text: string,
  schema: { safeParse(v: unknown): { success: boolean; data?: T } }
) {
  try {
    const parsed = schema.safeParse(JSON.parse(text))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

/** The single `log_*` folder MassGen made under a fresh log base, if any. */
export function discoverLogDir(logBase: string): string | undefined {
  try {
    const logs = fs
      .readdirSync(logBase)
      .filter((name) => name.startsWith('log_'))
      .sort()
    const last = logs[logs.length - 1]
    return last ? path.join(logBase, last) : undefined
  } catch {
    return undefined
  }
}
