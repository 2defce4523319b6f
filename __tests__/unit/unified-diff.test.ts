// The one diff parser (src/core/unified-diff.ts) over real `git diff`
// output, made in a temporary repository: quoted and tab-terminated names,
// renames, copies, binary files, mode changes, new and deleted files, and
// added lines that look like headers.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import {
  fitDiff,
  newSideLines,
  parseDiff
} from '../../src/core/unified-diff.js'
import { rebuildDiff } from '../../src/github/rebuilt-diff.js'

let repo = ''
const git = (...args: string[]) =>
  execFileSync('git', args, {
    cwd: repo,
    encoding: 'utf8',
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
const write = (name: string, text: string | Buffer) => {
  fs.mkdirSync(path.dirname(path.join(repo, name)), { recursive: true })
  fs.writeFileSync(path.join(repo, name), text)
}
const lines = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => `${tag} line ${i + 1}`).join('\n') + '\n'

let diff = ''

beforeAll(() => {
  repo = fs.mkdtempSync(path.join(os.tmpdir(), 'unified-diff-'))
  git('init', '-q', '-b', 'main')
  write('plain.ts', lines(20, 'plain'))
  write('old name.ts', lines(10, 'moved'))
  write('gone.ts', lines(3, 'gone'))
  write('run.sh', 'echo hi\n')
  write('image.bin', Buffer.from([0, 1, 2, 3, 0, 255]))
  write('source.ts', lines(30, 'copied'))
  git('add', '-A')
  git('commit', '-q', '-m', 'base')
  // Changes of every kind.
  write(
    'plain.ts',
    lines(20, 'plain').replace(
      'plain line 5\n',
      'plain line 5\n++ b/evil.ts\ndiff --git a/x b/x\n'
    )
  )
  write('pay ment.ts', 'export const pay = 1\n')
  write('pagamento_é.ts', 'export const pagamento = 2\n')
  git('mv', 'old name.ts', 'new name.ts')
  fs.rmSync(path.join(repo, 'gone.ts'))
  fs.chmodSync(path.join(repo, 'run.sh'), 0o755)
  write('image.bin', Buffer.from([0, 9, 9, 9, 0, 255]))
  write('copy.ts', lines(30, 'copied') + 'one more\n')
  git('add', '-A')
  git('commit', '-q', '-m', 'head')
  diff = git('diff', '-C', '--find-copies-harder', 'HEAD~1', 'HEAD')
})

afterAll(() => {
  fs.rmSync(repo, { recursive: true, force: true })
})

describe('parseDiff over git diff', () => {
  it('names each changed file once, as git knows it', () => {
    const names = parseDiff(diff).files.map((f) => f.path)
    expect(names.sort()).toEqual(
      [
        'copy.ts',
        'gone.ts',
        'image.bin',
        'new name.ts',
        'pagamento_é.ts',
        'pay ment.ts',
        'plain.ts',
        'run.sh'
      ].sort()
    )
  })

  it("reads git's quoted and tab-terminated names", () => {
    // git writes `+++ "b/pagamento_\303\251.ts"` and `+++ b/pay ment.ts<TAB>`.
    expect(diff).toContain('+++ "b/pagamento_\\303\\251.ts"')
    expect(diff).toContain('+++ b/pay ment.ts\t')
    const byName = new Map(parseDiff(diff).files.map((f) => [f.path, f]))
    expect(byName.get('pagamento_é.ts')?.status).toBe('added')
    expect(newSideLines(parseDiff(diff).files).get('pay ment.ts')?.get(1)).toBe(
      'export const pay = 1'
    )
  })

  it('reads renames, copies, deletions, binary files and mode changes', () => {
    const byName = new Map(parseDiff(diff).files.map((f) => [f.path, f]))
    expect(byName.get('new name.ts')).toMatchObject({
      status: 'renamed',
      oldPath: 'old name.ts',
      hunks: []
    })
    expect(byName.get('copy.ts')).toMatchObject({
      status: 'copied',
      oldPath: 'source.ts'
    })
    expect(byName.get('gone.ts')?.status).toBe('deleted')
    expect(byName.get('image.bin')).toMatchObject({ binary: true, hunks: [] })
    expect(byName.get('run.sh')).toMatchObject({
      status: 'modified',
      oldMode: '100644',
      newMode: '100755'
    })
  })

  it('reads added lines that look like headers as code', () => {
    const plain = parseDiff(diff).files.find((f) => f.path === 'plain.ts')
    const added = plain?.hunks.flatMap((h) =>
      h.lines.filter((l) => l.kind === '+').map((l) => [l.new, l.text])
    )
    expect(added).toEqual([
      [6, '++ b/evil.ts'],
      [7, 'diff --git a/x b/x']
    ])
    expect(parseDiff(diff).files.some((f) => f.path === 'evil.ts')).toBe(false)
  })

  it('keeps every byte: the sections joined are the diff', () => {
    const parsed = parseDiff(diff)
    expect(parsed.preamble + parsed.files.map((f) => f.text).join('')).toBe(
      diff
    )
  })

  it('reads quoted names in a binary-only header with no ---/+++ lines', () => {
    write('ç.bin', Buffer.from([0, 1]))
    git('add', '-A')
    git('commit', '-q', '-m', 'binary')
    const own = git('diff', 'HEAD~1', 'HEAD')
    expect(own).toContain('diff --git "a/\\303\\247.bin" "b/\\303\\247.bin"')
    expect(parseDiff(own).files.map((f) => f.path)).toEqual(['ç.bin'])
  })
})

describe('parseDiff over the diff rebuilt from the files list', () => {
  it('names files with spaces, non-ASCII letters and renames as the list does', () => {
    const hunk = '@@ -1 +1 @@\n-a\n+b'
    const { diff } = rebuildDiff([
      { filename: 'pay ment.ts', status: 'modified', changes: 2, patch: hunk },
      {
        filename: 'pagamento_é.ts',
        status: 'added',
        changes: 1,
        patch: '@@ -0,0 +1 @@\n+x'
      },
      {
        filename: 'new name.ts',
        previousFilename: 'old name.ts',
        status: 'renamed',
        changes: 0
      },
      { filename: 'logo.png', status: 'added', changes: 0 }
    ])
    expect(
      parseDiff(diff).files.map((f) => [f.path, f.status, f.oldPath])
    ).toEqual([
      ['pay ment.ts', 'modified', undefined],
      ['pagamento_é.ts', 'added', undefined],
      ['new name.ts', 'renamed', 'old name.ts'],
      ['logo.png', 'modified', undefined]
    ])
  })
})

describe('fitDiff', () => {
  it('cuts per whole file: a large file early is named, later files still fit', () => {
    write('a-large.ts', lines(2000, 'large'))
    write('z-small.ts', 'export const late = 1\n')
    git('add', '-A')
    git('commit', '-q', '-m', 'large then small')
    const parsed = parseDiff(git('diff', 'HEAD~1', 'HEAD'))
    const [large, small] = parsed.files
    const budget = Buffer.byteLength(small?.text ?? '') + 100
    const fitted = fitDiff(parsed, budget)
    expect(fitted.cut).toEqual([
      { path: 'a-large.ts', bytes: Buffer.byteLength(large?.text ?? '') }
    ])
    expect(fitted.kept.map((f) => f.path)).toEqual(['z-small.ts'])
    // The kept file is whole: parsing the result gives it back unchanged.
    expect(parseDiff(fitted.diff).files.map((f) => f.text)).toEqual([
      small?.text
    ])
  })
})
