// Write pacing of the GitHub API: a run's few writes go at once; a burst
// past WRITE_BURST is spaced like the throttling plugin's default.
import { afterEach, describe, expect, it, jest } from '@jest/globals'
import { createGitHub, type GitHubApi } from '../../src/github/api.js'
import type { WriteClock } from '../../src/github/client.js'
import {
  startGitHubServer,
  type GitHubServer
} from '../../test-support/github-server.js'

jest.setTimeout(30_000)

let server: GitHubServer
afterEach(() => server.close())

/** A clock that never waits: it records each wait and moves time on by it. */
function recordingClock(): WriteClock & { waits: number[] } {
  let time = 0
  const waits: number[] = []
  return {
    waits,
    now: () => time,
    sleep(ms) {
      waits.push(ms)
      time += ms
      return Promise.resolve()
    }
  }
}

async function connectGitHub(
  timing: {
    writeBurst?: number
    writeSpacingMs?: number
    clock?: WriteClock
  } = {}
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

/** The requests that change something, in order. */
function writes(): string[] {
  return server.requests
    .filter((r) => r.method !== 'GET')
    .map((r) => `${r.method} ${r.path}`)
}

describe('write pacing', () => {
  it('posts, updates and reacts without waiting between the writes of a run', async () => {
    const clock = recordingClock()
    const github = await connectGitHub({ clock })
    const { id } = await github.upsertStickyComment(1, 'massgen', 'progress')
    await github.upsertStickyComment(1, 'massgen', 'report')
    const reaction = await github.addReaction(id, 'eyes')
    await github.removeReaction(id, reaction)
    await github.addReaction(id, 'rocket')
    // The plugin's default would space these five writes 1 s apart; the
    // limiter (which the next test shows they pass through) waits not once.
    expect(clock.waits).toEqual([])
    expect(writes()).toHaveLength(5)
    expect(server.state.comments.map((c) => c.body)).toEqual([
      expect.stringContaining('report')
    ])
  })

  it('spaces writes past the burst', async () => {
    const clock = recordingClock()
    const github = await connectGitHub({
      writeBurst: 2,
      writeSpacingMs: 300,
      clock
    })
    for (const body of ['a', 'b', 'c', 'd'])
      await github.upsertStickyComment(1, 'massgen', body)
    // Writes 3 and 4 wait 300 ms each (the clock stands still between writes).
    expect(clock.waits).toEqual([300, 300])
    expect(writes()).toHaveLength(4)
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
