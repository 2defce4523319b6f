// The pull request's diff put together from the files list, for when GitHub
// refuses to render it (406 `too_large`: over 300 files or 20,000 lines).
// Each entry of GET /pulls/{n}/files carries its hunks in `patch`; an entry
// without one (a binary file, a diff too large for the list) is named, with
// the reason, instead of being dropped. Pure: names and patches are the
// pull request author's text.

/** One entry of the files list, as the rebuild needs it. */
interface FilePatch {
  filename: string
  status: string
  changes: number
  previousFilename?: string
  patch?: string
}

export interface RebuiltDiff {
  diff: string
  /** Files with changes whose hunks GitHub did not give, and why. */
  withoutPatch: Array<{ file: string; reason: string }>
}

const NO_PATCH_REASON =
  'GitHub gives no patch for it (a binary file, or a diff too large for the files list)'
const NOT_HUNKS_REASON = 'its patch from GitHub is not a list of hunks'

/**
 * A name as git writes it in a header: C-quoted when it holds a quote, a
 * backslash, a control character or non-ASCII (git's core.quotePath), so a
 * name with a line break cannot start a header line of its own.
 */
export function gitPath(prefix: string, name: string): string {
  const plain = [...name].every((ch) => {
    const code = ch.codePointAt(0) ?? 0
    return code >= 0x20 && code < 0x7f && ch !== '"' && ch !== '\\'
  })
  if (plain) return `${prefix}${name}`
  let out = ''
  for (const byte of Buffer.from(`${prefix}${name}`, 'utf8')) {
    const ch = String.fromCharCode(byte)
    if (ch === '"' || ch === '\\') out += `\\${ch}`
    else if (ch === '\n') out += '\\n'
    else if (ch === '\t') out += '\\t'
    else if (byte < 0x20 || byte >= 0x7f)
      out += `\\${byte.toString(8).padStart(3, '0')}`
    else out += ch
  }
  return `"${out}"`
}

/** Every line of a patch is a hunk header or a hunk line. */
function isHunks(patch: string): boolean {
  return patch
    .split('\n')
    .every((line) => line === '' || /^[@ +\-\\]/.test(line))
}

function header(file: FilePatch): string[] {
  const from = file.previousFilename ?? file.filename
  const lines = [
    `diff --git ${gitPath('a/', from)} ${gitPath('b/', file.filename)}`
  ]
  if (file.previousFilename && file.previousFilename !== file.filename)
    lines.push(
      `rename from ${gitPath('', from)}`,
      `rename to ${gitPath('', file.filename)}`
    )
  return lines
}

function section(file: FilePatch): string {
  const lines = header(file)
  const patch = file.patch ?? ''
  if (patch) {
    const from = file.previousFilename ?? file.filename
    lines.push(
      file.status === 'added' ? '--- /dev/null' : `--- ${gitPath('a/', from)}`,
      file.status === 'removed'
        ? '+++ /dev/null'
        : `+++ ${gitPath('b/', file.filename)}`,
      patch.replace(/\n$/, '')
    )
  }
  return `${lines.join('\n')}\n`
}

/** The unified diff of the listed files, in the list's order. */
export function rebuildDiff(files: readonly FilePatch[]): RebuiltDiff {
  const parts: string[] = []
  const withoutPatch: RebuiltDiff['withoutPatch'] = []
  for (const file of files) {
    const patch = file.patch ?? ''
    if (patch && !isHunks(patch)) {
      withoutPatch.push({ file: file.filename, reason: NOT_HUNKS_REASON })
      parts.push(section({ ...file, patch: '' }))
      continue
    }
    // A rename or mode change without content changes has no patch to give.
    if (!patch && file.changes > 0)
      withoutPatch.push({ file: file.filename, reason: NO_PATCH_REASON })
    parts.push(section(file))
  }
  return { diff: parts.join(''), withoutPatch }
}
