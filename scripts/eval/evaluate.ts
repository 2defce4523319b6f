// The evaluation: every case reviewed by the consensus (the inputs as
// given) and by each of its models alone, each run scored against the
// case's known problems, and the totals side by side (docs/evaluation.md).
import * as path from 'node:path'
import type { EvalCase } from './corpus.ts'
import {
  runCase,
  type Measured,
  type RunOutcome,
  type RunSettings
} from './run-case.ts'
import { scoreCase, sumScores, type Score } from './score.ts'
import {
  consensusInline,
  consensusOf,
  postedInline,
  votedOf,
  type ActionFinding,
  type ReviewLimits
} from './select.ts'

export interface ConfigCost {
  cost_usd: number | null
  tokens_in: number | null
  tokens_out: number | null
  seconds: number
}

export type ConfigResult =
  | (Score &
      ConfigCost & {
        status: 'scored'
        inline: number
        /** Agents whose answer held no readable findings block. */
        unreadable_blocks: number
        findings: Array<{
          file: string
          line: number
          start_line: number | null
          severity: string
        }>
      })
  | (ConfigCost & { status: 'failed'; reason: string })

export interface ConfigTotal extends Score, ConfigCost {
  inline: number
  cases_scored: number
  cases_failed: number
}

export interface EvalReport {
  tolerance: number
  limits: ReviewLimits
  models: string[]
  /** Totals over the cases every configuration scored (the same cases). */
  configs: Record<string, ConfigTotal>
  cases: Record<
    string,
    { expected: number; configs: Record<string, ConfigResult> }
  >
  /** Cases left out of the totals: some configuration's run failed there. */
  excluded_cases: string[]
}

export interface EvalOptions {
  cases: EvalCase[]
  /** The action's inputs for the consensus run (models, keys, ...). */
  inputs: Record<string, string>
  env?: Record<string, string>
  pathExtra?: string[]
  jobs: number
  tolerance: number
  say: (line: string) => void
  /** Keep each run's job summary and outputs under <keep>/<case>/<configuration>/. */
  keep?: string
  /** Runs one review: the bundled action (runCase), or a unit test's own. */
  run?: (c: EvalCase, settings: RunSettings) => Promise<RunOutcome>
}

/** `backend/model` pairs of the models input, each once, in order. */
export function modelsOf(input: string | undefined): string[] {
  const models = (input ?? '').split(/[\s,]+/).filter(Boolean)
  if (models.length === 0)
    throw new Error(
      "--input models=...: needed (backend/model pairs, e.g. 'vllm/a vllm/b'): each model also reviews alone"
    )
  return [...new Set(models)]
}

const SEVERITIES = ['blocker', 'concern', 'nit'] as const

export function limitsOf(inputs: Record<string, string>): ReviewLimits {
  const whole = (name: string, fallback: number, min: number): number => {
    const raw = inputs[name]
    if (raw === undefined || raw.trim() === '') return fallback
    const n = Number(raw)
    if (!Number.isInteger(n) || n < min)
      throw new Error(
        `--input ${name}=${raw}: expected a whole number of at least ${min}`
      )
    return n
  }
  const severity = (inputs['min-severity'] ?? 'concern').trim().toLowerCase()
  if (!(SEVERITIES as readonly string[]).includes(severity))
    throw new Error(
      `--input min-severity=${severity}: expected blocker, concern or nit`
    )
  return {
    minAgreement: whole('min-agreement', 1, 1),
    minSeverity: severity as ReviewLimits['minSeverity'],
    maxInline: whole('max-inline-comments', 10, 0)
  }
}

const plus = (a: number | null, b: number | null | undefined): number | null =>
  a === null && (b ?? null) === null ? null : (a ?? 0) + (b ?? 0)

function costOf(answers: Measured, vote?: Measured): ConfigCost {
  return {
    cost_usd: plus(answers.cost_usd, vote?.cost_usd),
    tokens_in: plus(answers.tokens_in, vote?.tokens_in),
    tokens_out: plus(answers.tokens_out, vote?.tokens_out),
    seconds: answers.seconds + (vote?.seconds ?? 0)
  }
}

