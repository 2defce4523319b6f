// What a review by the local model must look like, whatever the model said:
// the real-model lane's tests (local mode and Docker mode) assert structure,
// never content (a 135M model writes anything).
import { expect, it } from '@jest/globals'
import { readToolName } from './llm-reads.ts'
import { LOCAL_AGENTS, type LocalReview } from './local-review.ts'
import { OUTCOME_TITLE } from '../src/report/render-parts.ts'
import type { Outcome } from '../src/core/types.ts'

const STATUSES = ['success', 'failed', 'timeout', 'cost-limit', 'cancelled']

export function itHasTheShapeOfAReview(review: () => LocalReview): void {
  // A reply the model's token budget cut short is still sent as a tool call
  // (its text as the content): whether the model closed its JSON is content.
  it('both agents asked the local model, and every reply it gave was a tool call', () => {
    const requests = review().model.requests()
    for (const agent of LOCAL_AGENTS) {
      const own = requests.filter((r) => r.model === agent)
      expect(own.some((r) => r.turn === 'review')).toBe(true)
    }
    for (const r of requests) {
      expect(r.replyTool).toEqual(expect.any(String))
    }
  })

  it('the agents read the pull request diff through their read tool (when MassGen offered it)', () => {
    const requests = review().model.requests()
    const reads = requests.flatMap((r) => r.readResults)
    // MassGen drops an MCP server that starts late in a round (docs/massgen-0.1.97.md)
    const offered = requests.some(
      (r) => !r.voteRound && readToolName(r.toolNames) !== undefined
    )
    expect(reads.length > 0).toBe(offered)
    for (const read of reads) expect(read.path).toMatch(/\/diff\.patch$/)
  })

  it('the step ends with a known status and posts one sticky comment with the vote table of both agents', () => {
    const { run, github } = review()
    expect(STATUSES).toContain(run.outputs.status)
    const comments = github.state.comments.filter((c) => c.issueNumber === 42)
    expect(comments).toHaveLength(1)
    const body = comments[0]?.body ?? ''
    expect(body.split('\n')[1]).toContain(firstWords(run.outputs.status))
    const votes = JSON.parse(run.outputs.votes ?? '[]') as {
      agent: string
      model: string
    }[]
    expect(votes.map((v) => v.agent).sort()).toEqual(['agent_a', 'agent_b'])
    expect(votes.map((v) => v.model).sort()).toEqual(LOCAL_AGENTS)
    for (const v of votes) expect(body).toContain(v.agent)
  })

  it('the job summary holds the report, and the step succeeds unless the run did not', () => {
    const { run } = review()
    expect(run.summary.split('\n')[0]).toContain(firstWords(run.outputs.status))
    if (run.outputs.status === 'success') expect(run.exitCode).toBe(0)
  })
}

/** The words the report's first line opens with: the verdict, or the outcome. */
function firstWords(status: string | undefined): string {
  return status === 'success'
    ? 'MassGen review'
    : OUTCOME_TITLE[status as Outcome]
}
