// `npm run eval` on the local model: the command (scripts/eval.ts under
// Node 24) builds the injected-bug corpus, starts the local model server
// (test-support/local-model.ts, SmolLM2-135M on the CPU) with
// `--model-server`, and reviews one injected case with the real MassGen:
// by the consensus of two agents with the vote on findings, and by each
// model alone. What a 135M model finds is never asserted: only the shape of
// the report (each configuration scored with numbers, or marked failed with
// its reason and left out of the totals, never scored as no findings).
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals'
import { spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as net from 'node:net'
import * as os from 'node:os'
import * as path from 'node:path'
import { liveMarker } from '../../test-support/live.js'
import { inLiveSlot, releaseWhen } from '../../test-support/live-slot.js'
import { localModelFile } from '../../test-support/local-model-process.js'
import { LOCAL_AGENTS } from '../../test-support/local-review.js'
import { NODE24, ROOT } from '../../test-support/run-action.js'
import type { EvalReport } from '../../scripts/eval/evaluate.js'

// Three reviews on a model on the CPU of a loaded machine; each run's own
// bound is its max-duration, this only keeps a stuck run from holding the suite.
jest.setTimeout(3_600_000)

const CASE = 'bug-01-render-clip'
const NAMES = [
  ...LOCAL_AGENTS.map((m) => `single:vllm/${m}`),
  'consensus',
  'vote'
]

let dir: string
let report: EvalReport
let markdown: string
let exitCode: number | null
let stderr: string

function evalCommand(args: string[]): {
  done: Promise<{ code: number | null; stderr: string }>
} {
  const live = liveMarker()
  const child = spawn(
    NODE24,
    [path.join(ROOT, 'scripts', 'eval.ts'), ...args],
    {
      cwd: ROOT,
      env: { ...process.env, ...live.env },
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe']
    }
  )
  live.track(child)
  let err = ''
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
  return {
    done: new Promise((resolve) =>
      child.on('close', (code) => resolve({ code, stderr: err }))
    )
  }
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-eval-local-'))
  const corpus = path.join(dir, 'injected')
  const made = await evalCommand(['corpus-inject', '--out', corpus]).done
  expect(made.code).toBe(0)
  const requests = path.join(dir, 'requests.jsonl')
  const out = path.join(dir, 'scores.json')
  const server = [
    NODE24,
    path.join(ROOT, 'test-support', 'local-model.ts'),
    '--model',
    localModelFile(),
    '--log',
    requests,
    '--seed',
    '1'
  ]
    .map((a) => `'${a}'`)
    .join(' ')
  const run = await inLiveSlot(async (release) => {
    const running = evalCommand([
      '--corpus',
      corpus,
      '--out',
      out,
      '--cases',
      CASE,
      '--model-server',
      `exec ${server}`,
      '--input',
      `models=${LOCAL_AGENTS.map((m) => `vllm/${m}`).join(' ')}`,
      '--input',
      'finding-vote=true',
      '--input',
      'docker=false',
      '--input',
      'max-duration=1800',
      '--jobs',
      '2'
    ]).done
    // MassGen and its first MCP servers have started once the model is asked
    void releaseWhen(
      () => fs.existsSync(requests) && fs.statSync(requests).size > 0,
      release,
      running
    )
    return running
  })
  exitCode = run.code
  stderr = run.stderr
  report = JSON.parse(fs.readFileSync(out, 'utf8')) as EvalReport
  markdown = fs.readFileSync(path.join(dir, 'scores.md'), 'utf8')
}, 3_600_000)
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true })
})

const SCORE_FIELDS = ['tp', 'fp', 'fn', 'false_alarm_hits', 'duplicates']
const RATIOS = ['precision', 'recall', 'f1']
const COST_FIELDS = ['tokens_in', 'tokens_out', 'cost_usd']

function expectRatios(r: Record<string, unknown>): void {
  for (const k of RATIOS)
    expect(
      r[k] === null || (typeof r[k] === 'number' && r[k] >= 0 && r[k] <= 1)
    ).toBe(true)
  for (const k of COST_FIELDS)
    expect(r[k] === null || typeof r[k] === 'number').toBe(true)
  expect(r.seconds).toEqual(expect.any(Number))
}

describe('npm run eval on one injected case with two agents on the local model', () => {
  it('ends, naming each configuration: each model alone, the consensus and the vote', () => {
    expect({ exitCode, tail: stderr.slice(-2000) }).toMatchObject({
      exitCode: 0
    })
    expect(report.models).toEqual(LOCAL_AGENTS.map((m) => `vllm/${m}`))
    expect(Object.keys(report.configs)).toEqual(NAMES)
    expect(Object.keys(report.cases)).toEqual([CASE])
    expect(Object.keys(report.cases[CASE]!.configs).sort()).toEqual(
      [...NAMES].sort()
    )
    expect(stderr).toMatch(new RegExp(`eval: \\[1/1\\] ${CASE}: `))
  })

  it('scores each run with numbers, or marks it failed with its reason (never zero findings)', () => {
    const c = report.cases[CASE]!
    expect(c.expected).toBe(1)
    for (const name of NAMES) {
      const r = c.configs[name] as unknown as Record<string, unknown>
      if (r.status === 'failed') {
        expect(r.reason).toEqual(expect.any(String))
        expect(r).not.toHaveProperty('tp')
        expect(r).not.toHaveProperty('findings')
      } else {
        expect(r.status).toBe('scored')
        for (const k of [...SCORE_FIELDS, 'inline', 'unreadable_blocks'])
          expect(r[k]).toEqual(expect.any(Number))
        expect(Number(r.tp) + Number(r.fn)).toBe(1)
        expect(r.findings).toEqual(expect.any(Array))
      }
      expectRatios(r)
    }
  })

  it('totals only the case every configuration scored, and counts the failed runs', () => {
    const c = report.cases[CASE]!
    const failed = NAMES.filter((n) => c.configs[n]?.status === 'failed')
    expect(report.excluded_cases).toEqual(failed.length > 0 ? [CASE] : [])
    for (const name of NAMES) {
      const t = report.configs[name] as unknown as Record<string, unknown>
      for (const k of SCORE_FIELDS) expect(t[k]).toEqual(expect.any(Number))
      expectRatios(t)
      expect(t.cases_scored).toBe(failed.length > 0 ? 0 : 1)
      expect(t.cases_failed).toBe(failed.includes(name) ? 1 : 0)
    }
  })

  it('writes the Markdown table beside the JSON, a failed run shown as failed', () => {
    for (const name of NAMES) expect(markdown).toContain(`| ${name} | `)
    const row = markdown.split('\n').find((l) => l.startsWith(`| ${CASE} |`))
    const cells = (row ?? '')
      .split('|')
      .slice(3, -1)
      .map((s) => s.trim())
    expect(cells).toHaveLength(NAMES.length)
    for (const cell of cells) expect(cell).toMatch(/^(\d+\/\d+\/\d+|failed)$/)
  })

  it('took base-url from the model server it started, and stopped that server', async () => {
    const asked = fs
      .readFileSync(path.join(dir, 'requests.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { model: string }).model)
    expect([...new Set(asked)].sort()).toEqual(LOCAL_AGENTS)
    const port =
      /eval: model server up at http:\/\/127\.0\.0\.1:(\d+)\/v1/.exec(
        stderr
      )?.[1]
    expect(port).toEqual(expect.any(String))
    const refused = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port: Number(port) })
      socket.once('connect', () => {
        socket.destroy()
        resolve(false)
      })
      socket.once('error', () => resolve(true))
    })
    expect(refused).toBe(true)
  })
})
