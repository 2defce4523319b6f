// The vote round started warm, end to end (the bundled action, the REAL
// pinned MassGen, scripted agents, the loopback GitHub): the ballot run's
// MassGen is started beside the answers' and handed its arguments when the
// ballots are due (vote/warm-ballot.ts), with the same findings, votes and
// verdict as review-vote.test.ts; a warm MassGen nobody needs (no finding
// to vote on) is killed with its whole process group; a `massgen-command`
// that is not MassGen's own console script starts cold as before.
import { beforeAll, describe, expect, it, jest } from '@jest/globals'
import {
  startGitHubServer,
  type GitHubServer
} from '../../test-support/github-server.js'
import {
  startLlmServer,
  type LlmServer
} from '../../test-support/llm-server.js'
import {
  runAction,
  type ActionRun,
  type RunOptions
} from '../../test-support/run-action.js'
import { reviewPull } from '../../test-support/review-pull.js'
import {
  findingsBlock,
  walkthroughBlock
} from '../../test-support/review-pull.js'
import {
  plantedBody,
  voteScript
} from '../../test-support/review-vote-script.js'
import { event } from '../../test-support/fixtures.js'
import { threeAgentReview } from '../../test-support/pr-run.js'
import {
  massgenBinary,
  virtualenvFolders
} from '../../test-support/massgen-binary.js'
import {
  groupAfterKill,
  processesInGroup
} from '../../test-support/processes.js'
import type { LlmScript } from '../../test-support/llm-protocol.js'
import { State } from '../../src/core/constants.js'

// Up to five real MassGen runs in local mode on a loaded machine.
jest.setTimeout(1_200_000)

const STARTED =
  /MassGen for the ballots started warm beside the answers \(pid (\d+)\)/
const TAKES = /the warm MassGen \(pid (\d+)\) takes the ballots/
const UNUSED =
  /the warm MassGen \(pid (\d+)\) was not used: there were no findings; its process group is gone\./
const HANDED = 'massgen-action guard: arguments handed over'

interface FindingOut {
  file: string
  confirmed: number | null
  rejected: number | null
  posted: string
}

async function voteReview(
  inputs: Record<string, string>,
  script: LlmScript,
  pathExtra: string[] = [],
  more: Pick<RunOptions, 'killOn' | 'onOutput'> = {}
): Promise<{ run: ActionRun; llm: LlmServer; github: GitHubServer }> {
  const github = await startGitHubServer({ issues: [42] })
  github.state.pulls['42'] = { ...reviewPull(), body: plantedBody() }
  const llm = await startLlmServer(script)
  const base = threeAgentReview(llm.url)
  const run = await runAction({
    eventName: 'pull_request',
    payload: event('pull_request.opened'),
    githubApiUrl: github.url,
    inputs: { ...base, ...inputs },
    pathExtra,
    ...more
  })
  await github.close()
  await llm.close()
  return { run, llm, github }
}

function findingsOf(
  run: ActionRun
): Array<[string, number | null, number | null, string]> {
  return (JSON.parse(run.outputs.findings ?? '[]') as FindingOut[])
    .map(
      (f) =>
        [f.file, f.confirmed, f.rejected, f.posted] as [
          string,
          number | null,
          number | null,
          string
        ]
    )
    .sort()
}

const pidOf = (text: string, pattern: RegExp) => Number(pattern.exec(text)?.[1])

