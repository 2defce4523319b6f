// The gate across pushes, played through the bundled action (Node 24, two
// agents played by the MassGen stand-in, the loopback GitHub speaking
// review threads over GraphQL and compare): the pull request's author tries
// to open `fail-on: blocker` on a blocker the first review raised, without
// fixing it. Each attack has its control, and a fixed blocker and a
// maintainer's resolution still open the gate.
//
// The first push of each pull request is reviewed in full and raises one
// blocker (parsePort, src/limits.ts line 7); the next push is reviewed
// incrementally (or not, when the comparison cannot vouch for it), and the
// agents raise nothing more: what still counts is what the earlier review
// left open.
import { afterEach, describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import {
  pushToPull,
  startGitHubServer,
  type GitHubServer
} from '../../test-support/github-server.js'
import type { ServerUser } from '../../test-support/github-state.js'
import {
  runAction,
  FAKE_MASSGEN,
  type ActionRun
} from '../../test-support/run-action.js'
import {
  LIMITS_V1,
  PORT,
  PUSH_SHAS,
  RETRY,
  pushesPull,
  pushOf,
  retryOnlyPush
} from '../../test-support/pushes-pull.js'
import { findingsBlock } from '../../test-support/review-pull.js'
import { event } from '../../test-support/fixtures.js'
import {
  NO_LLM_URL,
  scriptedAgents,
  twoAgentReview
} from '../../test-support/pr-run.js'

const AGENTS = ['agent_a', 'agent_b']
const MALLORY: ServerUser = { login: 'mallory', id: 666, type: 'User' }
const BASE = 'a'.repeat(40)

let open: GitHubServer[] = []
afterEach(async () => {
  await Promise.all(open.map((g) => g.close()))
  open = []
})

async function pull(): Promise<GitHubServer> {
  const github = await startGitHubServer({ issues: [42] })
  open.push(github)
  github.state.pulls['42'] = pushesPull()
  github.state.permissions.mallory = 'read'
  return github
}

function payloadAt(sha: string, first: boolean): unknown {
  const payload = event('pull_request.opened') as {
    action: string
    pull_request: { head: { sha: string } }
  }
  payload.action = first ? 'opened' : 'synchronize'
  payload.pull_request.head.sha = sha
  return payload
}

/** One review of the pull request's head, both agents giving `findings`. */
function review(
  github: GitHubServer,
  findings: unknown[],
  first = false
): Promise<ActionRun> {
  return reviewBy(
    github,
    Object.fromEntries(AGENTS.map((id) => [id, findings])),
    { first }
  )
}

/** One review of the pull request's head, each agent its own findings and vote. */
async function reviewBy(
  github: GitHubServer,
  findingsOf: Record<string, unknown[]>,
  how: {
    first?: boolean
    failOn?: string
    voteForSelf?: boolean
    workspace?: string
  } = {}
): Promise<ActionRun> {
  const sha = github.state.pulls['42']?.head.sha ?? ''
  const answer = (id: string) =>
    [`Review by ${id}.`, '', findingsBlock(findingsOf[id] ?? [])].join('\n')
  return runAction({
    eventName: 'pull_request',
    payload: payloadAt(sha, how.first ?? false),
    githubApiUrl: github.url,
    ...(how.workspace ? { workspace: how.workspace } : {}),
    env: scriptedAgents(
      Object.fromEntries(
        AGENTS.map((id) => [
          id,
          { answer: answer(id), voteFor: how.voteForSelf ? id : 'agent_a' }
        ])
      )
    ),
    inputs: {
      ...twoAgentReview(NO_LLM_URL, FAKE_MASSGEN),
      'finding-vote': 'false',
      'min-severity': 'nit',
      'fail-on': how.failOn ?? 'blocker'
    }
  })
}

/** A pull request whose first review raised the parsePort blocker. */
async function reviewedWithBlocker(): Promise<GitHubServer> {
  const github = await pull()
  const run = await review(github, [PORT], true)
  expect(run.outputs.verdict).toBe('blockers')
  expect(run.exitCode).toBe(1)
  return github
}

const portThread = (github: GitHubServer) =>
  github.state.reviewComments.find(
    (c) =>
      c.inReplyToId === undefined &&
      c.user.login === 'github-actions[bot]' &&
      c.path === PORT.file
  )

const checkAt = (github: GitHubServer, sha: string) =>
  github.state.checkRuns.filter((c) => c.headSha === sha).at(-1)

const sticky = (github: GitHubServer) =>
  github.state.comments.find((c) => c.issueNumber === 42)?.body ?? ''

interface SarifLog {
  runs: Array<{
    results: Array<{ partialFingerprints: Record<string, string> }>
  }>
}
const sarifOf = (run: ActionRun): SarifLog =>
  JSON.parse(
    fs.readFileSync(run.outputs['sarif-file'] ?? '', 'utf8')
  ) as SarifLog

/** The gate held: blockers, the check run failed, the step failed. */
function expectGateHeld(run: ActionRun, github: GitHubServer, sha: string) {
  expect(run.outputs.verdict).toBe('blockers')
  expect(run.exitCode).toBe(1)
  expect(checkAt(github, sha)?.conclusion).toBe('failure')
}

/** The gate opened: pass, the check run succeeded, the step too. */
function expectGateOpen(run: ActionRun, github: GitHubServer, sha: string) {
  expect(run.outputs.verdict).toBe('pass')
  expect(run.exitCode).toBe(0)
  expect(checkAt(github, sha)?.conclusion).toBe('success')
}

describe('the gate across pushes counts what still stands', () => {
  it('attack: a push that leaves the blocker’s lines alone; the carried-forward blocker still counts (verdict, check run, annotation, SARIF, findings output)', async () => {
    const github = await reviewedWithBlocker()
    const fingerprint = /fp=([0-9a-f]{16})/.exec(
      portThread(github)?.body ?? ''
    )?.[1]
    pushToPull(github.state, 42, retryOnlyPush())
    const run = await review(github, [])
    const head = retryOnlyPush().sha
    expect(run.summary).toContain('Incremental review')
    expectGateHeld(run, github, head)
    expect(sticky(github)).toMatch(
      /parsePort accepts text that is not a port \| carried forward/
    )
    // The check run annotates it, at its line.
    const check = checkAt(github, head)
    expect(check?.annotations).toEqual([
      expect.objectContaining({
        path: PORT.file,
        start_line: PORT.line,
        annotation_level: 'failure'
      })
    ])
    // The SARIF keeps its alert open: the same fingerprint as the first run's.
    expect(
      sarifOf(run).runs[0]?.results.map(
        (r) => r.partialFingerprints['massgenFinding/v1']
      )
    ).toEqual([fingerprint])
    // The findings output lists it as an earlier finding still open.
    const findings = JSON.parse(run.outputs.findings ?? '[]') as Array<{
      posted: string
      severity: string
      title: string
    }>
    expect(findings).toEqual([
      expect.objectContaining({
        posted: 'earlier',
        severity: 'blocker',
        title: PORT.title
      })
    ])
  })

  it('attack: a standing concern and a push whose answers split the votes (unclear); fail-on: concern still fails', async () => {
    const github = await pull()
    const concern = { ...PORT, severity: 'concern' }
    const both = { agent_a: [concern], agent_b: [concern] }
    const first = await reviewBy(github, both, {
      first: true,
      failOn: 'concern'
    })
    expect(first.outputs.verdict).toBe('concerns')
    expect(first.exitCode).toBe(1)
    pushToPull(github.state, 42, retryOnlyPush())
    // One agent raises a concern no other confirms, the other none; each
    // votes for itself: the votes split between a concern and a pass.
    const lone = { ...RETRY, severity: 'concern' }
    const split = await reviewBy(
      github,
      { agent_a: [lone], agent_b: [] },
      { failOn: 'concern', voteForSelf: true }
    )
    expect(split.summary).toContain('Incremental review')
    expect(split.outputs.verdict).toBe('concerns')
    expect(split.exitCode).toBe(1)
    expect(checkAt(github, retryOnlyPush().sha)?.conclusion).toBe('failure')
  })

  it('control: a push that changes the blocker’s lines, and no agent raises it again, opens the gate (fixed)', async () => {
    const github = await reviewedWithBlocker()
    pushToPull(github.state, 42, pushOf(1))
    const run = await review(github, [])
    expectGateOpen(run, github, PUSH_SHAS[1] as string)
    expect(portThread(github)?.resolvedBy).toBe('github-actions[bot]')
    expect(sticky(github)).toMatch(
      /parsePort accepts text that is not a port \| fixed/
    )
    // A later push: the thread the action resolved itself stays closed.
    pushToPull(github.state, 42, {
      ...retryOnlyPush('6'.repeat(40)),
      diff: pushOf(1).diff,
      files: pushOf(1).files,
      change: ''
    })
    const later = await review(github, [])
    expectGateOpen(later, github, '6'.repeat(40))
  })

  it('attack: the author (read access) resolves the bot’s blocker thread, then pushes; the resolution is reported and ignored', async () => {
    const github = await reviewedWithBlocker()
    const thread = portThread(github)
    if (!thread) throw new Error('no thread')
    thread.resolvedBy = MALLORY.login
    pushToPull(github.state, 42, retryOnlyPush())
    const run = await review(github, [])
    expectGateHeld(run, github, retryOnlyPush().sha)
    expect(sticky(github)).toContain('resolved by @\u200bmallory, ignored')
    expect(sticky(github)).toContain('mallory has read access')
  })

  it('attack: another bot resolves the thread after the action replied in it (GitHub names no bot resolver); the resolution is not taken for the action’s own', async () => {
    const github = await reviewedWithBlocker()
    const thread = portThread(github)
    if (!thread) throw new Error('no thread')
    // The action's reply, as to a thread command; then a bot resolves it.
    github.state.reviewComments.push({
      ...thread,
      id: thread.id + 1000,
      inReplyToId: thread.id,
      body: 'MassGen: nothing more to add here.',
      resolvedBy: undefined
    })
    thread.resolvedBy = 'auto-resolver[bot]'
    pushToPull(github.state, 42, retryOnlyPush())
    const run = await review(github, [])
    expectGateHeld(run, github, retryOnlyPush().sha)
  })

  it('control: a maintainer resolves the thread; the finding is dismissed and the gate opens, also when an agent raises it again', async () => {
    const github = await reviewedWithBlocker()
    const thread = portThread(github)
    if (!thread) throw new Error('no thread')
    thread.resolvedBy = 'alice-maintainer'
    pushToPull(github.state, 42, retryOnlyPush())
    const run = await review(github, [])
    expectGateOpen(run, github, retryOnlyPush().sha)
    expect(sticky(github)).toContain('dismissed')
    expect(sticky(github)).toContain('alice-maintainer has maintain access')
    // An agent raises it again on a later push: it stays dismissed (no new
    // thread is opened that anyone could dismiss again).
    const later = retryOnlyPush('7'.repeat(40))
    pushToPull(github.state, 42, { ...later, change: '' })
    const again = await review(github, [PORT])
    expectGateOpen(again, github, later.sha)
  })

  it('attack: 1,000 threads of the author’s own come first; every page is read and the blocker still counts', async () => {
    const github = await pull()
    for (let i = 0; i < 1000; i++)
      github.state.reviewComments.push({
        id: 5_000_000 + i,
        reviewId: null,
        pullNumber: 42,
        user: MALLORY,
        path: 'src/limits.ts',
        line: 1,
        side: 'RIGHT',
        startLine: null,
        startSide: null,
        body: `nit ${i}`,
        commitId: PUSH_SHAS[0] as string,
        createdAt: new Date().toISOString()
      })
    await review(github, [PORT], true)
    pushToPull(github.state, 42, retryOnlyPush())
    const run = await review(github, [])
    expect(run.summary).toContain('Incremental review')
    // The bot's thread, the 1,001st, was read.
    expect(sticky(github)).toMatch(
      /parsePort accepts text that is not a port \| carried forward/
    )
    expectGateHeld(run, github, retryOnlyPush().sha)
  })

  it('attack: a read of the threads that stops short makes the run review the whole pull request, said in the report', async () => {
    const github = await reviewedWithBlocker()
    pushToPull(github.state, 42, retryOnlyPush())
    // GitHub says there is more, and gives no place to read on from.
    github.injectFault('POST /graphql', {
      status: 200,
      body: {
        data: {
          repository: {
            pullRequest: {
              reviewThreads: {
                pageInfo: { hasNextPage: true, endCursor: null },
                nodes: []
              }
            }
          }
        }
      }
    })
    // Reviewing the whole pull request, the agents find the blocker again.
    const run = await review(github, [PORT])
    expect(run.summary).toContain(
      'Full review: the earlier findings could not all be read'
    )
    expectGateHeld(run, github, retryOnlyPush().sha)
  })

  it('attack: a read of the threads that stops short, and the agents do not raise the blocker again: incomplete, never pass', async () => {
    const github = await reviewedWithBlocker()
    pushToPull(github.state, 42, retryOnlyPush())
    github.injectFault('POST /graphql', {
      status: 200,
      body: {
        data: {
          repository: {
            pullRequest: {
              reviewThreads: {
                pageInfo: { hasNextPage: true, endCursor: null },
                nodes: []
              }
            }
          }
        }
      }
    })
    // The blocker still stands (not fixed, not dismissed), but this run
    // could not read it back: it cannot say pass.
    const run = await review(github, [])
    expect(run.outputs.verdict).toBe('incomplete')
    expect(run.exitCode).toBe(1)
    expect(run.summary).toContain(
      'the earlier findings could not all be read, so one still open may be missing'
    )
  })

  it('attack: the base is retargeted to a branch that lacks the old base’s code; the run reviews the whole pull request', async () => {
    const github = await reviewedWithBlocker()
    const pr = github.state.pulls['42']
    if (!pr) throw new Error('no pull')
    const legacy = 'b'.repeat(40)
    github.state.commits = {
      ...(github.state.commits ?? {}),
      [BASE]: { parents: [] },
      [legacy]: { parents: [] }
    }
    pr.base = { ...pr.base, ref: 'legacy', sha: legacy }
    pushToPull(github.state, 42, retryOnlyPush())
    const run = await review(github, [PORT])
    expect(run.summary).toContain(
      'Full review: the base changed since the last review'
    )
    expectGateHeld(run, github, retryOnlyPush().sha)
  })

  it('control: the base branch only moved forward; the run stays incremental', async () => {
    const github = await reviewedWithBlocker()
    const pr = github.state.pulls['42']
    if (!pr) throw new Error('no pull')
    const ahead = 'c'.repeat(40)
    github.state.commits = {
      ...(github.state.commits ?? {}),
      [BASE]: { parents: [] },
      [ahead]: { parents: [BASE] }
    }
    pr.base = { ...pr.base, sha: ahead }
    pushToPull(github.state, 42, retryOnlyPush())
    const run = await review(github, [])
    expect(run.summary).toContain('Incremental review')
    expectGateHeld(run, github, retryOnlyPush().sha)
  })

  it('attack: a blocker the first review could only put in its body (its line is outside the diff) has no thread to carry it; the next push is reviewed whole', async () => {
    const github = await pull()
    const outside = { ...PORT, line: 40 }
    const first = await review(github, [outside], true)
    expect(first.outputs.verdict).toBe('blockers')
    const [posted] = JSON.parse(first.outputs.findings ?? '[]') as Array<{
      posted: string
    }>
    expect(posted?.posted).toBe('body')
    pushToPull(github.state, 42, retryOnlyPush())
    // Reviewing the whole pull request, the agents find it again.
    const run = await review(github, [outside])
    expect(run.summary).toContain(
      'Full review: the last review left 1 counted finding(s) outside review threads'
    )
    expectGateHeld(run, github, retryOnlyPush().sha)
  })
})

describe('a finding on a line its file does not have', () => {
  /** A checkout of the first push: src/limits.ts, 8 lines. */
  function checkout(): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'past-end-'))
    fs.mkdirSync(path.join(dir, 'src'))
    fs.writeFileSync(
      path.join(dir, 'src/limits.ts'),
      `${LIMITS_V1.join('\n')}\n`
    )
    return dir
  }

  it('attack: both agents raise a blocker on line 1,472 of the 8-line src/limits.ts (a real 135M model did, issue 44): it does not count, and the report says why; control: the same blocker on line 7 counts', async () => {
    const pastEnd = await reviewBy(
      await pull(),
      Object.fromEntries(AGENTS.map((id) => [id, [{ ...PORT, line: 1472 }]])),
      { first: true, workspace: checkout() }
    )
    expect(pastEnd.outputs.verdict).toBe('pass')
    expect(pastEnd.exitCode).toBe(0)
    expect(pastEnd.summary).toContain(
      'summary only (its line is past the end of the file)'
    )
    const control = await reviewBy(
      await pull(),
      Object.fromEntries(AGENTS.map((id) => [id, [PORT]])),
      { first: true, workspace: checkout() }
    )
    expect(control.outputs.verdict).toBe('blockers')
    expect(control.exitCode).toBe(1)
  })
})
