// `review: inline`: reads every agent's findings, groups them, and posts ONE
// pull-request review (event COMMENT, never APPROVE or REQUEST_CHANGES):
// an inline comment per finding on its diff line, the others in its body.
//
// Re-runs: each finding's comment (or body line) carries a hidden marker
// with its fingerprint (file, line, title words); findings whose marker a
// the action itself already posted on the pull request are not posted again.
//
// A 422 on the batch (GitHub refused some line) is narrowed down by
// bisection with PENDING reviews, each deleted at once (a pending review is
// seen only by its author); the refused findings move to the body and the
// rest is posted as one review.
import type { GitHubApi } from '../github/api.js'
import { ReviewRefused, type ReviewCommentDraft } from '../github/review.js'
import { parseDiffLines, placeOnDiff } from './diff.js'
import { findingsBlock, parseFindings, type AgentFindings } from './findings.js'
import { groupFindings } from './group.js'
import { atLeast, byStrength, isCounted } from './counted.js'
import { lostBallots, tallied, verdictOver } from './tally.js'
import { excerptsFor, pastTheEnd, type Excerpt } from './excerpt.js'
import {
  MAX_VOTED_FINDINGS,
  parseVotes,
  tallyVotes,
  voteId,
  type AgentVotes
} from './vote.js'
import { votesSplit, type CastVote } from './split.js'
import { mergeRoundVotes, type RoundVote } from './merged-votes.js'
import {
  bodyMarkers,
  commentMarker,
  inlineCommentBody,
  reviewBody,
  type ReviewTextContext
} from './render.js'
import type {
  EarlierOutcome,
  FindingGroup,
  Posted,
  Verdict,
  ReviewedGroup,
  Coverage,
  ReviewReport,
  Severity,
  UnvotedFinding,
  VoteRound
} from '../core/review.js'
import { coveredVerdict, holdsVerdict } from './coverage.js'
import { errorText } from '../core/text.js'
import { classifyEarlier, raisesAgain } from './earlier.js'
import {
  gatingFindings,
  raisesDismissed,
  standingFindings,
  verdictAcrossPushes
} from './standing.js'
import type {
  EarlierFinding,
  ResolveThreads,
  ReviewScope
} from '../core/review.js'
import { redactSecrets } from '../safety/redact.js'
import type { StageLog } from '../core/log.js'
import { walkthroughOf } from './walkthrough.js'

/** Pending-review probes spent at most on one refused batch. */
const MAX_PROBES = 12
/** The most inline comments `max-inline-comments` may ask for. */
const MAX_INLINE_COMMENTS = 50

export type ReviewPoster = Pick<
  GitHubApi,
  'listReviewTexts' | 'createReview' | 'deletePendingReview'
>

export interface ReviewInput {
  pullNumber: number
  /** The commit the agents reviewed: the review is anchored to it. */
  headSha: string
  /** The pull request's base commit: the review's marker records it. */
  baseSha?: string
  diff: string
  diffTruncated: boolean
  /** Files the pull request changes (removed ones left out). */
  changedFiles: string[]
  /** Each agent's final answer. */
  answers: Array<{ agent: string; text: string }>
  winner: string | undefined
  tag: string
  minAgreement: number
  minSeverity: Severity
  maxInlineComments: number
  /** The vote round's answers (vote/vote-round.ts), when it ran. */
  vote?: VoteRound
  /**
   * Votes tallied in rounds of their own (a matrix review's shards,
   * merged-votes.ts), in place of `vote`'s answers, which are then not
   * read: `vote` only says what the rounds did.
   */
  roundVotes?: { votes: readonly RoundVote[]; ballots: AgentVotes[] }
  /** The checkout, where the code a finding points at is read. */
  checkout?: string
  /**
   * The pull request's own texts (title, description, comments): a
   * confirmation that quotes only these is not evidence from the code.
   */
  prTexts: string[]
  secrets: readonly string[]
  runUrl?: string
  /** MassGen's votes: a split with no majority on the outcome is `unclear`. */
  votes?: CastVote[]
  /** Full or incremental, and why (earlier.ts). */
  scope?: ReviewScope
  /** The findings earlier runs left open (the token's own threads). */
  earlier?: EarlierFinding[]
  /** The earlier findings could not all be read: the verdict cannot pass. */
  earlierUnread?: boolean
  resolveThreads?: ResolveThreads
  /** What the review read of the pull request (review/coverage.ts). */
  coverage?: Coverage
}

