// Review across pushes, after the run. Pure. What became of each finding
// earlier runs left open: dismissed (a person with write access resolved its
// thread), confirmed (raised again), fixed (GitHub marks its thread outdated
// and no agent raised it again: its thread is resolved), or carried forward
// (its lines did not change and it was not raised again: it stays open).
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

/** A group of this run raises the earlier finding again. */
export function raisesAgain(group: FindingGroup, e: EarlierFinding): boolean {
  if (group.fingerprints.includes(e.fingerprint)) return true
  const words = tokens(e.title)
  return group.members.some((m) => {
    if (m.file !== e.file) return false
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
    if (!finding.outdated) return { finding, status: 'carried' }
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

/** The one-line reply posted in a thread before it is resolved. Fixed text. */
export function resolvedReply(headSha: string): string {
  return (
    `${RESOLVED_REPLY_OPENING} the lines changed in ${headSha.slice(0, 12)} and no agent ` +
    'raised this finding again.'
  )
}
