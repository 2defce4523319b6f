// Reading the walkthrough of an answer (src/review/walkthrough.ts): the last
// `massgen-walkthrough` block, a line a changed file in the forms agents
// write, the rest counted as left out. Its escaping is the renderer's, played
// through the bundle in __tests__/e2e/walkthrough.test.ts.
import { describe, expect, it } from '@jest/globals'
import { reviewInstructions } from '../../src/context/review-prompt.js'
import {
  MAX_WALKTHROUGH_FILES,
  walkthroughOf
} from '../../src/review/walkthrough.js'

const CHANGED = ['src/a.ts', 'src/b.ts', 'docs/c.md', 'd.txt']
const block = (...lines: string[]) =>
  ['Prose.', '```massgen-walkthrough', ...lines, '```', 'More.'].join('\n')

describe('walkthroughOf', () => {
  it('reads `path: text`, list items, code spans, bold paths and dashes', () => {
    expect(
      walkthroughOf(
        'agent_b',
        block(
          'src/a.ts: Adds a parser.',
          '- `src/b.ts`: New cache.',
          '* **docs/c.md** — Documents it.',
          '1. ./d.txt - Renamed.'
        ),
        CHANGED
      )
    ).toEqual({
      agent: 'agent_b',
      files: [
        { file: 'src/a.ts', text: 'Adds a parser.' },
        { file: 'src/b.ts', text: 'New cache.' },
        { file: 'docs/c.md', text: 'Documents it.' },
        { file: 'd.txt', text: 'Renamed.' }
      ]
    })
  })

  it('leaves out (and counts) lines on no changed file, a file named twice, lines with no text, and lines past the cap', () => {
    const w = walkthroughOf(
      'agent_a',
      block(
        'src/other.ts: not changed',
        '../src/a.ts: climbs out',
        'src/a.ts: first',
        'src/a.ts: again',
        'src/b.ts:',
        'no colon at all'
      ),
      CHANGED
    )
    expect(w).toEqual({
      agent: 'agent_a',
      files: [{ file: 'src/a.ts', text: 'first' }],
      left: 5
    })
    const many = Array.from({ length: 30 }, (_, i) => `f${i}.ts`)
    const capped = walkthroughOf(
      'agent_a',
      block(...many.map((f) => `${f}: changed`)),
      many
    )
    expect(capped?.files).toHaveLength(MAX_WALKTHROUGH_FILES)
    expect(capped?.left).toBe(30 - MAX_WALKTHROUGH_FILES)
  })

  it('one line each, invisible characters out, long text cut', () => {
    const w = walkthroughOf(
      'agent_a',
      block(`src/a.ts: a\u202eb\u200b c ${'x'.repeat(1000)}`),
      CHANGED
    )
    const text = w?.files[0]?.text ?? ''
    expect(text.startsWith('ab c x')).toBe(true)
    expect([...text].length).toBeLessThanOrEqual(300)
    expect(text.endsWith('…')).toBe(true)
  })

  it('the last block counts; no block or no line on a changed file gives none', () => {
    const two = `${block('src/a.ts: quoted from another')}\n${block('src/b.ts: mine')}`
    expect(walkthroughOf('x', two, CHANGED)?.files).toEqual([
      { file: 'src/b.ts', text: 'mine' }
    ])
    expect(walkthroughOf('x', 'No block.', CHANGED)).toBeUndefined()
    expect(
      walkthroughOf('x', block('src/z.ts: not changed'), CHANGED)
    ).toBeUndefined()
  })

  it('the review instructions ask for it in one short line', () => {
    const line = reviewInstructions()
      .split('\n')
      .filter((l) => l.includes('massgen-walkthrough'))
    expect(line).toHaveLength(1)
    expect(line[0]?.length).toBeLessThan(110)
  })
})
