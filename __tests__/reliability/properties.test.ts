// Property tests of the parsers that take untrusted or user-written text:
// models, comment commands, MassGen's stdout lines and log paths, and the
// report as it is posted. Each property's case count goes to the tally.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { parseCommand } from '../../src/event/command.js'
import { stickyMarker } from '../../src/github/sticky-marker.js'
import { LogReader } from '../../src/safety/log-reader.js'
import { readRunFiles } from '../../src/results/log-files.js'
import {
  ModelsError,
  parseModels,
  selectAgents
} from '../../src/inputs/models.js'
import {
  foldOutputLine,
  stripAnsi,
  type OutputHints
} from '../../src/run/output-lines.js'
import { renderReport } from '../../src/report/render.js'
import { commentBudget } from '../../src/report/report.js'
import {
  BACKENDS,
  type AgentResult,
  type ApiKeys,
  type Outcome,
  type RunResult
} from '../../src/core/types.js'
import { detailsBalance, unclosedFence } from '../unit/markdown-oracle.js'
import { tally, tempDir } from './support.js'

/** fc.assert with the case count added to the tally. */
function check<T>(
  runs: number,
  arb: fc.Arbitrary<T>,
  predicate: (value: T) => void
): void {
  fc.assert(
    fc.property(arb, (v) => {
      predicate(v)
    }),
    { numRuns: runs }
  )
  tally('propertyCases', runs)
}

const ZERO_WIDTH = [
  '\u200B',
  '\u200C',
  '\u200D',
  '\u2060',
  '\uFEFF',
  '\u00AD',
  '\u202E',
  '\u2066',
  '\u034F',
  '\u180E',
  '\uDB40\uDC41'
]
const INVISIBLE =
  /[\u200B-\u200F\u2028-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\u00AD\u180E]|\u034F|\uDB40[\uDC00-\uDC7F]/

describe('models parser', () => {
  const word = fc.oneof(
    fc.constantFrom(
      ...BACKENDS,
      ...BACKENDS.map((b) => b.toUpperCase()),
      'azure',
      'openai ',
      'gpt-5.4',
      'Qwen/Qwen3-8B',
      ''
    ),
    fc.string({ maxLength: 8 }),
    fc.string({ unit: 'binary', maxLength: 6 })
  )
  const sep = fc.constantFrom(
    '/',
    '/',
    ' ',
    ',',
    '\n',
    '\t',
    '//',
    ', ',
    '\u00A0',
    '\u3000'
  )
  const text = fc
    .array(fc.oneof(word, sep), { maxLength: 30 })
    .map((p) => p.join(''))
  const keys: fc.Arbitrary<ApiKeys> = fc.record(
    {
      openai: fc.constant('k1'),
      google: fc.constant('k2'),
      anthropic: fc.constant('k3'),
      xai: fc.constant('k4')
    },
    { requiredKeys: [] }
  )

  it('parseModels throws nothing but ModelsError, and what it returns is valid', () => {
    check(3000, text, (t) => {
      try {
        const specs = parseModels(t)
        const seen = new Set<string>()
        for (const s of specs) {
          expect(BACKENDS).toContain(s.backend)
          expect(s.model.length).toBeGreaterThan(0)
          expect(s.model).not.toMatch(/[\s,]/)
          expect(seen.has(`${s.backend}/${s.model}`)).toBe(false)
          seen.add(`${s.backend}/${s.model}`)
        }
      } catch (e) {
        expect(e).toBeInstanceOf(ModelsError)
        expect((e as Error).message).toMatch(/^Input 'models': /)
      }
    })
  })

  it('selectAgents throws nothing but ModelsError, and keeps only agents it can run', () => {
    const arb = fc.record({
      t: text,
      keys,
      docker: fc.boolean(),
      baseUrl: fc.option(fc.constant('http://127.0.0.1:8000/v1'), {
        nil: undefined
      })
    })
    check(3000, arb, ({ t, keys: k, docker, baseUrl }) => {
      try {
        const { agents } = selectAgents(parseModels(t), k, { docker, baseUrl })
        expect(agents.length).toBeGreaterThan(0)
        expect(new Set(agents.map((a) => a.id)).size).toBe(agents.length)
        for (const a of agents) {
          expect(a.id).toMatch(/^agent_[a-z]{1,2}$/)
          if (!docker) expect(['codex', 'claude_code']).not.toContain(a.backend)
          if (!baseUrl)
            expect(['vllm', 'chatcompletion']).not.toContain(a.backend)
        }
      } catch (e) {
        expect(e).toBeInstanceOf(ModelsError)
      }
    })
  })
})

