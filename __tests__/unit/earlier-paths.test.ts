// Earlier findings across a rename, the parts without MassGen: the renames
// and removals read from GitHub's comparison (the loopback's answer checked
// against @octokit/openapi `diff-entry`), where each earlier finding's file
// went (context/earlier-paths.ts), and what that makes of the finding
// (review/earlier.ts): matched at the new name, standing when the rename left
// its lines alone, never fixed because its path is gone, and fixed as before
// when its file was removed.
import { describe, expect, it } from '@jest/globals'
import { createGitHub } from '../../src/github/api.js'
import {
  COMPARE_FILES_MAX,
  pathMoves,
  removedLines,
  type PathMoves
} from '../../src/github/compare.js'
import { followPaths } from '../../src/context/earlier-paths.js'
import {
  classifyEarlier,
  raisesAgain,
  resolvedReply
} from '../../src/review/earlier.js'
import type { EarlierFinding, FindingGroup } from '../../src/core/review.js'
import type { ChangedFile } from '../../src/github/pull.js'
import {
  pushToPull,
  startGitHubServer
} from '../../test-support/github-server.js'
import { schemaErrors } from '../../test-support/openapi.js'
import { pushesPull, renamePush } from '../../test-support/pushes-pull.js'

const quiet = { info: () => {}, warning: () => {}, debug: () => {} }

describe('the renames and removals a comparison names', () => {
  it('the loopback answers compare files as diff-entry says, a rename with previous_filename; the action reads them', async () => {
    const github = await startGitHubServer({ issues: [42] })
    try {
      github.state.pulls['42'] = pushesPull()
      const first = github.state.pulls['42'].head.sha
      pushToPull(github.state, 42, renamePush())
      const renamed = '6'.repeat(40)
      const res = await fetch(
        `${github.url}/repos/octo-org/octo-repo/compare/${first}...${renamed}`
      )
      const body = (await res.json()) as { files: unknown[] }
      expect(body.files).toHaveLength(2)
      for (const f of body.files)
        expect(schemaErrors('diff-entry', f)).toEqual([])
      expect(body.files[0]).toMatchObject({
        filename: 'src/ports.ts',
        status: 'renamed',
        previous_filename: 'src/limits.ts',
        changes: 0
      })
      const api = createGitHub({
        token: 't',
        owner: 'octo-org',
        repo: 'octo-repo',
        log: quiet,
        apiUrl: github.url,
        timing: { retries: 0 }
      })
      expect(await api.compareCommits(first, renamed)).toMatchObject({
        status: 'ahead',
        moves: {
          renamed: [
            { from: 'src/limits.ts', to: 'src/ports.ts', changedLines: [] }
          ],
          removed: [],
          kept: ['src/retry.ts']
        }
      })
    } finally {
      await github.close()
    }
  })

  it('the loopback’s pull request files name a rename since the base with previous_filename, as diff-entry says', async () => {
    const github = await startGitHubServer({ issues: [42] })
    try {
      github.state.pulls['42'] = {
        ...pushesPull(),
        files: [
          {
            filename: 'src/ports.ts',
            status: 'renamed',
            additions: 0,
            deletions: 0,
            previousFilename: 'src/limits.ts'
          }
        ]
      }
      const res = await fetch(
        `${github.url}/repos/octo-org/octo-repo/pulls/42/files`
      )
      const files = (await res.json()) as unknown[]
      expect(schemaErrors('diff-entry', files[0])).toEqual([])
      expect(files[0]).toMatchObject({
        status: 'renamed',
        previous_filename: 'src/limits.ts'
      })
    } finally {
      await github.close()
    }
  })

  it('a files list at GitHub’s cap of 300, or an entry it cannot read, names nothing (a rename past it would go unseen)', () => {
    const entry = (i: number) => ({ filename: `f${i}.ts`, status: 'modified' })
    expect(
      pathMoves(
        Array.from({ length: COMPARE_FILES_MAX - 1 }, (_, i) => entry(i))
      )
    ).toBeDefined()
    expect(
      pathMoves(Array.from({ length: COMPARE_FILES_MAX }, (_, i) => entry(i)))
    ).toBeUndefined()
    expect(pathMoves(undefined)).toBeUndefined()
    expect(pathMoves([{ filename: 'b.ts', status: 'renamed' }])).toBeUndefined()
    expect(pathMoves([{ status: 'removed' }])).toBeUndefined()
  })

  it('the old lines a rename changed are its patch’s removed lines', () => {
    const patch = [
      '@@ -5,4 +5,4 @@ export function f() {',
      ' a',
      '-b',
      '+B',
      ' c',
      '@@ -20,2 +20,3 @@',
      ' x',
      '+y',
      '-z'
    ].join('\n')
    expect(removedLines(patch)).toEqual([6, 21])
    expect(
      pathMoves([
        {
          filename: 'new.ts',
          status: 'renamed',
          previous_filename: 'old.ts',
          patch
        }
      ])?.renamed
    ).toEqual([{ from: 'old.ts', to: 'new.ts', changedLines: [6, 21] }])
  })
})

