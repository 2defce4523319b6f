// What a consensus review costs over its models reviewing alone, on the
// same case and in one run: the review of pull request #42 by three
// scripted models with the real MassGen 0.1.97 (the vote on every finding
// included: test-support/review-vote-script.ts), then each of the three
// alone as `npm run eval` runs a single model (scripts/eval/evaluate.ts: no
// vote, min-agreement 1). Counted: the LLM calls the scripted server
// answered, the tokens MassGen reported, the action's wall time.
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { startLlmServer } from '../../test-support/llm-server.ts'
import {
  massgenBinary,
  virtualenvFolders
} from '../../test-support/massgen-binary.ts'
import { reviewPull } from '../../test-support/review-pull.ts'
import {
  plantedBody,
  voteScript
} from '../../test-support/review-vote-script.ts'
import type { EvalCase } from '../eval/corpus.ts'
import { runCase, type RunOutcome } from '../eval/run-case.ts'
import { med, s, type Row } from './format.ts'

const MODELS = ['vllm/model-a', 'vllm/model-b', 'vllm/model-c']

interface Cost {
  calls: number
  tokens?: number
  ms: number
  ok: boolean
}

function costOf(out: RunOutcome, calls: number): Cost {
  const parts = [
    out.answers,
    ...(out.ok && out.voteRound ? [out.voteRound] : [])
  ]
  const tokens = parts.reduce<number | undefined>(
    (sum, m) =>
      m.tokens_in === null && m.tokens_out === null
        ? sum
        : (sum ?? 0) + (m.tokens_in ?? 0) + (m.tokens_out ?? 0),
    undefined
  )
  const seconds = parts.reduce((sum, m) => sum + m.seconds, 0)
  return {
    calls,
    ...(tokens !== undefined ? { tokens } : {}),
    ms: seconds * 1000,
    ok: out.ok
  }
}

export interface ConsensusCost {
  consensus: Cost[]
  alone: Record<string, Cost[]>
}

export async function consensusCost(
  runs: number,
  say: (line: string) => void
): Promise<ConsensusCost> {
  const llm = await startLlmServer(voteScript())
  const massgen = massgenBinary()
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-bench-case-'))
  const pull = reviewPull()
  const c: EvalCase = {
    name: 'review-pull-42',
    dir: empty,
    title: pull.title,
    body: plantedBody(),
    diff: pull.diff,
    filesDir: empty,
    expected: []
  }
  const inputs = {
    query: 'Review this pull request.',
    'base-url': llm.url,
    'openai-api-key': 'sk-benchOPENAIkey1234567890abcdef',
    'massgen-command': massgen,
    'max-duration': '600',
    'upload-logs': 'false',
    review: 'inline'
  }
  const once = async (over: Record<string, string>): Promise<Cost> => {
    const before = llm.requests.length
    const out = await runCase(c, {
      inputs: { ...inputs, ...over },
      pathExtra: virtualenvFolders(massgen)
    })
    return costOf(out, llm.requests.length - before)
  }
  const result: ConsensusCost = { consensus: [], alone: {} }
  try {
    for (let i = 0; i < runs; i++) {
      say(
        `consensus of three vs each alone, run ${i + 1}/${runs}: the consensus`
      )
      result.consensus.push(await once({ models: MODELS.join(' ') }))
      for (const model of MODELS) {
        say(
          `consensus of three vs each alone, run ${i + 1}/${runs}: ${model} alone`
        )
        ;(result.alone[model] ??= []).push(
          await once({
            models: model,
            'min-agreement': '1',
            'finding-vote': 'false'
          })
        )
      }
    }
  } finally {
    await llm.close()
    fs.rmSync(empty, { recursive: true, force: true })
  }
  return result
}

const count = (x?: number): string =>
  x === undefined ? 'n/a' : String(Math.round(x))

function line(costs: Cost[]): string {
  const failed = costs.filter((c) => !c.ok).length
  return (
    `${count(med(costs.map((c) => c.calls)))} calls / ${count(med(costs.map((c) => c.tokens)))} tokens / ${s(med(costs.map((c) => c.ms)))}` +
    (failed ? ` (${failed} failed)` : '')
  )
}

export function consensusCostRows(r: ConsensusCost, runs: number): Row[] {
  const n = `median of ${runs}`
  const sumOf = (pick: (c: Cost) => number | undefined): number | undefined => {
    const medians = MODELS.map((m) => med((r.alone[m] ?? []).map(pick)))
    return medians.some((x) => x === undefined)
      ? undefined
      : medians.reduce<number>((a, b) => a + (b ?? 0), 0)
  }
  const sum = {
    calls: sumOf((c) => c.calls),
    tokens: sumOf((c) => c.tokens),
    ms: sumOf((c) => c.ms)
  }
  const consensus = {
    calls: med(r.consensus.map((c) => c.calls)),
    tokens: med(r.consensus.map((c) => c.tokens)),
    ms: med(r.consensus.map((c) => c.ms))
  }
  const ratio = (a?: number, b?: number) =>
    a === undefined || b === undefined || b === 0 ? 'n/a' : (a / b).toFixed(2)
  return [
    [
      `consensus of 3 models (answers + vote on every finding): LLM calls / tokens / action wall (${n})`,
      line(r.consensus),
      'the same case as the rows below',
      ''
    ],
    ...MODELS.map((m): Row => [
      `${m} alone (no vote): LLM calls / tokens / action wall (${n})`,
      line(r.alone[m] ?? []),
      '',
      ''
    ]),
    [
      'the 3 models alone, summed: LLM calls / tokens / action wall',
      `${count(sum.calls)} calls / ${count(sum.tokens)} tokens / ${s(sum.ms)}`,
      '',
      ''
    ],
    [
      'consensus / sum alone: LLM calls, tokens, wall',
      `${ratio(consensus.calls, sum.calls)}, ${ratio(consensus.tokens, sum.tokens)}, ${ratio(consensus.ms, sum.ms)}`,
      'side by side in this run',
      ''
    ]
  ]
}
