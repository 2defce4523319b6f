// Reading the checked-out commit from `.git` without git: only HEAD, a loose
// ref or packed-refs, never through a link, never a FIFO, never a ref name
// that climbs out of `.git`.
import { afterEach, describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { readCheckedOutCommit } from '../../src/safety/checked-out-commit.js'

const SHA = '0123456789abcdef0123456789abcdef01234567'
const made: string[] = []
afterEach(() => {
  for (const dir of made.splice(0))
    fs.rmSync(dir, { recursive: true, force: true })
})

function workspace(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'checked-out-'))
  made.push(dir)
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    fs.writeFileSync(path.join(dir, name), text)
  }
  return dir
}

describe('readCheckedOutCommit', () => {
  it('a detached HEAD, a loose branch ref, a packed one', () => {
    const detached = workspace({ '.git/HEAD': `${SHA}\n` })
    expect(readCheckedOutCommit(detached, detached)).toEqual({
      known: true,
      sha: SHA,
      repo: '.'
    })
    const loose = workspace({
      '.git/HEAD': 'ref: refs/heads/fast\n',
      '.git/refs/heads/fast': `${SHA}\n`
    })
    expect(readCheckedOutCommit(loose, loose)).toMatchObject({ sha: SHA })
    const packed = workspace({
      '.git/HEAD': 'ref: refs/heads/fast\n',
      '.git/packed-refs': `# pack-refs with: peeled fully-peeled sorted\n${'f'.repeat(40)} refs/heads/main\n${SHA} refs/heads/fast\n`
    })
    expect(readCheckedOutCommit(packed, packed)).toMatchObject({ sha: SHA })
  })

  it('the nearest repository holding context-path (a checkout with `path:`)', () => {
    const dir = workspace({ 'repo/.git/HEAD': SHA, 'repo/src/a.ts': '' })
    expect(
      readCheckedOutCommit(dir, path.join(dir, 'repo', 'src', 'a.ts'))
    ).toEqual({
      known: true,
      sha: SHA,
      repo: 'repo'
    })
  })

  it('a .git that is a link, a HEAD that is a link or a FIFO: not read', () => {
    const elsewhere = workspace({ '.git/HEAD': SHA })
    const linked = workspace({})
    fs.symlinkSync(path.join(elsewhere, '.git'), path.join(linked, '.git'))
    expect(readCheckedOutCommit(linked, linked).known).toBe(false)
    const headLink = workspace({ 'real-head': SHA })
    fs.mkdirSync(path.join(headLink, '.git'))
    fs.symlinkSync(
      path.join(headLink, 'real-head'),
      path.join(headLink, '.git', 'HEAD')
    )
    expect(readCheckedOutCommit(headLink, headLink).known).toBe(false)
    const fifo = workspace({})
    fs.mkdirSync(path.join(fifo, '.git'))
    execFileSync('mkfifo', [path.join(fifo, '.git', 'HEAD')])
    expect(readCheckedOutCommit(fifo, fifo).known).toBe(false)
  })

  it('a ref that climbs out of .git, or names no commit: unknown', () => {
    const climbs = workspace({
      '.git/HEAD': 'ref: refs/../../secret\n',
      secret: SHA
    })
    expect(readCheckedOutCommit(climbs, climbs).known).toBe(false)
    const junk = workspace({
      '.git/HEAD': 'ref: refs/heads/x\n',
      '.git/refs/heads/x': 'nope'
    })
    expect(readCheckedOutCommit(junk, junk).known).toBe(false)
    const huge = workspace({ '.git/HEAD': 'x'.repeat(10_000) })
    expect(readCheckedOutCommit(huge, huge).known).toBe(false)
  })

  it('a context path outside the workspace: unknown', () => {
    const dir = workspace({ '.git/HEAD': SHA })
    expect(readCheckedOutCommit(dir, path.dirname(dir)).known).toBe(false)
  })
})
