import { readFileSync } from 'node:fs'
import { describe, expect, it } from '@jest/globals'
import { isBot, readTrigger } from '../../src/event/trigger.js'

function fixture(name: string): unknown {
  const url = new URL(`../../__fixtures__/events/${name}.json`, import.meta.url)
  return JSON.parse(readFileSync(url, 'utf8'))
}

describe('readTrigger', () => {
  it('reads a same-repository pull request', () => {
    expect(readTrigger('pull_request', fixture('pull_request.opened'))).toEqual(
      {
        kind: 'pull_request',
        eventName: 'pull_request',
        number: 42,
        actor: { login: 'alice-maintainer', isBot: false },
        author: 'alice-maintainer',
        fromFork: false,
        authorIsBot: false,
        headSha: '9f8e7d6c5b4a39281706f5e4d3c2b1a098765432',
        action: 'opened',
        draft: false,
        state: 'open',
        locked: false,
        labels: []
      }
    )
  })

  it('flags a pull request from a fork, for pull_request_target too', () => {
    const payload = fixture('pull_request.fork')
    for (const event of ['pull_request', 'pull_request_target']) {
      expect(readTrigger(event, payload)).toMatchObject({
        kind: 'pull_request',
        eventName: event,
        number: 43,
        author: 'mallory-contrib',
        fromFork: true
      })
    }
  })

  it('treats a deleted fork (head.repo null) as a fork', () => {
    const payload = fixture('pull_request.fork') as {
      pull_request: { head: { repo: unknown } }
    }
    payload.pull_request.head.repo = null
    expect(readTrigger('pull_request_target', payload)).toMatchObject({
      fromFork: true
    })
  })

  it('marks a Dependabot pull request as from a bot', () => {
    expect(
      readTrigger('pull_request', fixture('pull_request.dependabot'))
    ).toMatchObject({
      actor: { login: 'dependabot[bot]', isBot: true },
      author: 'dependabot[bot]',
      authorIsBot: true,
      fromFork: false
    })
  })

  it('reads a new comment on a pull request', () => {
    expect(
      readTrigger('issue_comment', fixture('issue_comment.created.pr'))
    ).toEqual({
      kind: 'comment',
      eventName: 'issue_comment',
      issueNumber: 42,
      isPullRequest: true,
      commentId: 2530000001,
      author: 'alice-maintainer',
      authorIsBot: false,
      body: '/massgen Is the new map lookup safe under concurrent writes?\nLook at src/cache.ts in particular.',
      createdAt: '2025-11-28T10:01:05Z'
    })
  })

  it('reads a new comment on an issue', () => {
    expect(
      readTrigger('issue_comment', fixture('issue_comment.created.issue'))
    ).toMatchObject({
      kind: 'comment',
      issueNumber: 7,
      isPullRequest: false,
      author: 'bob-reader'
    })
  })

  it('ignores edited comments, with a reason', () => {
    const t = readTrigger('issue_comment', fixture('issue_comment.edited'))
    expect(t).toEqual({
      kind: 'ignored',
      eventName: 'issue_comment',
      reason: expect.stringContaining('"edited"')
    })
  })

  it('reads schedule and workflow_dispatch as manual', () => {
    expect(readTrigger('schedule', fixture('schedule'))).toEqual({
      kind: 'manual',
      eventName: 'schedule',
      issueNumber: undefined
    })
    expect(
      readTrigger('workflow_dispatch', fixture('workflow_dispatch'))
    ).toEqual({
      kind: 'manual',
      eventName: 'workflow_dispatch',
      issueNumber: undefined
    })
  })

  it('gates every other event on who acted, keeping the issue number', () => {
    const sender = { login: 'bob-reader', type: 'User' }
    expect(readTrigger('issues', { issue: { number: 9 }, sender })).toEqual({
      kind: 'event',
      eventName: 'issues',
      issueNumber: 9,
      actors: [{ login: 'bob-reader', isBot: false }]
    })
    expect(
      readTrigger('pull_request_review', {
        pull_request: { number: 3 },
        review: { user: { login: 'carol' } },
        sender
      })
    ).toMatchObject({
      kind: 'event',
      issueNumber: 3,
      actors: [
        { login: 'bob-reader', isBot: false },
        { login: 'carol', isBot: false }
      ]
    })
  })

  it('names the comment author of comment events other than issue_comment', () => {
    // pull_request_review_comment is a command event of its own (conversation.test.ts).
    expect(
      readTrigger('commit_comment', {
        comment: { user: { login: 'mallory', type: 'User' } },
        sender: { login: 'alice', type: 'User' }
      })
    ).toMatchObject({
      kind: 'event',
      issueNumber: undefined,
      actors: [
        { login: 'alice', isBot: false },
        { login: 'mallory', isBot: false }
      ]
    })
  })

  it('names both actors of a workflow_run and keeps its pull request', () => {
    const here = {
      id: 300,
      url: 'https://api.github.com/repos/Octo-Org/Octo-Repo'
    }
    expect(
      readTrigger(
        'workflow_run',
        {
          repository: { id: 300, full_name: 'octo-org/octo-repo' },
          workflow_run: {
            actor: { login: 'mallory', type: 'User' },
            triggering_actor: { login: 'alice', type: 'User' },
            pull_requests: [{ number: 12, base: { repo: here } }]
          },
          sender: { login: 'alice', type: 'User' }
        },
        '',
        'octo-org/octo-repo'
      )
    ).toMatchObject({
      kind: 'event',
      issueNumber: 12,
      actors: [
        { login: 'alice', isBot: false },
        { login: 'mallory', isBot: false }
      ]
    })
  })

  it("takes a workflow_run's pull request only when its base repository is this one", () => {
    const entry = (number: number, id: unknown, url: unknown) => ({
      number,
      base: { repo: { id, url } }
    })
    const other = 'https://api.github.com/repos/Codertocat/Hello-World'
    const ours = 'https://api.github.com/repos/octo-org/octo-repo'
    const numberOf = (pulls: unknown[], repository = 'octo-org/octo-repo') => {
      const t = readTrigger(
        'workflow_run',
        {
          repository: { id: 300, full_name: 'octo-org/octo-repo' },
          workflow_run: { pull_requests: pulls }
        },
        'alice',
        repository
      )
      return t.kind === 'event' ? t.issueNumber : 'not an event'
    }
    expect(numberOf([entry(2, 186, other)])).toBeUndefined()
    expect(numberOf([entry(2, 186, other), entry(7, 300, ours)])).toBe(7)
    // Our address but another repository's id: not ours.
    expect(numberOf([entry(2, 186, ours)])).toBeUndefined()
    // No id in the entry: the address decides.
    expect(numberOf([entry(3, undefined, ours)])).toBe(3)
    expect(numberOf([entry(3, 300, `${ours}-fork`)])).toBeUndefined()
    expect(numberOf([entry(3, 300, undefined)])).toBeUndefined()
    expect(numberOf([{ number: 4 }])).toBeUndefined()
    // No GITHUB_REPOSITORY: nothing can be this repository's.
    expect(numberOf([entry(3, 300, ours)], '')).toBeUndefined()
  })

  it('falls back on GITHUB_ACTOR when the payload has no sender', () => {
    expect(readTrigger('push', {}, 'renovate[bot]')).toEqual({
      kind: 'event',
      eventName: 'push',
      issueNumber: undefined,
      actors: [{ login: 'renovate[bot]', isBot: true }]
    })
    expect(readTrigger('push', {}, '')).toMatchObject({
      actors: [{ login: '', isBot: false }]
    })
    const pr = readTrigger('pull_request', { pull_request: { number: 4 } }, 'x')
    expect(pr).toMatchObject({ actor: { login: 'x', isBot: false } })
  })

  it('never throws on malformed payloads', () => {
    const junk = [undefined, null, 42, 'x', [], {}, { pull_request: 'x' }]
    for (const payload of junk) {
      for (const event of ['pull_request', 'issue_comment', 'push']) {
        expect(() => readTrigger(event, payload)).not.toThrow()
      }
    }
    expect(readTrigger('pull_request', {}).kind).toBe('ignored')
    expect(
      readTrigger('issue_comment', { action: 'created', issue: {} }).kind
    ).toBe('ignored')
  })
})

describe('isBot', () => {
  it('knows bots by type or by the [bot] suffix', () => {
    expect(isBot({ login: 'renovate[bot]', type: 'Bot' })).toBe(true)
    expect(isBot({ login: 'my-app[bot]' })).toBe(true)
    expect(isBot({ login: 'bot-fan', type: 'User' })).toBe(false)
    expect(isBot(null)).toBe(false)
  })
})