describe('comment command parser', () => {
  const piece = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        '/massgen',
        '/MassGen',
        '/massgen ',
        '<!--',
        '-->',
        '--!>',
        '<!-',
        '->',
        '\n',
        ' ',
        'why?',
        '@octocat',
        '\r\n',
        '\u2028'
      )
    },
    { weight: 3, arbitrary: fc.constantFrom(...ZERO_WIDTH) },
    { weight: 3, arbitrary: fc.string({ maxLength: 6 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) }
  )
  const body = fc.array(piece, { maxLength: 40 }).map((p) => p.join(''))
  const trigger = fc.oneof(
    fc.constantFrom('/massgen', 'massgen', '/ask', '/m.g-x_1'),
    fc.string({ maxLength: 6 })
  )

  it('never throws; a question has no HTML comment and no invisible character', () => {
    check(4000, fc.tuple(body, trigger), ([b, t]) => {
      const parsed = parseCommand(b, t)
      expect(['command', 'not-command', 'empty']).toContain(parsed.kind)
      if (parsed.kind === 'command') {
        expect(parsed.question).not.toContain('<!--')
        expect(parsed.question).not.toMatch(INVISIBLE)
        expect(parsed.question).toBe(parsed.question.trim())
        expect(parsed.question.length).toBeGreaterThan(0)
      }
    })
  })

  it('never throws on values that are not even strings', () => {
    check(500, fc.tuple(fc.anything(), fc.anything()), ([b, t]) => {
      parseCommand(b as string, t as string)
    })
  })
})

