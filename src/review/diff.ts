// Which lines of a pull request's diff a review comment may sit on. GitHub
// takes a comment only on a line shown in one of the file's hunks, on the
// side it names; a range must stay inside one hunk. Pure and linear.
import { parseDiff } from '../core/unified-diff.js'

interface FileLines {
  /** New-side line -> index of its hunk (added and context lines). */
  right: Map<number, number>
  /** Old-side line -> index of its hunk (removed and context lines). */
  left: Map<number, number>
}

interface DiffLines {
  files: Map<string, FileLines>
  /**
   * The diff was cut, by whole files (core/unified-diff.ts fitDiff): a file
   * it does not hold is unknown; a file it holds is whole.
   */
  truncated: boolean
}

export function parseDiffLines(diff: string, truncated = false): DiffLines {
  const files = new Map<string, FileLines>()
  let hunkIndex = -1
  const parsed = parseDiff(diff).files
  for (const file of parsed) {
    if (file.status === 'deleted') continue
    const lines: FileLines = { right: new Map(), left: new Map() }
    for (const hunk of file.hunks) {
      hunkIndex++
      for (const l of hunk.lines) {
        if (l.new !== undefined) lines.right.set(l.new, hunkIndex)
        if (l.old !== undefined) lines.left.set(l.old, hunkIndex)
      }
    }
    files.set(file.path, lines)
  }
  return { files, truncated }
}

type Placement =
  | { where: 'inline'; line: number; startLine?: number }
  | { where: 'body'; reason: string }
  /** Not in the parsed diff, which was cut: let GitHub judge. */
  | { where: 'unknown'; line: number; startLine?: number }

/** Where a finding on the new side can go: a diff line, or the review body. */
export function placeOnDiff(
  diff: DiffLines,
  file: string,
  line: number,
  startLine: number | undefined
): Placement {
  const lines = diff.files.get(file)
  if (!lines) {
    return diff.truncated
      ? { where: 'unknown', line, ...(startLine ? { startLine } : {}) }
      : { where: 'body', reason: 'the file has no lines in the diff' }
  }
  const hunk = lines.right.get(line)
  if (hunk === undefined)
    return { where: 'body', reason: `line ${line} is not in the diff` }
  if (startLine === undefined) return { where: 'inline', line }
  for (let n = startLine; n < line; n++) {
    // The whole range must be shown, in the same hunk; else its last line.
    if (lines.right.get(n) !== hunk) return { where: 'inline', line }
  }
  return { where: 'inline', line, startLine }
}
