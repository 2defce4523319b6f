// What the review could not read (issue 38), end to end: the bundled action
// under Node 24, two agents played by the MassGen stand-in, the loopback
// GitHub. The diffs are real `git diff` output of a repository made here,
// so file names come as git writes them: quoted with octal escapes
// (`+++ "b/pagamento_\303\251.ts"`) or ended by a tab (`+++ b/pay ment.ts<TAB>`).
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import {
  pushToPull,
  startGitHubServer,
  type GitHubServer
} from '../../test-support/github-server.js'
import type { ServerFile } from '../../test-support/github-state.js'
import {
  FAKE_MASSGEN,
  openTempDir,
  runAction,
  type ActionRun
} from '../../test-support/run-action.js'
import { event, KEYS } from '../../test-support/fixtures.js'
import { NO_LLM_URL, scriptedAgents } from '../../test-support/pr-run.js'
import { findingsBlock } from '../../test-support/review-pull.js'
import { reviewedMarker } from '../../src/review/render.js'

const AGENTS = ['agent_a', 'agent_b']
const FIRST = '5'.repeat(40)
const SECOND = '6'.repeat(40)

let github: GitHubServer
beforeEach(async () => {
  github = await startGitHubServer({ issues: [42] })
})
afterEach(async () => {
  await github.close()
})

/** A git repository in a temp dir: base, a first push, a second push. */
function gitHistory(secondPush: Record<string, string>): {
  first: string
  second: string
  change: string
} {
  const repo = openTempDir('unread-git-')
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: repo,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@example.com',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@example.com',
        GIT_CONFIG_NOSYSTEM: '1',
        HOME: repo
      }
    })
  const write = (files: Record<string, string>) => {
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(repo, name)), { recursive: true })
      fs.writeFileSync(path.join(repo, name), text)
    }
    git('add', '-A')
  }
  git('init', '-q', '-b', 'main')
  write({ 'README.md': 'base\n' })
  git('commit', '-q', '-m', 'base')
  write({ 'src/limits.ts': 'export const LIMIT = 10\n' })
  git('commit', '-q', '-m', 'first push')
  write(secondPush)
  git('commit', '-q', '-m', 'second push')
  return {
    first: git('diff', 'HEAD~2', 'HEAD~1'),
    second: git('diff', 'HEAD~2', 'HEAD'),
    change: git('diff', 'HEAD~1', 'HEAD')
  }
}

const added = (filename: string, text: string): ServerFile => ({
  filename,
  status: 'added',
  additions: text.split('\n').length - 1,
  deletions: 0
})

/**
 * Pull request #42 reviewed by the action at its first push (the review
 * record the action leaves), then pushed to: the second push adds `files`.
 */
function pushedPull(files: Record<string, string>): void {
  const diffs = gitHistory(files)
  const limits = added('src/limits.ts', 'export const LIMIT = 10\n')
  github.state.pulls['42'] = {
    title: 'Payments',
    body: 'Adds payments.',
    author: { login: 'alice-maintainer', id: 5550001, type: 'User' },
    base: { ref: 'main', sha: 'a'.repeat(40), repo: 'octo-org/octo-repo' },
    head: { ref: 'pay', sha: FIRST, repo: 'octo-org/octo-repo' },
    files: [limits],
    diff: diffs.first
  }
  github.state.reviews.push({
    id: github.state.nextId++,
    pullNumber: 42,
    user: github.state.identity,
    body: `Full review.\n\n${reviewedMarker('massgen')}`,
    state: 'COMMENTED',
    event: 'COMMENT',
    commitId: FIRST,
    submittedAt: new Date().toISOString()
  })
  pushToPull(github.state, 42, {
    sha: SECOND,
    diff: diffs.second,
    files: [
      limits,
      ...Object.entries(files).map(([name, text]) => added(name, text))
    ],
    change: diffs.change
  })
}

