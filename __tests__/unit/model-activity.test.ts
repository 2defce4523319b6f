// When the models last answered, and what a run out of time is called from
// it (src/results/model-activity.ts). The recorded runs (stalled-model,
// slow-model) are judged in results.test.ts and replayed through the bundle
// in e2e/recorded-massgen.test.ts; these are the rule's edges.
import { describe, expect, it } from '@jest/globals'
import {
  modelActivity,
  replyTimes,
  STALL_SECONDS
} from '../../src/results/model-activity.js'

const T0 = new Date('2026-12-07T03:51:51.000000').getTime()
const at = (s: number) => T0 + s * 1000
const stamp = (s: number) => {
  const d = new Date(at(s))
  const two = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}000`
}
const event = (s: number, type: string, agent: string | null) =>
  JSON.stringify({
    timestamp: stamp(s),
    event_type: type,
    agent_id: agent,
    round_number: 0,
    data: {}
  })

describe('replyTimes', () => {
  it("counts the models' replies, not the orchestrator's events, and stops at MassGen's timeout", () => {
    const text = [
      event(0, 'system_status', null),
      event(0.1, 'round_start', 'agent_a'),
      event(2, 'tool_start', 'agent_a'),
      event(3, 'answer_submitted', 'agent_b'),
      event(3.1, 'agent_restart', 'agent_b'),
      'not json',
      JSON.stringify({
        timestamp: 'yesterday',
        event_type: 'vote',
        agent_id: 'agent_a'
      }),
      event(60, 'orchestrator_timeout', null),
      event(60.1, 'text', 'agent_a')
    ].join('\n')
    expect(replyTimes(text)).toEqual({
      startMs: at(0),
      replies: [
        { atMs: at(2), agent: 'agent_a' },
        { atMs: at(3), agent: 'agent_b' }
      ],
      timeoutMs: at(60)
    })
    expect(replyTimes('')).toBeUndefined()
  })
})

describe('modelActivity', () => {
  const agents = ['agent_a', 'agent_b']
  it('no reply at all: never answered', () => {
    expect(
      modelActivity({ startMs: at(0), replies: [] }, at(90), agents)
    ).toEqual({ kind: 'never-answered', runSeconds: 90, replies: 0 })
  })
  it('quiet past STALL_SECONDS and past three times the longest wait before: stopped answering', () => {
    const times = {
      startMs: at(0),
      replies: [{ atMs: at(5), agent: 'agent_b' }]
    }
    expect(modelActivity(times, at(5 + STALL_SECONDS), agents)).toMatchObject({
      kind: 'stopped-answering',
      quietSeconds: STALL_SECONDS,
      lastAgent: 'agent_b'
    })
    expect(modelActivity(times, at(5 + STALL_SECONDS - 1), agents).kind).toBe(
      'still-working'
    )
  })
  it('a model slower than the quiet at the end: still working (its own pace)', () => {
    const times = {
      startMs: at(0),
      replies: [
        { atMs: at(300), agent: 'agent_a' },
        { atMs: at(600), agent: 'agent_b' }
      ]
    }
    expect(modelActivity(times, at(1500), agents).kind).toBe('still-working')
    expect(modelActivity(times, at(1501), agents).kind).toBe(
      'stopped-answering'
    )
  })
  it('names only an agent of the run', () => {
    const times = {
      startMs: at(0),
      replies: [{ atMs: at(1), agent: 'orchestrator' }]
    }
    expect(modelActivity(times, at(2), agents).lastAgent).toBeUndefined()
  })
})
