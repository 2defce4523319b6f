// The globs of `include` / `exclude` and of .gitattributes lines.
//
// picomatch, dot files included, case-sensitive, gitignore-like:
// - a glob without a slash matches the file name at any depth (`*.lock`);
// - a glob with a slash matches the path from the repository root
//   (`docs/**/*.md`); a leading `/` is dropped;
// - a trailing slash means everything under that folder (`vendor/` at any
//   depth, `src/gen/` from the root);
// - in `exclude`, `!glob` gives back what an earlier rule (a default or an
//   earlier exclude glob) left out; for each file the last matching rule wins.
import picomatch from 'picomatch'

/** A glob as picomatch reads it, from the gitignore-like form above. */
export function toPicomatch(glob: string): string {
  let g = glob.replace(/^\.\//, '')
  const folder = g.endsWith('/')
  if (folder) g = g.replace(/\/+$/, '')
  const anchored = g.includes('/')
  g = g.replace(/^\/+/, '')
  if (!anchored) g = `**/${g}`
  return folder ? `${g}/**` : g
}

export function globMatcher(glob: string): (file: string) => boolean {
  return picomatch(toPicomatch(glob), { dot: true })
}

/**
 * Splits `include` / `exclude`: globs separated by newlines or commas (a
 * comma inside `{…}` belongs to the glob), blanks and `#` lines dropped.
 */
export function parseGlobList(text: string): string[] {
  const globs: string[] = []
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*#/.test(line)) continue
    let depth = 0
    let current = ''
    for (const ch of line) {
      if (ch === '{') depth++
      if (ch === '}') depth = Math.max(0, depth - 1)
      if (ch === ',' && depth === 0) {
        globs.push(current)
        current = ''
      } else current += ch
    }
    globs.push(current)
  }
  return globs.map((g) => g.trim()).filter((g) => g.length > 0)
}

/** Why a glob is unusable, or undefined when it is fine. */
export function globProblem(glob: string): string | undefined {
  const body = glob.replace(/^!/, '')
  if (!body || body === '/') return 'an empty pattern'
  if (body.length > 500) return 'longer than 500 characters'
  if ([...body].some((c) => c.charCodeAt(0) < 0x20))
    return 'a control character'
  try {
    picomatch.makeRe(toPicomatch(body))
  } catch {
    return 'not a valid glob'
  }
  return undefined
}
