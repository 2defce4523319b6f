// When the agents' models last answered, from MassGen's events.jsonl: what
// tells a hang (no model reply for the last part of the run, or none at all)
// from a slow model (replies until the end) when a run runs out of time.
// Seen with a real model (issue 44): a run waited 23 minutes with no model
// request and its report could not tell that from a slow model.

import { eventsOf } from './events.js'

/**
 * Events only a model's reply makes: a tool call, an answer, a vote, its
 * text or thinking, the final presentation. Not the orchestrator's own
 * (round_start, agent_restart, status, orchestrator_timeout...).
 */
const REPLY_EVENTS: ReadonlySet<string> = new Set([
  'tool_start',
  'answer_submitted',
  'vote',
  'text',
  'thinking',
  'final_answer',
  'final_presentation_chunk',
  'agent_stopped'
])

/** The model replies events.jsonl recorded, timed. */
export interface ReplyTimes {
  /** The run's first event (ms since the epoch). */
  readonly startMs: number
  /** Each model reply: when, and whose. */
  readonly replies: readonly { readonly atMs: number; readonly agent: string }[]
  /** MassGen's own timeout, when it fired: the run's end (its wrap-up follows). */
  readonly timeoutMs?: number
}

/**
 * MassGen writes each event's `timestamp` in the local time of its machine,
 * with no zone (Python's datetime.now().isoformat()); MassGen runs on the
 * runner, so the runner's local time reads it back (JavaScript reads a
 * date-time with no zone as local time).
 */
function timeOf(stamp: unknown): number | undefined {
  if (
    typeof stamp !== 'string' ||
    !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?$/.test(stamp)
  )
    return undefined
  const ms = new Date(stamp).getTime()
  return Number.isFinite(ms) ? ms : undefined
}

/** The replies' times from the text of events.jsonl; undefined without an event. */
export function replyTimes(text: string): ReplyTimes | undefined {
  let startMs: number | undefined
  const replies: { atMs: number; agent: string }[] = []
  for (const e of eventsOf(text)) {
    const atMs = timeOf(e.timestamp)
    if (atMs === undefined) continue
    startMs = Math.min(startMs ?? atMs, atMs)
    // What follows MassGen's own timeout is its wrap-up (the chosen answer
    // written out as the agent's `text`), not a model's reply.
    if (e.event_type === 'orchestrator_timeout')
      return { startMs, replies, timeoutMs: atMs }
    if (
      typeof e.event_type === 'string' &&
      REPLY_EVENTS.has(e.event_type) &&
      typeof e.agent_id === 'string'
    )
      replies.push({ atMs, agent: e.agent_id })
  }
  return startMs === undefined ? undefined : { startMs, replies }
}

/**
 * How a run that ran out of time spent its last part:
 * - `never-answered`: no model reply in the whole run;
 * - `stopped-answering`: none for the last `quietSeconds`, longer than
 *   STALL_SECONDS and than STALL_PACE times the longest wait for a reply
 *   before (the model's own pace);
 * - `still-working`: replies until near the end (a slow model).
 */
export type ActivityKind =
  'never-answered' | 'stopped-answering' | 'still-working'

export interface ModelActivity {
  readonly kind: ActivityKind
  /** From the run's first event to its end. */
  readonly runSeconds: number
  readonly replies: number
  /** From the last reply to the end; undefined with no reply. */
  readonly quietSeconds?: number
  /** Whose reply was last (an agent of the run). */
  readonly lastAgent?: string
}

/** Less quiet than this at the end is never called a hang. */
export const STALL_SECONDS = 30
/** A hang: quiet this many times longer than the longest wait for a reply before. */
const STALL_PACE = 3

export function modelActivity(
  times: ReplyTimes,
  /** When MassGen ended, when its own timeout did not end the run. */
  endMs: number,
  /** The run's agents: only they are named. */
  agents: readonly string[]
): ModelActivity {
  const end = Math.max(times.timeoutMs ?? endMs, times.startMs)
  const runSeconds = seconds(end - times.startMs)
  const replies = [...times.replies].sort((a, b) => a.atMs - b.atMs)
  const last = replies.at(-1)
  if (!last) return { kind: 'never-answered', runSeconds, replies: 0 }
  let before = times.startMs
  let longestWait = 0
  for (const r of replies) {
    longestWait = Math.max(longestWait, r.atMs - before)
    before = r.atMs
  }
  const quietMs = Math.max(0, end - last.atMs)
  const stalled =
    quietMs >= STALL_SECONDS * 1000 && quietMs > STALL_PACE * longestWait
  return {
    kind: stalled ? 'stopped-answering' : 'still-working',
    runSeconds,
    replies: replies.length,
    quietSeconds: seconds(quietMs),
    ...(agents.includes(last.agent) ? { lastAgent: last.agent } : {})
  }
}

/** What the activity says, for a run that ran out of time. */
export function activityText(activity: ModelActivity): string {
  const run = `${activity.runSeconds} s`
  const quiet = `${activity.quietSeconds ?? 0} s`
  const replies = `${activity.replies} model repl${activity.replies === 1 ? 'y' : 'ies'}`
  const last =
    `the last of ${replies}${activity.lastAgent ? `, ${activity.lastAgent}'s,` : ''} ` +
    `came ${quiet} before the end`
  switch (activity.kind) {
    case 'never-answered':
      return (
        `No model activity: in the whole run (${run}) no agent got a reply from its model. ` +
        `A hang, not a slow model: check that the model server or provider (base-url) answers.`
      )
    case 'stopped-answering':
      return (
        `No model activity for the last ${quiet} of the run (${run}): ${last}, and nothing after. ` +
        `A hang, not a slow model: the model server or provider stopped answering, or MassGen stalled.`
      )
    case 'still-working':
      return (
        `The agents were still working: ${last} of the run (${run}). ` +
        `A slow model, not a hang: raise max-duration or use a faster model.`
      )
  }
}

function seconds(ms: number): number {
  return Math.round(ms / 100) / 10
}
