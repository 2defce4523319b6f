// The gate across a rename, played through the bundled action with the kit
// of review-gate-pushes.test.ts (two agents played by the MassGen stand-in,
// the loopback GitHub speaking review threads and compare): the first review
// confirms the parsePort blocker on src/limits.ts; the author then pushes
// `git mv src/limits.ts src/ports.ts` with no line changed. GitHub marks the
// thread outdated (it stays on the old path), so without following the
// rename the blocker read as fixed, its thread was resolved with a reply
// saying its lines changed, and an agent raising it again at the new path
// was a fresh finding one rejection could sink: the gate opened. A file
// really deleted is still a fix, as before.
import { afterEach, describe, expect, it } from '@jest/globals'
import {
  pushToPull,
  startGitHubServer,
  type GitHubServer
} from '../../test-support/github-server.js'
import type { Push } from '../../test-support/github-compare.js'
import {
  runAction,
  FAKE_MASSGEN,
  type ActionRun
} from '../../test-support/run-action.js'
import {
  PORT,
  deletePush,
  pushesPull,
  renamePush,
  retryOnlyPush
} from '../../test-support/pushes-pull.js'
import { findingsBlock } from '../../test-support/review-pull.js'
import { event } from '../../test-support/fixtures.js'
import {
  NO_LLM_URL,
  scriptedAgents,
  twoAgentReview
} from '../../test-support/pr-run.js'

const QUOTE = 'return Number(text)'

let open: GitHubServer[] = []
afterEach(async () => {
  await Promise.all(open.map((g) => g.close()))
  open = []
})

const votes = (items: unknown[]) =>
  `My votes.\n\n\`\`\`massgen-finding-votes\n${JSON.stringify(items)}\n\`\`\``

/**
 * One review of the head, each agent its own findings; with `vote`, the
 * findings are put to a vote where agent_a confirms F1 without quoting the
 * code and agent_b rejects it: a tie, so this run's vote alone never counts
 * a finding raised again (what keeps the gate closed is the earlier one).
 */
function review(
  github: GitHubServer,
  findingsOf: Record<string, unknown[]>,
  how: { first: boolean; vote: boolean }
): Promise<ActionRun> {
  const payload = event('pull_request.opened') as {
    action: string
    pull_request: { head: { sha: string } }
  }
  payload.action = how.first ? 'opened' : 'synchronize'
  payload.pull_request.head.sha = github.state.pulls['42']?.head.sha ?? ''
  return runAction({
    eventName: 'pull_request',
    payload,
    githubApiUrl: github.url,
    env: {
      ...scriptedAgents(
        Object.fromEntries(
          ['agent_a', 'agent_b'].map((id) => [
            id,
            {
              answer: `Review by ${id}.\n\n${findingsBlock(findingsOf[id] ?? [])}`,
              voteFor: 'agent_a'
            }
          ])
        )
      ),
      FAKE_MASSGEN_BALLOTS: JSON.stringify({
        agent_a: votes([
          { finding: 'F1', vote: 'confirm', line: 7, reason: 'NaN' }
        ]),
        agent_b: votes([
          {
            finding: 'F1',
            vote: 'reject',
            line: 7,
            quote: QUOTE,
            reason: 'callers validate'
          }
        ])
      })
    },
    inputs: {
      ...twoAgentReview(NO_LLM_URL, FAKE_MASSGEN),
      'finding-vote': how.vote ? 'true' : 'false',
      'min-severity': 'nit',
      'fail-on': 'blocker'
    }
  })
}

/**
 * The first review confirms the blocker (both agents, no vote), `push`
 * lands, and the second review runs with `findingsOf`.
 */
