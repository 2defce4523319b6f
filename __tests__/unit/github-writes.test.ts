// Write pacing of the GitHub API: a run's few writes go at once; a burst
// past WRITE_BURST is spaced like the throttling plugin's default.
import { afterEach, describe, expect, it, jest } from '@jest/globals'
import { createGitHub, type GitHubApi } from '../../src/github/api.js'
import {
  startGitHubServer,
  type GitHubServer
} from '../../test-support/github-server.js'

jest.setTimeout(30_000)

let server: GitHubServer
afterEach(() => server.close())

async function connectGitHub(
  timing: { writeBurst?: number; writeSpacingMs?: number } = {}
): Promise<GitHubApi> {
  server = await startGitHubServer({ issues: [1] })
  return createGitHub({
    token: 'ghs_test',
    owner: 'octo-org',
    repo: 'octo-repo',
    apiUrl: server.url,
    log: { info: () => {}, debug: () => {}, warning: () => {} },
    timing: { retryAfterBaseMs: 10, ...timing }
  })
}

describe('write pacing', () => {
  it('posts, updates and reacts without waiting between the writes of a run', async () => {
    const github = await connectGitHub()
    const start = Date.now()
    const { id } = await github.upsertStickyComment(1, 'massgen', 'progress')
    await github.upsertStickyComment(1, 'massgen', 'report')
    const reaction = await github.addReaction(id, 'eyes')
    await github.removeReaction(id, reaction)
    await github.addReaction(id, 'rocket')
    // The plugin's default spacing alone would take 4 x 1 s.
    expect(Date.now() - start).toBeLessThan(1500)
    expect(server.state.comments.map((c) => c.body)).toEqual([
      expect.stringContaining('report')
    ])
  })

  it('spaces writes past the burst', async () => {
    const github = await connectGitHub({ writeBurst: 2, writeSpacingMs: 300 })
    const start = Date.now()
    for (const body of ['a', 'b', 'c', 'd'])
      await github.upsertStickyComment(1, 'massgen', body)
    // Writes 3 and 4 wait 300 ms each.
    expect(Date.now() - start).toBeGreaterThanOrEqual(550)
  })

  it('updates its own sticky comment again with one request, and finds it anew once deleted', async () => {
    const github = await connectGitHub()
    await github.upsertStickyComment(1, 'massgen', 'progress')
    const before = server.requests.length
    await github.upsertStickyComment(1, 'massgen', 'report')
    expect(server.requests.slice(before).map((r) => r.method)).toEqual([
      'PATCH'
    ])
    server.state.comments.splice(0)
    await github.upsertStickyComment(1, 'massgen', 'again')
    expect(server.state.comments.map((c) => c.body)).toEqual([
      expect.stringContaining('again')
    ])
  })
})
