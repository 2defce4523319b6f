// The tally of the vote on the findings: the written rules, one module, the
// same for a single run (vote.ts tallyVotes) and for the aggregate of a
// matrix review (merged-votes.ts), numbered as docs/review.md's vote rules
// lists them. Pure. Each rule holds whatever ONE agent votes, since one
// prompt-injected model must not decide a finding:
//
// 1. Weight. A confirmation weighs 2 when its quote is found in the code
//    the question showed (evidence from the code: the finding is on code
//    that is really there), 1 without (no quote, a quote that is not in the
//    code, a raiser's standing finding). A rejection weighs 1 whatever it
//    quotes: the question prints the code, so quoting a line of it shows
//    nothing about the finding being wrong (an injected agent could veto
//    any finding by copying the flagged line). 0 abstaining. One agent
//    weighs at most 2 and two agreeing agents at least 2, and a tie does
//    not count: no agent alone outweighs two others that agree.
// 2. Counted: at least `min-agreement` agents confirm (set-aside ones left
//    out) and the confirmations weigh more than the rejections. A group
//    several rounds voted on (a matrix review) counts when one round's
//    votes, with the other rounds' confirmations, count it.
// 3. The pull request's own text. A confirmation whose quote is only in the
//    pull request's title, description or comments is set aside (weighs as
//    an abstention), so a confirmation never weakens a finding; when the
//    finding would count with such confirmations and does not without them,
//    it is marked `prTextOnly` (it does not count).
// 4. The question shows the code of every finding (excerpt.ts; a matrix
//    review's aggregate reads what the diff does not show at the head,
//    shards/aggregate-job.ts), so a quote is always checkable.
// 5. `unclear` (MassGen's answer votes split) never hides a counted blocker,
//    nor a finding a majority of the voters confirmed with the code.
// 6. Severity: the highest severity the group's counting members give (a
//    raiser that rejects its own finding in the vote withdraws it; in a
//    matrix review, a member whose round does not count the group does not
//    count), never a head count; the other severities are shown beside it.
// 7. A suggestion is offered for one click only when its author's finding
//    is on the lines the comment is on and its author counts (confirms, not
//    by the pull request's text alone, in a counted group); else it is shown
//    as text. Either way it is attributed to its author.
// 8. A ballot that did not come back is no vote (vote.ts tallyVotes), but
//    it is not a rejection either: when a finding does not count, its
//    raisers' word alone would count it (the rule without a vote), and the
//    agents asked that gave no vote on it (no ballot back, or none readable
//    on it) could have counted it had they confirmed it with the code, its
//    vote is missing those ballots (coverage.ts makes the verdict
//    `incomplete` for it). Else the PR's author would open the gate by
//    making the raisers' ballots unreadable (a flagged line that breaks
//    their JSON) or late. In a matrix review each round is looked at on its
//    own, even when another round's look-alike counts the group lower.
import type {
  Finding,
  FindingGroup,
  FindingVote,
  GroupSuggestion,
  Severity,
  Verdict,
  Vote
} from '../core/review.js'
import { highestSeverity, RANK } from './group.js'

/** A confirmation backed by a quote found in the code. */
export const CODE_WEIGHT = 2
/** A confirmation without such a quote, and every rejection. */
export const PLAIN_WEIGHT = 1

/** Whether a confirmation rests only on the pull request's own text (rule 3). */
function setAside(v: Vote): boolean {
  return v.ballot === 'confirm' && v.evidence === 'pull-request-text'
}

/** A ballot's weight (rule 1); a set-aside confirmation weighs 0 unless `withPrText`. */
export function weightOf(v: Vote, withPrText = false): number {
  if (v.ballot === 'abstain') return 0
  if (setAside(v)) return withPrText ? PLAIN_WEIGHT : 0
  // A rejection's quote is kept for the report, never weighed (rule 1).
  if (v.ballot === 'reject') return PLAIN_WEIGHT
  return v.evidence === 'code' ? CODE_WEIGHT : PLAIN_WEIGHT
}