async function afterPush(
  push: Push,
  findingsOf: Record<string, unknown[]>
): Promise<{ github: GitHubServer; run: ActionRun }> {
  const github = await startGitHubServer({ issues: [42] })
  open.push(github)
  github.state.pulls['42'] = pushesPull()
  const first = await review(
    github,
    { agent_a: [PORT], agent_b: [PORT] },
    { first: true, vote: false }
  )
  expect([first.outputs.verdict, first.exitCode]).toEqual(['blockers', 1])
  pushToPull(github.state, 42, push)
  const run = await review(github, findingsOf, { first: false, vote: true })
  return { github, run }
}

/** The gate at the head: verdict, exit code, the check run's conclusion. */
function gate(github: GitHubServer, run: ActionRun) {
  const sha = github.state.pulls['42']?.head.sha
  return [
    run.outputs.verdict,
    run.exitCode,
    github.state.checkRuns.filter((c) => c.headSha === sha).at(-1)?.conclusion
  ]
}

/** The blocker's thread: its replies, and whether it is resolved. */
function portThread(github: GitHubServer) {
  const root = github.state.reviewComments.find(
    (c) => c.inReplyToId === undefined && c.path === PORT.file
  )
  return {
    replies: github.state.reviewComments
      .filter((c) => c.inReplyToId === root?.id)
      .map((c) => c.body),
    resolved: root?.resolvedBy !== undefined && root?.resolvedBy !== null
  }
}

const closed = ['blockers', 1, 'failure']

describe('a blocker whose file is renamed stands', () => {
  it('attack: `git mv` of the blocker’s file, and one agent raises it again at the new path (the other rejects it): the gate stays closed and the thread is not resolved as fixed; control: a push that leaves the file alone', async () => {
    const control = await afterPush(retryOnlyPush(), {
      agent_a: [PORT],
      agent_b: []
    })
    expect(gate(control.github, control.run)).toEqual(closed)

    const attack = await afterPush(renamePush(), {
      agent_a: [{ ...PORT, file: 'src/ports.ts' }],
      agent_b: []
    })
    expect(gate(attack.github, attack.run)).toEqual(closed)
    expect(portThread(attack.github)).toEqual({ replies: [], resolved: false })
    // The finding raised at the new path is the earlier one, confirmed.
    const findings = JSON.parse(attack.run.outputs.findings ?? '[]') as Array<{
      file: string
      posted: string
    }>
    expect(findings).toContainEqual(
      expect.objectContaining({ file: 'src/limits.ts', posted: 'earlier' })
    )
    expect(attack.run.summary).toContain('file renamed to src/ports.ts')
    expect(attack.run.summary).toContain('confirmed (raised again)')
    // Not posted twice: no new thread at the new path.
    expect(
      attack.github.state.reviewComments.filter(
        (c) => c.path === 'src/ports.ts'
      )
    ).toEqual([])
  })

  it('attack: `git mv` of the blocker’s file and no agent raises it again: it is carried forward as at its old path', async () => {
    const { github, run } = await afterPush(renamePush(), {
      agent_a: [],
      agent_b: []
    })
    expect(gate(github, run)).toEqual(closed)
    expect(portThread(github)).toEqual({ replies: [], resolved: false })
  })

  it('attack: the rename comes in a force push (the comparison names no rename): a file gone from the head is not taken for removed, the blocker stands', async () => {
    const { github, run } = await afterPush(renamePush('8'.repeat(40), true), {
      agent_a: [],
      agent_b: []
    })
    expect(gate(github, run)).toEqual(closed)
    expect(portThread(github)).toEqual({ replies: [], resolved: false })
    expect(run.summary).toContain('removed or renamed: unknown')
  })

  it('control: the blocker’s file is deleted and no agent raises it again: fixed as before, its thread resolved and the gate open', async () => {
    const { github, run } = await afterPush(deletePush(), {
      agent_a: [],
      agent_b: []
    })
    expect(gate(github, run)).toEqual(['pass', 0, 'success'])
    const thread = portThread(github)
    expect(thread.resolved).toBe(true)
    expect(thread.replies).toHaveLength(1)
    expect(thread.replies[0]).toContain(
      'Resolved by MassGen: the lines changed'
    )
  })
})
