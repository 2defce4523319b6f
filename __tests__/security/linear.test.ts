// CPU exhaustion: every parser and sanitiser that reads hostile text (comment
// commands, pull request text, answers, MassGen's output) must do work in
// proportion to the text. Half a megabyte shaped to hit a regex's or a
// scan's worst case must cost a small multiple of plain text of that size,
// measured side by side in CPU time (no absolute timings): quadratic work on
// 512 KiB (eight times a full GitHub comment) is thousands of times the
// plain cost, linear work a few times at most.
import { describe, expect, it } from '@jest/globals'
import { parseCommand } from '../../src/event/command.js'
import {
  escapeHtmlText,
  escapeTableCell,
  safeMarkdown
} from '../../src/safety/markdown.js'
import { foldOutputLine, stripAnsi } from '../../src/run/output-lines.js'
import { redactSecrets } from '../../src/safety/redact.js'
import { overviewOf } from '../../src/context/pr-context.js'
import { renderReport } from '../../src/report/render.js'
import type { RunResult } from '../../src/core/types.js'

const SIZE = 512 * 1024
/** Hostile work may cost at most this many times the plain work. */
const LIMIT = 20

/** `unit` repeated to exactly SIZE characters. */
const fill = (unit: string): string =>
  unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE)

/** Every shape found to be (or that could be) some scan's worst case. */
const HOSTILE: Record<string, string> = {
  'nested <!--': fill('<!--'),
  // Comments that re-form 31 times before a tail of openers that never close.
  '<!-- re-formed 32 times, then nested <!--': (
    '<!'.repeat(31) +
    '<!-- x -->' +
    '-- x -->'.repeat(31) +
    fill('<!--')
  ).slice(0, SIZE),
  'unterminated <!-- then text': '<!--' + fill('a'),
  '<!<!-- x -->--': fill('<!<!-- x -->--'),
  'URLs without ends': fill('https://'),
  'URLs with @': fill('https://@'),
  'backticks, one run': fill('`'),
  'backtick runs of every length with pipes': Array.from(
    { length: 1500 },
    (_, k) => '`'.repeat(k + 1) + '|'
  )
    .join('')
    .padEnd(SIZE, 'x')
    .slice(0, SIZE),
  'backticks and pipes': fill('`|'),
  '<': fill('<'),
  '<br> then spaces': fill('<br>').slice(0, SIZE / 2) + ' '.repeat(SIZE / 2),
  'spaces then a line break': ' '.repeat(SIZE - 1) + '\n',
  '[': fill('['),
  '](': fill(']('),
  '[a](': fill('[a]('),
  'nested links': fill('[a](b '),
  '![': fill('!['),
  '(': fill('('),
  '*': fill('*'),
  _: fill('_'),
  '@': fill('@'),
  'a.a.a@': fill('a.') + '@',
  '#': fill('#'),
  '#123': fill('#123'),
  'GH-1': fill('GH-1'),
  '&': fill('&'),
  '&#': fill('&#'),
  '&#35;': fill('&#35;'),
  'github.com/': fill('github.com/'),
  'issue URLs': fill('https://github.com/o/r/issues/1'),
  '<details> and code': fill('<details>`a` '),
  'everything at once': fill('[`](<@&#1!<!--'),
  'ANSI escapes': fill('\u001b[0;\u001b]a'),
  'invisible characters': fill('\u200b\u202e\ufeff')
}

/** Markdown an answer or a comment really holds: code, a link, a mention. */
const PLAIN = fill(
  'Use `npm ci` first, then ask @octocat about the [docs](https://x.io/a) and #12.\n'
)

/** CPU milliseconds of the fastest of `runs` calls. */
function cpuMs(work: () => unknown, runs: number): number {
  let best = Infinity
  for (let i = 0; i < runs; i++) {
    const start = process.cpuUsage()
    work()
    const used = process.cpuUsage(start)
    best = Math.min(best, (used.user + used.system) / 1000)
  }
  return best
}

/**
 * How many times the plain input's work each hostile input costs. A ratio
 * over the limit is measured again (a busy machine can stall one call), and
 * only the best of three counts.
 */
