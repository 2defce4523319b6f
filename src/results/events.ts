// MassGen's events.jsonl, one JSON event a line, read as hostile text: a
// line that is not a JSON object is skipped, and every field is checked by
// the reader that takes it (log-files.ts, model-activity.ts,
// context-overflow.ts).

/** An event of events.jsonl: only its shape is known, no field is trusted. */
export interface RawEvent {
  timestamp?: unknown
  event_type?: unknown
  agent_id?: unknown
  data?: {
    tool_name?: unknown
    content?: unknown
    args?: { path?: unknown; paths?: unknown }
  }
}

/** The events of the lines that hold `mark` (every line when it is ''). */
export function* eventsOf(text: string, mark = ''): Generator<RawEvent> {
  for (const line of text.split('\n')) {
    if (!line.startsWith('{') || !line.includes(mark)) continue
    let event: unknown
    try {
      event = JSON.parse(line)
    } catch {
      continue
    }
    if (typeof event === 'object' && event !== null && !Array.isArray(event))
      yield event
  }
}
