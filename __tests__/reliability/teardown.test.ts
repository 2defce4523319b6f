// A test that stops waiting for its run (as one that times out does) must
// not leave the run going: __tests__/teardown.ts kills the bundled action
// and everything it started after each test. The first test starts a run
// whose MassGen hangs and ends without awaiting it; the second finds it
// killed, MassGen and its grandchild included.
import { describe, expect, it } from '@jest/globals'
import { randomUUID } from 'node:crypto'
import type { ActionRun } from '../../test-support/run-action.js'
import { liveChildren } from '../../test-support/live.js'
import type { GitHubServer } from '../../test-support/github-server.js'
import { githubWithPull } from '../../test-support/loopback.js'
import { processesWithMarker } from '../../test-support/processes.js'
import { EVERY_KEY_QUICK, prRun } from '../../test-support/pr-run.js'

const marker = randomUUID()
let server: GitHubServer
let pending: Promise<ActionRun> | undefined

async function until(what: string, condition: () => boolean): Promise<void> {
  for (let i = 0; !condition(); i++) {
    if (i > 1200) throw new Error(`never happened: ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe('a run the test stopped waiting for', () => {
  it('is left running by its test (as on a timeout)', async () => {
    server = await githubWithPull()
    pending = prRun(server, {
      inputs: {
        ...EVERY_KEY_QUICK,
        'max-duration': '3600',
        'comment-tag': 'abandoned'
      },
      env: { FAKE_MASSGEN_SCENARIO: 'hang', RELIABILITY_MARKER: marker },
      post: false
    })
    // The stand-in and the grandchild it starts in its group.
    await until(
      'MassGen started',
      () => processesWithMarker(marker).length >= 2
    )
    expect(liveChildren()).toBe(1)
  })

  it('is killed after that test, with everything it started', async () => {
    const run = await pending!
    expect(run.exitCode).toBeNull()
    expect(liveChildren()).toBe(0)
    await until(
      'no process of the run left',
      () => processesWithMarker(marker).length === 0
    )
    expect(processesWithMarker(marker)).toEqual([])
  })
})