/**
 * The answer whose findings count for an agent: the one the agents voted on.
 * The winner's final presentation is a rewrite (MassGen's presenter may
 * synthesize it from every answer, issue 44), so it counts only when the
 * agent's own answer is not known.
 */
export function answerFor(
  agent: { id: string; answer?: string },
  winner: string | undefined,
  winnerAnswer: string | undefined
): string | undefined {
  if (agent.answer !== undefined) return agent.answer
  if (
    agent.id === winner &&
    winnerAnswer !== undefined &&
    findingsBlock(winnerAnswer).state !== 'missing'
  )
    return winnerAnswer
  return undefined
}

interface Planned {
  group: FindingGroup
  posted: Posted
  comment?: ReviewCommentDraft
}

/** Every agent's findings, grouped: the review's and the vote round's groups. */
export function groupedFindings(
  answers: ReviewInput['answers'],
  changedFiles: string[],
  winner: string | undefined
): { parsed: AgentFindings[]; groups: FindingGroup[]; ungrouped: number } {
  const changed = new Set(changedFiles)
  const parsed = answers.map((a) => parseFindings(a.agent, a.text, changed))
  const work = { checks: 0, unchecked: 0 }
  const groups = groupFindings(
    parsed.flatMap((p) => p.findings),
    winner,
    work
  )
  return { parsed, groups, ungrouped: work.unchecked }
}

/** The vote round's ballots, tallied onto the groups (ids in grouped order). */
function withVotes(
  input: ReviewInput,
  groups: FindingGroup[],
  excerpts: ReadonlyMap<FindingGroup, Excerpt>
): { groups: FindingGroup[]; ballots: AgentVotes[] } {
  if (input.roundVotes)
    return {
      groups: mergeRoundVotes(groups, input.roundVotes.votes),
      ballots: input.roundVotes.ballots
    }
  const round = input.vote
  if (!round?.ran) return { groups, ballots: [] }
  const voted = groups.slice(0, Math.min(round.findings, MAX_VOTED_FINDINGS))
  const ids = new Set(voted.map((_, i) => voteId(i)))
  const ballots = Object.entries(round.answers)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([agent, text]) => parseVotes(agent, text, ids))
  const tally = tallyVotes(voted, ballots, excerpts, input.prTexts, round.asked)
  return {
    groups: groups.map((g) => {
      const vote = tally.get(g)
      return vote ? { ...g, vote } : g
    }),
    ballots
  }
}

/** Why a finding stays out of the review, or undefined when it goes in. */
function heldOut(
  group: FindingGroup,
  input: ReviewInput,
  alreadyPosted: ReadonlySet<string>
): Posted | undefined {
  if (!isCounted(group, input.minAgreement)) {
    if (group.pastEnd !== undefined) return 'past-end'
    if (!group.vote) return 'hidden'
    return group.vote.prTextOnly ? 'pr-text-only' : 'unconfirmed'
  }
  if (group.fingerprints.some((f) => alreadyPosted.has(f))) return 'duplicate'
  if (!atLeast(group.severity, input.minSeverity)) return 'below-severity'
  return undefined
}

/**
 * Where each group goes before GitHub is asked, strongest first: the
 * counted ones at or above min-severity, inline up to max-inline-comments
 * (the rest held back), or in the body when their line is not in the diff.
 * Pure.
 */