/** A review of the second push; the patch the agents were given. */
async function reviewSecondPush(
  inputs: Record<string, string> = {}
): Promise<{ run: ActionRun; question: string; patch: string }> {
  const record = path.join(openTempDir('unread-rec-'), 'record.json')
  const payload = event('pull_request.opened') as {
    action: string
    pull_request: { head: { sha: string } }
  }
  payload.action = 'synchronize'
  payload.pull_request.head.sha = SECOND
  const answer = ['No problem found.', '', findingsBlock([])].join('\n')
  const run = await runAction({
    eventName: 'pull_request',
    payload,
    githubApiUrl: github.url,
    env: {
      ...scriptedAgents(
        Object.fromEntries(
          AGENTS.map((id) => [id, { answer, voteFor: 'agent_a' }])
        )
      ),
      FAKE_MASSGEN_RECORD: record
    },
    inputs: {
      query: 'Review this pull request.',
      models: 'vllm/model-a vllm/model-b',
      'base-url': NO_LLM_URL,
      'openai-api-key': KEYS.openai,
      'massgen-command': FAKE_MASSGEN,
      'max-duration': '600',
      'upload-logs': 'false',
      review: 'inline',
      'finding-vote': 'false',
      ...inputs
    }
  })
  const { args } = JSON.parse(fs.readFileSync(record, 'utf8')) as {
    args: string[]
  }
  const patchFile = path.join(
    path.dirname(run.outputs['answer-file'] ?? ''),
    'review-context',
    'since-last-review.patch'
  )
  return {
    run,
    question: args[args.length - 1] ?? '',
    patch: fs.existsSync(patchFile) ? fs.readFileSync(patchFile, 'utf8') : ''
  }
}

const NEW_CODE = {
  space:
    'export function pay(amount: number) { return charge(amount * 100) }\n',
  accent:
    'export function reembolso(valor: number) { return estornar(valor) }\n',
  plain: 'export function refund(amount: number) { return reverse(amount) }\n'
}

describe('the incremental patch is read by the one diff parser', () => {
  it('control: new code in plainly named files is in since-last-review.patch', async () => {
    pushedPull({ 'src/refund.ts': NEW_CODE.plain })
    const { run, question, patch } = await reviewSecondPush()
    expect(run.outputs.status).toBe('success')
    expect(question).toContain('Incremental review: this pull request')
    expect(patch).toContain(`+${NEW_CODE.plain}`)
  })

  it('attack 5: new code in files named with a space or a non-ASCII letter is in the patch (git writes `+++ b/pay ment.ts<TAB>`, `+++ "b/pagamento_\\303\\251.ts"`) — fails', async () => {
    pushedPull({
      'src/pay ment.ts': NEW_CODE.space,
      'src/pagamento_é.ts': NEW_CODE.accent
    })
    const { run, question, patch } = await reviewSecondPush()
    expect(run.outputs.status).toBe('success')
    expect(question).toContain('Incremental review: this pull request')
    expect(patch).toContain('+++ b/src/pay ment.ts\t')
    expect(patch).toContain('+++ "b/src/pagamento_\\303\\251.ts"')
    expect(patch).toContain(`+${NEW_CODE.space}`)
    expect(patch).toContain(`+${NEW_CODE.accent}`)
  })

  it('attack 6: a large file earlier in the push does not cut the new code after it out of the patch; the file left out is named — fails', async () => {
    const table = Array.from(
      { length: 400 },
      (_, i) => `  { code: ${i}, name: 'status-${i}' },`
    )
    pushedPull({
      'src/a-table.ts': ['export const TABLE = [', ...table, ']', ''].join(
        '\n'
      ),
      'src/refund.ts': NEW_CODE.plain
    })
    const { run, question, patch } = await reviewSecondPush({
      'pr-diff-max-bytes': '4000'
    })
    expect(run.outputs.status).toBe('success')
    expect(question).toContain('Incremental review: this pull request')
    expect(patch).toContain(`+${NEW_CODE.plain}`)
    // Whole files only: the table is left out whole, and the log names it.
    expect(patch).not.toContain('a-table.ts')
    expect(run.stdout).toMatch(
      /left out of since-last-review\.patch[^\n]*src\/a-table\.ts/
    )
  })
})