describe('paths from MassGen output and the log folder', () => {
  let root: string
  let cwd: string
  let logBase: string
  let logDir: string
  let outside: string
  const SECRET = 'OUTSIDE-THE-LOG-DIR-7f3a'

  beforeAll(() => {
    root = fs.realpathSync(tempDir('paths'))
    cwd = path.join(root, 'work')
    logBase = path.join(cwd, '.massgen', 'massgen_logs')
    logDir = path.join(logBase, 'log_20261130_120000_000001')
    outside = path.join(root, 'outside')
    const attempt = path.join(logDir, 'turn_1', 'attempt_1')
    fs.mkdirSync(path.join(attempt, 'agent_a', '20261130_120000_000000'), {
      recursive: true
    })
    fs.mkdirSync(path.join(attempt, 'final', 'agent_a'), { recursive: true })
    fs.mkdirSync(outside, { recursive: true })
    fs.writeFileSync(path.join(outside, 'secret.txt'), SECRET)
    fs.writeFileSync(path.join(outside, 'answer.txt'), SECRET)
    fs.writeFileSync(path.join(cwd, 'answer.txt'), SECRET)
    fs.writeFileSync(path.join(logBase, 'answer.txt'), SECRET)
    fs.writeFileSync(
      path.join(attempt, 'final', 'agent_a', 'answer.txt'),
      'the real answer'
    )
    fs.writeFileSync(
      path.join(attempt, 'agent_a', '20261130_120000_000000', 'answer.txt'),
      'an answer'
    )
    // Links from inside to outside: to a file, to a folder, relative and absolute.
    fs.symlinkSync(
      path.join(outside, 'secret.txt'),
      path.join(attempt, 'link-file')
    )
    fs.symlinkSync(outside, path.join(attempt, 'link-dir'))
    fs.symlinkSync(
      '../../../../../outside/secret.txt',
      path.join(attempt, 'rel-link')
    )
    fs.symlinkSync(
      '/etc/passwd',
      path.join(attempt, 'final', 'agent_a', 'passwd')
    )
    // A link a spoofing agent could plant where the reader looks for answers.
    fs.mkdirSync(path.join(attempt, 'agent_b'), { recursive: true })
    fs.symlinkSync(
      outside,
      path.join(attempt, 'agent_b', '20261130_120001_000000')
    )
  })

  afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

  const segments = () =>
    fc.constantFrom(
      '..',
      '.',
      '',
      'turn_1',
      'attempt_1',
      'final',
      'agent_a',
      'answer.txt',
      'status.json',
      'link-file',
      'link-dir',
      'rel-link',
      'secret.txt',
      'outside',
      'passwd',
      '.massgen',
      'massgen_logs',
      'log_20261130_120000_000001',
      'etc',
      '~',
      ' '
    )
  const pathArb = () =>
    fc
      .tuple(
        fc.constantFrom('', '/', 'ROOT', 'BASE', 'LOG', 'CWD'),
        fc.array(segments(), { maxLength: 8 })
      )
      .map(([start, segs]) => {
        const head =
          {
            '': '',
            '/': '/',
            ROOT: root,
            BASE: logBase,
            LOG: logDir,
            CWD: cwd
          }[start] ?? ''
        return [head, ...segs].join('/').replace(/^\/\//, '/')
      })
  const inside = (p: string, dir: string) => {
    const rel = path.relative(dir, p)
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))
  }

  it('foldOutputLine accepts no path outside LOG_DIR and the log base, whatever the lines', () => {
    const line = fc
      .tuple(
        fc.constantFrom(
          'LOG_DIR',
          'STATUS',
          'ANSWER_FILE',
          'ANSWER',
          'WINNER',
          'QUESTION',
          'ANSWER_PREVIEW'
        ),
        fc.constantFrom(': ', ':', ':  ', ': \u001b[1m'),
        pathArb(),
        fc.constantFrom('', ' ', '\u001b[0m', '\r', '\t')
      )
      .map((p) => p.join(''))
    const lines = fc.array(fc.oneof(line, fc.string({ maxLength: 20 })), {
      maxLength: 12
    })
    check(3000, lines, (ls) => {
      let hints: OutputHints = {}
      for (const l of ls)
        hints = foldOutputLine(hints, stripAnsi(l), { cwd, logBase })
      if (hints.logDir) {
        expect(inside(hints.logDir, logBase)).toBe(true)
        expect(hints.logDir).not.toBe(logBase)
      }
      for (const p of [hints.statusFile, hints.answerFile]) {
        if (p === undefined) continue
        expect(hints.logDir).toBeDefined()
        expect(inside(p, hints.logDir!)).toBe(true)
      }
      if (hints.statusFile)
        expect(path.basename(hints.statusFile)).toBe('status.json')
      if (hints.winner) expect(hints.winner).toMatch(/^[a-z0-9_]{1,64}$/)
    })
  })

  it('LogReader.readText reads nothing outside LOG_DIR, links included', () => {
    const reader = new LogReader(logDir)
    check(3000, pathArb(), (p) => {
      const got = reader.readText(p, 4096)
      if (got === undefined) return
      expect(got.text).not.toContain(SECRET)
      expect(inside(fs.realpathSync(p), logDir)).toBe(true)
    })
  })

  it('readRunFiles with spoofed hints reads nothing outside LOG_DIR', () => {
    const arb = fc.record({
      statusFile: pathArb(),
      answerFile: pathArb(),
      winner: fc.constantFrom('agent_a', 'agent_b', '../outside', 'x')
    })
    check(500, arb, (hints) => {
      const files = readRunFiles(logDir, ['agent_a', 'agent_b'], hints)
      const texts = [files.finalAnswer ?? '', ...Object.values(files.answers)]
      for (const t of texts) expect(t).not.toContain(SECRET)
      expect(files.answers.agent_b).toBeUndefined()
    })
  })
})

