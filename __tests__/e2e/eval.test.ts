// `npm run eval` end to end: the command (scripts/eval.ts under Node 24)
// reviews each case of a small corpus (__fixtures__/eval/scripted) through
// the bundled action with the loopback GitHub, three models together and
// each alone, played per model by the MassGen stand-in
// (test-support/eval-massgen.mjs, test-support/eval-script.ts: known answers
// per agent, known votes), and its scores are the ones computed by hand.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { liveMarker } from '../../test-support/live.js'
import { NODE24, ROOT } from '../../test-support/run-action.js'
import { EVAL_MODELS, evalScript } from '../../test-support/eval-script.js'
import type { EvalReport } from '../../scripts/eval/evaluate.js'

const KEY = 'sk-evalOPENAIkey1234567890abcdefXYZ'

let dir: string
let report: EvalReport
let markdown: string
let progress: string[]
let exitCode: number | null

function runEval(
  args: string[],
  env: Record<string, string>
): Promise<{ code: number | null; stderr: string }> {
  const live = liveMarker()
  return new Promise((resolve) => {
    const child = spawn(
      NODE24,
      [path.join(ROOT, 'scripts', 'eval.ts'), ...args],
      {
        cwd: ROOT,
        env: { ...process.env, ...env, ...live.env },
        detached: true,
        stdio: ['ignore', 'ignore', 'pipe']
      }
    )
    live.track(child)
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('close', (code) => resolve({ code, stderr }))
  })
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-eval-test-'))
  // Written by the MassGen stand-in, which local mode runs as nobody.
  fs.chmodSync(dir, 0o777)
  const out = path.join(dir, 'scores.json')
  const server = path.join(dir, 'model-server.mjs')
  fs.writeFileSync(
    server,
    [
      "import * as fs from 'node:fs'",
      `fs.writeFileSync(${JSON.stringify(path.join(dir, 'server.pid'))}, String(process.pid))`,
      "console.log('LLM_SERVER_URL=http://127.0.0.1:19/v1')",
      'setInterval(() => {}, 1000)'
    ].join('\n')
  )
  const run = await runEval(
    [
      '--corpus',
      path.join(ROOT, '__fixtures__', 'eval', 'scripted'),
      '--out',
      out,
      '--input',
      `models=${EVAL_MODELS.join(' ')}`,
      '--input',
      `massgen-command=${path.join(ROOT, 'test-support', 'eval-massgen.mjs')}`,
      // A stand-in for a local model server: its URL becomes base-url (the
      // MassGen stand-in never calls it), and it is stopped at the end.
      '--model-server',
      `exec ${NODE24} ${server}`,
      '--input',
      'min-agreement=2',
      '--env',
      'FAKE_MASSGEN_EVAL',
      '--env',
      'FAKE_MASSGEN_RECORD',
      '--jobs',
      '2'
    ],
    // The key as a team gives it: from the environment.
    {
      FAKE_MASSGEN_EVAL: JSON.stringify(evalScript()),
      FAKE_MASSGEN_RECORD: path.join(dir, 'record.json'),
      OPENAI_API_KEY: KEY
    }
  )
  exitCode = run.code
  progress = run.stderr.split('\n').filter((l) => /^eval: \[\d+\/3\]/.test(l))
  report = JSON.parse(fs.readFileSync(out, 'utf8')) as EvalReport
  markdown = fs.readFileSync(path.join(dir, 'scores.md'), 'utf8')
})
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true })
})

const counts = (x: unknown) => {
  const r = x as Record<string, unknown>
  return r.status === 'failed'
    ? 'failed'
    : [r.tp, r.fp, r.fn, r.false_alarm_hits, r.duplicates].join('/')
}

