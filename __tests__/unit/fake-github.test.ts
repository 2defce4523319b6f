// The in-memory GitHub door (test-support/fake-github.ts) answers as the real
// client does over the loopback GitHub, for the same world: the unit tests
// that use it stand on the same ground as those that use the server.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { createGitHub, type GitHubApi } from '../../src/github/api.js'
import { fakeGitHub } from '../../test-support/fake-github.js'
import {
  defaultState,
  startGitHubServer,
  type GitHubServer,
  type ServerState
} from '../../test-support/github-server.js'
import { samplePull } from '../../test-support/sample-pull.js'
import { schemaErrors } from '../../test-support/openapi.js'

const BASE = 'b'.repeat(40)

function world(): ServerState {
  const state = defaultState()
  state.issues = [7, 42]
  state.pulls['42'] = { ...samplePull(), mergeCommitSha: 'c'.repeat(40) }
  state.permissions = {
    mona: 'write',
    hubot: 'read',
    custom: { role_name: 'reviewer', permission: 'read' }
  }
  state.defaultBranch = 'trunk'
  state.branches = { trunk: 'd'.repeat(40), 'release/1.0': 'e'.repeat(40) }
  state.files = {
    [BASE]: {
      'AGENTS.md': 'Cite file:line.\n',
      'big.md': 'x'.repeat(2000),
      'link.md': { symlink: 'AGENTS.md' },
      'vendor/tools': { submodule: 'https://github.com/o/tools.git' },
      'docs/a.md': 'a\n'
    }
  }
  return state
}

let server: GitHubServer
let real: GitHubApi
beforeAll(async () => {
  server = await startGitHubServer(world())
  real = createGitHub({
    token: 'ghs_test',
    owner: 'octo-org',
    repo: 'octo-repo',
    apiUrl: server.url,
    log: { info: () => {}, debug: () => {}, warning: () => {} }
  })
})
afterAll(async () => {
  await server.close()
})

describe('fakeGitHub answers as createGitHub over the loopback GitHub', () => {
  it('permissions: a role, a custom role, an unknown login', async () => {
    const { api } = fakeGitHub(world())
    for (const login of ['mona', 'hubot', 'custom', 'nobody-here'])
      expect(await api.getPermission(login)).toBe(
        await real.getPermission(login)
      )
  })

  it("the pull request's head, merge and base commits", async () => {
    const { api } = fakeGitHub(world())
    expect(await api.getPullTip(42)).toEqual(await real.getPullTip(42))
    expect(await api.getPullBase(42)).toEqual(await real.getPullBase(42))
    expect((await api.getPullHead(42)).sha).toBe(
      (await real.getPullHead(42)).sha
    )
  })

  it('the default branch and the commit a branch is at, answered as GitHub documents them', async () => {
    const { api } = fakeGitHub(world())
    expect(await api.getDefaultBranch()).toBe('trunk')
    expect(await real.getDefaultBranch()).toBe('trunk')
    for (const branch of ['trunk', 'release/1.0'])
      expect(await api.getBranchHead(branch)).toBe(
        await real.getBranchHead(branch)
      )
    await expect(api.getBranchHead('gone')).rejects.toMatchObject({
      status: 404
    })
    await expect(real.getBranchHead('gone')).rejects.toMatchObject({
      status: 404
    })
    for (const [route, schema] of [
      ['/repos/octo-org/octo-repo', 'full-repository'],
      ['/repos/octo-org/octo-repo/git/ref/heads%2Frelease%2F1.0', 'git-ref']
    ] as const) {
      const answer = await fetch(`${server.url}${route}`)
      expect(schemaErrors(schema, await answer.json())).toEqual([])
    }
  })

  it('files at a commit: a file, too large, a link, a submodule, a folder, none', async () => {
    const { api } = fakeGitHub(world())
    for (const file of [
      'AGENTS.md',
      'big.md',
      'link.md',
      'vendor/tools',
      'docs',
      'missing.md'
    ]) {
      expect({
        file,
        read: await api.getFileAtCommit(file, BASE, 1000)
      }).toEqual({
        file,
        read: await real.getFileAtCommit(file, BASE, 1000)
      })
    }
  })

  it('a sticky comment is written once, then found and updated in place', async () => {
    const fake = fakeGitHub(world())
    for (const api of [fake.api, real]) {
      expect(await api.findStickyComment(7, 'kit')).toBeUndefined()
      const made = await api.upsertStickyComment(7, 'kit', 'first')
      const again = await api.upsertStickyComment(7, 'kit', 'second')
      expect(again.id).toBe(made.id)
      expect((await api.findStickyComment(7, 'kit'))?.body).toContain('second')
    }
    expect(fake.called()).toEqual([
      'findStickyComment',
      'upsertStickyComment',
      'upsertStickyComment',
      'findStickyComment'
    ])
  })
})