function scored(
  c: EvalCase,
  picked: ActionFinding[],
  extra: ConfigCost & { inline: number; unreadable_blocks: number },
  tolerance: number
): ConfigResult {
  const { matches: _matches, ...score } = scoreCase(
    picked,
    c.expected,
    tolerance
  )
  return {
    status: 'scored',
    ...score,
    ...extra,
    findings: picked.map((f) => ({
      file: f.file,
      line: f.line,
      start_line: f.start_line ?? null,
      severity: f.severity
    }))
  }
}

/** The consensus and vote results of the consensus run. */
function consensusResults(
  c: EvalCase,
  out: RunOutcome,
  limits: ReviewLimits,
  tolerance: number,
  voting: boolean
): Record<string, ConfigResult> {
  if (!out.ok) {
    const failed = {
      status: 'failed' as const,
      reason: out.reason,
      ...costOf(out.answers)
    }
    return voting ? { consensus: failed, vote: failed } : { consensus: failed }
  }
  const results: Record<string, ConfigResult> = {
    consensus: scored(
      c,
      consensusOf(out.findings, limits),
      {
        ...costOf(out.answers),
        inline: out.voteRound
          ? consensusInline(out.findings, limits)
          : postedInline(out.findings),
        unreadable_blocks: out.unreadable
      },
      tolerance
    )
  }
  if (!voting) return results
  if (!out.voteRound) {
    // No finding, no ballot: the vote had nothing to change.
    results.vote =
      out.findings.length === 0
        ? scored(
            c,
            [],
            {
              ...costOf(out.answers),
              inline: 0,
              unreadable_blocks: out.unreadable
            },
            tolerance
          )
        : {
            status: 'failed',
            reason: 'the vote round did not run (see the action log)',
            ...costOf(out.answers)
          }
    return results
  }
  const voted = votedOf(out.findings, limits)
  results.vote = voted
    ? scored(
        c,
        voted,
        {
          ...costOf(out.answers, out.voteRound),
          inline: postedInline(out.findings),
          unreadable_blocks: out.unreadable
        },
        tolerance
      )
    : {
        status: 'failed',
        reason: 'the vote round gave no result on any finding',
        ...costOf(out.answers, out.voteRound)
      }
  return results
}

function singleResult(
  c: EvalCase,
  out: RunOutcome,
  tolerance: number
): ConfigResult {
  if (!out.ok)
    return { status: 'failed', reason: out.reason, ...costOf(out.answers) }
  return scored(
    c,
    out.findings,
    {
      ...costOf(out.answers),
      inline: postedInline(out.findings),
      unreadable_blocks: out.unreadable
    },
    tolerance
  )
}

/** Totals over the cases where every configuration scored. */
export function totalsOf(
  cases: EvalReport['cases'],
  names: readonly string[]
): { configs: Record<string, ConfigTotal>; excluded: string[] } {
  const all = Object.entries(cases)
  const common = all.filter(([, r]) =>
    names.every((n) => r.configs[n]?.status === 'scored')
  )
  const configs: Record<string, ConfigTotal> = {}
  for (const name of names) {
    const results = common
      .map(([, r]) => r.configs[name])
      .filter(
        (r): r is Extract<ConfigResult, { status: 'scored' }> =>
          r?.status === 'scored'
      )
    const sum = (
      pick: (r: ConfigResult & { status: 'scored' }) => number | null
    ): number | null =>
      results.reduce<number | null>((acc, r) => plus(acc, pick(r)), null)
    configs[name] = {
      ...sumScores(results),
      inline: sum((r) => r.inline) ?? 0,
      cost_usd: sum((r) => r.cost_usd),
      tokens_in: sum((r) => r.tokens_in),
      tokens_out: sum((r) => r.tokens_out),
      seconds: sum((r) => r.seconds) ?? 0,
      cases_scored: results.length,
      cases_failed: all.filter(([, r]) => r.configs[name]?.status === 'failed')
        .length
    }
  }
  return {
    configs,
    excluded: all.filter((e) => !common.includes(e)).map(([n]) => n)
  }
}

const pct = (x: number | null): string =>
  x === null ? 'n/a' : `${(x * 100).toFixed(0)}%`

