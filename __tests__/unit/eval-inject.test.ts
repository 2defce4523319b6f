// The injected-bug corpus (scripts/eval/inject.ts): at least 30 bug cases of
// several kinds and 5 clean ones from this project's src/ at a pinned
// commit, each a readable case whose known problem sits on the lines its
// diff changes, and the same bytes on every run.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals'
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { injectCorpus, MUTATIONS } from '../../scripts/eval/inject.js'
import { readCase } from '../../scripts/eval/corpus.js'
import { listFiles } from '../../test-support/run-action.js'

// About 80 git processes, twice.
jest.setTimeout(60_000)

let out: string[]
const digest = (dirs: string[], root: string) => {
  const hash = createHash('sha256')
  for (const file of dirs.flatMap((d) => listFiles(d)).sort()) {
    hash.update(path.relative(root, file))
    hash.update(fs.readFileSync(file))
  }
  return hash.digest('hex')
}
let roots: string[]
beforeAll(() => {
  roots = [0, 1].map(() =>
    fs.mkdtempSync(path.join(os.tmpdir(), 'eval-inject-'))
  )
  out = injectCorpus(roots[0]!)
})
afterAll(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true })
})

/** Head-side numbers of the lines a diff adds, and the hunks' head ranges. */
function headLines(diff: string): {
  added: Set<number>
  hunks: Array<[number, number]>
} {
  const added = new Set<number>()
  const hunks: Array<[number, number]> = []
  let line = 0
  for (const text of diff.split('\n')) {
    const h = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(text)
    if (h) {
      line = Number(h[1])
      hunks.push([line, line + Number(h[2] ?? 1) - 1])
    } else if (text.startsWith('+') && !text.startsWith('+++'))
      added.add(line++)
    else if (text.startsWith(' ')) line++
  }
  return { added, hunks }
}

describe('the injected-bug corpus', () => {
  it('has at least 30 bug cases of six kinds or more and at least 5 clean ones', () => {
    const bugs = MUTATIONS.filter((m) => m.kind !== 'refactor')
    expect(bugs.length).toBeGreaterThanOrEqual(30)
    expect(new Set(bugs.map((m) => m.kind)).size).toBeGreaterThanOrEqual(6)
    expect(MUTATIONS.length - bugs.length).toBeGreaterThanOrEqual(5)
    expect(out).toHaveLength(MUTATIONS.length)
  })

  it('gives readable cases whose known problem is on the lines the diff changes', () => {
    for (const dir of out) {
      const c = readCase(dir)
      if (c.name.startsWith('clean-')) {
        expect(c.expected).toEqual([])
        continue
      }
      expect(c.expected).toHaveLength(1)
      const k = c.expected[0]!
      const { added, hunks } = headLines(c.diff)
      const lines = Array.from(
        { length: k.end_line - k.start_line + 1 },
        (_, i) => k.start_line + i
      )
      // A deletion adds no line: its place is inside the hunk.
      const onDiff =
        added.size === 0
          ? hunks.some(([a, b]) => k.start_line >= a && k.start_line <= b)
          : lines.every((l) => added.has(l))
      expect({ case: c.name, onDiff }).toEqual({ case: c.name, onDiff: true })
      expect(
        fs.readFileSync(path.join(c.filesDir, k.file), 'utf8').split('\n')
          .length
      ).toBeGreaterThan(k.end_line)
    }
  })

  it('comes out the same byte for byte on every run', () => {
    const again = injectCorpus(roots[1]!)
    expect(digest(again, roots[1]!)).toBe(digest(out, roots[0]!))
  })
})
