// Which branch's repository config file (.github/massgen-action.yml) sets up
// a pull request's review, through the bundle under Node 24 with the loopback
// GitHub. The repository's policy lives on its default branch: a pull
// request based on another branch (its author can retarget it to an old
// release branch without the file, or with a laxer one, and have a
// maintainer's comment or a push run the review there) is reviewed under the
// default branch's file, read at that branch's head; one based on the
// default branch keeps reading the file at its base commit.
import { describe, expect, it } from '@jest/globals'
import {
  startGitHubServer,
  type GitHubServer
} from '../../test-support/github-server.js'
import { faults } from '../../test-support/github-state.js'
import type { ServerTreeEntry } from '../../test-support/github-state.js'
import { FAKE_MASSGEN, runAction } from '../../test-support/run-action.js'
import { PORT, pushesPull } from '../../test-support/pushes-pull.js'
import { findingsBlock } from '../../test-support/review-pull.js'
import { event } from '../../test-support/fixtures.js'
import {
  NO_LLM_URL,
  scriptedAgents,
  twoAgentReview
} from '../../test-support/pr-run.js'

const FILE = '.github/massgen-action.yml'
/** The commit the default branch (main) is at. */
const MAIN_HEAD = 'd'.repeat(40)
/** The base commit of a pull request based on main (pushesPull's). */
const MAIN_BASE = 'a'.repeat(40)
/** The commit an old release branch without the file is at. */
const OLD = 'b'.repeat(40)

interface Scene {
  /** The pull request's base branch and commit. */
  base: { ref: string; sha: string }
  /** The repository's trees by commit. */
  files: Record<string, Record<string, ServerTreeEntry>>
  eventName: 'pull_request' | 'issue_comment'
  /** The event without `repository.default_branch` (GitHub is asked). */
  noDefaultBranch?: boolean
  /** A fault for one route, to see the run fail closed. */
  fault?: string
}

/** The pull_request (a push carrying the new base) or maintainer's comment event. */
function payloadOf(scene: Scene, headSha: string): Record<string, unknown> {
  type Json = Record<string, unknown>
  const payload = structuredClone(
    scene.eventName === 'pull_request'
      ? event('pull_request.opened')
      : event('issue_comment.created.pr')
  ) as Json
  const part = (parent: Json, key: string) => parent[key] as Json
  if (scene.eventName === 'pull_request') {
    const pull = part(payload, 'pull_request')
    payload.action = 'synchronize'
    part(pull, 'head').sha = headSha
    Object.assign(part(pull, 'base'), scene.base)
  } else part(payload, 'comment').body = '/massgen review'
  if (scene.noDefaultBranch) delete part(payload, 'repository').default_branch
  return payload
}

/** Two agents that both report a blocker (an unchecked port) and vote. */
const blockerAgents = () => {
  const answer = (id: string) =>
    [`Review by ${id}.`, '', findingsBlock([PORT])].join('\n')
  return scriptedAgents(
    Object.fromEntries(
      ['agent_a', 'agent_b'].map((id) => [
        id,
        { answer: answer(id), voteFor: 'agent_a' }
      ])
    )
  )
}

async function review(scene: Scene) {
  const github: GitHubServer = await startGitHubServer({ issues: [42] })
  try {
    const pull = pushesPull()
    pull.base = { ...pull.base, ...scene.base }
    github.state.pulls['42'] = pull
    github.state.files = scene.files
    github.state.branches = { main: MAIN_HEAD, 'old-release': OLD }
    if (scene.fault) github.injectFault(scene.fault, faults.forbidden())
    const run = await runAction({
      eventName: scene.eventName,
      payload: payloadOf(scene, pull.head.sha),
      githubApiUrl: github.url,
      env: blockerAgents(),
      inputs: {
        ...twoAgentReview(NO_LLM_URL, FAKE_MASSGEN),
        'finding-vote': 'false',
        'checkout-check': 'warn'
      }
    })
    const asked = (path: string) =>
      github.requests.filter((r) => r.method === 'GET' && r.path === path)
        .length
    return {
      run,
      check: github.state.checkRuns.at(-1)?.conclusion,
      askedRepository: asked('/repos/octo-org/octo-repo'),
      askedBranch: asked('/repos/octo-org/octo-repo/git/ref/heads%2Fmain'),
      comments: github.state.comments.map((c) => c.body),
      readAt: github.requests
        .filter((r) => decodeURIComponent(r.path).endsWith(`/contents/${FILE}`))
        .map((r) => r.query.ref)
    }
  } finally {
    await github.close()
  }
}

