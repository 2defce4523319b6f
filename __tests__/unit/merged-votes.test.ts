// Votes of separate rounds (a matrix review's shards) onto one review's
// groups: review/merged-votes.ts.
import { describe, expect, it } from '@jest/globals'
import type { Finding, FindingGroup, Vote } from '../../src/core/review.js'
import { groupFindings } from '../../src/review/group.js'
import { mergeRoundVotes } from '../../src/review/merged-votes.js'
import { voteOf } from '../../src/review/vote.js'
import { lostBallots, tallied } from '../../src/review/tally.js'
import { isCounted } from '../../src/review/counted.js'

const finding = (
  agent: string,
  title = 'Off-by-one in the loop bound'
): Finding => ({
  agent,
  file: 'a.ts',
  line: 2,
  severity: 'blocker',
  title,
  explanation: 'items.length is one past the end.'
})
const vote = (
  agent: string,
  ballot: Vote['ballot'],
  implicit = false
): Vote => ({
  agent,
  ballot,
  reason: ballot === 'reject' ? 'not reachable' : '',
  ...(ballot === 'confirm' ? { evidence: 'code' as const } : {}),
  ...(implicit ? { implicit: true as const } : {})
})
/** The agents whose lost ballots could have counted the group (tally.ts rule 8). */
const missingBallots = (group: FindingGroup, minAgreement: number) =>
  lostBallots(group, minAgreement)?.agents ?? []
/** One round's group of these findings, with these votes. */
const round = (members: Finding[], votes: Vote[]) => ({
  members,
  vote: voteOf(votes)
})
const grouped = (findings: Finding[]): FindingGroup[] =>
  groupFindings(findings, undefined)

