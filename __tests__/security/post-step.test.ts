// The post step signals the process group whose pid the main step saved.
// By then that pid may lead an unrelated process group: the post step must
// check it is still MassGen (start time and command line) before it kills.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { spawn } from 'node:child_process'
import type { GitHubServer } from '../../test-support/github-server.js'
import { runPostStep } from '../../test-support/run-action.js'
import { livingGroupMembers } from '../../src/process/process.js'
import { groupAfterKill } from '../../test-support/processes.js'
import { ONE_MODEL, prRun } from '../../test-support/pr-run.js'
import { githubWithPull } from '../../test-support/loopback.js'
import { State } from '../../src/core/constants.js'
import { processIdentity } from '../../src/run/process-identity.js'

let github: GitHubServer
beforeAll(async () => {
  github = await githubWithPull()
})
afterAll(async () => {
  await github.close()
})

describe('post step and the saved MassGen pid', () => {
  it('attack: the saved pid now leads an unrelated process group, and the post step kills it — fails', async () => {
    // Another job's process, leading its own group, got MassGen's old pid.
    const other = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' })
    const pid = other.pid ?? -1
    try {
      const post = await runPostStep({
        state: {
          started: 'true',
          'massgen-pid': String(pid),
          // MassGen's start time when the pid was saved: another process.
          'massgen-identity': '1'
        }
      })
      expect(post.exitCode).toBe(0)
      expect(post.stdout).toContain('The main step did not finish its report')
      expect(livingGroupMembers(pid)).toEqual([pid])
    } finally {
      other.kill('SIGKILL')
    }
  }, 60_000)

  it('the post step still stops a MassGen left running by a main step that died', async () => {
    const run = await prRun(github, {
      inputs: {
        ...ONE_MODEL,
        'comment-tag': 'pid-kill',
        'max-duration': '60'
      },
      env: { FAKE_MASSGEN_SCENARIO: 'hang' },
      killAfterMs: 5000
    })
    const pid = Number(run.state['massgen-pid'])
    expect(pid).toBeGreaterThan(1)
    // The process's start time in clock ticks since boot.
    expect(run.state['massgen-identity']).toMatch(/^\d+$/)
    expect(run.post?.stdout).toContain(`Stopped MassGen's process group ${pid}`)
    expect(await groupAfterKill(pid)).toEqual([])
  }, 60_000)

  it("the post step stops the vote round's MassGen started warm (vote/warm-ballot.ts) when the main step died before it", async () => {
    // A stand-in for the warm MassGen: leads its own group, waits on stdin.
    const warm = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' })
    const pid = warm.pid ?? -1
    try {
      const post = await runPostStep({
        state: {
          started: 'true',
          [State.WarmMassgenPid]: String(pid),
          [State.WarmMassgenIdentity]: processIdentity(pid) ?? ''
        }
      })
      expect(post.exitCode).toBe(0)
      expect(post.stdout).toContain(`Stopped MassGen's process group ${pid}`)
      expect(await groupAfterKill(pid)).toEqual([])
    } finally {
      warm.kill('SIGKILL')
    }
  }, 60_000)
})

describe("the post step reports where the main step's settings say", () => {
  const interrupted = (settings: Record<string, string>) =>
    runPostStep({
      state: {
        [State.Started]: 'true',
        [State.IssueNumber]: '42',
        [State.CommentTag]: 'post-where',
        ...settings
      },
      env: { GITHUB_API_URL: github.url }
    })
  const ours = () =>
    github.state.comments.filter((c) => c.body.includes('post-where'))

  it('comments off in the main step: no comment, whatever the saved issue', async () => {
    const before = ours().length
    const post = await interrupted({
      [State.Comment]: 'false',
      [State.JobSummary]: 'true'
    })
    expect(post.exitCode).toBe(0)
    expect(post.stdout).toContain('The main step did not finish its report')
    expect(ours()).toHaveLength(before)
  }, 60_000)

  it('comments on: the sticky comment says the run was interrupted', async () => {
    const post = await interrupted({
      [State.Comment]: 'true',
      [State.JobSummary]: 'true'
    })
    expect(post.exitCode).toBe(0)
    expect(ours().length).toBeGreaterThan(0)
  }, 60_000)
})