function decides(
  votes: readonly Vote[],
  minAgreement: number,
  withPrText: boolean
): boolean {
  let confirms = 0
  let forWeight = 0
  let againstWeight = 0
  for (const v of votes) {
    const w = weightOf(v, withPrText)
    if (v.ballot === 'confirm' && w > 0) {
      confirms++
      forWeight += w
    } else if (v.ballot === 'reject') againstWeight += w
  }
  return confirms >= minAgreement && forWeight > againstWeight
}

/** Whether these votes count a finding (rules 1 to 3, one round). */
export function votesCount(
  votes: readonly Vote[],
  minAgreement: number
): boolean {
  return decides(votes, minAgreement, false)
}

/** Whether the pull request's own text is what the count depends on (rule 3). */
export function prTextDecides(
  votes: readonly Vote[],
  minAgreement: number
): boolean {
  return (
    !decides(votes, minAgreement, false) && decides(votes, minAgreement, true)
  )
}

/** Whether a group counts (rule 2); without a vote, its raisers alone say. */
export function groupCounts(
  group: FindingGroup,
  minAgreement: number
): boolean {
  // A line the file does not have points at no code: no agreement makes it one.
  if (group.pastEnd !== undefined) return false
  const vote = group.vote
  if (!vote) return group.agents.length >= minAgreement
  return (vote.byRound ?? [vote]).some((v) => votesCount(v.votes, minAgreement))
}

/**
 * The agents asked to vote whose missing votes could have counted a group
 * the votes did not count (rule 8), none when its raisers' word would not
 * count it either, with the severity they could have counted: the highest
 * its raisers gave in the rounds that lost them. A round whose own votes do not
 * count its raisers' findings is looked at even when another round counts
 * the group: that round's look-alike (a nit another shard raised on the
 * same line) would otherwise stand for a blocker whose ballots were lost.
 */
export function lostBallots(
  group: FindingGroup,
  minAgreement: number
): { agents: string[]; severity: Severity } | undefined {
  const vote = group.vote
  // A line past the file's end counts for no one: no ballot could count it.
  if (!vote || group.pastEnd !== undefined) return undefined
  const rounds = vote.byRound
    ? vote.byRound.filter((r) => roundLost(r, minAgreement))
    : !groupCounts(group, minAgreement) &&
        groupCounts({ ...group, vote: undefined }, minAgreement) &&
        couldCount(vote.votes, vote.missing ?? [], minAgreement)
      ? [vote]
      : []
  const agents = [...new Set(rounds.flatMap((r) => r.missing ?? []))].sort()
  if (agents.length === 0) return undefined
  const raisers = new Set(rounds.flatMap((r) => r.raisers ?? []))
  const raised = vote.byRound
    ? group.members.filter((m) => raisers.has(m.agent))
    : group.members
  const severity = highest(raised) ?? group.severity
  // A group another round counts at this severity or above loses nothing.
  if (
    groupCounts(group, minAgreement) &&
    RANK[severity] <= RANK[group.severity]
  )
    return undefined
  return { agents, severity }
}

/**
 * A round of a matrix review whose own votes do not count its raisers'
 * findings, which its raisers' word would, and whose missing ballots could.
 */
function roundLost(round: FindingVote, minAgreement: number): boolean {
  const own = round.ownVotes ?? round.votes
  return (
    new Set(round.raisers).size >= minAgreement &&
    !votesCount(own, minAgreement) &&
    couldCount(own, round.missing ?? [], minAgreement)
  )
}

/** Whether these votes count a finding with each missing agent's best ballot added. */
function couldCount(
  votes: readonly Vote[],
  missing: readonly string[],
  minAgreement: number
): boolean {
  // The best they could have given: each a confirmation quoting the code.
  const best: Vote[] = missing.map((agent) => ({
    agent,
    ballot: 'confirm',
    reason: '',
    evidence: 'code'
  }))
  return missing.length > 0 && votesCount([...votes, ...best], minAgreement)
}

/** The vote on a finding from its agents' votes (one each), tallied. */
export function voteOf(given: readonly Vote[]): FindingVote {
  const votes = [...given].sort((a, b) => a.agent.localeCompare(b.agent))
  return {
    votes,
    confirmed: votes.filter((v) => v.ballot === 'confirm').length,
    rejected: votes.filter((v) => v.ballot === 'reject').length,
    abstained: votes.filter((v) => v.ballot === 'abstain').length,
    // The report's mark; min-agreement then decides on its own.
    prTextOnly: prTextDecides(votes, 1)
  }
}