function planReview(
  input: ReviewInput,
  parsed: AgentFindings[],
  alreadyPosted: ReadonlySet<string>,
  voted: FindingGroup[]
): { planned: Planned[]; groups: FindingGroup[] } {
  const groups = [...voted].sort(byStrength)
  const diff = parseDiffLines(input.diff, input.diffTruncated)
  const ctx = textContext(input, parsed)
  const cap = Math.min(input.maxInlineComments, MAX_INLINE_COMMENTS)
  let inline = 0
  const planned = groups.map((group): Planned => {
    const out = heldOut(group, input, alreadyPosted)
    if (out) return { group, posted: out }
    if ((input.earlier ?? []).some((e) => raisesAgain(group, e)))
      return { group, posted: 'duplicate' }
    const { file, line, startLine } = group.anchor
    const place = placeOnDiff(diff, file, line, startLine)
    if (place.where === 'body') return { group, posted: 'body' }
    if (inline >= cap) return { group, posted: 'held' }
    inline++
    const range = place.startLine !== undefined
    return {
      group,
      posted: 'inline',
      comment: {
        path: file,
        line: place.line,
        side: 'RIGHT',
        ...(range ? { start_line: place.startLine, start_side: 'RIGHT' } : {}),
        // A replacement for a range cut to one line would be wrong code.
        body: inlineCommentBody(group, ctx, place.startLine === startLine)
      }
    }
  })
  return { planned, groups }
}

function textContext(
  input: ReviewInput,
  parsed: AgentFindings[]
): ReviewTextContext {
  return {
    tag: input.tag,
    agentCount: parsed.length,
    secrets: input.secrets,
    runUrl: input.runUrl,
    ...(input.baseSha ? { baseSha: input.baseSha } : {})
  }
}

/** Fingerprints of this tag's findings that the action itself already posted. */
export function postedFingerprints(
  texts: Array<{ body: string; ours: boolean }>,
  tag: string
): Set<string> {
  const out = new Set<string>()
  for (const t of texts) {
    // A person or another bot can quote a marker to keep a finding out;
    // only the token's own text names a posted finding.
    if (!t.ours) continue
    const markers = [commentMarker(t.body), ...bodyMarkers(t.body)]
    for (const m of markers) if (m && m.tag === tag) out.add(m.fingerprint)
  }
  return out
}

export async function runReview(
  input: ReviewInput,
  runner: ReviewPoster | undefined,
  log: StageLog
): Promise<ReviewReport> {
  const grouped = groupedFindings(
    input.answers,
    input.changedFiles,
    input.winner
  )
  const { parsed } = grouped
  if (grouped.ungrouped > 0)
    log.warning(
      `Review: ${grouped.ungrouped} finding(s) stood alone, not compared with the others on their file: ` +
        "their raisers' findings on a file took more comparisons than the grouping makes for one agent there (answers flooding one file)."
    )
  const { marked, excerpts } = markedGroups(input, grouped.groups)
  const withBallots = withVotes(input, marked, excerpts)
  const voted = {
    ...withBallots,
    groups: withBallots.groups.map((g) => tallied(g, input.minAgreement))
  }
  const posted = runner
    ? await earlierPosted(input, runner, log)
    : new Set<string>()
  const { planned } = planReview(input, parsed, posted, voted.groups)
  const groups = planned.map((p) => p.group)
  const earlier =
    input.earlier &&
    classifyEarlier(input.earlier, groups, input.resolveThreads ?? 'unanswered')
  // A finding a maintainer dismissed stays dismissed when raised again.
  const thisRun = verdictOver(
    gatingFindings({
      groups,
      minAgreement: input.minAgreement,
      ...(earlier ? { earlier } : {})
    }),
    votesSplit(parsed, input.votes ?? [])
  )
  const report = reviewReport(
    input,
    parsed,
    planned,
    thisRun,
    voted.ballots,
    earlier
  )
  const fresh = planned.filter(
    (p) => p.posted === 'inline' || p.posted === 'body'
  )
  if (!runner) {
    report.notPosted = 'No review was posted: there is no GitHub token.'
    return report
  }
  if (fresh.length === 0) {
    report.notPosted =
      planned.length === 0
        ? 'No findings, so no review was posted.'
        : 'No new findings to post: every one was posted by an earlier run, or is kept to the summary (not confirmed, below min-agreement or min-severity).'
    return report
  }
  await postReview(
    input,
    runner,
    log,
    planned,
    report,
    textContext(input, parsed)
  )
  return report
}

