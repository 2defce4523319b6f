// What a `review: inline` run found and where each finding went: the
// findings the agents gave, grouped, and the report of where each was posted.

export const SEVERITIES = ['blocker', 'concern', 'nit'] as const
export type Severity = (typeof SEVERITIES)[number]

/** One finding of one agent, checked and normalised (text not yet escaped). */
export interface Finding {
  agent: string
  /** A file the pull request changes, as GitHub names it. */
  file: string
  /** Line on the new side (RIGHT); with startLine, the range's last line. */
  line: number
  /** First line of a range, always < line. */
  startLine?: number
  severity: Severity
  /** One line, visible characters only, at most MAX_TITLE_CHARS. */
  title: string
  explanation: string
  /** Replacement for lines startLine..line (or line), when given. */
  suggestion?: string
}

export interface FindingGroup {
  /** The lead's: stable across runs for the same file, line and title words. */
  fingerprint: string
  /** Every member's, so a re-run led by another agent still knows it. */
  fingerprints: string[]
  /** The finding shown: the winner's when it raised it, else the first agent's. */
  lead: Finding
  /**
   * Where the inline comment goes: the member whose replacement is offered
   * (a replacement only fits the lines it was written for), else the lead.
   */
  anchor: Finding
  /** Every agent's finding in the group, one per agent. */
  members: Finding[]
  /** Distinct agents that raised it, sorted. */
  agents: string[]
  severity: Severity
  /** The anchor's replacement for its lines, if any. */
  suggestion?: string
}

export type Verdict = 'pass' | 'concerns' | 'blockers'
export type FailOn = 'blocker' | 'concern' | 'never'

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
  /** Full or incremental, and why (plan/earlier-record.ts). */
  scope?: ReviewScope
  /** Each finding earlier runs left open, and what became of it. */
  earlier?: EarlierOutcome[]
}

/** How a review was scoped. */
export type ReviewScope =
  | { kind: 'full'; reason: string }
  | { kind: 'incremental'; since: string; reason: string }

/** `resolve-threads`: which of our fixed findings' threads are resolved. */
export type ResolveThreads = 'unanswered' | 'answered-too' | 'off'

/** A finding an earlier run posted and left open: the token's own thread. */
export interface EarlierFinding {
  threadId: string
  commentId: number
  url: string
  file: string
  /** Where GitHub places it now; null when it cannot (outdated). */
  line: number | null
  originalLine: number | null
  outdated: boolean
  /** Someone other than the token wrote in the thread. */
  answered: boolean
  fingerprint: string
  /** Read from the comment's headline; undefined when it did not parse. */
  severity?: Severity
  raisedBy?: number
  of?: number
  title: string
}

export type EarlierStatus = 'confirmed' | 'fixed' | 'carried'

/** What was done with a fixed finding's thread. */
export type ThreadAction =
  | 'resolved'
  /** Left open: a person wrote in it and `resolve-threads` is 'unanswered'. */
  | 'answered'
  /** Left open: `resolve-threads` is 'off'. */
  | 'off'
  /** GitHub refused or failed; the reason is in the log. */
  | 'failed'

export interface EarlierOutcome {
  finding: EarlierFinding
  status: EarlierStatus
  thread?: ThreadAction
}
