// Review across pushes: where each earlier finding's file went. Pure. A
// thread stays on the path it was posted on, so a finding whose file is no
// longer at the head under that name was either removed or renamed, and
// the two differ: removing the code may fix the finding, renaming the file
// moves the code unchanged (GitHub marks the thread outdated all the same).
// Which one it was, the comparison with the commit reviewed last says (its
// files list names renames with their old name), else the pull request's
// files list (renamed or removed since the base). When neither names the
// path, the finding is `unknown` and review/earlier.ts never finds it fixed.
import type { EarlierFinding, EarlierMove } from '../core/review.js'
import type { ChangedFile } from '../github/pull.js'
import type { PathMoves } from '../github/compare.js'

interface PathFacts {
  /** The pull request's files list at the head. */
  files: readonly ChangedFile[]
  /** The renames and removals since the commit reviewed last, when read whole. */
  moves: PathMoves | undefined
}

/** Each earlier finding, with `moved` set when its file is gone from the head. */
export function followPaths(
  earlier: readonly EarlierFinding[],
  facts: PathFacts
): EarlierFinding[] {
  return earlier.map((e) => {
    const moved = moveOf(e, facts)
    return moved ? { ...e, moved } : e
  })
}

function moveOf(e: EarlierFinding, facts: PathFacts): EarlierMove | undefined {
  const listed = facts.files.find((f) => f.filename === e.file)
  if (listed && listed.status !== 'removed') return undefined
  if (facts.moves?.kept.includes(e.file)) return undefined
  const renamed = facts.moves?.renamed.find((r) => r.from === e.file)
  if (renamed) {
    const lines = [e.line, e.originalLine].filter((l) => l !== null)
    return {
      kind: 'renamed',
      to: renamed.to,
      linesChanged: lines.some((l) => renamed.changedLines.includes(l))
    }
  }
  if (facts.moves?.removed.includes(e.file)) return { kind: 'removed' }
  // Renamed since the base, in a push before the last review: which lines
  // that rename changed is not known, so it changed none.
  const sinceBase = facts.files.find((f) => f.previousFilename === e.file)
  if (sinceBase)
    return { kind: 'renamed', to: sinceBase.filename, linesChanged: false }
  if (listed) return { kind: 'removed' }
  return { kind: 'unknown' }
}
