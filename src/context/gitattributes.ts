// The two .gitattributes marks that leave a file out of the agents' context:
// `linguist-generated` (GitHub folds such files in its own diff view) and
// `-diff` (git shows no text diff; the `binary` macro implies it).
//
// Whose .gitattributes counts: the BASE branch's root file, read from the
// base commit through the API. The head's is written by the pull request's
// author, who could add `* linguist-generated` to hide every change from
// review; the base's is the maintainers'. Nested .gitattributes files are
// not read.
import { globMatcher } from '../inputs/globs.js'

interface AttributeLine {
  test: (file: string) => boolean
  generated?: boolean
  noDiff?: boolean
}

export interface GitAttributes {
  lines: AttributeLine[]
}

interface FileAttributes {
  generated: boolean
  noDiff: boolean
}

/** Bytes read at most: the contents API sends no text over 1 MB anyway. */
export const GITATTRIBUTES_MAX_BYTES = 1_000_000

/** Lines read at most; a longer file is the maintainers' mistake, not a reason to stall. */
const MAX_LINES = 5_000

/**
 * Parses the lines that set or unset the two marks, as git reads them: a
 * pattern, then attributes; the last matching line wins per attribute.
 * Lines git ignores are skipped: comments, macros (`[attr]`), negative
 * patterns, and `dir/` patterns (they match no file in an attributes file).
 */
export function parseGitAttributes(text: string): GitAttributes {
  const lines: AttributeLine[] = []
  for (const raw of text.split(/\r?\n/).slice(0, MAX_LINES)) {
    const line = raw.trim()
    if (!line || line.startsWith('#') || line.startsWith('[attr]')) continue
    const [pattern = '', ...attrs] = line.split(/\s+/)
    if (pattern.startsWith('!') || pattern.startsWith('"')) continue
    if (pattern.endsWith('/')) continue
    const entry: Omit<AttributeLine, 'test'> = {}
    for (const attr of attrs) {
      if (attr === 'linguist-generated' || attr === 'linguist-generated=true')
        entry.generated = true
      else if (
        /^(-|!)linguist-generated$|^linguist-generated=false$/.test(attr)
      )
        entry.generated = false
      else if (attr === '-diff' || attr === 'binary') entry.noDiff = true
      else if (/^(!?diff|diff=.*)$/.test(attr)) entry.noDiff = false
    }
    if (entry.generated === undefined && entry.noDiff === undefined) continue
    try {
      lines.push({ test: globMatcher(pattern), ...entry })
    } catch {
      // A pattern picomatch cannot read marks nothing.
    }
  }
  return { lines }
}

export function attributesFor(
  attributes: GitAttributes,
  file: string
): FileAttributes {
  const result: FileAttributes = { generated: false, noDiff: false }
  for (const line of attributes.lines) {
    if (!line.test(file)) continue
    if (line.generated !== undefined) result.generated = line.generated
    if (line.noDiff !== undefined) result.noDiff = line.noDiff
  }
  return result
}