/** `consensus P 50% R 33%` for each configuration: the progress line's totals. */
function runningTotals(
  cases: EvalReport['cases'],
  names: readonly string[]
): string {
  const { configs, excluded } = totalsOf(cases, names)
  const parts = names.map((n) => {
    const t = configs[n]
    return t
      ? `${n} tp ${t.tp} fp ${t.fp} fn ${t.fn} P ${pct(t.precision)} R ${pct(t.recall)}`
      : n
  })
  return `${parts.join(' | ')}${excluded.length ? ` (${excluded.length} case(s) with a failed run left out)` : ''}`
}

function caseLine(r: Record<string, ConfigResult>): string {
  return Object.entries(r)
    .map(([n, x]) =>
      x.status === 'failed' ? `${n} FAILED` : `${n} ${x.tp}/${x.fp}/${x.fn}`
    )
    .join(', ')
}

/** At most `jobs` of the tasks at once, in order of start. */
async function pool<T>(
  jobs: number,
  tasks: Array<() => Promise<T>>
): Promise<T[]> {
  const results: T[] = new Array<T>(tasks.length)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const at = next++
      results[at] = await (tasks[at] as () => Promise<T>)()
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, jobs) }, worker))
  return results
}

export async function evaluate(options: EvalOptions): Promise<EvalReport> {
  const { cases, inputs, tolerance, say } = options
  const run = options.run ?? runCase
  const models = modelsOf(inputs.models)
  const limits = limitsOf(inputs)
  const voting =
    (inputs['finding-vote'] ?? 'true').trim().toLowerCase() !== 'false'
  const names = [
    ...models.map((m) => `single:${m}`),
    'consensus',
    ...(voting ? ['vote'] : [])
  ]
  const settings = (over: Record<string, string>): RunSettings => ({
    inputs: { ...inputs, ...over },
    ...(options.env ? { env: options.env } : {}),
    ...(options.pathExtra ? { pathExtra: options.pathExtra } : {})
  })
  // Filled as cases end, for the progress lines; the report is built after.
  const byCase: EvalReport['cases'] = {}
  let done = 0
  const finish = (c: EvalCase, outcomes: RunOutcome[]): void => {
    const [consensusRun, ...singles] = outcomes
    const configs: Record<string, ConfigResult> = {}
    models.forEach((m, i) => {
      configs[`single:${m}`] = singleResult(
        c,
        singles[i] as RunOutcome,
        tolerance
      )
    })
    Object.assign(
      configs,
      consensusResults(c, consensusRun as RunOutcome, limits, tolerance, voting)
    )
    byCase[c.name] = { expected: c.expected.length, configs }
    done++
    say(
      `[${done}/${cases.length}] ${c.name}: ${caseLine(configs)} (tp/fp/fn) · totals so far: ${runningTotals(byCase, names)}`
    )
  }
  // Each run is a task (`jobs` at once); a case is scored when its last ends.
  const runsOfCase: RunSettings[] = [
    settings({}),
    // Alone, as a team with one model runs it: its own findings, no vote
    // of one agent on its own findings.
    ...models.map((m) =>
      settings({ models: m, 'min-agreement': '1', 'finding-vote': 'false' })
    )
  ]
  const runNames = ['consensus', ...models.map((m) => `single:${m}`)]
  const kept = (c: EvalCase, i: number): RunSettings => {
    const s = runsOfCase[i] as RunSettings
    return options.keep
      ? {
          ...s,
          keep: path.join(
            options.keep,
            c.name,
            (runNames[i] as string).replace(/[^\w.-]+/g, '_')
          )
        }
      : s
  }
  const tasks = cases.flatMap((c) => {
    const outcomes: RunOutcome[] = []
    let left = runsOfCase.length
    return runsOfCase.map((_, i) => async () => {
      outcomes[i] = await run(c, kept(c, i)).catch(
        (error: unknown): RunOutcome => ({
          ok: false,
          reason: `the run could not be made: ${String(error)}`,
          answers: {
            cost_usd: null,
            tokens_in: null,
            tokens_out: null,
            seconds: 0
          }
        })
      )
      if (--left === 0) finish(c, outcomes)
    })
  })
  await pool(options.jobs, tasks)
  const ordered = Object.fromEntries(
    cases.map((c) => [c.name, byCase[c.name] as EvalReport['cases'][string]])
  )
  const { configs, excluded } = totalsOf(ordered, names)
  return {
    tolerance,
    limits,
    models,
    configs,
    cases: ordered,
    excluded_cases: excluded
  }
}