const finding = (over: Partial<EarlierFinding> = {}): EarlierFinding => ({
  threadId: 'T',
  commentId: 7,
  url: '',
  file: 'src/limits.ts',
  line: null,
  originalLine: 7,
  outdated: true,
  answered: false,
  fingerprint: 'f'.repeat(16),
  severity: 'blocker',
  title: 'parsePort accepts text that is not a port',
  ...over
})
const listed = (filename: string, over: Partial<ChangedFile> = {}) => ({
  filename,
  status: 'added',
  additions: 8,
  deletions: 0,
  ...over
})
const moves = (over: Partial<PathMoves> = {}): PathMoves => ({
  renamed: [],
  removed: [],
  kept: [],
  ...over
})

describe('where an earlier finding’s file went', () => {
  const movedOf = (
    files: ChangedFile[],
    since: PathMoves | undefined,
    over: Partial<EarlierFinding> = {}
  ) => followPaths([finding(over)], { files, moves: since })[0]?.moved

  it('a file still at the head under its name is not moved, whatever the comparison', () => {
    expect(movedOf([listed('src/limits.ts')], undefined)).toBeUndefined()
    expect(movedOf([], moves({ kept: ['src/limits.ts'] }))).toBeUndefined()
  })

  it('renamed since the commit reviewed last: its new name, and whether the rename changed its lines', () => {
    const renamed = (changedLines: number[]) =>
      moves({
        renamed: [{ from: 'src/limits.ts', to: 'src/ports.ts', changedLines }]
      })
    expect(movedOf([listed('src/ports.ts')], renamed([]))).toEqual({
      kind: 'renamed',
      to: 'src/ports.ts',
      linesChanged: false
    })
    expect(movedOf([listed('src/ports.ts')], renamed([2, 3]))).toMatchObject({
      linesChanged: false
    })
    expect(movedOf([listed('src/ports.ts')], renamed([7]))).toMatchObject({
      linesChanged: true
    })
  })

  it('removed since the commit reviewed last, or since the base; renamed since the base (lines not known changed)', () => {
    expect(movedOf([], moves({ removed: ['src/limits.ts'] }))).toEqual({
      kind: 'removed'
    })
    expect(
      movedOf([listed('src/limits.ts', { status: 'removed' })], undefined)
    ).toEqual({ kind: 'removed' })
    expect(
      movedOf(
        [
          listed('src/ports.ts', {
            status: 'renamed',
            previousFilename: 'src/limits.ts'
          })
        ],
        undefined
      )
    ).toEqual({ kind: 'renamed', to: 'src/ports.ts', linesChanged: false })
  })

  it('gone from the head and named by nothing read (no comparison, or one that does not name it): unknown', () => {
    expect(movedOf([listed('src/ports.ts')], undefined)).toEqual({
      kind: 'unknown'
    })
    expect(movedOf([listed('src/ports.ts')], moves())).toEqual({
      kind: 'unknown'
    })
  })
})

describe('what an earlier finding on a moved file becomes', () => {
  const group = (file: string, line: number, title: string): FindingGroup => {
    const f = {
      agent: 'agent_a',
      file,
      line,
      severity: 'blocker' as const,
      title,
      explanation: ''
    }
    return {
      fingerprint: '0'.repeat(16),
      fingerprints: ['0'.repeat(16)],
      lead: f,
      anchor: f,
      members: [f],
      agents: ['agent_a'],
      severity: 'blocker'
    }
  }
  const renamed = (linesChanged: boolean) =>
    finding({ moved: { kind: 'renamed', to: 'src/ports.ts', linesChanged } })
  const atNewName = group('src/ports.ts', 7, 'parsePort accepts non-port text')
  const status = (f: EarlierFinding, groups: FindingGroup[] = []) =>
    classifyEarlier([f], groups, 'unanswered')[0]

  it('raised again at the new name, by the same title rule: confirmed; another title there, or the new name for a file not renamed, is not it', () => {
    expect(raisesAgain(atNewName, renamed(false))).toBe(true)
    expect(status(renamed(false), [atNewName])?.status).toBe('confirmed')
    expect(
      raisesAgain(
        group('src/ports.ts', 7, 'clamp ignores negatives'),
        renamed(false)
      )
    ).toBe(false)
    expect(raisesAgain(atNewName, finding())).toBe(false)
  })

  it('not raised again: stands when the rename left its lines alone, fixed (its reply naming the rename, never the path) when it changed them', () => {
    expect(status(renamed(false))).toEqual({
      finding: renamed(false),
      status: 'carried'
    })
    expect(status(renamed(true))).toMatchObject({
      status: 'fixed',
      thread: 'resolved'
    })
    const reply = resolvedReply('c'.repeat(40), renamed(true).moved)
    expect(reply).toBe(
      'Resolved by MassGen: the file was renamed and these lines changed in cccccccccccc and no agent raised this finding again.'
    )
    expect(reply).not.toContain('ports')
    expect(reply).not.toMatch(/fixed/i)
  })

  it('a file gone that nothing names removed stands (fails closed); a removed file is fixed as before', () => {
    expect(status(finding({ moved: { kind: 'unknown' } }))?.status).toBe(
      'carried'
    )
    expect(status(finding({ moved: { kind: 'removed' } }))).toMatchObject({
      status: 'fixed',
      thread: 'resolved'
    })
    expect(resolvedReply('c'.repeat(40), { kind: 'removed' })).toBe(
      resolvedReply('c'.repeat(40))
    )
  })
})
