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
import type { ServerFile, ServerPull } from '../../test-support/github-state.js'
import { largePull, manyFiles } from '../../test-support/large-pull.js'
import {
  FAKE_MASSGEN,
  openTempDir,
  runAction,
  type ActionRun
} from '../../test-support/run-action.js'
import { event } from '../../test-support/fixtures.js'
import {
  NO_LLM_URL,
  scriptedAgents,
  twoAgentReview
} from '../../test-support/pr-run.js'
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

/** A pull request of one commit over a base: its real diff. */
function gitDiffOf(files: Record<string, string>): string {
  return gitHistory(files).change
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
    body: `Full review.\n\n${reviewedMarker('massgen', 'a'.repeat(40))}`,
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
      ...twoAgentReview(NO_LLM_URL, FAKE_MASSGEN),
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

const BLOCKER = {
  file: 'src/refund.ts',
  line: 1,
  severity: 'blocker',
  title: 'refund reverses any amount',
  explanation: 'No check that the amount was charged.'
}

/** Pull request #42 at FIRST changing `files` (added), reviewed in full. */
async function fullReview(
  files: Record<string, string>,
  answer: string | Record<string, string>,
  inputs: Record<string, string> = {}
): Promise<ActionRun> {
  return reviewPull(
    {
      title: 'Refunds',
      body: 'Adds refunds.',
      author: { login: 'alice-maintainer', id: 5550001, type: 'User' },
      base: { ref: 'main', sha: 'a'.repeat(40), repo: 'octo-org/octo-repo' },
      head: { ref: 'refund', sha: FIRST, repo: 'octo-org/octo-repo' },
      files: Object.entries(files).map(([name, text]) => added(name, text)),
      diff: gitDiffOf(files)
    },
    answer,
    inputs
  )
}

/** A full review of `pull` as #42, at its head. */
async function reviewPull(
  pull: ServerPull,
  answer: string | Record<string, string>,
  inputs: Record<string, string> = {}
): Promise<ActionRun> {
  github.state.pulls['42'] = pull
  const payload = event('pull_request.opened') as {
    action: string
    pull_request: { head: { sha: string } }
  }
  payload.pull_request.head.sha = pull.head.sha
  return runAction({
    eventName: 'pull_request',
    payload,
    githubApiUrl: github.url,
    env: scriptedAgents(
      Object.fromEntries(
        AGENTS.map((id) => [
          id,
          {
            answer: typeof answer === 'string' ? answer : (answer[id] ?? ''),
            voteFor: 'agent_a'
          }
        ])
      )
    ),
    inputs: {
      ...twoAgentReview(NO_LLM_URL, FAKE_MASSGEN),
      'finding-vote': 'false',
      'fail-on': 'blocker',
      ...inputs
    }
  })
}

const clean = ['Nothing to report.', '', findingsBlock([])].join('\n')
const checkRun = () => github.state.checkRuns[github.state.checkRuns.length - 1]

/** The gate opened: pass, a green check run, the step green. */
function expectPass(run: ActionRun): void {
  expect(run.outputs.verdict).toBe('pass')
  expect(run.summary.split('\n')[0]).toMatch(
    /^### ✅ MassGen review( \(.+\))?: no blockers or concerns from \d+ models?( \(\d+ nits?\))?$/
  )
  expect(checkRun()?.conclusion).toBe('success')
  expect(run.exitCode).toBe(0)
}

/** The gate held: `incomplete`, a failed check run naming why, the step failed. */
function expectIncomplete(run: ActionRun, named: RegExp): void {
  expect(run.outputs.verdict).toBe('incomplete')
  // The first line says it, and why.
  expect(run.summary.split('\n')[0]).toMatch(
    /^### ⚠️ MassGen review( \(.+\))? incomplete: .+, so it cannot pass/
  )
  expect(checkRun()?.conclusion).toBe('failure')
  expect(checkRun()?.output.summary ?? '').toMatch(named)
  expect(run.summary).toMatch(/changed file\(s\) read by the review/)
  expect(run.exitCode).toBe(1)
}

describe('no silent pass over code the review did not read', () => {
  const refund = { 'src/refund.ts': NEW_CODE.plain }

  it('control: every file read, no finding: pass, the check run green, exit 0; a counted blocker still fails', async () => {
    const run = await fullReview(refund, clean)
    expectPass(run)
    const blocked = await fullReview(
      refund,
      ['One blocker.', '', findingsBlock([BLOCKER])].join('\n')
    )
    expect(blocked.outputs.verdict).toBe('blockers')
    expect(blocked.exitCode).toBe(1)
  })

  it('says in every report how many changed files the review read and did not', async () => {
    const run = await fullReview(refund, clean)
    const count = /1 of 1 changed file\(s\) read by the review; 0 not read/
    expect(checkRun()?.output.summary ?? '').toMatch(count)
    expect(run.summary).toMatch(count)
    const sticky = github.state.comments.find((c) => c.issueNumber === 42)
    expect(sticky?.body ?? '').toMatch(count)
  })

  it('attack 7: no agent gave a readable findings block (a trailing comma, another fence, a block over 64 KiB): incomplete, not pass — fails', async () => {
    const trailingComma =
      'Looks fine.\n\n```massgen-findings\n[{"file": "src/refund.ts", "line": 1, "severity": "blocker", "title": "t", "explanation": "e"},]\n```'
    const run = await fullReview(refund, trailingComma)
    expectIncomplete(
      run,
      /0 agent\(s\) gave a readable findings block, fewer than min-agreement/
    )
    // One agent fences its block as json, the other's is over 64 KiB.
    const otherFence = 'Looks fine.\n\n```json\n[]\n```'
    const huge = [
      'Looks fine.',
      '',
      '```massgen-findings',
      JSON.stringify([{ ...BLOCKER, explanation: 'x'.repeat(66 * 1024) }]),
      '```'
    ].join('\n')
    expectIncomplete(
      await fullReview(refund, { agent_a: otherFence, agent_b: huge }),
      /0 agent\(s\) gave a readable findings block/
    )
  })

  it('attack 8: more changed files than max-changed-files: a verdict (incomplete), a failed check run — fails', async () => {
    const many = Object.fromEntries(
      Array.from({ length: 5 }, (_, i) => [
        `src/f${i}.ts`,
        `export const F${i} = ${i}\n`
      ])
    )
    const control = await fullReview(many, clean, { 'max-changed-files': '10' })
    expectPass(control)
    const run = await fullReview(many, clean, { 'max-changed-files': '3' })
    expectIncomplete(run, /more than 'max-changed-files' \(3\)/)
    expect(checkRun()?.output.summary ?? '').toMatch(
      /0 of 5 changed file\(s\) read/
    )
  })

  it('attack 10: a file whose diff is over pr-diff-max-bytes (200 kB) is left out: incomplete, the file named — fails', async () => {
    const table = Array.from(
      { length: 6000 },
      (_, i) => `  { code: ${i}, name: 'status-${i}', retry: false },`
    )
    const big = {
      'src/a-table.ts': ['export const TABLE = [', ...table, ']', ''].join(
        '\n'
      ),
      ...refund
    }
    const run = await fullReview(big, clean)
    expectIncomplete(run, /src\/a-table\.ts \| diff of \d+ bytes does not fit/)
    // Opting out by pattern: the file is listed as allowed, the verdict is the rest's.
    const allowed = await fullReview(big, clean, {
      'allow-unread': 'src/a-table.ts'
    })
    expectPass(allowed)
    expect(checkRun()?.output.summary ?? '').toMatch(/allowed by allow-unread/)
  })

  it('attack 11: a backdoor in a path left out by default (dist/index.js, vendor/, *.min.js): incomplete — fails', async () => {
    const backdoor = 'require("child_process").exec(process.env.PAYLOAD)\n'
    for (const file of [
      'dist/index.js',
      'vendor/lib/pay.js',
      'src/app.min.js'
    ]) {
      const run = await fullReview({ ...refund, [file]: backdoor }, clean)
      expectIncomplete(
        run,
        new RegExp(
          `${file.replace(/[./]/g, '\\$&')} \\| (build output|vendored)`
        )
      )
    }
  })

  it("attack 9: a pull request of 3,001 files, GitHub's files list names 3,000: incomplete, the unnamed file counted — fails", async () => {
    // A budget that holds every listed file's diff: only the unnamed one is unread.
    const budget = { 'pr-diff-max-bytes': '10000000' }
    const control = await reviewPull(largePull(manyFiles(3000)), clean, budget)
    expectPass(control)
    const run = await reviewPull(largePull(manyFiles(3001)), clean, budget)
    expectIncomplete(run, /GitHub's files list stops at 3000 files/)
    expect(checkRun()?.output.summary ?? '').toMatch(
      /3000 of 3001 changed file\(s\) read by the review; 1 not read/
    )
  })
})
