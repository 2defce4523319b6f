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
  /** Where the inline comment goes: the lead's lines. */
  anchor: Finding
  /** Every agent's finding in the group, one per agent. */
  members: Finding[]
  /** Distinct agents that raised it, sorted. */
  agents: string[]
  /** The highest its counting members give (review/tally.ts). */
  severity: Severity
  /** Lower severities other members gave, shown beside it. */
  otherSeverities?: Severity[]
  /** A member's replacement for its lines, once tallied (review/tally.ts). */
  suggestion?: GroupSuggestion
  /** The agents' vote on it (review/vote.ts), when it was put to one. */
  vote?: FindingVote
  /**
   * Its line is past the end of its file at the reviewed commit, which holds
   * this many lines (review/excerpt.ts pastTheEnd): it never counts.
   */
  pastEnd?: number
}

/** A member's replacement, attributed; offered for one click unless notOffered says why not. */
export interface GroupSuggestion {
  agent: string
  text: string
  notOffered?: string
}

export type Ballot = 'confirm' | 'reject' | 'abstain'

/** Where a confirmation's quote was found. */
export type Evidence = 'code' | 'pull-request-text' | 'none'

/** One agent's vote on one finding. */
export interface Vote {
  agent: string
  ballot: Ballot
  /** The line the confirmation points at, when given. */
  line?: number
  /** One line, visible characters only, capped. */
  reason: string
  /**
   * Set on confirmations: what the quote was found in; on rejections only
   * when their quote is in the code (shown, never weighed: tally.ts).
   */
  evidence?: Evidence
  /** A raiser that gave no vote: its finding stands as its confirmation. */
  implicit?: true
}

/** The vote on one finding group. */
export interface FindingVote {
  /** One per agent that voted (or raised it), sorted by agent. */
  votes: Vote[]
  confirmed: number
  rejected: number
  abstained: number
  /**
   * Every confirmation's support is the pull request's own text (a quote of
   * its description or a comment), none the code.
   */
  prTextOnly: boolean
  /**
   * A group of findings several rounds voted on (review/merged-votes.ts):
   * each round's own votes, with the other rounds' confirmations. The group
   * counts when one of them does, so a round's rejections bear only on the
   * findings that round was shown.
   */
  byRound?: readonly FindingVote[]
  /** In byRound: the raisers of the findings this round voted on... */
  raisers?: readonly string[]
  /** ...and its own votes on them, without the other rounds' confirmations. */
  ownVotes?: readonly Vote[]
  /**
   * The agents its round asked that gave no vote on it (no ballot back, or
   * none readable on it): tally.ts rule 8. Unset when the round did not say
   * whom it asked.
   */
  missing?: readonly string[]
}

/** The vote round (vote/vote-round.ts) as it ran, or why it did not. */
export interface VoteRound {
  /** The round ran and its answers were read. */
  ran: boolean
  /** Why there was no vote (no findings, no time left, failed). */
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
  /**
   * Every agent the ballot was put to, by id, the ones whose answer never
   * came back too (tally.ts rule 8).
   */
  asked?: readonly string[]
  /**
   * A matrix review's rounds (shards/shard-votes.ts): each shard's findings
   * were put to that shard's agents only, not to every agent.
   */
  byShard?: true
}

/**
 * `unclear`: the agents' votes split with no majority on the outcome
 * (review/split.ts); `incomplete`: code the review did not read, fewer
 * readable answers than `min-agreement`, or ballots missing from a
 * finding's vote would otherwise have let it pass (review/coverage.ts).
 */
export type Verdict =
  'pass' | 'concerns' | 'blockers' | 'unclear' | 'incomplete'

/**
 * A finding whose vote is missing ballots that could have counted it
 * (tally.ts rule 8), at a severity that would change the verdict
 * (coverage.ts): the verdict is `incomplete`.
 */
export interface UnvotedFinding {
  file: string
  line: number
  severity: Severity
  title: string
  /** The agents asked that gave no vote on it. */
  agents: string[]
  /** Counting it would change the verdict, so it holds it at `incomplete` (coverage.ts holdsVerdict). */
  holds: boolean
}

