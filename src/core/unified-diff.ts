// The one reader of unified diffs (git's, GitHub's, and the one rebuilt from
// the files list) for the whole action: the review's placement of comments,
// the vote's excerpts, the include/exclude filter and the incremental patch
// all see the same files, names and lines. Pure and linear.
//
// Names: git quotes a name with unusual bytes in C style
// (`+++ "b/caf\303\251"`) and ends a name holding a space with a
// tab (`+++ b/pay ment` and a tab); a file with no `---`/`+++` lines (binary,
// mode or rename only) is named by its `rename to`/`copy to` line, else by
// its `diff --git a/<name> b/<name>` header, whose two halves are equal.
// Hunks: read by the counts in their `@@` header, so an added line that
// reads `++ b/x` or `diff --git` is code, never a header.
import { unescapeC } from './text.js'

export interface DiffLine {
  kind: '+' | '-' | ' '
  /** Old-side line number: removed and context lines. */
  old?: number
  /** New-side line number: added and context lines. */
  new?: number
  text: string
}

export interface DiffHunk {
  lines: DiffLine[]
}

export interface DiffFile {
  /** The file's name after the change (before it, for a deleted file). */
  path: string
  /** Its name before the change, when it was renamed or copied. */
  oldPath?: string
  status: 'added' | 'deleted' | 'modified' | 'renamed' | 'copied'
  binary: boolean
  /** `old mode`/`new mode` (or the new file's mode), when git names one. */
  oldMode?: string
  newMode?: string
  hunks: DiffHunk[]
  /** The file's whole section of the diff, its header included. */
  text: string
}

export interface ParsedDiff {
  /** Text before the first `diff --git` line (none in git's output). */
  preamble: string
  files: DiffFile[]
}

/** A name as git writes it: C-quoted or plain, `a/`/`b/` prefix dropped. */
function decodeName(raw: string, prefix: 'a/' | 'b/' | ''): string {
  let name = raw
  if (name.startsWith('"') && name.endsWith('"') && name.length >= 2)
    name = unescapeC(name.slice(1, -1))
  else name = name.replace(/\t$/, '')
  return prefix && name.startsWith(prefix) ? name.slice(prefix.length) : name
}

/** The name on a `--- `/`+++ ` line: git ends one holding a space with a tab. */
function markerName(line: string, prefix: 'a/' | 'b/'): string | undefined {
  let raw = line.slice(4)
  if (!raw.startsWith('"')) {
    const tab = raw.indexOf('\t')
    if (tab >= 0) raw = raw.slice(0, tab)
  }
  if (raw === '/dev/null') return undefined
  return decodeName(raw, prefix)
}

/** One C-quoted token at the start of text: its decoded name and length. */
function quotedToken(text: string): { name: string; length: number } {
  let i = 1
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1
  return { name: unescapeC(text.slice(1, i)), length: i + 1 }
}

/**
 * The new name of a `diff --git` header. Quoted halves are read as tokens;
 * plain halves are equal (`a/N b/N`) unless the file was renamed, when
 * the `rename to` line names it; as a last resort, a listed name the
 * header ends with, else the text after the last ` b/`.
 */
function headerName(
  header: string,
  known: ReadonlySet<string> | undefined
): string {
  const body = header.slice('diff --git '.length)
  const dropB = (name: string) => (name.startsWith('b/') ? name.slice(2) : name)
  if (body.startsWith('"')) {
    // `"a/..." "b/..."` or `"a/..." b/...`
    const rest = body.slice(quotedToken(body).length + 1)
    return rest.startsWith('"') ? dropB(quotedToken(rest).name) : dropB(rest)
  }
  const quotedNew = body.lastIndexOf(' "b/')
  if (body.endsWith('"') && quotedNew >= 0)
    return dropB(quotedToken(body.slice(quotedNew + 1)).name)
  const half = (body.length - 1) / 2
  if (Number.isInteger(half)) {
    const a = body.slice(0, half)
    const b = body.slice(half + 1)
    if (a.startsWith('a/') && b.startsWith('b/') && a.slice(2) === b.slice(2))
      return b.slice(2)
  }
  if (known)
    for (
      let at = body.indexOf(' b/');
      at >= 0;
      at = body.indexOf(' b/', at + 1)
    )
      if (known.has(body.slice(at + 3))) return body.slice(at + 3)
  const at = body.lastIndexOf(' b/')
  return at >= 0 ? body.slice(at + 3) : body
}

