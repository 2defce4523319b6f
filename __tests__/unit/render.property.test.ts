import fc from 'fast-check'
import {
  neutralizeMentions,
  truncateMarkdown
} from '../../src/safety/markdown.js'
import { renderReport, type ReportContext } from '../../src/report/render.js'
import type { AgentResult, Outcome, RunResult } from '../../src/core/types.js'
import {
  detailsBalance,
  liveBrackets,
  liveHtml,
  liveMentions,
  liveReferences,
  unclosedFence
} from './markdown-oracle.js'

// Property-case counts, reported at the end (the whole file runs in a few s).
const RUNS = { report: 300, huge: 8, truncate: 400, neutralize: 400 }
export const TOTAL_PROPERTY_CASES = Object.values(RUNS).reduce((a, b) => a + b)

afterAll(() => {
  console.log(`render.property: ${TOTAL_PROPERTY_CASES} property cases`)
})

const TRICKY = [
  '```',
  '````',
  '~~~',
  '`',
  '``',
  '\\`',
  '\\',
  '<details>',
  '</details>',
  '<summary>',
  '<details open>',
  '<!--',
  '-->',
  '<pre>',
  '<br>',
  '@octocat',
  '@org/team',
  '&#64;user',
  '\\@user',
  '_a_@user',
  'a@b.com',
  'https://x.io/@u',
  '#123',
  '|',
  '\n',
  '\n\n',
  '   ',
  '    ',
  '- ',
  '> ',
  '😀',
  '\uD83D',
  '&amp;',
  '*',
  '[',
  ']',
  '(',
  ')',
  '!',
  '[x](https://e.io)',
  '![i](https://e.io/p.png)',
  '[1]: https://e.io',
  '- [ ] ',
  '#1',
  'GH-2',
  'o/r#3',
  '&#35;',
  '&num;',
  '&lsqb;',
  'https://github.com/o/r/issues/4',
  'github.com/o/r/pull/5',
  '<img src=x>',
  '<sub>',
  '<a href="https://e.io">'
]

/**
 * Text made of markdown-breaking tokens, random strings and the secrets;
 * `size` sets how long a repeated one may get.
 */
function text(secrets: string[], size = 8_000): fc.Arbitrary<string> {
  const piece = fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...TRICKY) },
    { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
    { weight: 1, arbitrary: fc.constantFrom(...secrets) }
  )
  const small = fc.array(piece, { maxLength: 40 }).map((p) => p.join(''))
  const long = fc
    .tuple(small, fc.integer({ min: size / 10, max: size }))
    .map(([t, n]) => (t || 'x').repeat(Math.ceil(n / (t.length || 1))))
  return fc.oneof(
    { weight: 6, arbitrary: small },
    { weight: 1, arbitrary: long }
  )
}

const secretsArb = fc.array(fc.stringMatching(/^[A-Za-z0-9]{8,14}$/), {
  minLength: 1,
  maxLength: 3
})

function runResult(
  secrets: string[],
  big: fc.Arbitrary<string> = text(secrets)
): fc.Arbitrary<RunResult> {
  const t = text(secrets)
  const short = fc
    .array(fc.constantFrom(...TRICKY, ...secrets, 'a', 'id'), {
      maxLength: 6
    })
    .map((p) => p.join(''))
  const agentArb: fc.Arbitrary<AgentResult> = fc.record(
    {
      id: short,
      backend: fc.constantFrom('openai', 'gemini', 'claude', 'grok'),
      model: short,
      answerLabel: short,
      status: short,
      votesReceived: fc.nat(5),
      votedFor: short,
      voteReason: t,
      error: t,
      answer: big,
      answerCount: fc.nat(4)
    },
    { requiredKeys: ['id', 'status', 'votesReceived', 'answerCount'] }
  )
  return fc.record(
    {
      outcome: fc.constantFrom<Outcome>(
        'success',
        'failed',
        'timeout',
        'config-error',
        'skipped',
        'cancelled'
      ),
      reason: t,
      question: big,
      exitCode: fc.option(fc.integer({ min: 0, max: 255 }), { nil: null }),
      signal: short,
      winner: short,
      winnerAnswer: big,
      agents: fc.array(agentArb, { maxLength: 5 }),
      votes: fc.dictionary(short, fc.nat(5), { maxKeys: 4 }),
      elapsedSeconds: fc.double({ min: 0, max: 1e6, noNaN: true }),
      cost: fc.double({ min: 0, max: 100, noNaN: true }),
      inputTokens: fc.nat(),
      outputTokens: fc.nat(),
      configErrors: fc.array(t, { maxLength: 4 }),
      phase: short
    },
    { requiredKeys: ['outcome', 'question', 'exitCode', 'agents', 'votes'] }
  )
}

