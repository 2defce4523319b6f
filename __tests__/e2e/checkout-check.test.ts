// A workflow that checks out the wrong commit: the agents would read the
// base's files beside the pull request's diff. The bundled action under Node
// 24, the loopback GitHub, and a real git checkout in the workspace (made by
// git itself: detached, on a branch, with packed refs) whose commits the
// loopback's pull request #42 names as its head and merge commits.
import { afterEach, describe, expect, it, jest } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import {
  FAKE_MASSGEN,
  openTempDir,
  runAction
} from '../../test-support/run-action.js'
import type { GitHubServer } from '../../test-support/github-server.js'
import { commentsOn, event, githubForEachTest, KEYS } from './helpers.js'

jest.setTimeout(120_000)

let server: GitHubServer
githubForEachTest({ 'alice-maintainer': 'maintain' }, (s) => (server = s))

const made: string[] = []
afterEach(() => {
  for (const dir of made.splice(0))
    fs.rmSync(dir, { recursive: true, force: true })
})

interface Checkout {
  workspace: string
  base: string
  head: string
  merge: string
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'a',
      GIT_AUTHOR_EMAIL: 'a@example.com',
      GIT_COMMITTER_NAME: 'a',
      GIT_COMMITTER_EMAIL: 'a@example.com'
    }
  }).trim()
}

/** A repository with a base, a head on top of it, and a merge of both. */
function makeCheckout(): Checkout {
  const workspace = openTempDir('checkout-')
  made.push(workspace)
  git(workspace, 'init', '-q', '-b', 'main')
  const commit = (file: string) => {
    fs.writeFileSync(path.join(workspace, file), file)
    git(workspace, 'add', file)
    git(workspace, 'commit', '-q', '-m', file)
    return git(workspace, 'rev-parse', 'HEAD')
  }
  const base = commit('base.txt')
  git(workspace, 'checkout', '-q', '-b', 'fast')
  const head = commit('head.txt')
  git(workspace, 'checkout', '-q', '--detach', base)
  git(workspace, 'merge', '-q', '--no-ff', '-m', 'merge', head)
  const merge = git(workspace, 'rev-parse', 'HEAD')
  return { workspace, base, head, merge }
}

/** Pull request #42 names the checkout's head and merge commits. */
function pullNames(checkout: Checkout) {
  const pull = server.state.pulls['42']
  if (!pull) throw new Error('no pull request #42')
  pull.head.sha = checkout.head
  pull.mergeCommitSha = checkout.merge
  const payload = event('pull_request.opened') as {
    pull_request: { head: { sha: string } }
  }
  payload.pull_request.head.sha = checkout.head
  return payload
}

function run(
  checkout: Checkout,
  payload: unknown,
  options: {
    inputs?: Record<string, string>
    eventName?: string
    sha?: string
  } = {}
) {
  return runAction({
    eventName: options.eventName ?? 'pull_request',
    payload,
    workspace: checkout.workspace,
    githubApiUrl: server.url,
    env: {
      FAKE_MASSGEN_SCENARIO: 'success',
      ...(options.sha ? { GITHUB_SHA: options.sha } : {})
    },
    inputs: {
      query: 'Review this pull request.',
      models: 'openai/gpt-5.4 claude/claude-opus-4-6',
      'openai-api-key': KEYS.openai,
      'anthropic-api-key': KEYS.anthropic,
      'massgen-command': `node ${FAKE_MASSGEN}`,
      ...options.inputs
    }
  })
}

const errors = (stdout: string) =>
  stdout.split('\n').filter((line) => line.startsWith('::error'))

describe('the checked-out commit of a pull request run', () => {
  it('the base branch checked out: stopped, and the comment and summary name the fix', async () => {
    const checkout = makeCheckout()
    const payload = pullNames(checkout)
    git(checkout.workspace, 'checkout', '-q', 'main')
    const result = await run(checkout, payload)
    expect(result.exitCode).not.toBe(0)
    expect(result.outputs.status).toBe('config-error')
    const comment = commentsOn(server, 42).at(-1) ?? ''
    for (const report of [comment, result.summary]) {
      expect(report).toContain(checkout.base.slice(0, 12))
      expect(report).toContain('neither the head')
      expect(report).toContain("set the input 'checkout-check' to 'warn'")
    }
    expect(errors(result.stdout)).toHaveLength(1)
    expect(result.stdout).not.toContain('MassGen')
  })

  it("with checkout-check 'warn': said as a warning, and the run goes on", async () => {
    const checkout = makeCheckout()
    const payload = pullNames(checkout)
    git(checkout.workspace, 'checkout', '-q', 'main')
    const result = await run(checkout, payload, {
      inputs: { 'checkout-check': 'warn' }
    })
    expect(result.outputs.status).toBe('success')
    expect(
      result.stdout
        .split('\n')
        .filter(
          (l) => l.startsWith('::warning') && l.includes('neither the head')
        )
    ).toHaveLength(1)
  })

  it.each([
    [
      'the head on its branch (a loose ref)',
      (c: Checkout) => git(c.workspace, 'checkout', '-q', 'fast')
    ],
    [
      'the head on its branch (packed refs)',
      (c: Checkout) => {
        git(c.workspace, 'checkout', '-q', 'fast')
        git(c.workspace, 'pack-refs', '--all', '--prune')
      }
    ],
    [
      "GitHub's merge commit, detached",
      (c: Checkout) => git(c.workspace, 'checkout', '-q', '--detach', c.merge)
    ]
  ])('%s: the run goes on', async (_name, checkOut) => {
    const checkout = makeCheckout()
    const payload = pullNames(checkout)
    checkOut(checkout)
    const result = await run(checkout, payload)
    expect(result.outputs.status).toBe('success')
    expect(result.stdout).not.toContain('neither the head')
  })

  it("the event's merge commit (GITHUB_SHA) still counts when GitHub's merge commit moved on", async () => {
    const checkout = makeCheckout()
    const payload = pullNames(checkout)
    const pull = server.state.pulls['42']
    if (pull) pull.mergeCommitSha = 'c'.repeat(40)
    const result = await run(checkout, payload, { sha: checkout.merge })
    expect(result.outputs.status).toBe('success')
  })

  it('a comment run on the default branch checkout: stopped, the fix names the comment example', async () => {
    const checkout = makeCheckout()
    pullNames(checkout)
    git(checkout.workspace, 'checkout', '-q', 'main')
    const payload = event('issue_comment.created.pr') as {
      comment: { body: string; created_at: string }
    }
    const result = await run(checkout, payload, { eventName: 'issue_comment' })
    expect(result.outputs.status).toBe('config-error')
    expect(commentsOn(server, 42).at(-1)).toContain(
      'examples/comment-command.yml'
    )
  })

  it('a workspace that is no git checkout: not compared, said in the log, the run goes on', async () => {
    const checkout = makeCheckout()
    const payload = pullNames(checkout)
    fs.rmSync(path.join(checkout.workspace, '.git'), { recursive: true })
    const result = await run(checkout, payload)
    expect(result.outputs.status).toBe('success')
    expect(result.stdout).toContain('was not compared')
  })
})
