// The code a finding points at, for the vote on it (vote.ts): the lines
// around it, numbered, so an exact quote is always checkable. From the
// checkout when its file is the reviewed one (every line the diff shows on
// the new side matches; read without following a link, never a FIFO, never
// past a size cap: safety/workspace-file.ts), else the new-side lines of the
// pull request's diff, which are the reviewed commit's whatever was checked
// out. A file the diff shows no line of (a name git quotes, a rename with no
// change, a file past the diff's budget) is read from the checkout alone:
// there is nothing to compare, and it is the code the agents read.
import { readWorkspaceFileSync } from '../safety/workspace-file.js'
import type { FindingGroup } from '../core/review.js'
import {
  newSideLines as linesOfFiles,
  parseDiff
} from '../core/unified-diff.js'

/** Lines shown before a finding's first line and after its last. */
const EXCERPT_CONTEXT_LINES = 6
/** A changed file larger than this is read from the diff only. */
const MAX_EXCERPT_FILE_BYTES = 1024 * 1024
/** Characters kept of one line of code. */
const MAX_EXCERPT_LINE_CHARS = 240

export interface Excerpt {
  source: 'checkout' | 'diff'
  lines: Array<{ number: number; text: string }>
  /** The file's lines, when it was read whole from the checkout. */
  fileLength?: number
}

/** New-side line number -> text, per file, of a unified diff (newSideLines). */
export type DiffLines = Map<string, Map<number, string>>

/** New-side line number -> text, per file, from a unified diff. Linear. */
export function newSideLines(diff: string): DiffLines {
  return linesOfFiles(parseDiff(diff).files)
}

function clipCode(text: string): string {
  const chars = [...text.replace(/\r$/, '')]
  return chars.length <= MAX_EXCERPT_LINE_CHARS
    ? chars.join('')
    : chars.slice(0, MAX_EXCERPT_LINE_CHARS - 1).join('') + '…'
}

/**
 * Whether the checkout's file is the reviewed one where the diff shows it;
 * a file the diff shows nothing of is taken as checked out.
 */
function agreesWithDiff(
  file: string[],
  shown: ReadonlyMap<number, string> | undefined
): boolean {
  if (!shown || shown.size === 0) return true
  for (const [n, text] of shown)
    if ((file[n - 1] ?? '').replace(/\r$/, '') !== text) return false
  return true
}

/**
 * A reader of the checkout's files, each read once: a file's lines when it
 * is the reviewed one where the diff shows it, else undefined.
 */
function checkoutReader(
  fromDiff: DiffLines,
  checkout: string | undefined
): (file: string) => string[] | undefined {
  const checkoutFiles = new Map<string, string[] | undefined>()
  return (file) => {
    if (!checkout) return undefined
    if (!checkoutFiles.has(file)) {
      const read = readWorkspaceFileSync(checkout, file, MAX_EXCERPT_FILE_BYTES)
      const lines = read.ok ? read.text.split('\n') : undefined
      checkoutFiles.set(
        file,
        lines && agreesWithDiff(lines, fromDiff.get(file)) ? lines : undefined
      )
    }
    return checkoutFiles.get(file)
  }
}

/**
 * The length of a group's file when its first line is past the end of it,
 * else undefined: known only where the excerpt came from the checkout's
 * whole file (a real model raised a blocker on line 1,472 of a 226-line
 * file, issue 44); a file the diff alone shows gives no length.
 */
export function pastTheEnd(
  group: FindingGroup,
  excerpt: Excerpt | undefined
): number | undefined {
  const length = excerpt?.fileLength
  if (length === undefined) return undefined
  return (group.anchor.startLine ?? group.anchor.line) > length
    ? length
    : undefined
}

function lengthOf(lines: string[]): number {
  return lines.at(-1) === '' ? lines.length - 1 : lines.length
}

/** The excerpt of each group, read once per file. */
export function excerptsFor(
  groups: FindingGroup[],
  /** The diff, or its lines, read once by a caller that asks for excerpts many times. */
  diff: string | DiffLines,
  checkout: string | undefined
): Map<FindingGroup, Excerpt> {
  const fromDiff = typeof diff === 'string' ? newSideLines(diff) : diff
  const fileLines = checkoutReader(fromDiff, checkout)
  const out = new Map<FindingGroup, Excerpt>()
  for (const group of groups) {
    const { file, line, startLine } = group.anchor
    const first = Math.max(1, (startLine ?? line) - EXCERPT_CONTEXT_LINES)
    const last = line + EXCERPT_CONTEXT_LINES
    const whole = fileLines(file)
    const lines: Excerpt['lines'] = []
    for (let n = first; n <= last; n++) {
      const text = whole ? whole[n - 1] : fromDiff.get(file)?.get(n)
      if (text !== undefined) lines.push({ number: n, text: clipCode(text) })
    }
    out.set(
      group,
      whole
        ? // A final newline leaves an empty last element: not a line.
          { source: 'checkout', lines, fileLength: lengthOf(whole) }
        : { source: 'diff', lines }
    )
  }
  return out
}
