// Parses a comment command such as `/massgen why is this slow?`. Pure, and
// total: comment bodies are untrusted and any string gives a result.
import { visibleText } from '../safety/visible-text.js'

type CommandParse =
  | { kind: 'command'; question: string }
  /** The comment does not start with the trigger: not meant for us. */
  | { kind: 'not-command' }
  /** The trigger with nothing after it. */
  | { kind: 'empty'; reason: string }

/**
 * The first word must be the trigger, compared case-insensitively
 * (`/MassGen` works; people type on phones). The rest of the comment, all
 * lines, trimmed, is the question.
 */
export function parseCommand(body: string, trigger: string): CommandParse {
  // Payload fields are typed by GitHub, not by us: anything not a string
  // counts as empty (String() itself throws on some objects).
  const wanted = visibleText(typeof trigger === 'string' ? trigger : '').trim()
  const text = visibleText(typeof body === 'string' ? body : '').trimStart()
  if (!wanted) return { kind: 'not-command' }
  const head = text.slice(0, wanted.length)
  const after = text.charAt(wanted.length)
  if (head.toLowerCase() !== wanted.toLowerCase() || /\S/.test(after)) {
    return { kind: 'not-command' }
  }
  const question = text.slice(wanted.length).trim()
  if (!question) {
    return {
      kind: 'empty',
      reason: `No question given: write it after ${wanted}, e.g. "${wanted} why does this test fail?"`
    }
  }
  return { kind: 'command', question }
}
