// Review across pushes, after the run. Pure. What became of each finding
// earlier runs left open: dismissed (a person with write access resolved its
// thread), confirmed (raised again), fixed (GitHub marks its thread outdated
// and no agent raised it again: its thread is resolved), or carried forward
// (its lines did not change and it was not raised again: it stays open).
// A file renamed since is followed to its new name (context/earlier-paths.ts).
// Earlier findings are read by context/earlier-record.ts; which still count
// for the verdict, standing.ts says.
import type {
  EarlierFinding,
  EarlierOutcome,
  FindingGroup,
  ResolveThreads,
  ThreadAction
} from '../core/review.js'
import { jaccard, LINE_SLACK, SIMILARITY_THRESHOLD, tokens } from './group.js'
import { RESOLVED_REPLY_OPENING } from '../github/review-threads.js'

/**
 * A group of this run raises the earlier finding again: on its file, or on
 * the file's new name when it was renamed since (the same rules there).
 */
export function raisesAgain(group: FindingGroup, e: EarlierFinding): boolean {
  if (group.fingerprints.includes(e.fingerprint)) return true
  const words = tokens(e.title)
  const files = e.moved?.kind === 'renamed' ? [e.file, e.moved.to] : [e.file]
  return group.members.some((m) => {
    if (!files.includes(m.file)) return false
    if (jaccard(tokens(m.title), words) < SIMILARITY_THRESHOLD) return false
    // An outdated thread's lines moved: the same words in the file are enough.
    if (e.outdated) return true
    const at = [e.line, e.originalLine].filter((l): l is number => l !== null)
    const first = m.startLine ?? m.line
    return at.some((l) => first - LINE_SLACK <= l && l <= m.line + LINE_SLACK)
  })
}

/** Each earlier finding's status, and what its thread should get. */
export function classifyEarlier(
  earlier: EarlierFinding[],
  groups: FindingGroup[],
  resolve: ResolveThreads
): EarlierOutcome[] {
  return earlier.map((finding): EarlierOutcome => {
    if (finding.resolution?.worth === 'dismissed')
      return { finding, status: 'dismissed' }
    if (groups.some((g) => raisesAgain(g, finding)))
      return { finding, status: 'confirmed' }
    if (!finding.outdated || stillThere(finding))
      return { finding, status: 'carried' }
    const thread: ThreadAction = finding.resolution
      ? 'was-resolved'
      : resolve === 'off'
        ? 'off'
        : finding.answered && resolve !== 'answered-too'
          ? 'answered'
          : 'resolved'
    return { finding, status: 'fixed', thread }
  })
}

/**
 * Its code is still at the head though GitHub marks the thread outdated (a
 * thread stays on the path it was posted on). A rename moves the code, it
 * does not fix it: the finding stands as it would have at its old path,
 * unless the rename changed its lines. A removed file is not still there:
 * code deleted may be a fix, as it always was. A file gone from the head
 * that nothing read names as removed or renamed may be either, so it
 * stands (fails closed).
 */
function stillThere(finding: EarlierFinding): boolean {
  const moved = finding.moved
  if (moved?.kind === 'unknown') return true
  return moved?.kind === 'renamed' && !moved.linesChanged
}

/** The one-line reply posted in a thread before it is resolved. Fixed text. */
export function resolvedReply(
  headSha: string,
  moved?: EarlierFinding['moved']
): string {
  // Never the new name: a path is the pull request's text, not the action's.
  const where =
    moved?.kind === 'renamed'
      ? 'the file was renamed and these lines changed'
      : 'the lines changed'
  return (
    `${RESOLVED_REPLY_OPENING} ${where} in ${headSha.slice(0, 12)} and no agent ` +
    'raised this finding again.'
  )
}
