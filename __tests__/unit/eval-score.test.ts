// The evaluation's scoring rules (scripts/eval/score.ts, select.ts) and its
// corpus checks (corpus.ts), on hand-made findings: docs/evaluation.md says
// the same in prose.
import { describe, expect, it } from '@jest/globals'
import {
  overlaps,
  scoreCase,
  sumScores,
  type KnownProblem
} from '../../scripts/eval/score.js'
import {
  consensusInline,
  consensusOf,
  votedOf,
  type ActionFinding
} from '../../scripts/eval/select.js'
import {
  checkExpected,
  diffFiles,
  readCorpus
} from '../../scripts/eval/corpus.js'
import { ROOT } from '../../test-support/run-action.js'
import * as path from 'node:path'
import { evaluate } from '../../scripts/eval/evaluate.js'

const known = (
  start_line: number,
  end_line: number,
  extra: Partial<KnownProblem> = {}
): KnownProblem => ({ file: 'src/x.ts', start_line, end_line, ...extra })
const at = (line: number, start_line?: number, file = 'src/x.ts') => ({
  file,
  line,
  ...(start_line ? { start_line } : {})
})

describe('matching a finding to a known problem', () => {
  it('needs the same file and ranges that overlap within the tolerance', () => {
    expect(overlaps(at(13), known(10, 10))).toBe(true)
    expect(overlaps(at(14), known(10, 10))).toBe(false)
    expect(overlaps(at(14), known(10, 10), 4)).toBe(true)
    expect(overlaps(at(9, 2), known(10, 12), 0)).toBe(false)
    expect(overlaps(at(10, 2), known(10, 12), 0)).toBe(true)
    expect(overlaps(at(10, undefined, 'src/y.ts'), known(10, 10))).toBe(false)
  })

  it('matches each known problem at most once, and as many as a pairing allows', () => {
    // Finding 0 fits both; finding 1 only the first: both pair up.
    const s = scoreCase([at(12, 11), at(9)], [known(10, 10), known(15, 15)])
    expect(s).toMatchObject({
      tp: 2,
      fp: 0,
      fn: 0,
      precision: 1,
      recall: 1,
      f1: 1
    })
    // One finding near two known problems takes one; the other is a miss.
    expect(scoreCase([at(12)], [known(10, 10), known(15, 15)])).toMatchObject({
      tp: 1,
      fp: 0,
      fn: 1,
      recall: 0.5
    })
  })

  it('counts a second finding on a taken problem and a hit on a tp:false entry as false positives, apart', () => {
    const s = scoreCase(
      [at(10), at(11), at(40), at(80)],
      [known(10, 10), known(40, 40, { tp: false })]
    )
    expect(s).toMatchObject({
      tp: 1,
      fp: 3,
      fn: 0,
      duplicates: 1,
      false_alarm_hits: 1,
      precision: 0.25,
      recall: 1
    })
  })

  it('leaves a tp:false entry nobody reports out of the misses, and a clean case without ratios', () => {
    expect(scoreCase([], [known(40, 40, { tp: false })])).toMatchObject({
      tp: 0,
      fp: 0,
      fn: 0,
      precision: null,
      recall: null,
      f1: null
    })
    expect(scoreCase([at(3)], [])).toMatchObject({
      fp: 1,
      precision: 0,
      recall: null,
      f1: null
    })
  })

  it('totals counts over cases and takes the ratios of the sums', () => {
    const a = scoreCase([at(10)], [known(10, 10), known(50, 50)])
    const b = scoreCase([at(70)], [])
    expect(sumScores([a, b])).toMatchObject({
      tp: 1,
      fp: 1,
      fn: 1,
      precision: 0.5,
      recall: 0.5,
      f1: 0.5
    })
  })
})

const group = (over: Partial<ActionFinding>): ActionFinding => ({
  file: 'src/x.ts',
  line: 1,
  severity: 'concern',
  agreement: 1,
  confirmed: null,
  rejected: null,
  pr_text_only: null,
  posted: 'hidden',
  ...over
})
const limits = {
  minAgreement: 2,
  minSeverity: 'concern' as const,
  maxInline: 1
}

describe('what each configuration reports', () => {
  it('the consensus: raised by min-agreement agents; inline at min-severity, capped', () => {
    const all = [
      group({ agreement: 3, severity: 'blocker' }),
      group({ agreement: 2, severity: 'concern' }),
      group({ agreement: 2, severity: 'nit' }),
      group({ agreement: 1 })
    ]
    expect(consensusOf(all, limits)).toHaveLength(3)
    expect(consensusInline(all, limits)).toBe(1)
    expect(consensusInline(all, { ...limits, maxInline: 10 })).toBe(2)
  })

  it('the vote: confirmed by min-agreement, more confirmed than rejected, not the PR text alone', () => {
    const all = [
      group({ confirmed: 2, rejected: 1 }),
      group({ confirmed: 2, rejected: 2 }),
      group({ confirmed: 3, rejected: 0, pr_text_only: true }),
      group({ confirmed: 1, rejected: 0, agreement: 3 }),
      // Past the vote's cap: its raisers' word.
      group({ confirmed: null, agreement: 2 })
    ]
    expect(votedOf(all, limits)).toEqual([all[0], all[4]])
    // A round that gave nothing on any finding is no score of the vote.
    expect(votedOf([group({ agreement: 3 })], limits)).toBeUndefined()
    expect(votedOf([], limits)).toEqual([])
  })
})

