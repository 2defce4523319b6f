import { describe, expect, it } from '@jest/globals'
import { checkHead } from '../../src/event/head-check.js'

const SHA = 'a'.repeat(40)
const COMMENT = '2025-11-28T10:00:00Z'
const head = (over: object = {}) => ({
  sha: SHA,
  committedAt: '2025-11-28T09:00:00Z',
  forcePushedAt: [] as string[],
  ...over
})

describe('checkHead', () => {
  it('accepts a head committed before the comment, and a force push before it', () => {
    expect(
      checkHead({
        head: head({ forcePushedAt: ['2025-11-28T09:30:00Z'] }),
        commentCreatedAt: COMMENT,
        expectedSha: SHA.toUpperCase()
      })
    ).toEqual({ ok: true, sha: SHA })
  })

  it('allows a minute of clock skew on the committer date', () => {
    const verdict = checkHead({
      head: head({ committedAt: '2025-11-28T10:00:59Z' }),
      commentCreatedAt: COMMENT,
      expectedSha: undefined
    })
    expect(verdict.ok).toBe(true)
  })

  it('refuses a commit dated after the comment, a later force push, another expected sha', () => {
    const refused = [
      head({ committedAt: '2025-11-28T10:05:00Z' }),
      head({ forcePushedAt: ['2025-11-28T10:00:01Z'] })
    ].map((h) =>
      checkHead({ head: h, commentCreatedAt: COMMENT, expectedSha: undefined })
    )
    refused.push(
      checkHead({
        head: head(),
        commentCreatedAt: undefined,
        expectedSha: 'b'.repeat(40)
      })
    )
    for (const verdict of refused) expect(verdict.ok).toBe(false)
  })

  it("pull_request events: the head must be the event's commit, in any case; a payload without one is refused", () => {
    const check = (sha: string | undefined, labeled = false) =>
      checkHead({
        head: head(),
        commentCreatedAt: undefined,
        expectedSha: undefined,
        event: { sha, labeled }
      })
    expect(check(SHA.toUpperCase())).toEqual({ ok: true, sha: SHA })
    const moved = check('c'.repeat(40), true)
    expect(moved.ok).toBe(false)
    expect(moved.ok ? '' : moved.reason).toMatch(
      /head is now aaaaaaaaaaaa, not cccccccccccc \(the commit that was labelled\).*remove the label and add it again/
    )
    const none = check(undefined)
    expect(none.ok ? '' : none.reason).toMatch(/names no head commit/)
    // expected-head-sha still counts first.
    const expected = checkHead({
      head: head(),
      commentCreatedAt: undefined,
      expectedSha: 'b'.repeat(40),
      event: { sha: SHA, labeled: false }
    })
    expect(expected.ok ? '' : expected.reason).toContain('expected-head-sha')
  })

  it('without a comment time (pull_request runs), only the expected sha counts', () => {
    expect(
      checkHead({
        head: head({ committedAt: '2030-01-01T00:00:00Z' }),
        commentCreatedAt: undefined,
        expectedSha: undefined
      }).ok
    ).toBe(true)
  })
})
