// What a `review: inline` run found and where each finding went.
import type { Severity } from './findings.js'
import type { FindingGroup, Verdict } from './group.js'

/**
 * inline: a comment on its diff line; body: in the review's body (line not
 * in the diff); refused: GitHub refused the line (422), so in the body;
 * hidden: fewer agents than `min-agreement` raised it (summary only);
 * unconfirmed: the vote did not confirm it (summary only);
 * pr-text-only: only the pull request's own text supports it (summary only);
 * below-severity: under `min-severity` (summary only);
 * held: over `max-inline-comments`, weaker than those posted (summary only);
 * duplicate: an earlier run already posted it.
 */
export type Posted =
  | 'inline'
  | 'body'
  | 'refused'
  | 'hidden'
  | 'unconfirmed'
  | 'pr-text-only'
  | 'below-severity'
  | 'held'
  | 'duplicate'

export interface ReviewedGroup extends FindingGroup {
  posted: Posted
}

/** The vote round (vote-round.ts) as it ran, or why it did not. */
export interface VoteRound {
  /** The round ran and its answers were read. */
  ran: boolean
  /** Why there was no vote (turned off, no findings, no time left, failed). */
  skipped?: string
  /** Findings put to the vote. */
  findings: number
  /** MassGen's own time for the round, and its token counts. */
  seconds?: number
  inputTokens?: number
  outputTokens?: number
  cost?: number
  /** Each agent's answer in the round, by agent id. */
  answers: Record<string, string>
}

export interface ReviewReport {
  verdict: Verdict
  /** Strongest first (counted.ts byStrength). */
  groups: ReviewedGroup[]
  /** Agents whose final answers were read. */
  agentCount: number
  /** Agents whose answer held a readable findings block. */
  agentsWithBlock: number
  /** Findings given but not kept (bad schema, unknown file, over the caps). */
  dropped: number
  minAgreement: number
  minSeverity: Severity
  maxInlineComments: number
  /** The vote on the findings, when one was asked for. */
  vote?: VoteRound & {
    /** Agents whose answer held a readable votes block. */
    agentsWithBlock: number
    /** Votes given but not kept (bad schema, unknown finding, a second vote). */
    dropped: number
  }
  reviewUrl?: string
  /** Why no review was posted, when none was. */
  notPosted?: string
}