describe('the corpus format', () => {
  it('reads expected.json, ignoring other keys, and names the form on a bad entry', () => {
    expect(
      checkExpected('c', [
        { file: 'a.ts', start_line: 2, end_line: 3, tp: false, note: 'x' }
      ])
    ).toEqual([{ file: 'a.ts', start_line: 2, end_line: 3, tp: false }])
    expect(() =>
      checkExpected('c', [{ file: 'a.ts', start_line: 4, end_line: 3 }])
    ).toThrow(/corpus case 'c', expected.json: entry 0: expected an array of/)
    expect(() => checkExpected('c', {})).toThrow(/\[\] for a clean change/)
  })

  it('picks the cases --cases names, and names the cases there are for one that is not', () => {
    const root = path.join(ROOT, '__fixtures__', 'eval', 'scripted')
    expect(readCorpus(root, ['case-b-clean']).map((c) => c.name)).toEqual([
      'case-b-clean'
    ])
    expect(() => readCorpus(root, ['case-z'])).toThrow(
      /--cases: no such case .*: case-z \(cases: case-a-bugs, case-b-clean, case-c-failed\)/
    )
  })

  it('lists the changed files of a diff as GitHub does', () => {
    const diff = [
      'diff --git a/src/a.ts b/src/a.ts',
      '--- a/src/a.ts',
      '+++ b/src/a.ts',
      '@@ -1,2 +1,2 @@',
      '-old',
      '+new',
      ' same',
      'diff --git a/src/b.ts b/src/b.ts',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/src/b.ts',
      '@@ -0,0 +1 @@',
      '+--- not a header'
    ].join('\n')
    expect(diffFiles(diff)).toEqual([
      { filename: 'src/a.ts', status: 'modified', additions: 1, deletions: 1 },
      { filename: 'src/b.ts', status: 'added', additions: 1, deletions: 0 }
    ])
  })
})

describe('evaluate, with the runs given', () => {
  const measured = {
    cost_usd: 0.01,
    tokens_in: 100,
    tokens_out: 20,
    seconds: 2
  }
  const aCase = (name: string, expected: KnownProblem[]) => ({
    name,
    dir: '/nowhere',
    title: name,
    body: '',
    diff: '',
    filesDir: '/nowhere',
    expected
  })

  it('scores a vote with nothing to vote on as no findings, and leaves a case with a failed run out of every total', async () => {
    const lines: string[] = []
    const report = await evaluate({
      cases: [aCase('clean', []), aCase('broken', [known(1, 1)])],
      inputs: { models: 'vllm/a vllm/a' },
      jobs: 2,
      tolerance: 3,
      say: (l) => lines.push(l),
      run: async (c, settings) => {
        if (c.name === 'clean')
          return { ok: true, findings: [], answers: measured, unreadable: 0 }
        // A run that cannot even be made is failed too, not the end of all.
        if (settings.inputs['finding-vote'] === 'false')
          throw new Error('no port left')
        return { ok: false, reason: 'crashed', answers: measured }
      }
    })
    expect(Object.keys(report.configs)).toEqual([
      'single:vllm/a',
      'consensus',
      'vote'
    ])
    expect(report.cases.clean!.configs.vote).toMatchObject({
      status: 'scored',
      tp: 0,
      fp: 0,
      fn: 0,
      tokens_in: 100
    })
    expect(report.cases.broken!.configs.vote).toMatchObject({
      status: 'failed',
      reason: 'crashed'
    })
    expect(report.cases.broken!.configs['single:vllm/a']).toMatchObject({
      status: 'failed',
      reason: 'the run could not be made: Error: no port left'
    })
    expect(report.excluded_cases).toEqual(['broken'])
    expect(report.configs.consensus).toMatchObject({
      cases_scored: 1,
      cases_failed: 1,
      fn: 0
    })
    expect(lines).toHaveLength(2)
  })

  it('with --keep, gives each run a folder of its own: <keep>/<case>/<configuration>', async () => {
    const folders: string[] = []
    await evaluate({
      cases: [aCase('bug-01', [])],
      inputs: { models: 'vllm/local-a vllm/local-b' },
      jobs: 1,
      tolerance: 3,
      keep: '/kept',
      say: () => undefined,
      run: async (_c, settings) => {
        folders.push(settings.keep ?? '')
        return { ok: true, findings: [], answers: measured, unreadable: 0 }
      }
    })
    expect(folders).toEqual([
      '/kept/bug-01/consensus',
      '/kept/bug-01/single_vllm_local-a',
      '/kept/bug-01/single_vllm_local-b'
    ])
  })
})