describe('mergeRoundVotes', () => {
  const bugs = finding('s1-bugs/agent_a')
  const security = {
    ...finding('s1-security/agent_a'),
    explanation: 'Reads past the end of items.'
  }

  it('gives a group of two shards the union of their votes', () => {
    const [group] = mergeRoundVotes(grouped([bugs, security]), [
      round(
        [bugs],
        [vote('s1-bugs/agent_a', 'confirm'), vote('s1-bugs/agent_b', 'confirm')]
      ),
      round(
        [security],
        [
          vote('s1-security/agent_a', 'confirm'),
          vote('s1-security/agent_b', 'reject')
        ]
      )
    ])
    expect(group?.vote?.votes.map((v) => `${v.agent}:${v.ballot}`)).toEqual([
      's1-bugs/agent_a:confirm',
      's1-bugs/agent_b:confirm',
      's1-security/agent_a:confirm',
      's1-security/agent_b:reject'
    ])
    expect(group && isCounted(group, 3)).toBe(true)
  })

  it("lets no shard's rejections veto another shard's finding its agents never saw", () => {
    // A hostile shard raises a look-alike of s1-bugs' finding, placed and
    // worded to group with it, and has each of its agents reject it.
    const lookAlike = finding('s1-evil/agent_a')
    const [group] = mergeRoundVotes(grouped([bugs, lookAlike]), [
      round(
        [bugs],
        [vote('s1-bugs/agent_a', 'confirm'), vote('s1-bugs/agent_b', 'confirm')]
      ),
      round(
        [lookAlike],
        [
          vote('s1-evil/agent_a', 'reject'),
          vote('s1-evil/agent_b', 'reject'),
          vote('s1-evil/agent_c', 'reject'),
          vote('s1-evil/agent_d', 'reject')
        ]
      )
    ])
    expect(group?.members.map((m) => m.agent)).toEqual([
      's1-bugs/agent_a',
      's1-evil/agent_a'
    ])
    // The report still shows every vote the group got...
    expect(group?.vote).toMatchObject({ confirmed: 2, rejected: 4 })
    // ...and the union alone would not count it: 4 rejections weigh as
    // much as 2 confirmations that quote the code (a tie).
    expect(
      group?.vote && isCounted({ ...group, vote: voteOf(group.vote.votes) }, 2)
    ).toBe(false)
    // What counts it is s1-bugs' own round: 2 confirms, none rejected.
    expect(group && isCounted(group, 2)).toBe(true)
    // The hostile shard adds no support either: 2 is all it has.
    expect(group && isCounted(group, 3)).toBe(false)
  })

  it("still lets a round's own rejections bear on its own finding", () => {
    const [group] = mergeRoundVotes(grouped([bugs, security]), [
      round(
        [bugs],
        [
          vote('s1-bugs/agent_a', 'confirm'),
          vote('s1-bugs/agent_b', 'reject'),
          vote('s1-bugs/agent_c', 'reject')
        ]
      ),
      round(
        [security],
        [
          vote('s1-security/agent_a', 'reject'),
          vote('s1-security/agent_b', 'reject')
        ]
      )
    ])
    expect(group?.vote).toMatchObject({ confirmed: 1, rejected: 4 })
    expect(group && isCounted(group, 1)).toBe(false)
  })

  it("lets a finding whose shard did not vote stand as its raiser's confirmation", () => {
    const [group] = mergeRoundVotes(grouped([bugs, security]), [
      round(
        [bugs],
        [vote('s1-bugs/agent_a', 'confirm'), vote('s1-bugs/agent_b', 'reject')]
      )
    ])
    expect(group?.vote).toMatchObject({ confirmed: 2, rejected: 1 })
    expect(
      group?.vote?.votes.find((v) => v.agent === 's1-security/agent_a')
    ).toMatchObject({ ballot: 'confirm', implicit: true, evidence: 'none' })
  })

  it("keeps each round's missing ballots (tally.ts rule 8): a shard's lost ballots are looked at in its own round", () => {
    const lost = (votes: Vote[], missing: string[]) => ({
      members: [bugs],
      vote: { ...voteOf(votes), missing }
    })
    // One round: its raiser's ballot and one peer's were lost, a third abstained.
    const [alone] = mergeRoundVotes(grouped([bugs]), [
      lost(
        [vote('s1-bugs/agent_c', 'abstain')],
        ['s1-bugs/agent_a', 's1-bugs/agent_b']
      )
    ])
    expect(alone && isCounted(alone, 1)).toBe(false)
    expect(alone && missingBallots(alone, 1)).toEqual([
      's1-bugs/agent_a',
      's1-bugs/agent_b'
    ])
    // A hostile look-alike's round rejecting in full does not hide them.
    const lookAlike = finding('s1-evil/agent_a')
    const [group] = mergeRoundVotes(grouped([bugs, lookAlike]), [
      lost(
        [vote('s1-bugs/agent_c', 'abstain')],
        ['s1-bugs/agent_a', 's1-bugs/agent_b']
      ),
      {
        ...round(
          [lookAlike],
          [vote('s1-evil/agent_a', 'reject'), vote('s1-evil/agent_b', 'reject')]
        ),
        vote: {
          ...voteOf([
            vote('s1-evil/agent_a', 'reject'),
            vote('s1-evil/agent_b', 'reject')
          ]),
          missing: []
        }
      }
    ])
    expect(group && isCounted(group, 1)).toBe(false)
    expect(group && missingBallots(group, 1)).toEqual([
      's1-bugs/agent_a',
      's1-bugs/agent_b'
    ])
    // Every ballot back: nothing is missing.
    const [full] = mergeRoundVotes(grouped([bugs]), [
      lost(
        [vote('s1-bugs/agent_a', 'reject'), vote('s1-bugs/agent_b', 'reject')],
        []
      )
    ])
    expect(full && missingBallots(full, 1)).toEqual([])
  })

  it("a shard's lost ballots on a blocker are not hidden by another shard's counted nit on the same line (rule 8)", () => {
    const nit = { ...finding('s1-perf/agent_a'), severity: 'nit' as const }
    const [merged] = mergeRoundVotes(grouped([security, nit]), [
      {
        members: [security],
        vote: {
          ...voteOf([vote('s1-security/agent_c', 'abstain')]),
          missing: ['s1-security/agent_a', 's1-security/agent_b']
        }
      },
      {
        ...round(
          [nit],
          [
            vote('s1-perf/agent_a', 'confirm'),
            vote('s1-perf/agent_b', 'confirm')
          ]
        ),
        vote: {
          ...voteOf([
            vote('s1-perf/agent_a', 'confirm'),
            vote('s1-perf/agent_b', 'confirm')
          ]),
          missing: []
        }
      }
    ])
    const group = merged && tallied(merged, 1)
    // Counted through the perf round, at the nit its counting member gives.
    expect(group && [isCounted(group, 1), group.severity]).toEqual([
      true,
      'nit'
    ])
    expect(group && lostBallots(group, 1)).toEqual({
      agents: ['s1-security/agent_a', 's1-security/agent_b'],
      severity: 'blocker'
    })
    // Both rounds' ballots back: nothing lost.
    const [whole] = mergeRoundVotes(grouped([security, nit]), [
      {
        members: [security],
        vote: {
          ...voteOf([
            vote('s1-security/agent_a', 'reject'),
            vote('s1-security/agent_b', 'reject')
          ]),
          missing: []
        }
      },
      round([nit], [vote('s1-perf/agent_a', 'confirm')])
    ])
    expect(whole && lostBallots(tallied(whole, 1), 1)).toBeUndefined()
  })

  it('leaves a group no round voted on without a vote: its raisers count', () => {
    const [group] = mergeRoundVotes(grouped([bugs]), [])
    expect(group?.vote).toBeUndefined()
    expect(group && isCounted(group, 1)).toBe(true)
  })

  it('keeps one vote an agent: a ballot over a standing finding over an abstention', () => {
    // The shard kept these apart; the review's grouping puts them together.
    const other = finding('s1-bugs/agent_c')
    const [group] = mergeRoundVotes(grouped([bugs, other]), [
      round(
        [bugs],
        [
          vote('s1-bugs/agent_a', 'confirm', true),
          vote('s1-bugs/agent_b', 'abstain'),
          vote('s1-bugs/agent_c', 'abstain')
        ]
      ),
      round(
        [other],
        [
          vote('s1-bugs/agent_a', 'abstain'),
          vote('s1-bugs/agent_b', 'reject'),
          vote('s1-bugs/agent_c', 'confirm')
        ]
      )
    ])
    expect(group?.vote?.votes.map((v) => `${v.agent}:${v.ballot}`)).toEqual([
      's1-bugs/agent_a:confirm',
      's1-bugs/agent_b:reject',
      's1-bugs/agent_c:confirm'
    ])
    expect(group?.vote?.votes[0]?.implicit).toBe(true)
  })

  it("takes a group's severity from the members that count: another shard's nits never dilute a blocker, a rejected look-alike never raises one", () => {
    const nit = (agent: string) => ({
      ...finding(agent),
      severity: 'nit' as const
    })
    // Two nits of another shard beside s1-bugs' confirmed blocker: blocker.
    const [diluted] = mergeRoundVotes(
      grouped([bugs, nit('s1-style/agent_a'), nit('s1-style/agent_b')]),
      [
        round([bugs], [vote('s1-bugs/agent_a', 'confirm')]),
        round(
          [nit('s1-style/agent_a'), nit('s1-style/agent_b')],
          [
            vote('s1-style/agent_a', 'confirm'),
            vote('s1-style/agent_b', 'confirm')
          ]
        )
      ]
    )
    const shown = diluted && tallied(diluted, 1)
    expect(shown?.severity).toBe('blocker')
    expect(shown?.otherSeverities).toEqual(['nit'])
    // A hostile shard's blocker look-alike of s1-style's nit, rejected in its
    // own round (its raiser alone confirms): the nit stays a nit.
    const style = nit('s1-style/agent_a')
    const evil = finding('s1-evil/agent_a')
    const [raised] = mergeRoundVotes(grouped([style, evil]), [
      round(
        [style],
        [
          vote('s1-style/agent_a', 'confirm'),
          vote('s1-style/agent_b', 'confirm')
        ]
      ),
      round(
        [evil],
        [
          vote('s1-evil/agent_a', 'confirm'),
          { ...vote('s1-evil/agent_b', 'reject'), evidence: 'code' },
          { ...vote('s1-evil/agent_c', 'reject'), evidence: 'code' }
        ]
      )
    ])
    expect(raised && isCounted(raised, 1)).toBe(true)
    expect(raised && tallied(raised, 1).severity).toBe('nit')
  })
})
