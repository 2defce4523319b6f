// The verdict once what the review did not read is counted (review/coverage.ts)
// and the files it did not read (context/pr-filter.ts coverageOf).
import { describe, expect, it } from '@jest/globals'
import {
  coverageLine,
  coveredVerdict,
  heldUnread
} from '../../src/review/coverage.js'
import { coverageOf } from '../../src/context/pr-filter.js'
import { gateFails } from '../../src/review/counted.js'

const readable = { agentsWithBlock: 2, minAgreement: 1 }

describe('coveredVerdict', () => {
  const unread = coverageOf(
    3,
    [{ file: 'dist/index.js', reason: 'build output' }],
    []
  )
  it('keeps the verdict when everything was read by enough agents', () => {
    const all = coverageOf(3, [], [])
    for (const v of ['pass', 'concerns', 'blockers', 'unclear'] as const)
      expect(coveredVerdict(v, all, readable)).toBe(v)
  })
  it('turns anything short of blockers into incomplete when a file went unread', () => {
    expect(coveredVerdict('pass', unread, readable)).toBe('incomplete')
    expect(coveredVerdict('concerns', unread, readable)).toBe('incomplete')
    expect(coveredVerdict('unclear', unread, readable)).toBe('incomplete')
    expect(coveredVerdict('blockers', unread, readable)).toBe('blockers')
  })
  it('is incomplete when fewer agents than min-agreement gave a readable block', () => {
    const all = coverageOf(3, [], [])
    expect(
      coveredVerdict('pass', all, { agentsWithBlock: 1, minAgreement: 2 })
    ).toBe('incomplete')
    expect(
      coveredVerdict('pass', undefined, { agentsWithBlock: 0, minAgreement: 1 })
    ).toBe('incomplete')
  })
  it('lets allow-unread excuse a named file, never the files GitHub did not name', () => {
    const coverage = coverageOf(
      3003,
      [
        { file: 'package-lock.json', reason: 'lockfile' },
        { file: '(3 more files, not named)', reason: 'files list', unnamed: 3 }
      ],
      ['package-lock.json', '**']
    )
    expect(heldUnread(coverage).map((u) => u.file)).toEqual([
      '(3 more files, not named)'
    ])
    expect(coveredVerdict('pass', coverage, readable)).toBe('incomplete')
    expect(coverageLine(coverage)).toBe(
      '2999 of 3003 changed file(s) read by the review; 4 not read (1 of them allowed by allow-unread)'
    )
  })
  it('fails any fail-on level but never', () => {
    expect(gateFails('incomplete', 'blocker')).toBe(true)
    expect(gateFails('incomplete', 'concern')).toBe(true)
    expect(gateFails('incomplete', 'never')).toBe(false)
  })
})