const maxCharsArb = fc.oneof(
  fc.integer({ min: 0, max: 400 }),
  fc.integer({ min: 400, max: 8_000 }),
  fc.integer({ min: 8_000, max: 70_000 }),
  fc.constant(65_536 - 40),
  fc.constant(1024 * 1024 - 1024)
)

function expectSafe(md: string, maxChars: number, secrets: string[]): void {
  expect(md.length).toBeLessThanOrEqual(maxChars)
  expect(unclosedFence(md)).toBeUndefined()
  expect(detailsBalance(md)).toBe(0)
  expect(liveMentions(md)).toEqual([])
  expect(liveReferences(md)).toEqual([])
  for (const s of secrets) expect(md).not.toContain(s)
}

describe('renderReport properties', () => {
  it('is bounded, balanced, ping-free and secret-free for any result', () => {
    const arb = secretsArb.chain((secrets) =>
      fc.record({
        secrets: fc.constant(secrets),
        result: runResult(secrets),
        maxChars: maxCharsArb,
        target: fc.constantFrom<ReportContext['target']>('comment', 'summary'),
        artifact: fc.boolean()
      })
    )
    fc.assert(
      fc.property(arb, ({ secrets, result, maxChars, target, artifact }) => {
        const md = renderReport(result, {
          target,
          tag: 'massgen',
          runUrl: 'https://github.com/o/r/actions/runs/1',
          ...(artifact
            ? {
                artifactUrl: 'https://github.com/o/r/actions/runs/1/artifacts/2'
              }
            : {}),
          secrets,
          maxChars
        })
        expectSafe(md, maxChars, secrets)
      }),
      { numRuns: RUNS.report }
    )
  })
  it('holds for answers of up to 1.1 million characters', () => {
    const arb = secretsArb.chain((secrets) =>
      fc.record({
        secrets: fc.constant(secrets),
        result: runResult(secrets, text(secrets, 1_100_000)),
        maxChars: maxCharsArb
      })
    )
    fc.assert(
      fc.property(arb, ({ secrets, result, maxChars }) => {
        const md = renderReport(result, {
          target: 'comment',
          tag: 'massgen',
          secrets,
          maxChars
        })
        expectSafe(md, maxChars, secrets)
      }),
      { numRuns: RUNS.huge, endOnFailure: true }
    )
  })
})

describe('markdown helper properties', () => {
  it('truncateMarkdown stays within the limit and closes what it cut', () => {
    const arb = secretsArb.chain((secrets) =>
      fc.tuple(
        text(secrets),
        fc.integer({ min: 0, max: 5_000 }),
        fc.constantFrom('', '_cut_', 'a longer note')
      )
    )
    fc.assert(
      fc.property(arb, ([input, maxChars, note]) => {
        const out = truncateMarkdown(input, maxChars, note)
        expect(out.length).toBeLessThanOrEqual(maxChars)
        if (input.length <= maxChars) return expect(out).toBe(input)
        expect(unclosedFence(out)).toBeUndefined()
        expect(detailsBalance(out)).toBeLessThanOrEqual(0)
        // The cut never leaves half of a surrogate pair.
        const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/
        if (!lone.test(input)) expect(out).not.toMatch(lone)
      }),
      { numRuns: RUNS.truncate }
    )
  })

  it('neutralizeMentions leaves no live mention and is idempotent', () => {
    fc.assert(
      fc.property(
        secretsArb.chain((s) => text(s)),
        (input) => {
          const once = neutralizeMentions(input)
          expect(liveMentions(once)).toEqual([])
          expect(liveReferences(once)).toEqual([])
          expect(liveBrackets(once)).toEqual([])
          expect(liveHtml(once)).toEqual([])
          expect(unclosedFence(once)).toBeUndefined()
          expect(detailsBalance(once)).toBe(0)
          expect(neutralizeMentions(once)).toBe(once)
        }
      ),
      { numRuns: RUNS.neutralize }
    )
  })
})