/**
 * The code each finding points at, read once: the vote's question shows it,
 * and a line past the end of its file is marked (not dropped: the vote round
 * numbered the groups as they are).
 */
function markedGroups(
  input: ReviewInput,
  groups: FindingGroup[]
): { marked: FindingGroup[]; excerpts: Map<FindingGroup, Excerpt> } {
  const code = excerptsFor(groups, input.diff, input.checkout)
  const excerpts = new Map<FindingGroup, Excerpt>()
  const marked = groups.map((g) => {
    const excerpt = code.get(g)
    const end = pastTheEnd(g, excerpt)
    const group = end === undefined ? g : { ...g, pastEnd: end }
    if (excerpt) excerpts.set(group, excerpt)
    return group
  })
  return { marked, excerpts }
}

/** What an earlier run already posted; none (with a warning) when the list fails. */
async function earlierPosted(
  input: ReviewInput,
  runner: ReviewPoster,
  log: StageLog
): Promise<Set<string>> {
  try {
    return postedFingerprints(
      await runner.listReviewTexts(input.pullNumber),
      input.tag
    )
  } catch (error) {
    const listFailed = redactSecrets(errorText(error), input.secrets)
    log.warning(
      `Could not list the earlier review comments (${listFailed}); ` +
        'findings posted by an earlier run may be posted again.'
    )
    return new Set<string>()
  }
}

/**
 * The blockers and concerns whose vote is missing ballots that could have
 * counted them (tally.ts rule 8); none a maintainer dismissed. All of them,
 * not only those that hold this verdict (coverage.ts holdsVerdict decides
 * that): each has no thread, and the review's marker must count it so the
 * next push reviews the whole pull request, or a blocker beside a counted
 * one would be forgotten once that one is fixed.
 */
function unvotedFindings(
  input: ReviewInput,
  groups: readonly FindingGroup[],
  earlier: EarlierOutcome[] | undefined
): Omit<UnvotedFinding, 'holds'>[] {
  return groups.flatMap((g) => {
    const lost = lostBallots(g, input.minAgreement)
    // A dismissed look-alike hides it only at the severity its ballots lost.
    if (
      !lost ||
      lost.severity === 'nit' ||
      raisesDismissed({ ...g, severity: lost.severity }, earlier)
    )
      return []
    return [
      {
        file: g.anchor.file,
        line: g.anchor.line,
        severity: lost.severity,
        title: g.lead.title,
        agents: lost.agents
      }
    ]
  })
}

/** What the review found and decided, before anything is posted. */
function reviewReport(
  input: ReviewInput,
  parsed: AgentFindings[],
  planned: Planned[],
  thisRun: Verdict,
  ballots: AgentVotes[],
  earlier: EarlierOutcome[] | undefined
): ReviewReport {
  const groups = planned.map((p) => p.group)
  const agentsWithBlock = parsed.filter((p) => p.block === 'found').length
  // Every earlier finding that still stands counts too (standing.ts).
  const acrossPushes = verdictAcrossPushes(
    thisRun,
    standingFindings({
      groups,
      minAgreement: input.minAgreement,
      ...(earlier ? { earlier } : {})
    })
  )
  const unvoted = unvotedFindings(input, groups, earlier).map((u) => ({
    ...u,
    holds: holdsVerdict(acrossPushes, u)
  }))
  return {
    // A review that left changed code unread, or a finding's vote missing
    // ballots that could have counted it, is never a pass (coverage.ts).
    verdict: coveredVerdict(acrossPushes, input.coverage, {
      agentsWithBlock,
      minAgreement: input.minAgreement,
      ...(input.earlierUnread ? { earlierUnread: true } : {}),
      unvoted
    }),
    groups: planned.map((p) => ({ ...p.group, posted: p.posted })),
    agentCount: parsed.length,
    agentsWithBlock,
    ...(input.earlierUnread ? { earlierUnread: true } : {}),
    ...(unvoted.length ? { unvoted } : {}),
    ...(input.coverage ? { coverage: input.coverage } : {}),
    dropped: parsed.reduce((n, p) => n + p.dropped, 0),
    minAgreement: input.minAgreement,
    minSeverity: input.minSeverity,
    maxInlineComments: input.maxInlineComments,
    ...(input.vote
      ? {
          vote: {
            ...input.vote,
            agentsWithBlock: ballots.filter((b) => b.block === 'found').length,
            dropped: ballots.reduce((n, b) => n + b.dropped, 0)
          }
        }
      : {}),
    ...(input.scope ? { scope: input.scope } : {}),
    ...(earlier ? { earlier } : {}),
    ...walkthroughField(input)
  }
}