/** A finding a majority of its voters confirmed with a quote of the code. */
export function codeMajority(group: FindingGroup): boolean {
  const vote = group.vote
  if (!vote) return false
  const code = vote.votes.filter(
    (v) => v.ballot === 'confirm' && v.evidence === 'code'
  ).length
  return code * 2 > vote.votes.length
}

/** The verdict over the counted findings, with MassGen's split (rule 5). */
export function verdictOver(
  counted: readonly FindingGroup[],
  split: boolean
): Verdict {
  const blockers = counted.some((g) => g.severity === 'blocker')
  if (blockers) return 'blockers'
  if (split && !counted.some(codeMajority)) return 'unclear'
  return counted.some((g) => g.severity === 'concern') ? 'concerns' : 'pass'
}

/** The vote an agent gave on a group, if any. */
function ballotOf(group: FindingGroup, agent: string): Vote | undefined {
  return group.vote?.votes.find((v) => v.agent === agent)
}

/**
 * The members whose severity counts: not withdrawn by their raiser's own
 * rejection and, in a group several rounds voted on, not from a round whose
 * own votes do not count the group (a hostile shard's look-alike its own
 * round rejected cannot raise the severity of another shard's finding).
 */
function countingMembers(group: FindingGroup, minAgreement: number): Finding[] {
  const rounds = group.vote?.byRound ?? []
  const asked = new Set(rounds.flatMap((r) => r.raisers ?? []))
  const backed = new Set(
    rounds
      .filter((r) => votesCount(r.ownVotes ?? r.votes, minAgreement))
      .flatMap((r) => r.raisers ?? [])
  )
  return group.members.filter(
    (m) =>
      ballotOf(group, m.agent)?.ballot !== 'reject' &&
      (!asked.has(m.agent) || backed.has(m.agent))
  )
}

function highest(members: readonly Finding[]): Severity | undefined {
  return members.length ? highestSeverity(members) : undefined
}

function sameLines(a: Finding, b: Finding): boolean {
  return (
    a.line === b.line && (a.startLine ?? a.line) === (b.startLine ?? b.line)
  )
}

/** Whether a member's author counts for its suggestion (rule 7). */
function authorCounts(
  group: FindingGroup,
  member: Finding,
  counted: boolean
): boolean {
  if (!counted) return false
  const ballot = ballotOf(group, member.agent)
  if (!group.vote || !ballot) return true
  return ballot.ballot === 'confirm' && weightOf(ballot) > 0
}

/** The suggestion a group shows, and whether it is offered for one click (rule 7). */
export function suggestionOf(
  group: FindingGroup,
  counted: boolean
): GroupSuggestion | undefined {
  const given = [
    group.lead,
    ...group.members.filter((m) => m !== group.lead)
  ].filter((m) => m.suggestion !== undefined)
  const [first] = given
  if (!first) return undefined
  const why = (m: Finding): string | undefined =>
    !sameLines(m, group.lead)
      ? 'written for other lines than the comment is on'
      : !authorCounts(group, m, counted)
        ? 'its author did not confirm the finding in a way that counts'
        : undefined
  const offered = given.find((m) => why(m) === undefined)
  const chosen = offered ?? first
  const notOffered = offered ? undefined : why(chosen)
  return {
    agent: chosen.agent,
    text: chosen.suggestion ?? '',
    ...(notOffered ? { notOffered } : {})
  }
}

/**
 * A group after its vote: its severity from the members that count (rule
 * 6) and its suggestion (rule 7).
 */
export function tallied<G extends FindingGroup>(
  group: G,
  minAgreement: number
): G {
  const counted = groupCounts(group, minAgreement)
  const members = countingMembers(group, minAgreement)
  const severity = highest(members) ?? group.severity
  const others = [
    ...new Set(
      group.members.map((m) => m.severity).filter((s) => s !== severity)
    )
  ].sort((a, b) => RANK[b] - RANK[a])
  const suggestion = suggestionOf(group, counted)
  const { suggestion: _before, otherSeverities: _shown, ...rest } = group
  return {
    ...(rest as G),
    severity,
    ...(others.length ? { otherSeverities: others } : {}),
    ...(suggestion ? { suggestion } : {})
  }
}