describe('the posted report', () => {
  const SECRETS = ['sk-relPROPkey0123456789', 'AIzaRelPropKey0123456789']
  const TRICKY = [
    '```',
    '````',
    '~~~',
    '`',
    '<details>',
    '</details>',
    '<summary>',
    '<!--',
    '-->',
    '@octocat',
    '|',
    '\n',
    '\n\n',
    '    ',
    '> ',
    '- ',
    '😀',
    '\uD83D',
    '&#64;x',
    '\\'
  ]
  const piece = fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...TRICKY) },
    { weight: 3, arbitrary: fc.string({ maxLength: 10 }) },
    { weight: 1, arbitrary: fc.constantFrom(...SECRETS) }
  )
  const small = fc.array(piece, { maxLength: 30 }).map((p) => p.join(''))
  // Some answers far over the comment limit, made of the same tricky pieces.
  const big = fc.oneof(
    { weight: 4, arbitrary: small },
    {
      weight: 1,
      arbitrary: fc
        .tuple(small, fc.integer({ min: 10_000, max: 200_000 }))
        .map(([t, n]) =>
          (t || 'x').repeat(Math.ceil(n / Math.max(1, t.length)))
        )
    }
  )
  const id = fc.constantFrom('agent_a', 'agent_b', 'agent_c')
  const agent: fc.Arbitrary<AgentResult> = fc.record(
    {
      id,
      backend: fc.constantFrom('openai', 'gemini', 'claude', 'grok'),
      model: fc.constantFrom('gpt-5.4', 'm|x', '<b>'),
      status: fc.constantFrom('voted', 'answered', 'error'),
      votesReceived: fc.nat(3),
      votedFor: id,
      voteReason: small,
      error: small,
      answer: big,
      answerCount: fc.nat(3)
    },
    { requiredKeys: ['id', 'status', 'votesReceived', 'answerCount'] }
  )
  const result: fc.Arbitrary<RunResult> = fc.record(
    {
      outcome: fc.constantFrom<Outcome>(
        'success',
        'failed',
        'timeout',
        'config-error',
        'cancelled'
      ),
      reason: small,
      question: big,
      exitCode: fc.option(fc.integer({ min: 0, max: 255 }), { nil: null }),
      winner: id,
      winnerAnswer: big,
      agents: fc.array(agent, { maxLength: 4 }),
      votes: fc.dictionary(fc.constantFrom('agent1.1', 'agent2.1'), fc.nat(3)),
      configErrors: fc.array(small, { maxLength: 3 })
    },
    { requiredKeys: ['outcome', 'question', 'exitCode', 'agents', 'votes'] }
  )

  it('the comment body, marker included, fits 65,536 characters, with balanced fences and <details>', () => {
    const tag = fc.constantFrom('massgen', 'x'.repeat(64), 'review.v2')
    check(120, fc.tuple(result, tag), ([r, t]) => {
      const md = renderReport(r, {
        target: 'comment',
        tag: t,
        runUrl: 'https://github.com/o/r/actions/runs/1',
        secrets: SECRETS,
        maxChars: commentBudget(t)
      })
      const posted = `${stickyMarker(t)}\n${md}`
      expect([...posted].length).toBeLessThanOrEqual(65_536)
      expect(posted.length).toBeLessThanOrEqual(65_536)
      expect(unclosedFence(md)).toBeUndefined()
      expect(detailsBalance(md)).toBe(0)
      for (const s of SECRETS) expect(posted).not.toContain(s)
    })
  }, 120_000)
})
