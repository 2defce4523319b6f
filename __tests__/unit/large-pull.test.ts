// The diff rebuilt from the files list's patches, the incomplete files list
// in the agents' files, and the steering-files check that fails closed.
import { describe, expect, it } from '@jest/globals'
import { gitPath, rebuildDiff } from '../../src/github/rebuilt-diff.js'
import type { PullRequestContext } from '../../src/github/pull.js'
import { narrowPullRequest } from '../../src/context/pr-filter.js'
import { parseDiff } from '../../src/core/unified-diff.js'
import { overviewOf, prContextNote } from '../../src/context/pr-context.js'
import { checkSteeringFiles } from '../../src/context/steering-files.js'
import { pullFactsOf } from '../../src/context/pull-facts.js'
import { pullFactsSection } from '../../src/report/pull-facts.js'
import { parseDiffLines } from '../../src/review/diff.js'

const hunk = '@@ -1,2 +1,2 @@\n ctx\n-old\n+new'

function pull(over: Partial<PullRequestContext>): PullRequestContext {
  return {
    number: 9,
    title: 't',
    body: '',
    baseRef: 'main',
    baseSha: 'a'.repeat(40),
    headRef: 'h',
    headSha: 'b'.repeat(40),
    headRepo: 'o/r',
    files: [],
    diff: '',
    diffTruncated: false,
    ...over
  }
}

describe('rebuildDiff', () => {
  it('writes one git section per file that the review and the filter both read', () => {
    const { diff, withoutPatch } = rebuildDiff([
      { filename: 'a.ts', status: 'modified', changes: 2, patch: hunk },
      {
        filename: 'new.ts',
        status: 'added',
        changes: 1,
        patch: '@@ -0,0 +1 @@\n+x'
      },
      {
        filename: 'gone.ts',
        status: 'removed',
        changes: 1,
        patch: '@@ -1 +0,0 @@\n-x'
      },
      {
        filename: 'b.ts',
        status: 'renamed',
        changes: 0,
        previousFilename: 'old b.ts'
      },
      { filename: 'logo.png', status: 'added', changes: 4 }
    ])
    expect(diff).toContain(
      'diff --git a/a.ts b/a.ts\n--- a/a.ts\n+++ b/a.ts\n@@ -1,2 +1,2 @@\n ctx\n-old\n+new\n'
    )
    expect(diff).toContain('--- /dev/null\n+++ b/new.ts\n')
    expect(diff).toContain('--- a/gone.ts\n+++ /dev/null\n')
    expect(diff).toContain(
      'diff --git a/old b.ts b/b.ts\nrename from old b.ts\nrename to b.ts\n'
    )
    expect(withoutPatch).toEqual([
      { file: 'logo.png', reason: expect.stringContaining('no patch') }
    ])
    const lines = parseDiffLines(diff)
    expect([...(lines.files.get('a.ts')?.right.keys() ?? [])]).toEqual([1, 2])
    const known = new Set(['a.ts', 'new.ts', 'gone.ts', 'b.ts', 'logo.png'])
    expect(parseDiff(diff, known).files.map((f) => f.path)).toEqual([...known])
  })
  it('attack: a file name with a line break cannot forge a diff header for another file — fails', () => {
    const evil = 'x.ts\ndiff --git a/src/auth.ts b/src/auth.ts'
    const { diff } = rebuildDiff([
      { filename: evil, status: 'modified', changes: 2, patch: hunk }
    ])
    expect(
      diff.split('\n').filter((l) => l.startsWith('diff --git'))
    ).toHaveLength(1)
    expect(diff).toContain(gitPath('b/', evil))
    expect(gitPath('b/', 'café')).toBe('"b/caf\\303\\251"')
  })
  it('attack: a patch carrying a header line of its own is not spliced in — fails', () => {
    const { diff, withoutPatch } = rebuildDiff([
      {
        filename: 'a.ts',
        status: 'modified',
        changes: 2,
        patch: `${hunk}\ndiff --git a/z b/z`
      }
    ])
    expect(diff).toBe('diff --git a/a.ts b/a.ts\n')
    expect(withoutPatch[0]?.reason).toMatch(/not a list of hunks/)
  })
})

describe('an incomplete files list (more than 3,000 files)', () => {
  const files = Array.from({ length: 3000 }, (_, i) => ({
    filename: `f${i}.ts`,
    status: 'modified',
    additions: 1,
    deletions: 0
  }))
  const pr = pull({ files, changedFiles: 3200, diffRebuilt: true })
  it('is said in left-out.tsv, pull-request.md and the note', () => {
    const given = narrowPullRequest(pr, { include: [], exclude: [] }, 200_000)
    expect(given.leftOut).toContainEqual(
      expect.objectContaining({
        file: '(200 more files, not named)',
        unnamed: 200
      })
    )
    const md = overviewOf(given)
    expect(md).toContain('- changed files: 3200, of which 0 left out')
    expect(md).toContain(
      "INCOMPLETE: GitHub's files list names only 3000 of the 3200 changed files"
    )
    expect(md).toContain('put together from the per-file patches')
    expect(prContextNote('/ctx', given, '/repo')).toContain('INCOMPLETE')
  })
  it('attack: a workflow change hidden past the 3,000th file is still flagged — the check fails closed', () => {
    const check = checkSteeringFiles(pr, [])
    expect(check).toEqual({
      state: 'unknown',
      files: [],
      listed: 3000,
      changed: 3200
    })
    const report = pullFactsSection(
      pullFactsOf(pr, { setupFiles: [], maxChangedFiles: undefined }),
      []
    )
    expect(report).toContain(
      '**Incomplete:** GitHub named 3,000 of the 3,200 changed files'
    )
    expect(report).toContain('Steering files: cannot be ruled out')
  })
})

describe('checkSteeringFiles', () => {
  const f = (filename: string, previousFilename?: string) => ({
    filename,
    status: 'modified',
    additions: 1,
    deletions: 1,
    ...(previousFilename ? { previousFilename } : {})
  })
  it('names workflows, instructions, code owners, setup files and renamed-away ones', () => {
    const check = checkSteeringFiles(
      {
        files: [
          f('src/a.ts'),
          f('.github/workflows/ci.yml'),
          f('docs/Agents.md'),
          f('.github/CODEOWNERS'),
          f('review/massgen.yaml'),
          f('notes.md', 'CLAUDE.md')
        ],
        changedFiles: 6
      },
      ['review/massgen.yaml']
    )
    expect(check).toEqual({
      state: 'changed',
      files: [
        '.github/workflows/ci.yml',
        'docs/Agents.md',
        '.github/CODEOWNERS',
        'review/massgen.yaml',
        'CLAUDE.md'
      ]
    })
  })
  it('is quiet on an ordinary change', () => {
    expect(
      checkSteeringFiles({ files: [f('src/a.ts')], changedFiles: 1 }, [])
    ).toEqual({ state: 'none' })
  })
  it('shows names in the report in a code block, where they cannot ping or link', () => {
    const out = pullFactsSection(
      {
        changedFiles: 1,
        listedFiles: 1,
        diffRebuilt: false,
        steering: {
          state: 'changed',
          files: ['@alice [x](https://evil)/AGENTS.md']
        }
      },
      []
    )
    expect(out).toMatch(
      /```text\n@alice \[x\]\(https:\/\/evil\)\/AGENTS\.md\n```/
    )
  })
})