describe('the vote round started warm (real MassGen)', () => {
  let warm: Awaited<ReturnType<typeof voteReview>>
  let cold: Awaited<ReturnType<typeof voteReview>>
  beforeAll(async () => {
    warm = await voteReview({ 'fail-on': 'blocker' }, voteScript())
    // The same MassGen through a wrapper (`env`): not its own console
    // script, so nothing can be imported ahead; the sandbox binds its
    // virtualenv from PATH.
    const massgen = massgenBinary()
    cold = await voteReview(
      { 'fail-on': 'blocker', 'massgen-command': `/usr/bin/env ${massgen}` },
      voteScript(),
      virtualenvFolders(massgen)
    )
  })

  it("starts the ballot run's MassGen before the answers' MassGen runs and hands it the ballots", () => {
    const out = warm.run.stdout
    const pid = pidOf(out, STARTED)
    expect(pid).toBeGreaterThan(1)
    expect(pidOf(out, TAKES)).toBe(pid)
    // Started before the answers' MassGen output opened, taken after the
    // answers were judged and the ballot put.
    const started = out.search(STARTED)
    expect(started).toBeLessThan(out.indexOf('::group::MassGen output'))
    expect(out.search(TAKES)).toBeGreaterThan(
      out.indexOf('Finding vote: 3 finding(s) put to 3 agent(s)')
    )
    // The guard in the warm process read its arguments, once.
    expect(out.split(HANDED).length - 1).toBe(1)
    expect(out).not.toMatch(UNUSED)
    expect(processesInGroup(pid)).toEqual([])
  })

  it('gives the same findings, votes and verdict as the cold vote round', () => {
    expect(warm.run.outputs.status).toBe('success')
    const voteRequests = warm.llm.requests.filter((r) => r.voteRound)
    expect(voteRequests.map((r) => r.model).sort()).toEqual([
      'model-a',
      'model-b',
      'model-c'
    ])
    expect(warm.run.stdout).toMatch(
      /Finding vote: MassGen success in [\d.]+ s, \d+ input \+ \d+ output tokens, 3 answer\(s\)\./
    )
    expect(findingsOf(warm.run)).toEqual(findingsOf(cold.run))
    expect(findingsOf(warm.run)).toContainEqual([
      'src/parser.ts',
      3,
      0,
      'inline'
    ])
    expect(warm.run.outputs.verdict).toBe(cold.run.outputs.verdict)
    expect(warm.run.outputs.verdict).toBeTruthy()
  })

  it("a massgen-command that is not MassGen's console script starts cold, and its vote still runs", () => {
    const out = cold.run.stdout
    expect(cold.run.outputs.status).toBe('success')
    expect(out).not.toMatch(STARTED)
    expect(out).not.toContain(HANDED)
    expect(cold.llm.requests.filter((r) => r.voteRound)).toHaveLength(3)
  })
})

describe('a warm MassGen nobody needs', () => {
  let run: ActionRun
  beforeAll(async () => {
    // Two agents that find nothing: no ballot, no vote round.
    const answer = (x: string) =>
      `Review by agent ${x}.\n\n${walkthroughBlock([`src/parser.ts: agent ${x} read it.`])}\n\n${findingsBlock([])}`
    const script: LlmScript = {
      agentIds: ['agent_a', 'agent_b'],
      agents: {
        'model-a': { answer: answer('a'), voteFor: 'agent_a' },
        'model-b': { answer: answer('b'), voteFor: 'agent_a' }
      }
    }
    ;({ run } = await voteReview(
      { models: 'vllm/model-a vllm/model-b' },
      script
    ))
  })

  it('is killed with its whole process group before the step ends', () => {
    expect(run.outputs.status).toBe('success')
    const pid = pidOf(run.stdout, STARTED)
    expect(pid).toBeGreaterThan(1)
    expect(run.stdout).not.toMatch(TAKES)
    expect(pidOf(run.stdout, UNUSED)).toBe(pid)
    expect(run.stdout).not.toContain(HANDED)
    expect(processesInGroup(pid)).toEqual([])
  })
})

describe('a warm MassGen left by a main step that died', () => {
  let run: ActionRun
  beforeAll(async () => {
    // The main step is killed (SIGKILL: no cleanup of its own) as soon as
    // it says the warm MassGen started, while that one still imports.
    let seen = ''
    let warmStarted: () => void = () => undefined
    const killOn = new Promise<void>((resolve) => (warmStarted = resolve))
    ;({ run } = await voteReview({}, voteScript(), [], {
      killOn,
      onOutput: (stream, chunk) => {
        if (stream !== 'stdout') return
        seen = (seen + chunk.toString('utf8')).slice(-8192)
        if (STARTED.test(seen)) warmStarted()
      }
    }))
  })

  it('is stopped by the post step (by its saved pid and start time), its process group gone', async () => {
    const pid = Number(run.state[State.WarmMassgenPid])
    expect(pid).toBeGreaterThan(1)
    expect(run.state[State.WarmMassgenIdentity]).toMatch(/^\d+$/)
    expect(run.post?.stdout).toContain(
      'The main step did not finish its report'
    )
    // Stopped by the post step, or gone already: its stdin closed with
    // the main step, and the guard's cli_main exits on that.
    expect(run.post?.stdout).toMatch(
      new RegExp(
        `Stopped MassGen's process group ${pid}|MassGen \\(pid ${pid}\\) is no longer running`
      )
    )
    // The post step sends SIGKILL and does not wait for it.
    expect(await groupAfterKill(pid)).toEqual([])
  })
})