/**
 * The walkthrough of the winner's own answer, the one the agents voted on
 * (answerFor): the one answer the votes chose, never a blend.
 */
function walkthroughField(input: ReviewInput): {
  walkthrough?: ReviewReport['walkthrough']
} {
  const answer = input.answers.find((a) => a.agent === input.winner)
  const walkthrough =
    answer && walkthroughOf(answer.agent, answer.text, input.changedFiles)
  return walkthrough ? { walkthrough } : {}
}

async function postReview(
  input: ReviewInput,
  runner: ReviewPoster,
  log: StageLog,
  planned: Planned[],
  report: ReviewReport,
  ctx: ReviewTextContext
): Promise<void> {
  const setPosted = () => {
    report.groups = planned.map((p): ReviewedGroup => ({
      ...p.group,
      posted: p.posted
    }))
  }
  const draft = () => {
    setPosted()
    return {
      commitId: input.headSha,
      event: 'COMMENT' as const,
      body: reviewBody(report, ctx),
      comments: planned.flatMap((p) =>
        p.posted === 'inline' && p.comment ? [p.comment] : []
      )
    }
  }
  try {
    try {
      report.reviewUrl = (
        await runner.createReview(input.pullNumber, draft())
      ).url
      return
    } catch (error) {
      if (!(error instanceof ReviewRefused)) throw error
      log.warning(
        `GitHub refused the review's comments (${error.detail}); finding which ones.`
      )
    }
    const inline = planned.filter((p) => p.posted === 'inline')
    const refused = await refusedComments(input, runner, inline)
    for (const p of refused) p.posted = 'refused'
    try {
      report.reviewUrl = (
        await runner.createReview(input.pullNumber, draft())
      ).url
    } catch (error) {
      if (!(error instanceof ReviewRefused)) throw error
      // Refused again (the pull request moved?): every finding in the body.
      for (const p of planned) if (p.posted === 'inline') p.posted = 'refused'
      report.reviewUrl = (
        await runner.createReview(input.pullNumber, draft())
      ).url
    }
  } catch (error) {
    const message = redactSecrets(errorText(error), input.secrets)
    log.warning(`Could not post the review: ${message}`)
    report.notPosted = `The review could not be posted: ${message}`
    setPosted()
  }
}

/**
 * The comments GitHub refuses, found by bisection: a half that a PENDING
 * review takes is fine (the probe is deleted at once); a refused half is
 * split again. Past MAX_PROBES the rest counts as refused.
 */
async function refusedComments(
  input: ReviewInput,
  runner: ReviewPoster,
  inline: Planned[]
): Promise<Planned[]> {
  let probes = MAX_PROBES
  const probe = async (part: Planned[]): Promise<boolean> => {
    probes--
    try {
      const pending = await runner.createReview(input.pullNumber, {
        commitId: input.headSha,
        body: '',
        comments: part.flatMap((p) => (p.comment ? [p.comment] : []))
      })
      await runner.deletePendingReview(input.pullNumber, pending.id)
      return true
    } catch (error) {
      if (error instanceof ReviewRefused) return false
      throw error
    }
  }
  // The whole batch was refused: start with its halves.
  const split = async (
    part: Planned[],
    knownBad: boolean
  ): Promise<Planned[]> => {
    if (part.length === 0) return []
    if (!knownBad) {
      if (probes <= 0) return part
      if (await probe(part)) return []
    }
    if (part.length === 1) return part
    const half = Math.ceil(part.length / 2)
    const left = await split(part.slice(0, half), false)
    // `part` is refused: when its left half is not, its right half is.
    return [...left, ...(await split(part.slice(half), left.length === 0))]
  }
  return split(inline, true)
}