function ratios(
  work: (text: string) => unknown,
  plain: string = PLAIN,
  hostile: Record<string, string> = HOSTILE
): Record<string, number> {
  const base = Math.max(
    cpuMs(() => work(plain), 2),
    1
  )
  const out: Record<string, number> = {}
  for (const [name, text] of Object.entries(hostile)) {
    let ms = cpuMs(() => work(text), 1)
    if (ms / base >= LIMIT)
      ms = Math.min(
        ms,
        cpuMs(() => work(text), 2)
      )
    out[name] = Math.round((ms / base) * 10) / 10
  }
  return out
}

function expectLinear(ratio: Record<string, number>): void {
  const over = Object.entries(ratio).filter(([, r]) => r >= LIMIT)
  expect(Object.fromEntries(over)).toEqual({})
}

const report = (answer: string): RunResult => ({
  outcome: 'success',
  question: answer,
  exitCode: 0,
  winner: 'agent_a',
  winnerAnswer: answer,
  agents: [
    {
      id: 'agent_a',
      status: 'voted',
      votesReceived: 1,
      answerCount: 1,
      voteReason: answer.slice(0, 1000)
    },
    { id: 'agent_b', status: 'voted', votesReceived: 0, answerCount: 1, answer }
  ],
  votes: {}
})

describe('linear work on hostile text of 1 MiB', () => {
  it('attack: a comment built to make the command parser quadratic (nested <!--, ...) — fails', () => {
    expectLinear(ratios((text) => parseCommand(`/massgen ${text}`, '/massgen')))
  }, 300_000)

  it('attack: an answer built to make the markdown sanitiser quadratic (URLs, backticks, brackets, ...) — fails', () => {
    expectLinear(ratios((text) => safeMarkdown(text, ['sk-secret-value-123'])))
  }, 300_000)

  it('attack: an answer built to make the whole report (sanitise, cut, table cells) quadratic — fails', () => {
    const ctx = {
      target: 'summary' as const,
      tag: 'massgen',
      secrets: ['sk-secret-value-123'],
      maxChars: SIZE - 1024
    }
    expectLinear(ratios((text) => renderReport(report(text), ctx)))
  }, 300_000)

  it('attack: text built to make table-cell and HTML escaping quadratic — fails', () => {
    expectLinear(ratios(escapeTableCell))
    expectLinear(ratios(escapeHtmlText))
  }, 300_000)

  it("attack: a pull request title and description built to make the agents' context files quadratic — fails", () => {
    const pr = (text: string) => ({
      number: 1,
      title: text,
      body: text,
      baseRef: 'main',
      baseSha: 'a'.repeat(40),
      headRef: 'fix',
      headSha: 'b'.repeat(40),
      headRepo: undefined,
      files: [],
      diff: '',
      diffTruncated: false
    })
    expectLinear(ratios((text) => overviewOf(pr(text))))
  }, 300_000)

  it("attack: a question echoed in MassGen's output, built to make the output reader quadratic — fails", () => {
    const where = { cwd: '/tmp', logBase: '/tmp/logs' }
    const colored = fill('\u001b[1;32m[agent_a]\u001b[0m reads the parser ')
    expectLinear(
      ratios(
        (text) => foldOutputLine({}, stripAnsi(`QUESTION: ${text}`), where),
        colored
      )
    )
  }, 300_000)
  it('attack: an answer built to make redaction of wrapped and dumped encodings quadratic (dump lines, spaced hex, near-misses) — fails', () => {
    const key = 'sk-proj-' + 'Ab3_'.repeat(39)
    const hex = Buffer.from(key).toString('hex')
    const hostile = {
      ...HOSTILE,
      'hex dump lines': fill(
        '00000000: 736b 2d70 726f 6a2d 4141  sk-proj-AA\n'
      ),
      'spaced near-miss of the key': fill(
        `${[...key.slice(0, -1)].join(' ')} \n`
      ),
      'wrapped near-miss of the hex': fill(
        `${hex.slice(0, 60)}\n${hex.slice(60, -2)}\n`
      )
    }
    expectLinear(
      ratios(
        (text) => redactSecrets(text, [key]),
        fill('The parser change looks safe to me.\n'),
        hostile
      )
    )
  }, 300_000)
})
