// Time of check, time of use on comment runs: a maintainer reads a pull
// request and comments `/massgen`; whoever can push to the pull request
// pushes before the job starts, and the agents would review code nobody
// checked. The action finds the head itself (the comment payload names no
// commit) and refuses, as `skipped`, when it moved after the comment or is
// not the commit the workflow checked out (src/event/head-check.ts has the rule
// and its limits). Played through the bundle against the loopback GitHub.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as path from 'node:path'
import {
  addComment,
  type GitHubServer
} from '../../test-support/github-server.js'
import {
  FAKE_MASSGEN,
  openTempDir,
  runAction,
  type RunOptions
} from '../../test-support/run-action.js'
import { FIXTURE_HEAD_SHA } from '../../test-support/sample-pull.js'
import { commentsOn, githubWithPull } from '../../test-support/loopback.js'
import { event, KEYS } from '../../test-support/fixtures.js'

/** Head of PR #42 on the loopback server (test-support/sample-pull.ts). */
const HEAD = FIXTURE_HEAD_SHA
/** When the fixture's `/massgen` comment was made. */
const COMMENTED = '2025-11-28T10:01:05Z'

let github: GitHubServer
beforeEach(async () => {
  github = await githubWithPull()
  github.state.permissions = { 'alice-maintainer': 'maintain' }
})
afterEach(async () => {
  await github.close()
})

/** The fixture's comment on PR #42, also stored on the server (reactions). */
function commentOnPull() {
  const payload = event('issue_comment.created.pr') as {
    comment: { id: number; body: string; user: never; created_at: string }
  }
  payload.comment.id = addComment(
    github.state,
    42,
    payload.comment.body,
    payload.comment.user,
    null
  ).id
  expect(payload.comment.created_at).toBe(COMMENTED)
  return payload
}

async function commentRun(tag: string, options: Partial<RunOptions> = {}) {
  const record = path.join(openTempDir('toctou-'), 'massgen-ran.json')
  const run = await runAction({
    eventName: 'issue_comment',
    payload: commentOnPull(),
    githubApiUrl: github.url,
    ...options,
    inputs: {
      models: 'openai/gpt-5.4',
      'openai-api-key': KEYS.openai,
      'massgen-command': FAKE_MASSGEN,
      'comment-tag': tag,
      ...options.inputs
    },
    env: {
      FAKE_MASSGEN_SCENARIO: 'success',
      FAKE_MASSGEN_RECORD: record,
      ...options.env
    }
  })
  const comment = commentsOn(github, 42).find((b) => b.includes(`tag=${tag}`))
  return { run, comment, massgenRan: fs.existsSync(record) }
}

const pull = () => {
  const p = github.state.pulls['42']
  if (!p) throw new Error('no PR #42')
  return p
}

describe('time of check, time of use on comment runs', () => {
  it("attack: a push lands on the pull request after the maintainer's /massgen, before the job starts — fails", async () => {
    pull().head.sha = 'c'.repeat(40)
    pull().headCommittedAt = '2025-11-28T10:04:00Z'
    const { run, comment, massgenRan } = await commentRun('toctou-push')
    expect(massgenRan).toBe(false)
    expect(run.exitCode).toBe(0)
    expect(run.outputs.status).toBe('skipped')
    expect(run.outputs['head-sha']).toBe('c'.repeat(40))
    expect(run.stdout).toMatch(
      /::notice::.*committed at 2025-11-28T10:04:00Z, after the comment/
    )
    expect(comment).toContain('after the comment')
    expect(run.summary).toContain('after the comment')
  }, 60_000)

  it('attack: the head branch is force-pushed after the comment with a backdated commit — fails', async () => {
    pull().head.sha = 'd'.repeat(40)
    pull().headCommittedAt = '2025-01-01T00:00:00Z'
    pull().timeline = [
      { event: 'committed', created_at: '2025-11-27T08:00:00Z' },
      { event: 'head_ref_force_pushed', created_at: '2025-11-28T10:03:00Z' }
    ]
    const { run, comment, massgenRan } = await commentRun('toctou-force')
    expect(massgenRan).toBe(false)
    expect(run.outputs.status).toBe('skipped')
    expect(comment).toContain('force-pushed at 2025-11-28T10:03:00Z')
  }, 60_000)

  it("attack: the head moves between the workflow's checkout and the action (expected-head-sha) — fails", async () => {
    pull().head.sha = 'e'.repeat(40)
    const { run, comment, massgenRan } = await commentRun('toctou-expected', {
      inputs: { 'expected-head-sha': HEAD }
    })
    expect(massgenRan).toBe(false)
    expect(run.outputs.status).toBe('skipped')
    expect(run.outputs['head-sha']).toBe('e'.repeat(40))
    expect(comment).toContain("input 'expected-head-sha'")
  }, 60_000)

  it('an unmoved head runs: head-sha is the output, and the agents are told the commit they review', async () => {
    pull().timeline = [
      { event: 'head_ref_force_pushed', created_at: '2025-11-28T09:00:00Z' }
    ]
    const { run, massgenRan } = await commentRun('toctou-ok', {
      inputs: { 'expected-head-sha': HEAD.toUpperCase() }
    })
    expect(massgenRan).toBe(true)
    expect(run.outputs.status).toBe('success')
    expect(run.outputs['head-sha']).toBe(HEAD)
    const workDir = run.state['work-dir'] ?? ''
    expect(
      fs.readFileSync(
        path.join(workDir, 'pr-context', 'pull-request.md'),
        'utf8'
      )
    ).toContain(`- reviewed commit: ${HEAD}`)
  }, 60_000)

  it("pull_request runs: head-sha is the payload's head; expected-head-sha must match it", async () => {
    const payload = event('pull_request.opened') as {
      pull_request: { head: { sha: string } }
    }
    const sha = payload.pull_request.head.sha
    const ok = await runAction({
      eventName: 'pull_request',
      payload,
      githubApiUrl: github.url,
      inputs: {
        query: 'Safe?',
        models: 'openai/gpt-5.4',
        'openai-api-key': KEYS.openai,
        'massgen-command': FAKE_MASSGEN,
        'comment-tag': 'toctou-pr',
        'pr-context': 'false'
      },
      env: { FAKE_MASSGEN_SCENARIO: 'success' }
    })
    expect(ok.outputs.status).toBe('success')
    expect(ok.outputs['head-sha']).toBe(sha)
  }, 60_000)
})
