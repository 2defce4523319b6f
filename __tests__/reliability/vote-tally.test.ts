// Property tests of the tally of the finding vote (src/review/tally.ts):
// over random ballots (agents, evidence kinds, abstentions, raisers that
// gave no vote), one agent's ballot never swings a finding that the others
// decide with evidence from the code, a confirmation never weakens a
// finding, and in a matrix review a hostile round never takes away a
// finding another round counted. Each property's case count goes to the tally.
import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import type { Finding, FindingGroup, Vote } from '../../src/core/review.js'
import { isCounted } from '../../src/review/counted.js'
import { groupFindings } from '../../src/review/group.js'
import { mergeRoundVotes } from '../../src/review/merged-votes.js'
import { voteOf } from '../../src/review/tally.js'
import { tally } from '../../test-support/tallies.js'

function check<T>(
  runs: number,
  arb: fc.Arbitrary<T>,
  predicate: (value: T) => void
): void {
  fc.assert(
    fc.property(arb, (v) => {
      predicate(v)
    }),
    { numRuns: runs }
  )
  tally('propertyCases', runs)
}

/** Every kind of ballot an agent can give on one finding. */
const KINDS = [
  'confirm-code',
  'confirm-none',
  'confirm-pr-text',
  'raised-silent',
  'reject',
  'reject-code',
  'abstain'
] as const
type Kind = (typeof KINDS)[number]

function ballot(agent: string, kind: Kind): Vote {
  switch (kind) {
    case 'confirm-code':
      return { agent, ballot: 'confirm', reason: 'r', evidence: 'code' }
    case 'confirm-none':
      return { agent, ballot: 'confirm', reason: 'r', evidence: 'none' }
    case 'confirm-pr-text':
      return {
        agent,
        ballot: 'confirm',
        reason: 'r',
        evidence: 'pull-request-text'
      }
    case 'raised-silent':
      return {
        agent,
        ballot: 'confirm',
        reason: '',
        evidence: 'none',
        implicit: true
      }
    case 'reject':
      return { agent, ballot: 'reject', reason: 'r' }
    case 'reject-code':
      return { agent, ballot: 'reject', reason: 'r', evidence: 'code' }
    case 'abstain':
      return { agent, ballot: 'abstain', reason: '' }
  }
}

const finding = (agent: string): Finding => ({
  agent,
  file: 'a.ts',
  line: 2,
  severity: 'blocker',
  title: 'Off-by-one in the loop bound',
  explanation: 'items.length is one past the end.'
})

/** One run's group: raised by its first agent, these ballots cast. */
function groupOf(kinds: readonly Kind[], prefix = 'agent'): FindingGroup {
  const [group] = groupFindings([finding(`${prefix}_0`)], undefined)
  if (!group) throw new Error('no group')
  return {
    ...group,
    vote: voteOf(kinds.map((k, i) => ballot(`${prefix}_${i}`, k)))
  }
}

const kind = fc.constantFrom(...KINDS)
const ballots = fc.array(kind, { minLength: 1, maxLength: 9 })
const case_ = fc.record({
  kinds: ballots,
  minAgreement: fc.integer({ min: 1, max: 3 }),
  agent: fc.nat(),
  other: kind
})

const count = (kinds: readonly Kind[], of: Kind) =>
  kinds.filter((k) => k === of).length

