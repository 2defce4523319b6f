// CPU exhaustion through the bundled action: anyone can post a comment, and
// the command parser reads it before the permission gate, so a 64 KiB comment
// shaped to be the parser's worst case must be handled about as fast as a
// plain one. Wall time of whole runs, side by side (no absolute timings).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import {
  addComment,
  type GitHubServer
} from '../../test-support/github-server.js'
import * as fs from 'node:fs'
import { FAKE_MASSGEN, runAction } from '../../test-support/run-action.js'
import { event, KEYS } from '../../test-support/fixtures.js'
import { githubWithPull } from '../../test-support/loopback.js'

let github: GitHubServer
beforeAll(async () => {
  github = await githubWithPull()
  github.state.permissions['bob-reader'] = 'read'
})
afterAll(async () => {
  await github.close()
})

const SIZE = 64 * 1024

type CommentPayload = {
  comment: { id: number; body: string; user: { login: string } }
  issue: { number: number }
}

/**
 * CPU ticks this process's finished children used so far (cutime + cstime
 * of /proc/self/stat). CPU, not wall time: on a loaded machine a run waits
 * for the CPU, and that wait would fall on one side of the ratio.
 */
function childrenCpuTicks(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8')
  // Fields after the command name (which may hold spaces), from field 3 on.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return Number(fields[13]) + Number(fields[14])
}

/** CPU ticks of one run of the action on a comment by a reader. */
async function runOnComment(body: string): Promise<number> {
  const payload = event('issue_comment.created.issue') as CommentPayload
  payload.comment.body = body
  payload.comment.id = addComment(github.state, 7, body).id
  const started = childrenCpuTicks()
  const run = await runAction({
    githubApiUrl: github.url,
    eventName: 'issue_comment',
    payload,
    inputs: {
      models: 'openai/gpt-5.4',
      'openai-api-key': KEYS.openai,
      'massgen-command': `node ${FAKE_MASSGEN}`
    },
    post: false
  })
  const took = Math.max(1, childrenCpuTicks() - started)
  // Refused at the gate: bob-reader may not start runs.
  expect(run.outputs.status).toBe('skipped')
  return took
}

describe('comment commands', () => {
  it('attack: a stranger posts a 64 KiB comment of nested and re-forming <!-- to tie up the runner — fails', async () => {
    const fill = (unit: string) =>
      unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE)
    const plain = `/massgen ${fill('why is this slow? ')}`
    // Comments that re-form 31 times, each time before a tail of openers
    // that never close: a parser that removes comments by repeated regex
    // passes reads the tail once per opener, 32 times over.
    const reformed = '<!'.repeat(31) + '<!-- x -->' + '-- x -->'.repeat(31)
    const hostile = [
      `/massgen ${reformed}${fill('<!--')}`.slice(0, SIZE + 9),
      `/massgen ${fill('<!--')}`,
      `/massgen ${fill('<!<!-- x -->--')}`,
      `/massgen ${fill('\u200b<!-')}`
    ]
    // Best of two each: a slow start of Node (cold caches) is no finding.
    const best = async (body: string) =>
      Math.min(await runOnComment(body), await runOnComment(body))
    const base = await best(plain)
    for (const body of hostile) {
      const ratio = (await best(body)) / base
      expect(ratio).toBeLessThan(3)
    }
  }, 600_000)
})