/** Hunk header counts: `@@ -a[,b] +c[,d] @@`. */
const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/

interface Building {
  file: DiffFile
  header: string
  from?: string
  to?: string
  renameTo?: string
  renameFrom?: string
  deleted: boolean
  added: boolean
  copied: boolean
}

function finish(b: Building, known: ReadonlySet<string> | undefined): DiffFile {
  const named = b.to ?? b.renameTo ?? b.from
  const path = named ?? headerName(b.header, known)
  const oldPath = b.renameFrom ?? b.from
  const moved = oldPath !== undefined && oldPath !== path && !b.deleted
  const status: DiffFile['status'] = b.added
    ? 'added'
    : b.deleted
      ? 'deleted'
      : moved
        ? b.copied
          ? 'copied'
          : 'renamed'
        : 'modified'
  return {
    ...b.file,
    path,
    status,
    ...(moved ? { oldPath } : {})
  }
}

/**
 * Every file of a unified diff, in order. `known` (the pull request's
 * listed names) settles a plain header that names a renamed file with
 * spaces and has no other line naming it.
 */
export function parseDiff(
  diff: string,
  known?: ReadonlySet<string>
): ParsedDiff {
  const lines = diff.split(/(?<=\n)/)
  let preamble = ''
  const files: DiffFile[] = []
  let current: Building | undefined
  let oldLeft = 0
  let newLeft = 0
  let oldLine = 0
  let newLine = 0
  let hunk: DiffHunk | undefined
  const close = () => {
    if (current) files.push(finish(current, known))
    current = undefined
  }
  for (const raw of lines) {
    const line = raw.replace(/\r?\n$/, '')
    if (current && hunk && (oldLeft > 0 || newLeft > 0)) {
      const taken = hunkLine(hunk, line, { oldLeft, newLeft, oldLine, newLine })
      if (taken) {
        ;({ oldLeft, newLeft, oldLine, newLine } = taken)
        current.file.text += raw
        continue
      }
      // A line the counts do not allow: the hunk ended early (a cut diff).
      oldLeft = newLeft = 0
    }
    if (line.startsWith('diff --git ')) {
      close()
      current = {
        file: {
          path: '',
          status: 'modified',
          binary: false,
          hunks: [],
          text: raw
        },
        header: line,
        deleted: false,
        added: false,
        copied: false
      }
      hunk = undefined
      continue
    }
    if (!current) {
      preamble += raw
      continue
    }
    current.file.text += raw
    const counts = HUNK.exec(line)
    if (counts) {
      hunk = { lines: [] }
      current.file.hunks.push(hunk)
      oldLine = Number(counts[1])
      oldLeft = counts[2] === undefined ? 1 : Number(counts[2])
      newLine = Number(counts[3])
      newLeft = counts[4] === undefined ? 1 : Number(counts[4])
      continue
    }
    if (hunk) continue // after a hunk, before the next header: nothing to read
    readHeaderLine(current, line)
  }
  close()
  return { preamble, files }
}

interface HunkPlace {
  oldLeft: number
  newLeft: number
  oldLine: number
  newLine: number
}

