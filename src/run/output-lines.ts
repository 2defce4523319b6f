// MassGen's automation lines on stdout (docs/massgen-0.1.97.md).
// QUESTION: and ANSWER_PREVIEW: echo untrusted text, so a line such as
// `ANSWER: /etc/passwd` can be injected: paths count only inside the log base.
import * as path from 'node:path'
import { isInside } from '../core/paths.js'

export interface OutputHints {
  logDir?: string
  statusFile?: string
  winner?: string
  answerFile?: string
}

const ANSI =
  // eslint-disable-next-line no-control-regex
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '')
}

const KEY = /^(LOG_DIR|STATUS|WINNER|ANSWER_FILE|ANSWER): (.*)$/

/**
 * Folds one stdout line, its ANSI codes already stripped (stripAnsi), into
 * the hints. The last occurrence of a key wins
 * (LOG_DIR excepted: the first), but a path is accepted only inside `logBase` (LOG_DIR) or the accepted
 * LOG_DIR (the others), resolved against MassGen's cwd.
 */
export function foldOutputLine(
  hints: OutputHints,
  line: string,
  where: { cwd: string; logBase: string }
): OutputHints {
  const match = KEY.exec(line.trimEnd())
  if (!match) return hints
  const key = match[1]
  const value = (match[2] ?? '').trim()
  if (key === 'WINNER') {
    return /^[a-z0-9_]{1,64}$/.test(value) ? { ...hints, winner: value } : hints
  }
  const resolved = path.resolve(where.cwd, value)
  if (key === 'LOG_DIR') {
    // MassGen prints LOG_DIR once, before it echoes the question: a later
    // one is injected text and must not move the folder the paths check against.
    if (hints.logDir) return hints
    return isInside(resolved, where.logBase) &&
      resolved !== path.resolve(where.logBase)
      ? { ...hints, logDir: resolved }
      : hints
  }
  if (!hints.logDir || !isInside(resolved, hints.logDir)) return hints
  if (key === 'STATUS') {
    return path.basename(resolved) === 'status.json'
      ? { ...hints, statusFile: resolved }
      : hints
  }
  return { ...hints, answerFile: resolved }
}

/**
 * A line of MassGen's output as the action copies it to the job log, where
 * the runner reads workflow commands. MassGen echoes readers' text (the
 * question carries comments; answer previews), so no copied line may be
 * one: the runner trims a line and takes `::name::` at its start (a leading
 * `| ` prevents it), finds the legacy `##[name]` anywhere in it (`##\[` is
 * not it), and ends a line at a lone carriage return too (shown as `\r`).
 */
export function inertLine(line: string): string {
  return `| ${line.replace(/\r/g, '\\r').replace(/##\[/g, '##\\[')}`
}
