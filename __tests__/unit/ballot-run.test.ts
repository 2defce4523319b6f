// The vote round's MassGen run judged by its ballots (src/vote/ballot-run.ts):
// with its own vote skipped MassGen names no winner, and none is needed.
import { describe, expect, it } from '@jest/globals'
import type { AgentResult, RunResult } from '../../src/core/types.js'
import { judgedByBallots } from '../../src/vote/ballot-run.js'

const agent = (id: string, answer?: string): AgentResult => ({
  id,
  status: 'completed',
  votesReceived: 0,
  answerCount: answer === undefined ? 0 : 1,
  ...(answer !== undefined ? { answer } : {})
})

/** What results.ts makes of a ballot run: failed, for want of a winner. */
function noWinner(over: Partial<RunResult> = {}): RunResult {
  return {
    outcome: 'failed',
    reason: 'MassGen exited 0 but chose no winner.',
    question: 'The ballot.',
    exitCode: 0,
    agents: [agent('agent_a', 'votes a'), agent('agent_b', 'votes b')],
    votes: {},
    ...over
  }
}

describe('judgedByBallots', () => {
  it('a run MassGen ended on its own with every ballot read succeeded, winner or not', () => {
    const judged = judgedByBallots(noWinner())
    expect(judged.outcome).toBe('success')
    expect(judged).not.toHaveProperty('reason')
    expect(judged.agents.map((a) => a.answer)).toEqual(['votes a', 'votes b'])
  })
  it('a ballot missing, a crash, a signal, a timeout or the cost cap keep their judgement', () => {
    const missing = noWinner({ agents: [agent('agent_a', 'v'), agent('b')] })
    expect(judgedByBallots(missing).outcome).toBe('failed')
    expect(judgedByBallots(noWinner({ exitCode: 1 })).outcome).toBe('failed')
    expect(judgedByBallots(noWinner({ signal: 'SIGKILL' })).outcome).toBe(
      'failed'
    )
    expect(judgedByBallots(noWinner({ agents: [] })).outcome).toBe('failed')
    for (const outcome of ['timeout', 'cost-limit', 'cancelled'] as const)
      expect(judgedByBallots(noWinner({ outcome })).outcome).toBe(outcome)
  })
})