/** The next line of a hunk, when its counts allow it: the place after it. */
function hunkLine(
  hunk: DiffHunk,
  line: string,
  at: HunkPlace
): HunkPlace | undefined {
  const mark = line[0]
  if (mark === '\\') return at // `\ No newline at end of file`
  const text = line.slice(1)
  if (mark === '+' && at.newLeft > 0) {
    hunk.lines.push({ kind: '+', new: at.newLine, text })
    return { ...at, newLeft: at.newLeft - 1, newLine: at.newLine + 1 }
  }
  if (mark === '-' && at.oldLeft > 0) {
    hunk.lines.push({ kind: '-', old: at.oldLine, text })
    return { ...at, oldLeft: at.oldLeft - 1, oldLine: at.oldLine + 1 }
  }
  if ((mark === ' ' || line === '') && at.oldLeft > 0 && at.newLeft > 0) {
    hunk.lines.push({ kind: ' ', old: at.oldLine, new: at.newLine, text })
    return {
      oldLeft: at.oldLeft - 1,
      newLeft: at.newLeft - 1,
      oldLine: at.oldLine + 1,
      newLine: at.newLine + 1
    }
  }
  return undefined
}

/** One extended header line of git's (`new file mode`, `rename to`, ...). */
function readHeaderLine(b: Building, line: string): void {
  const rest = (prefix: string) =>
    line.startsWith(prefix) ? line.slice(prefix.length) : undefined
  let value: string | undefined
  if (line.startsWith('--- ')) {
    b.from = markerName(line, 'a/')
    if (b.from === undefined) b.added = true
  } else if (line.startsWith('+++ ')) {
    b.to = markerName(line, 'b/')
    if (b.to === undefined) b.deleted = true
  } else if ((value = rest('new file mode ')) !== undefined) {
    b.added = true
    b.file.newMode = value
  } else if ((value = rest('deleted file mode ')) !== undefined) {
    b.deleted = true
    b.file.oldMode = value
  } else if ((value = rest('old mode ')) !== undefined) {
    b.file.oldMode = value
  } else if ((value = rest('new mode ')) !== undefined) {
    b.file.newMode = value
  } else if ((value = rest('rename from ')) !== undefined) {
    b.renameFrom = decodeName(value, '')
  } else if ((value = rest('rename to ')) !== undefined) {
    b.renameTo = decodeName(value, '')
  } else if ((value = rest('copy from ')) !== undefined) {
    b.renameFrom = decodeName(value, '')
    b.copied = true
  } else if ((value = rest('copy to ')) !== undefined) {
    b.renameTo = decodeName(value, '')
    b.copied = true
  } else if (line.startsWith('Binary files ') || line === 'GIT binary patch') {
    b.file.binary = true
  }
}

/** A file the budget left out of a diff, with its size. */
export interface CutFile {
  path: string
  bytes: number
}

export interface FittedDiff {
  diff: string
  /** The files kept, in order. */
  kept: DiffFile[]
  /** Each file left out because its section did not fit in what was left. */
  cut: CutFile[]
}

/**
 * The diff's whole files, in order, while they fit in maxBytes of UTF-8: a
 * file too large for what is left is left out and named, and the smaller
 * ones after it still get their turn. Never a cut inside a file or a hunk.
 */
export function fitDiff(
  parsed: ParsedDiff | DiffFile[],
  maxBytes: number
): FittedDiff {
  const files = Array.isArray(parsed) ? parsed : parsed.files
  const preamble = Array.isArray(parsed) ? '' : parsed.preamble
  let room = maxBytes - Buffer.byteLength(preamble, 'utf8')
  const parts = [preamble]
  const kept: DiffFile[] = []
  const cut: CutFile[] = []
  for (const file of files) {
    const bytes = Buffer.byteLength(file.text, 'utf8')
    if (bytes > room) {
      cut.push({ path: file.path, bytes })
      continue
    }
    room -= bytes
    parts.push(file.text)
    kept.push(file)
  }
  return { diff: parts.join(''), kept, cut }
}

/** New-side line number -> text, per file: what the diff shows of each file now. */
export function newSideLines(
  files: readonly DiffFile[]
): Map<string, Map<number, string>> {
  const out = new Map<string, Map<number, string>>()
  for (const file of files) {
    if (file.status === 'deleted') continue
    const lines = new Map<number, string>()
    for (const hunk of file.hunks)
      for (const l of hunk.lines)
        if (l.new !== undefined) lines.set(l.new, l.text)
    out.set(file.path, lines)
  }
  return out
}
