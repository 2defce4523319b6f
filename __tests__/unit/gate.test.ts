import { describe, expect, it } from '@jest/globals'
import { checkTriggerAllowed, isAllowedBot } from '../../src/event/gate.js'
import { type Permission } from '../../src/github/api.js'
import { GitHubError } from '../../src/github/errors.js'
import type { Trigger } from '../../src/core/types.js'

function permissions(roles: Record<string, Permission | Error>) {
  const asked: string[] = []
  return {
    asked,
    owner: 'o',
    repo: 'r',
    async getPermission(user: string): Promise<Permission> {
      asked.push(user)
      const role = roles[user] ?? 'none'
      if (role instanceof Error) throw role
      return role
    }
  }
}

const NONE = { allowedBots: [], allowedUsers: [] }

function comment(author: string, authorIsBot = false): Trigger {
  return {
    kind: 'comment',
    eventName: 'issue_comment',
    issueNumber: 1,
    isPullRequest: true,
    commentId: 9,
    author,
    authorIsBot,
    body: '/massgen x'
  }
}

describe('checkTriggerAllowed', () => {
  it('lets write, maintain and admin in', async () => {
    const d = permissions({ a: 'write', b: 'maintain', c: 'admin' })
    for (const who of ['a', 'b', 'c']) {
      expect(await checkTriggerAllowed(d, comment(who), NONE)).toEqual({
        allowed: true
      })
    }
  })

  it('refuses triage, read and none, naming the level', async () => {
    const d = permissions({ t: 'triage', r: 'read' })
    for (const [who, level] of [
      ['t', 'triage'],
      ['r', 'read'],
      ['x', 'none']
    ] as const) {
      const result = await checkTriggerAllowed(d, comment(who), NONE)
      expect(result).toEqual({
        allowed: false,
        reason: expect.stringContaining(`has ${level} access to o/r`)
      })
    }
  })

  it('checks who caused a pull request event (its sender)', async () => {
    const d = permissions({})
    const pr: Trigger = {
      kind: 'pull_request',
      eventName: 'pull_request_target',
      number: 3,
      actor: { login: 'stranger', isBot: false },
      author: 'someone-else',
      fromFork: true,
      authorIsBot: false
    }
    expect((await checkTriggerAllowed(d, pr, NONE)).allowed).toBe(false)
    expect(d.asked).toEqual(['stranger'])
  })

  it('checks everyone other events name, and refuses if one may not', async () => {
    const d = permissions({ alice: 'write', bob: 'read' })
    const event = (logins: string[]): Trigger => ({
      kind: 'event',
      eventName: 'workflow_run',
      issueNumber: undefined,
      actors: logins.map((login) => ({ login, isBot: false }))
    })
    expect(await checkTriggerAllowed(d, event(['alice']), NONE)).toEqual({
      allowed: true
    })
    expect(await checkTriggerAllowed(d, event(['alice', 'bob']), NONE)).toEqual(
      {
        allowed: false,
        reason: expect.stringContaining('bob has read access')
      }
    )
    for (const logins of [[], ['']]) {
      expect(await checkTriggerAllowed(d, event(logins), NONE)).toEqual({
        allowed: false,
        reason: expect.stringContaining('names no one')
      })
    }
  })

  it('lets logins in allowed-users in without asking, in any case', async () => {
    const d = permissions({})
    const policy = { allowedBots: [], allowedUsers: ['Carol'] }
    expect(await checkTriggerAllowed(d, comment('carol'), policy)).toEqual({
      allowed: true
    })
    expect(d.asked).toEqual([])
  })

  it('refuses bots unless allow-listed, in any spelling', async () => {
    const d = permissions({ 'dependabot[bot]': 'write' })
    const bot = comment('dependabot[bot]', true)
    expect(await checkTriggerAllowed(d, bot, NONE)).toEqual({
      allowed: false,
      reason: expect.stringContaining('allowed-bots')
    })
    for (const list of [['dependabot'], ['Dependabot[bot]']]) {
      expect(
        await checkTriggerAllowed(d, bot, {
          allowedBots: list,
          allowedUsers: []
        })
      ).toEqual({ allowed: true })
    }
    // A wildcard is no allow-list (settings refuse it; the gate ignores it).
    expect(
      await checkTriggerAllowed(d, bot, {
        allowedBots: ['*'],
        allowedUsers: []
      })
    ).toMatchObject({ allowed: false })
    // A bot is not let in as a user.
    expect(
      await checkTriggerAllowed(d, bot, {
        allowedBots: [],
        allowedUsers: ['dependabot[bot]']
      })
    ).toMatchObject({ allowed: false })
    expect(d.asked).toEqual([])
  })

  it('fails closed when the permission cannot be read, marked as a failed check (not a refusal of anyone)', async () => {
    const d = permissions({ a: new GitHubError('forbidden', 'no access', 403) })
    expect(await checkTriggerAllowed(d, comment('a'), NONE)).toEqual({
      allowed: false,
      checkFailed: true,
      reason: "could not check a's permission: no access"
    })
  })

  it('lets schedule and dispatch runs through, and stops ignored events', async () => {
    const d = permissions({})
    const manual: Trigger = {
      kind: 'manual',
      eventName: 'schedule',
      issueNumber: undefined
    }
    expect(await checkTriggerAllowed(d, manual, NONE)).toEqual({
      allowed: true
    })
    const ignored: Trigger = {
      kind: 'ignored',
      eventName: 'issue_comment',
      reason: 'edited'
    }
    expect(await checkTriggerAllowed(d, ignored, NONE)).toEqual({
      allowed: false,
      reason: 'edited'
    })
    expect(d.asked).toEqual([])
  })
})

describe('isAllowedBot', () => {
  it('does not match a bot by a prefix of its name', () => {
    expect(isAllowedBot('renovate-fork[bot]', ['renovate'])).toBe(false)
  })
})