/** A changed file the review did not read, and why. */
export interface UnreadFile {
  file: string
  reason: string
  /** Not one file: this many changed files GitHub's files list never named. */
  unnamed?: number
  /** `allow-unread` matches it: listed, but it does not hold the verdict. */
  allowed?: boolean
}

/** What the review read of the pull request, and what it did not. */
export interface Coverage {
  /** Changed files the pull request has (GitHub's count). */
  changed: number
  /** Changed files not read, each with its reason. */
  unread: UnreadFile[]
}
export type FailOn = 'blocker' | 'concern' | 'never'

/**
 * inline: a comment on its diff line; body: in the review's body (line not
 * in the diff); refused: GitHub refused the line (422), so in the body;
 * hidden: fewer agents than `min-agreement` raised it (summary only);
 * unconfirmed: the vote did not confirm it (summary only);
 * pr-text-only: only the pull request's own text supports it (summary only);
 * past-end: its line is past the end of its file (summary only);
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
  | 'past-end'
  | 'below-severity'
  | 'held'
  | 'duplicate'

export interface ReviewedGroup extends FindingGroup {
  posted: Posted
}

export interface ReviewReport {
  verdict: Verdict
  /** Strongest first (review/counted.ts byStrength). */
  groups: ReviewedGroup[]
  /** Agents whose final answers were read. */
  agentCount: number
  /** Agents whose answer held a readable findings block. */
  agentsWithBlock: number
  /**
   * The earlier findings could not all be read (a thread read cut short):
   * one still open may be missing, so the verdict cannot be `pass`.
   */
  earlierUnread?: boolean
  /** Findings whose vote is missing ballots that could have counted them. */
  unvoted?: UnvotedFinding[]
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
  /** What the review read and did not (review/coverage.ts). */
  coverage?: Coverage
  /** Why no review was posted, when none was. */
  notPosted?: string
  /** Full or incremental, and why (context/earlier-record.ts). */
  scope?: ReviewScope
  /** Each finding earlier runs left open, and what became of it. */
  earlier?: EarlierOutcome[]
  /** What the change does, file by file, from the voted answer. */
  walkthrough?: Walkthrough
}

/**
 * The walkthrough of the answer the agents voted for (review/walkthrough.ts):
 * one line per file the pull request changes, text not yet escaped.
 */
export interface Walkthrough {
  /** Whose answer it is: the winner's. */
  agent: string
  files: Array<{ file: string; text: string }>
  /** Lines left out: on no changed file, a file again, or past the cap. */
  left?: number
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
  /**
   * Read from the comment's own marker (github/review-markers.ts), never
   * its prose; undefined on a marker an older release wrote (the finding
   * then counts as a blocker: review/standing.ts).
   */
  severity?: Severity
  raisedBy?: number
  of?: number
  /** The verdict counted it when it was posted (false: it never counts). */
  counted?: boolean
  title: string
  /**
   * Someone other than the token resolved its thread: who (null when GitHub
   * names no one), and what that resolution is worth
   * (context/earlier-resolutions.ts): 'dismissed' by a person with write
   * access (the finding no longer counts), else 'ignored' (it still counts),
   * with why.
   */
  resolution?: {
    by: string | null
    worth: 'dismissed' | 'ignored'
    why: string
  }
  /**
   * Set when its file is no longer at the head under its name
   * (context/earlier-paths.ts): renamed (now `to`; `linesChanged` when the
   * rename changed its lines), removed, or unknown (nothing read says which).
   */
  moved?: EarlierMove
}

export type EarlierMove =
  | { kind: 'renamed'; to: string; linesChanged: boolean }
  | { kind: 'removed' }
  | { kind: 'unknown' }

/** dismissed: a person with write access resolved its thread. */
type EarlierStatus = 'confirmed' | 'fixed' | 'carried' | 'dismissed'

/** What was done with a fixed finding's thread. */
export type ThreadAction =
  | 'resolved'
  /** Left open: a person wrote in it and `resolve-threads` is 'unanswered'. */
  | 'answered'
  /** Left open: `resolve-threads` is 'off'. */
  | 'off'
  /** GitHub refused or failed; the reason is in the log. */
  | 'failed'
  /** Someone had resolved it already (its resolution did not count). */
  | 'was-resolved'

export interface EarlierOutcome {
  finding: EarlierFinding
  status: EarlierStatus
  thread?: ThreadAction
}