describe('npm run eval: scores by hand, each model alone, the consensus and the vote', () => {
  it('scores every case and configuration as computed by hand (tp/fp/fn/false-alarm hits/duplicates)', () => {
    expect(exitCode).toBe(0)
    const table = Object.fromEntries(
      Object.entries(report.cases).map(([name, c]) => [
        name,
        Object.fromEntries(
          Object.entries(c.configs).map(([n, r]) => [n, counts(r)])
        )
      ])
    )
    expect(table).toEqual({
      'case-a-bugs': {
        // One finding near two known problems takes one of them.
        'single:vllm/model-a': '1/0/2/0/0',
        // Two findings on one known problem: the second is a duplicate.
        'single:vllm/model-b': '1/1/2/0/1',
        // The finding on src/other.ts was dropped by the action; the one on
        // the `tp: false` entry is a false positive, counted apart.
        'single:vllm/model-c': '0/1/3/1/0',
        // min-agreement 2: only the group of model-a and model-b.
        consensus: '1/0/2/0/0',
        vote: '1/0/2/0/0'
      },
      'case-b-clean': {
        'single:vllm/model-a': '0/1/0/0/0',
        // An unreadable findings block: no finding, not a failed run.
        'single:vllm/model-b': '0/0/0/0/0',
        'single:vllm/model-c': '0/1/0/0/0',
        consensus: '0/1/0/0/0',
        // Two of three rejected it in the vote.
        vote: '0/0/0/0/0'
      },
      'case-c-failed': {
        'single:vllm/model-a': '1/0/0/0/0',
        'single:vllm/model-b': '0/0/1/0/0',
        // A crashed run is reported failed, never scored as no findings.
        'single:vllm/model-c': 'failed',
        consensus: 'failed',
        vote: 'failed'
      }
    })
    const b = report.cases['case-b-clean']!.configs
    expect(b['single:vllm/model-b']).toMatchObject({
      unreadable_blocks: 1,
      precision: null,
      recall: null
    })
    expect(b.consensus).toMatchObject({ unreadable_blocks: 1 })
    expect(
      report.cases['case-c-failed']!.configs['single:vllm/model-c']
    ).toMatchObject({
      status: 'failed',
      reason: expect.stringContaining("status was 'failed'")
    })
  })

  it('totals the cases every configuration scored, with precision, recall and F1 of the sums', () => {
    expect(report.excluded_cases).toEqual(['case-c-failed'])
    const pick = (n: string) => {
      const t = report.configs[n]!
      return [
        t.tp,
        t.fp,
        t.fn,
        t.precision,
        t.recall,
        t.f1,
        t.inline,
        t.cases_scored,
        t.cases_failed
      ]
    }
    expect(pick('single:vllm/model-a')).toEqual([
      1,
      1,
      2,
      0.5,
      1 / 3,
      0.4,
      2,
      2,
      0
    ])
    expect(pick('single:vllm/model-b')).toEqual([
      1,
      1,
      2,
      0.5,
      1 / 3,
      0.4,
      2,
      2,
      0
    ])
    expect(pick('single:vllm/model-c')).toEqual([0, 2, 3, 0, 0, 0, 2, 2, 1])
    expect(pick('consensus')).toEqual([1, 1, 2, 0.5, 1 / 3, 0.4, 2, 2, 1])
    expect(pick('vote')).toEqual([1, 0, 2, 1, 1 / 3, 0.5, 1, 2, 1])
    // The stand-in's MassGen reports 1,200 in / 340 out tokens and $0.0123
    // per run; the vote adds its round's tokens.
    expect(report.configs['single:vllm/model-a']).toMatchObject({
      tokens_in: 2400,
      tokens_out: 680,
      cost_usd: 0.0246
    })
    expect(report.configs.consensus).toMatchObject({
      tokens_in: 2400,
      tokens_out: 680
    })
    expect(report.configs.vote).toMatchObject({
      tokens_in: 4800,
      tokens_out: 1360
    })
    expect(report.configs.vote!.seconds).toBeGreaterThan(0)
  })

  it('takes base-url from the model server it started, and stops that server', () => {
    const record = JSON.parse(
      fs.readFileSync(path.join(dir, 'record.json'), 'utf8')
    ) as { config: string }
    expect(record.config).toContain('base_url: http://127.0.0.1:19/v1')
    const pid = Number(fs.readFileSync(path.join(dir, 'server.pid'), 'utf8'))
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/)
  })

  it('prints a progress line per case with running totals, and writes the Markdown table beside the JSON', () => {
    expect(progress).toHaveLength(3)
    expect(progress.join('\n')).toContain('totals so far: single:vllm/model-a')
    expect(markdown).toContain(
      '| vote | 1 | 0 | 0 | 2 | 100.0% | 33.3% | 50.0% | 1 |'
    )
    expect(markdown).toContain(
      '| case-c-failed | 1 | 1/0/0 | 0/0/1 | failed | failed | failed |'
    )
    expect(JSON.stringify(report) + markdown).not.toContain(KEY)
  })
})