const onMain = { ref: 'main', sha: MAIN_BASE }
const onOld = { ref: 'old-release', sha: OLD }
const blockerOnMain = { [FILE]: 'fail-on: blocker\n' }

describe("the repository config file of a pull request based on another branch: the default branch's", () => {
  it("attack: the author retargets the pull request to a branch without the file and a push carries the new base — the default branch's fail-on: blocker still fails the check", async () => {
    const r = await review({
      base: onOld,
      files: { [MAIN_HEAD]: blockerOnMain, [OLD]: {} },
      eventName: 'pull_request'
    })
    expect(r.run.outputs.verdict).toBe('blockers')
    expect(r.run.exitCode).toBe(1)
    expect(r.check).toBe('failure')
    expect(r.readAt).toEqual([MAIN_HEAD])
    // The event names the default branch: GitHub is asked only where it is.
    expect(r.askedRepository).toBe(0)
    expect(r.askedBranch).toBe(1)
    expect(r.run.stdout).toContain(
      `${FILE} is read from the default branch 'main' at dddddddddddd, not from the base branch 'old-release' (bbbbbbbbbbbb) of pull request #42`
    )
  })

  it("attack: the base branch's own file is laxer (fail-on: never) and a maintainer's comment runs the review — the default branch's setting applies", async () => {
    const r = await review({
      base: onOld,
      files: {
        [MAIN_HEAD]: blockerOnMain,
        [OLD]: { [FILE]: 'fail-on: never\n' }
      },
      eventName: 'issue_comment',
      noDefaultBranch: true
    })
    expect(r.run.outputs.verdict).toBe('blockers')
    expect(r.run.exitCode).toBe(1)
    expect(r.check).toBe('failure')
    expect(r.readAt).toEqual([MAIN_HEAD])
    // The event does not name the default branch: GitHub is asked, once.
    expect(r.askedRepository).toBe(1)
  })

  it('GitHub refuses to say where the default branch is (403: a token without contents: read) — the run fails closed, naming the file', async () => {
    const r = await review({
      base: onOld,
      files: { [MAIN_HEAD]: blockerOnMain, [OLD]: {} },
      eventName: 'pull_request',
      fault: 'GET /repos/{owner}/{repo}/git/ref/{ref}'
    })
    expect(r.run.outputs.status).toBe('config-error')
    expect(r.run.exitCode).not.toBe(0)
    expect(r.readAt).toEqual([])
    expect(r.run.stdout).toContain(
      `${FILE} must be read through the API, never from the checkout; the commit the default branch 'main' is at could not be found: GitHubError: Reading the commit branch 'main' is at`
    )
  })

  it("a bad key in the default branch's file stops the run naming the file, the branch's commit and the key, in the summary and on the pull request", async () => {
    const r = await review({
      base: onOld,
      files: { [MAIN_HEAD]: { [FILE]: 'fail-on: sometimes\n' }, [OLD]: {} },
      eventName: 'pull_request'
    })
    expect(r.run.outputs.status).toBe('config-error')
    expect(r.run.exitCode).not.toBe(0)
    const said = `${FILE} at default branch 'main' at dddddddddddd: key 'fail-on': got 'sometimes'`
    expect(r.run.summary).toContain(said)
    expect(r.comments.at(-1)).toContain(said)
  })

  it('control: a pull request based on the default branch reads the file at its base commit, as before (not at the branch head)', async () => {
    const r = await review({
      base: onMain,
      files: {
        [MAIN_BASE]: blockerOnMain,
        [MAIN_HEAD]: { [FILE]: 'fail-on: never\n' }
      },
      eventName: 'pull_request'
    })
    expect(r.run.outputs.verdict).toBe('blockers')
    expect(r.run.exitCode).toBe(1)
    expect(r.check).toBe('failure')
    expect(r.readAt).toEqual([MAIN_BASE])
    expect(r.askedRepository + r.askedBranch).toBe(0)
    expect(r.run.stdout).not.toContain('is read from the default branch')
  })
})
