// Which lines of a pull request's diff a review comment may sit on. GitHub
// takes a comment only on a line shown in one of the file's hunks, on the
// side it names; a range must stay inside one hunk. Pure and linear.

interface FileLines {
  /** New-side line -> index of its hunk (added and context lines). */
  right: Map<number, number>
  /** Old-side line -> index of its hunk (removed and context lines). */
  left: Map<number, number>
}

interface DiffLines {
  files: Map<string, FileLines>
  /** The diff was cut: files past the cut, and the cut file's rest, are unknown. */
  truncated: boolean
  /** The file the diff ends in (the one a cut splits). */
  lastFile?: string
}

/** `b/path` (or a quoted form git writes for unusual names) -> path. */
function newPath(header: string): string | undefined {
  const name = header.slice(4).replace(/\t.*$/, '')
  if (name === '/dev/null') return undefined
  // git quotes names with special characters: left to GitHub to judge.
  if (name.startsWith('"')) return undefined
  return name.startsWith('b/') ? name.slice(2) : name
}

export function parseDiffLines(diff: string, truncated = false): DiffLines {
  const files = new Map<string, FileLines>()
  let current: FileLines | undefined
  let hunk = -1
  let oldLine = 0
  let newLine = 0
  let inHunk = false
  let lastFile: string | undefined
  for (const line of diff.split('\n')) {
    if (line.startsWith('diff --git ')) {
      current = undefined
      inHunk = false
      continue
    }
    if (!inHunk && line.startsWith('+++ ')) {
      const name = newPath(line)
      current = name ? { right: new Map(), left: new Map() } : undefined
      if (name && current) files.set(name, current)
      lastFile = name
      continue
    }
    const header = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line)
    if (header) {
      inHunk = true
      hunk++
      oldLine = Number(header[1])
      newLine = Number(header[2])
      continue
    }
    if (!inHunk || !current) continue
    const mark = line[0]
    if (mark === '+') current.right.set(newLine++, hunk)
    else if (mark === '-') current.left.set(oldLine++, hunk)
    else if (mark === ' ') {
      current.right.set(newLine++, hunk)
      current.left.set(oldLine++, hunk)
    } else if (mark !== '\\') inHunk = false // `\ No newline at end of file` aside
  }
  return { files, truncated, ...(lastFile ? { lastFile } : {}) }
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
  if (hunk === undefined) {
    return diff.truncated && diff.lastFile === file
      ? { where: 'unknown', line, ...(startLine ? { startLine } : {}) }
      : { where: 'body', reason: `line ${line} is not in the diff` }
  }
  if (startLine === undefined) return { where: 'inline', line }
  for (let n = startLine; n < line; n++) {
    // The whole range must be shown, in the same hunk; else its last line.
    if (lines.right.get(n) !== hunk) return { where: 'inline', line }
  }
  return { where: 'inline', line, startLine }
}
