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
import { liveView } from '../../src/report/live-view.js'
import type { Destination } from '../../src/report/report.js'

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

/** A tracker on a clock the test moves, recording what it logs and what its follower takes. */
function tracker(options: { minIntervalMs?: number } = {}) {
  let time = 1_000_000
  const logged: string[] = []
  const posted: string[] = []
  const releases: Array<() => void> = []
  const t = new ProgressTracker({
    minIntervalMs: options.minIntervalMs ?? 20_000,
    now: () => time,
    log: (line) => logged.push(line)
  })
  // A poster that takes one view at a time and finishes when the test says.
  const following = (async () => {
    for await (const s of t.views()) {
      posted.push(`${s.phase} ${s.completionPercentage}`)
      await new Promise<void>((resolve) => releases.push(resolve))
    }
  })()
  const settle = async () => {
    for (let i = 0; i < 10; i++) {
      releases.splice(0).forEach((r) => r())
      await new Promise((r) => setImmediate(r))
    }
  }
  return {
    t,
    logged,
    posted,
    settle,
    following,
    /** Lets the post in flight finish, without settling what comes next. */
    release: () => releases.splice(0).forEach((r) => r()),
    advance: (ms: number) => (time += ms)
  }
}

const tick = () => new Promise((r) => setImmediate(r))

describe('ProgressTracker', () => {
  it('logs a line only when it changes', () => {
    const { t, logged } = tracker()
    t.update(snapshot('initial_answer', 10))
    t.update(snapshot('initial_answer', 10))
    t.update(snapshot('initial_answer', 40))
    expect(logged).toHaveLength(2)
    t.close()
  })

  it('offers a phase change at once, other changes at most every minIntervalMs', async () => {
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
    t.close()
  })

  it('a poster that falls behind gets the newest view due, not every one', async () => {
    const { t, posted, release, settle } = tracker({ minIntervalMs: 0 })
    t.update(snapshot('initial_answer', 10))
    await tick()
    expect(posted).toEqual(['initial_answer 10']) // in flight
    t.update(snapshot('voting', 40))
    t.update(snapshot('enforcement', 60)) // replaces 'voting 40', not taken
    release()
    await tick()
    t.update(snapshot('final', 90))
    await settle()
    expect(posted).toEqual(['initial_answer 10', 'enforcement 60', 'final 90'])
    t.close()
  })

  it('ends after the post in flight once closed, and offers nothing after', async () => {
    const { t, posted, release, following } = tracker({ minIntervalMs: 0 })
    t.update(snapshot('presentation', 90))
    await tick()
    t.update(snapshot('final', 95)) // not taken yet: dropped at close
    t.close()
    t.update(snapshot('after', 99))
    let ended = false
    const end = following.then(() => (ended = true))
    await tick()
    expect(ended).toBe(false) // 'presentation 90' is still being posted
    release()
    await end
    expect(posted).toEqual(['presentation 90'])
  })
})

describe('liveView', () => {
  it('posts the first view, then the views one at a time, and goes on after a failed post', async () => {
    const bodies: string[] = []
    let inFlight = 0
    let mostInFlight = 0
    const github = {
      upsertStickyComment: async (
        _issue: number,
        _tag: string,
        body: string
      ) => {
        inFlight++
        mostInFlight = Math.max(mostInFlight, inFlight)
        await tick()
        inFlight--
        bodies.push(body)
        if (bodies.length === 2) throw new Error('502 Bad Gateway')
        return { id: 1, url: 'https://github.com/o/r/pull/1#issuecomment-1' }
      }
    }
    const dest = {
      github,
      issueNumber: 1,
      settings: { comment: true, commentTag: 'massgen' },
      secrets: []
    } as unknown as Destination
    const live = liveView(dest)
    const t = new ProgressTracker({
      minIntervalMs: 0,
      now: () => 0,
      log: () => {}
    })
    const firstView = live.announce(AGENTS)
    const following = live.follow(t.views(), firstView)
    t.update(snapshot('initial_answer', 10))
    await tick()
    t.update(snapshot('enforcement', 60))
    await tick()
    await tick()
    t.update(snapshot('presentation', 90))
    await tick()
    await tick()
    t.close()
    await following
    expect(mostInFlight).toBe(1)
    expect(bodies).toHaveLength(4)
  })
})