describe('the tally of the finding vote (properties)', () => {
  it('one agent never swings a finding the others decide with evidence from the code, whichever way it votes', () => {
    check(3000, case_, ({ kinds, minAgreement, agent, other }) => {
      const i = agent % kinds.length
      const others = kinds.filter((_, j) => j !== i)
      const n = kinds.length
      const changed = kinds.map((k, j) => (j === i ? other : k))
      const before = isCounted(groupOf(kinds), minAgreement)
      const after = isCounted(groupOf(changed), minAgreement)
      const codeFor = count(others, 'confirm-code')
      const against = count(others, 'reject') + count(others, 'reject-code')
      const confirming = others.filter(
        (k) => k.startsWith('confirm') || k === 'raised-silent'
      ).length
      // A clear majority of all the voters, without the one that changes.
      if (codeFor * 2 > n && codeFor >= minAgreement) {
        expect(before).toBe(true)
        expect(after).toBe(true)
      }
      // A rejection's quote is no evidence (tally.ts rule 1): the clear
      // majority against is most voters rejecting, none of the others
      // confirming.
      if (against * 2 > n && confirming === 0) {
        expect(before).toBe(false)
        expect(after).toBe(false)
      }
    })
  })

  it('one agent alone never outweighs two others that agree', () => {
    check(3000, case_, ({ kinds, minAgreement, agent, other }) => {
      const i = agent % kinds.length
      // Two agents (not i) agree and every other abstains: i cannot decide
      // against them.
      if (kinds.length < 3) return
      const a = (i + 1) % kinds.length
      const b = (i + 2) % kinds.length
      const pair = (k: Kind, withI: Kind) =>
        kinds.map((_, j) =>
          j === a || j === b ? k : j === i ? withI : 'abstain'
        )
      // Two confirmations, with or without evidence, outweigh any one
      // rejection, whatever it quotes (tally.ts rule 1).
      for (const k of ['confirm-code', 'confirm-none'] as const)
        if (minAgreement <= 2)
          expect(isCounted(groupOf(pair(k, other)), minAgreement)).toBe(true)
      expect(isCounted(groupOf(pair('reject', other)), 1)).toBe(false)
      expect(isCounted(groupOf(pair('reject-code', other)), 1)).toBe(false)
    })
  })

  it('a confirmation never weakens a finding, and evidence never weighs less than none', () => {
    const stronger: Array<[Kind, Kind]> = [
      ['abstain', 'confirm-code'],
      ['abstain', 'confirm-none'],
      ['abstain', 'confirm-pr-text'],
      ['confirm-none', 'confirm-code'],
      ['confirm-pr-text', 'confirm-code'],
      ['confirm-pr-text', 'confirm-none'],
      ['reject', 'abstain'],
      ['reject-code', 'reject'],
      ['reject', 'confirm-pr-text']
    ]
    check(
      3000,
      fc.record({
        kinds: ballots,
        minAgreement: fc.integer({ min: 1, max: 3 }),
        agent: fc.nat(),
        step: fc.constantFrom(...stronger)
      }),
      ({ kinds, minAgreement, agent, step }) => {
        const i = agent % kinds.length
        const weak = kinds.map((k, j) => (j === i ? step[0] : k))
        const strong = kinds.map((k, j) => (j === i ? step[1] : k))
        if (isCounted(groupOf(weak), minAgreement))
          expect(isCounted(groupOf(strong), minAgreement)).toBe(true)
      }
    )
  })

  it("a matrix review: a hostile round's ballots never take away a finding another round decided with the code", () => {
    check(
      1500,
      fc.record({ honest: ballots, hostile: ballots }),
      ({ honest, hostile }) => {
        const own = finding('s1-bugs/agent_0')
        const lookAlike = finding('s1-evil/agent_0')
        const roundOf = (
          f: Finding,
          kinds: readonly Kind[],
          shard: string
        ) => ({
          members: [f],
          vote: voteOf(kinds.map((k, i) => ballot(`${shard}/agent_${i}`, k)))
        })
        const [group] = mergeRoundVotes(
          groupFindings([own, lookAlike], undefined),
          [
            roundOf(own, honest, 's1-bugs'),
            roundOf(lookAlike, hostile, 's1-evil')
          ]
        )
        if (!group) throw new Error('no group')
        const codeFor = count(honest, 'confirm-code')
        if (codeFor * 2 > honest.length) expect(isCounted(group, 1)).toBe(true)
      }
    )
  })
})
