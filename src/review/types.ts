// What a `review: inline` run found and where each finding went.
import type { EarlierOutcome, ReviewScope } from './earlier.js'
import type { FindingGroup, Verdict } from './group.js'

/**
 * inline: a comment on its diff line; body: in the review's body (line not
 * in the diff); refused: GitHub refused the line (422), so in the body;
 * hidden: fewer agents than `min-agreement` raised it (summary only);
 * duplicate: an earlier run already posted it.
 */
export type Posted = 'inline' | 'body' | 'refused' | 'hidden' | 'duplicate'

export interface ReviewedGroup extends FindingGroup {
  posted: Posted
}

export interface ReviewReport {
  verdict: Verdict
  /** Most agreement first (byImportance). */
  groups: ReviewedGroup[]
  /** Agents whose final answers were read. */
  agentCount: number
  /** Agents whose answer held a readable findings block. */
  agentsWithBlock: number
  /** Findings given but not kept (bad schema, unknown file, over the caps). */
  dropped: number
  minAgreement: number
  reviewUrl?: string
  /** Why no review was posted, when none was. */
  notPosted?: string
  /** Full or incremental, and why (earlier.ts). */
  scope?: ReviewScope
  /** Each finding earlier runs left open, and what became of it. */
  earlier?: EarlierOutcome[]
}
