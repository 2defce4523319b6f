// MassGen 0.1.97 frames what each agent sees with plain-text markers
// (massgen/message_templates.py): the task between `<ORIGINAL MESSAGE>` and
// `<END OF ORIGINAL MESSAGE>`, the peers' answers as `<agent1.1> ... <end of
// agent1.1>` inside `<CURRENT ANSWERS from the agents> ... <END OF CURRENT
// ANSWERS>`, nothing escaped. Text that quotes them (a pull request, a
// comment, an answer) could close the task early and show a forged answer as
// a peer's. Every such marker in text the action hands to the agents gets
// look-alike angle quotes instead of `<` and `>`: still readable, never
// MassGen's framing. The guard (massgen-guard.ts) applies the same pattern to
// the answers MassGen frames itself.

/**
 * A marker's opening `<` (group 1: its text, at most 200 characters on one
 * line; group 2: its closing `>`, if any). Written once for both languages:
 * the guard compiles this same source with Python's `re`. Every repeat is
 * bounded, so the work per `<` is too (linear in the text).
 */
export const MARKER_PATTERN =
  '<(\\s{0,20}/?\\s{0,20}(?:end\\s{1,20}of\\s{1,20})?(?:agent\\s{0,20}\\d|' +
  'current\\s{1,20}answers|original\\s{1,20}message|paraphrased\\s{1,20}message|' +
  'conversation_history|previous\\s{1,20}attempt\\s{1,20}feedback|changedoc)' +
  '[^<>\\n]{0,200})(>?)'

/** What a marker's `<` and `>` become. */
export const MARKER_OPEN = '\u2039'
export const MARKER_CLOSE = '\u203A'

const MARKER = new RegExp(MARKER_PATTERN, 'gi')

/** The text with every MassGen framing marker made inert. */
export function neutralizeMarkers(text: string): string {
  return text.replace(
    MARKER,
    (_, inner: string, close: string) =>
      `${MARKER_OPEN}${inner}${close ? MARKER_CLOSE : ''}`
  )
}
