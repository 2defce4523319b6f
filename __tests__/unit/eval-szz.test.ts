// corpus-from-git (scripts/eval/szz.ts) on a repository the test makes: a
// change adds lines, a later fix changes two of them; the change becomes a
// case whose known problems are those two lines, as they were in it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { corpusFromGit } from '../../scripts/eval/szz.js'
import { readCase } from '../../scripts/eval/corpus.js'

let repo: string
let out: string
const git = (...args: string[]) =>
  execFileSync('git', ['-C', repo, ...args], {
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Eval',
      GIT_AUTHOR_EMAIL: 'eval@example.com',
      GIT_COMMITTER_NAME: 'Eval',
      GIT_COMMITTER_EMAIL: 'eval@example.com'
    }
  })
const commit = (file: string, lines: string[], message: string) => {
  fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true })
  fs.writeFileSync(path.join(repo, file), `${lines.join('\n')}\n`)
  git('add', '-A')
  git('commit', '-q', '-m', message)
  return git('rev-parse', 'HEAD').trim()
}

const base = [
  'export function sum(xs: number[]) {',
  '  let total = 0',
  '  return total',
  '}'
]
const change = [
  'export function sum(xs: number[]) {',
  '  let total = 0',
  '  for (let i = 0; i <= xs.length; i++) {',
  '    total += xs[i + 1]',
  '  }',
  '  log(total)',
  '  return total',
  '}'
]
const fixed = [...change]
fixed[2] = '  for (let i = 0; i < xs.length; i++) {'
fixed[3] = '    total += xs[i]'

let changeSha: string
beforeAll(() => {
  repo = fs.mkdtempSync(path.join(os.tmpdir(), 'eval-szz-repo-'))
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'eval-szz-out-'))
  git('init', '-q', '-b', 'main')
  commit('src/sum.ts', base, 'Add sum')
  commit('src/old.ts', ['export const old = 1'], 'Add old')
  changeSha = commit('src/sum.ts', change, 'Sum the list in a loop')
  commit('README.md', ['# sum'], 'Document sum')
  commit('src/sum.ts', fixed, 'Fix the off-by-one in sum')
  // A fix that deletes a file changed none of its lines: nothing to blame.
  git('rm', '-q', 'src/old.ts')
  git('commit', '-q', '-m', 'Fix the build: drop old.ts')
})
afterAll(() => {
  fs.rmSync(repo, { recursive: true, force: true })
  fs.rmSync(out, { recursive: true, force: true })
})

describe('corpus-from-git (SZZ)', () => {
  it('makes the change a later fix corrected a case, with the lines the fix changed expected', () => {
    const dirs = corpusFromGit({ repo, out, maxCases: 10 })
    expect(dirs.map((d) => path.basename(d))).toEqual([
      `${changeSha.slice(0, 10)}-sum-the-list-in-a-loop`
    ])
    const c = readCase(dirs[0]!)
    // Lines 3 and 4 of the change (one range), as numbered in it.
    expect(c.expected).toEqual([
      { file: 'src/sum.ts', start_line: 3, end_line: 4 }
    ])
    expect(c.title).toBe('Sum the list in a loop')
    expect(c.diff).toContain('diff --git a/src/sum.ts b/src/sum.ts')
    expect(c.diff).toContain('+    total += xs[i + 1]')
    expect(
      fs.readFileSync(path.join(c.filesDir, 'src', 'sum.ts'), 'utf8')
    ).toBe(`${change.join('\n')}\n`)
  })
})
