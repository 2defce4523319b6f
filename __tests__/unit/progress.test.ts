// The live progress: status.json snapshots become log lines, and comment
// updates that are throttled, serialised and stopped before the report.
import { describe, expect, it } from '@jest/globals'
import type { AgentPlan } from '../../src/core/types.js'
import type { ProgressSnapshot } from '../../src/run/progress.js'
import type { MassgenStatus } from '../../src/run/status-file.js'
import {
  ProgressTracker,
  progressLine,
  toSnapshot
} from '../../src/run/progress.js'

const AGENTS: AgentPlan[] = [
  { id: 'agent_a', backend: 'openai', model: 'gpt-5.4', keyEnvVars: [] },
  { id: 'agent_b', backend: 'gemini', model: 'g-3', keyEnvVars: [] }
]

function snapshot(
  phase: string,
  pct: number,
  a = 'streaming',
  votes: Record<string, number> = {}
): ProgressSnapshot {
  return {
    phase,
    completionPercentage: pct,
    elapsedSeconds: 0,
    agents: [
      { id: 'agent_a', status: a, answerCount: 0 },
      { id: 'agent_b', status: 'waiting', answerCount: 0 }
    ],
    votes
  }
}

describe('toSnapshot', () => {
  it('takes phase, percentage, time, agents and votes from status.json', () => {
    const status = {
      meta: { elapsed_seconds: 42 },
      coordination: { phase: 'enforcement', completion_percentage: 70 },
      agents: {
        agent_a: {
          status: 'voted',
          answer_count: 2,
          vote_cast: { voted_for_agent: 'agent_b' }
        }
      },
      results: { votes: { agent_b: 1 } }
    } as unknown as MassgenStatus
    expect(toSnapshot(status, AGENTS, 99)).toEqual({
      phase: 'enforcement',
      completionPercentage: 70,
      elapsedSeconds: 42,
      agents: [
        {
          id: 'agent_a',
          backend: 'openai',
          model: 'gpt-5.4',
          status: 'voted',
          answerCount: 2,
          votedFor: 'agent_b'
        },
        {
          id: 'agent_b',
          backend: 'gemini',
          model: 'g-3',
          status: 'waiting',
          answerCount: 0
        }
      ],
      votes: { agent_b: 1 }
    })
  })

  it('fills what an early status.json lacks: starting, 0 %, our own clock', () => {
    const s = toSnapshot({}, AGENTS, 7.5)
    expect(s).toMatchObject({
      phase: 'starting',
      completionPercentage: 0,
      elapsedSeconds: 7.5,
      votes: {}
    })
    expect(s.agents.map((a) => a.status)).toEqual(['waiting', 'waiting'])
  })
})

describe('progressLine', () => {
  it('names phase, rounded percentage, each agent and the votes', () => {
    const s = snapshot('voting', 66.6, 'voted', { agent_a: 2 })
    s.agents[0] = { ...s.agents[0]!, answerCount: 1, votedFor: 'agent_b' }
    expect(progressLine(s)).toBe(
      '[progress] phase=voting 67% agent_a=voted/1ans->agent_b agent_b=waiting votes=agent_a:2'
    )
  })
})

/** A tracker on a clock the test moves, recording what it logs and posts. */
function tracker(
  options: { minIntervalMs?: number; after?: Promise<void> } = {}
) {
  let time = 1_000_000
  const logged: string[] = []
  const posted: string[] = []
  const releases: Array<() => void> = []
  const t = new ProgressTracker({
    minIntervalMs: options.minIntervalMs ?? 20_000,
    ...(options.after ? { after: options.after } : {}),
    now: () => time,
    log: (line) => logged.push(line),
    publish: (s) =>
      new Promise<void>((resolve) => {
        posted.push(`${s.phase} ${s.completionPercentage}`)
        releases.push(resolve)
      })
  })
  const settle = async () => {
    for (let i = 0; i < 10; i++) {
      releases.splice(0).forEach((r) => r())
      await Promise.resolve()
      await new Promise((r) => setImmediate(r))
    }
  }
  return {
    t,
    logged,
    posted,
    settle,
    advance: (ms: number) => (time += ms)
  }
}

describe('ProgressTracker', () => {
  it('logs a line only when it changes', () => {
    const { t, logged } = tracker()
    t.update(snapshot('initial_answer', 10))
    t.update(snapshot('initial_answer', 10))
    t.update(snapshot('initial_answer', 40))
    expect(logged).toHaveLength(2)
  })

  it('posts a phase change at once, other changes at most every minIntervalMs', async () => {
    const { t, posted, settle, advance } = tracker()
    t.update(snapshot('initial_answer', 10))
    await settle()
    t.update(snapshot('initial_answer', 20)) // same phase, too soon
    await settle()
    expect(posted).toEqual(['initial_answer 10'])
    t.update(snapshot('enforcement', 60)) // a new phase: at once
    await settle()
    advance(19_999)
    t.update(snapshot('enforcement', 70))
    await settle()
    expect(posted).toEqual(['initial_answer 10', 'enforcement 60'])
    advance(1)
    t.update(snapshot('enforcement', 80))
    await settle()
    expect(posted).toEqual([
      'initial_answer 10',
      'enforcement 60',
      'enforcement 80'
    ])
  })

  it('posts one view at a time, in order, after the first view', async () => {
    let firstViewDone: () => void = () => {}
    const firstView = new Promise<void>((r) => (firstViewDone = r))
    const { t, posted, settle } = tracker({ after: firstView })
    t.update(snapshot('initial_answer', 10))
    t.update(snapshot('enforcement', 60))
    await new Promise((r) => setImmediate(r))
    expect(posted).toEqual([]) // the first view is still on its way
    firstViewDone()
    await settle()
    expect(posted).toEqual(['initial_answer 10', 'enforcement 60'])
  })

  it('goes on after a failed post, and stops posting once closed', async () => {
    const posted: string[] = []
    const t = new ProgressTracker({
      minIntervalMs: 0,
      now: () => 0,
      log: () => {},
      publish: (s) => {
        posted.push(s.phase)
        return s.phase === 'a'
          ? Promise.reject(new Error('502'))
          : Promise.resolve()
      }
    })
    t.update(snapshot('a', 1))
    t.update(snapshot('b', 2))
    await t.close()
    t.update(snapshot('c', 3))
    await t.close()
    expect(posted).toEqual(['a', 'b'])
  })

  it('close waits for the post in flight', async () => {
    const { t, posted, settle } = tracker()
    t.update(snapshot('presentation', 90))
    let closed = false
    const closing = t.close().then(() => (closed = true))
    await new Promise((r) => setImmediate(r))
    expect(posted).toEqual(['presentation 90'])
    expect(closed).toBe(false)
    await settle()
    await closing
    expect(closed).toBe(true)
  })
})
