// Who the token writes as: only its own texts are ever the action's, so a
// person or another bot that quotes a marker names nothing.
import { describe, expect, it } from '@jest/globals'
import type { Octokit } from '../../src/github/client.js'
import { createIdentity } from '../../src/github/identity.js'

/** An octokit whose GET /user answers `login`, or fails with `status`. */
function octokit(answer: { login: string } | { status: number }) {
  let asked = 0
  const client = {
    rest: {
      users: {
        getAuthenticated: () => {
          asked++
          return 'login' in answer
            ? Promise.resolve({ data: { login: answer.login } })
            : Promise.reject(
                Object.assign(new Error('refused'), {
                  status: answer.status,
                  response: { headers: {}, data: {} }
                })
              )
        }
      }
    }
  } as unknown as Octokit
  return { client, asked: () => asked }
}

const bot = (login: string, slug?: string) => ({
  user: { login, type: 'Bot' },
  ...(slug ? { performed_via_github_app: { slug } } : {})
})

describe('identity', () => {
  it('a user token: only its own login is ours, whoever else is a bot', async () => {
    const { client, asked } = octokit({ login: 'Mona' })
    const identity = createIdentity(client, undefined)
    const me = await identity.login()
    expect(me).toBe('mona')
    await identity.login()
    expect(asked()).toBe(1)
    expect(identity.authorship({ user: { login: 'mona' } }, me)).toBe('ours')
    expect(identity.authorship(bot('github-actions[bot]'), me)).toBe('not-ours')
    expect(identity.authorship(bot('echo[bot]', 'echo'), me)).toBe('not-ours')
    expect(identity.authorship({ user: null }, me)).toBe('not-ours')
  })

  it('an installation token: the default bot and logins learned from our writes are ours; any other bot is not', async () => {
    const { client } = octokit({ status: 403 })
    const identity = createIdentity(client, undefined)
    const me = await identity.login()
    expect(me).toBeUndefined()
    expect(identity.authorship(bot('github-actions[bot]'), me)).toBe('ours')
    expect(identity.authorship(bot('dependabot[bot]'), me)).toBe('not-ours')
    expect(identity.authorship({ user: { login: 'octocat' } }, me)).toBe(
      'not-ours'
    )
    // An app that wrote through its own installation may be us: not sure.
    expect(identity.authorship(bot('my-app[bot]', 'my-app'), me)).toBe('an-app')
    expect(identity.authorship(bot('my-app[bot]', 'other-app'), me)).toBe(
      'not-ours'
    )
    identity.learn(bot('my-app[bot]'))
    expect(identity.authorship(bot('My-App[bot]'), me)).toBe('ours')
  })

  it('a configured bot login replaces the default one', async () => {
    const { client } = octokit({ status: 403 })
    const identity = createIdentity(client, 'release-bot[bot]')
    const me = await identity.login()
    expect(identity.authorship(bot('release-bot[bot]'), me)).toBe('ours')
    expect(identity.authorship(bot('github-actions[bot]'), me)).toBe('not-ours')
  })

  it('a passing fault is not remembered: the next call asks again', async () => {
    let calls = 0
    const client = {
      rest: {
        users: {
          getAuthenticated: () =>
            ++calls === 1
              ? Promise.reject(
                  Object.assign(new Error('boom'), {
                    status: 502,
                    response: { headers: {}, data: {} }
                  })
                )
              : Promise.resolve({ data: { login: 'mona' } })
        }
      }
    } as unknown as Octokit
    const identity = createIdentity(client, undefined)
    await expect(identity.login()).rejects.toThrow(/who the token is/)
    expect(await identity.login()).toBe('mona')
  })
})
