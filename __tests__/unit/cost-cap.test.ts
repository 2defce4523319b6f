// The max-cost cap: the pure decision on a status.json snapshot, how a run
// stopped for cost is judged, and how max-cost is read.
import { describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { costLimitReached, estimatedCost } from '../../src/run/cost-cap.js'
import { readRunFiles } from '../../src/results/log-files.js'
import { judgeRun } from '../../src/results/results.js'
import { readSettings } from '../../src/inputs/settings.js'
import { parseStatus } from '../../src/run/status-file.js'
import type { AgentPlan } from '../../src/core/types.js'

const status = (json: unknown) => parseStatus(JSON.stringify(json)) ?? {}

describe('estimatedCost', () => {
  it("reads MassGen's total", () => {
    expect(
      estimatedCost(status({ costs: { total_estimated_cost: 0.42 } }))
    ).toBe(0.42)
  })
  it("takes the agents' sum when it is ahead of the total", () => {
    const s = status({
      costs: { total_estimated_cost: 0.1 },
      agents: {
        a: { token_usage: { estimated_cost: 0.2 } },
        b: { token_usage: { estimated_cost: 0.15 } }
      }
    })
    expect(estimatedCost(s)).toBeCloseTo(0.35)
  })
  it('has no figure before MassGen wrote one, and ignores junk', () => {
    expect(estimatedCost(status({}))).toBeUndefined()
    expect(
      estimatedCost(
        status({
          costs: { total_estimated_cost: 'a lot' },
          agents: { a: { token_usage: { estimated_cost: -5 } } }
        })
      )
    ).toBeUndefined()
  })
})

describe('costLimitReached', () => {
  const at = (cost: number) => status({ costs: { total_estimated_cost: cost } })
  it('stops once the estimate reaches the cap, not before', () => {
    expect(costLimitReached(at(0.99), 1)).toBe(false)
    expect(costLimitReached(at(1), 1)).toBe(true)
    expect(costLimitReached(at(1.5), 1)).toBe(true)
  })
  it('never stops without a cap or without a figure', () => {
    expect(costLimitReached(at(1e9), undefined)).toBe(false)
    expect(costLimitReached(status({}), 0.01)).toBe(false)
  })
})

describe('judging a run stopped for cost', () => {
  // A real MassGen 0.1.97 run interrupted mid-coordination (SIGINT).
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'fixture-cost-'))
  fs.cpSync(
    path.join(
      process.cwd(),
      '__fixtures__',
      'massgen',
      'timeout-sigint',
      'logs'
    ),
    copy,
    { recursive: true }
  )
  const logDir = path.join(
    copy,
    fs.readdirSync(copy).find((n) => n.startsWith('log_')) ?? ''
  )
  const agents: AgentPlan[] = ['agent_a', 'agent_b'].map((id, i) => ({
    id,
    backend: 'vllm',
    model: `model-${'ab'[i]}`,
    keyEnvVars: []
  }))
  const judge = (timedOut: boolean) =>
    judgeRun({
      question: 'q',
      agents,
      exitCode: 0,
      signal: null,
      timedOut,
      cancelled: false,
      costLimit: { maxCost: 0.05, seenCost: 0.0712 },
      maxDurationSeconds: 600,
      logDir,
      files: readRunFiles(logDir, ['agent_a', 'agent_b']),
      configErrors: [],
      wallSeconds: 12
    })
  it("is 'cost-limit', says so, and keeps the figure that reached the cap", () => {
    const r = judge(false)
    expect(r.outcome).toBe('cost-limit')
    expect(r.reason).toMatch(/^Cost limit reached: .*\$0\.0712.*\$0\.05/)
    expect(r.cost).toBe(0.0712)
  })
  it('stays cost-limit when the deadline fires during the stop', () => {
    expect(judge(true).outcome).toBe('cost-limit')
  })
})

describe('max-cost input', () => {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'settings-cost-'))
  const read = (value: string) =>
    readSettings({
      getInput: (n) => (n === 'max-cost' ? value : ''),
      env: {},
      workspace
    })
  it('reads positive decimals; empty means no cap', () => {
    // Not given: the default budget (docs/benchmarks.md, "A default budget").
    expect(read('').maxCost).toBe(5)
    expect(read('none').maxCost).toBeUndefined()
    expect(read(' None ').maxCost).toBeUndefined()
    expect(read('2.50').maxCost).toBe(2.5)
    expect(read(' 3 ').maxCost).toBe(3)
    expect(read('.25').maxCost).toBe(0.25)
  })
  it.each(['0', '0.00', '-1', '$5', '1e3', 'ten', '1,5', 'NaN', 'Infinity'])(
    "refuses '%s', naming the input and the expected form",
    (bad) => {
      expect(() => read(bad)).toThrow(
        new RegExp(
          `Input 'max-cost': got '.*', expected a positive amount in US dollars`
        )
      )
    }
  )
})
