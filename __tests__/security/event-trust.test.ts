// Attacks on what the action trusts in an event, played through the bundled
// action (dist/ under Node 24, loopback GitHub API, fake MassGen): a bot's
// pull request carrying upstream text into local mode, a push after the
// maintainer's label, a workflow_run that names another repository's pull
// request, and a permission check that fails hoping the job ends green.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as path from 'node:path'
import {
  addComment,
  faults,
  type GitHubServer
} from '../../test-support/github-server.js'
import { R } from '../../test-support/github-routes.js'
import {
  FAKE_MASSGEN,
  openTempDir,
  runAction,
  type RunOptions
} from '../../test-support/run-action.js'
import { FIXTURE_HEAD_SHA, samplePull } from '../../test-support/sample-pull.js'
import { commentsOn, githubWithPull } from '../../test-support/loopback.js'
import { event, KEYS } from '../../test-support/fixtures.js'
import { expectNoKeyLeak } from '../../test-support/leaks.js'

const TIMEOUT = 60_000
const PERMISSION = `GET ${R}/collaborators/{username}/permission`
/** A commit pushed after the event: the pull request's head when the job starts. */
const PUSHED = 'c'.repeat(40)

let github: GitHubServer
beforeEach(async () => {
  github = await githubWithPull()
  github.state.permissions = {
    'alice-maintainer': 'maintain',
    'bob-reader': 'read',
    Codertocat: 'write'
  }
})
afterEach(async () => {
  await github.close()
})

/** One run of the bundle; whether MassGen (the fake) was started at all. */
async function run(options: Partial<RunOptions>) {
  const record = path.join(openTempDir('event-trust-'), 'massgen-ran.json')
  const result = await runAction({
    githubApiUrl: github.url,
    ...options,
    inputs: {
      query: 'Review this change',
      models: 'openai/gpt-5.4 claude/claude-opus-4-6',
      'openai-api-key': KEYS.openai,
      'anthropic-api-key': KEYS.anthropic,
      'massgen-command': `node ${FAKE_MASSGEN}`,
      'upload-logs': 'false',
      ...options.inputs
    },
    env: {
      FAKE_MASSGEN_SCENARIO: 'success',
      FAKE_MASSGEN_RECORD: record,
      ...options.env
    }
  })
  return { result, massgenRan: fs.existsSync(record) }
}

/** How GitHub shows the summary: markdown escapes resolved. */
const shown = (markdown: string) =>
  markdown.replace(/\\([!-/:-@[-`{-~])/g, '$1')

describe('bot pull requests in local mode (finding 8)', () => {
  const dependabot = () =>
    event('pull_request.dependabot') as {
      pull_request: {
        number: number
        head: { sha: string }
        user: { login: string; id: number; type: string }
        body: string
      }
      sender: { login: string; id: number; type: string }
    }
  /** The same pull request opened by Renovate instead. */
  const renovate = () => {
    const payload = dependabot()
    const bot = { login: 'renovate[bot]', id: 29139614, type: 'Bot' }
    payload.pull_request.user = { ...payload.pull_request.user, ...bot }
    payload.sender = { ...payload.sender, ...bot }
    return payload
  }
  beforeEach(() => {
    // #44 as the API serves it: the bot's branch, unmoved since the event.
    const payload = dependabot()
    github.state.pulls['44'] = {
      ...samplePull(),
      title: 'Bump undici from 7.10.0 to 7.16.0',
      body: payload.pull_request.body,
      author: { login: 'dependabot[bot]', id: 49699333, type: 'Bot' },
      head: {
        ref: 'dependabot/npm_and_yarn/undici-7.16.0',
        sha: payload.pull_request.head.sha,
        repo: 'octo-org/octo-repo'
      }
    }
  })
  const botInputs = {
    'allowed-bots': 'dependabot, renovate',
    'agent-commands': 'true',
    'accept-local-mode-risk': 'false'
  }

  it.each([
    ['Dependabot', dependabot],
    ['Renovate', renovate]
  ])(
    "attack: a %s pull request's upstream release notes reach local-mode agents that run commands, without accept-local-mode-risk — fails",
    async (_bot, payload) => {
      const { result, massgenRan } = await run({
        eventName: 'pull_request',
        payload: payload(),
        inputs: botInputs
      })
      expect(massgenRan).toBe(false)
      expect(result.exitCode).toBe(1)
      expect(result.outputs.status).toBe('config-error')
      const summary = shown(result.summary)
      expect(summary).toMatch(
        /Local mode \('docker: false'\) refused on 'pull_request' events: a bot started it/
      )
      expect(summary).toContain("'accept-local-mode-risk: true'")
      expect(github.state.comments).toHaveLength(0)
      expectNoKeyLeak(result, github)
    },
    TIMEOUT
  )

  it(
    'with accept-local-mode-risk the allow-listed bot pull request runs in local mode',
    async () => {
      const { result, massgenRan } = await run({
        eventName: 'pull_request',
        payload: dependabot(),
        inputs: { ...botInputs, 'accept-local-mode-risk': 'true' }
      })
      expect(massgenRan).toBe(true)
      expect(result.outputs.status).toBe('success')
      expect(commentsOn(github, 44).join('\n')).toContain(
        'Answer from agent_a.'
      )
    },
    TIMEOUT
  )
})

describe('a push after the event (finding 9)', () => {
  const labeled = () => {
    const payload = event('pull_request.labeled') as Record<string, unknown>
    payload.sender = { login: 'alice-maintainer', id: 5550001, type: 'User' }
    return payload
  }
  const withAction = (action: string) => ({
    ...(event('pull_request.opened') as Record<string, unknown>),
    action
  })

  it.each([
    ['pull_request', 'labels', labeled, 'the commit that was labelled'],
    ['pull_request_target', 'labels', labeled, 'the commit that was labelled'],
    [
      'pull_request',
      'pushes (synchronize)',
      () => withAction('synchronize'),
      'the commit the event was for'
    ],
    [
      'pull_request',
      'reopens',
      () => withAction('reopened'),
      'the commit the event was for'
    ]
  ])(
    "attack: on %s, a maintainer %s the pull request and someone pushes before the job starts, hoping the agents review the new commit under the event's head-sha — fails",
    async (eventName, _what, payload, what) => {
      github.state.pulls['42']!.head.sha = PUSHED
      const { result, massgenRan } = await run({
        eventName,
        payload: payload(),
        inputs: { 'label-trigger': 'massgen-review' }
      })
      expect(massgenRan).toBe(false)
      expect(result.exitCode).toBe(0)
      expect(result.outputs.status).toBe('skipped')
      // The output names the commit the run refused, never the event's.
      expect(result.outputs['head-sha']).toBe(PUSHED)
      const reason =
        `The pull request's head is now ${PUSHED.slice(0, 12)}, not ` +
        `${FIXTURE_HEAD_SHA.slice(0, 12)} (${what}): someone pushed after the event.`
      expect(result.stdout).toContain(
        `::notice::MassGen run skipped: ${reason}`
      )
      expect(shown(result.summary)).toContain(reason)
      const comments = commentsOn(github, 42)
      expect(comments).toHaveLength(1)
      expect(shown(comments[0] ?? '')).toContain(reason)
      expect(result.outputs['config-file']).toBeUndefined()
    },
    TIMEOUT
  )

  it(
    'an unmoved head after the label runs, and head-sha is the labelled commit the agents were given',
    async () => {
      const { result, massgenRan } = await run({
        eventName: 'pull_request',
        payload: labeled(),
        inputs: { 'label-trigger': 'massgen-review' }
      })
      expect(massgenRan).toBe(true)
      expect(result.outputs.status).toBe('success')
      expect(result.outputs['head-sha']).toBe(FIXTURE_HEAD_SHA)
      const workDir = result.state['work-dir'] ?? ''
      expect(
        fs.readFileSync(
          path.join(workDir, 'pr-context', 'pull-request.md'),
          'utf8'
        )
      ).toContain(`- reviewed commit: ${FIXTURE_HEAD_SHA}`)
    },
    TIMEOUT
  )
})

describe("workflow_run naming another repository's pull request (finding 11)", () => {
  /** GitHub's example payload: this repository's run, Codertocat/Hello-World's PR #2. */
  const otherRepoRun = () =>
    event('workflow_run.completed.other-repo-pr') as {
      repository: { id: number; full_name: string }
      workflow_run: {
        pull_requests: Array<{
          number: number
          base: { repo: { id: number; url: string; name: string } }
        }>
      }
    }
  beforeEach(() => {
    // This repository has an unrelated issue #2 to post on.
    github.state.issues = [...github.state.issues, 2]
  })

  it(
    "attack: a workflow_run whose pull_requests lists another repository's PR #2 reports on this repository's #2 — fails",
    async () => {
      const payload = otherRepoRun()
      expect(payload.repository.full_name).toBe('octo-org/octo-repo')
      expect(payload.workflow_run.pull_requests[0]?.base.repo.url).toBe(
        'https://api.github.com/repos/Codertocat/Hello-World'
      )
      const { result, massgenRan } = await run({
        eventName: 'workflow_run',
        payload
      })
      expect(massgenRan).toBe(true)
      expect(result.outputs.status).toBe('success')
      expect(commentsOn(github, 2)).toEqual([])
      expect(github.state.comments).toHaveLength(0)
      expect(
        github.requests.filter((r) => r.method !== 'GET').map((r) => r.path)
      ).toEqual([])
      // The report is in the job summary only.
      expect(result.summary).toContain('Answer from agent_a.')
    },
    TIMEOUT
  )

  it(
    'attack: a foreign entry that names this repository by its address but carries another id is not this repository — fails',
    async () => {
      const payload = otherRepoRun()
      const entry = payload.workflow_run.pull_requests[0]!
      entry.base.repo.url = 'https://api.github.com/repos/octo-org/octo-repo'
      const { result } = await run({ eventName: 'workflow_run', payload })
      expect(result.outputs.status).toBe('success')
      expect(github.state.comments).toHaveLength(0)
    },
    TIMEOUT
  )

  it(
    "this repository's pull request in the list gets the report, found by id and name (any case), even after a foreign one",
    async () => {
      const payload = otherRepoRun()
      const foreign = payload.workflow_run.pull_requests[0]!
      payload.workflow_run.pull_requests.push({
        ...foreign,
        number: 42,
        base: {
          repo: {
            id: payload.repository.id,
            url: 'https://api.github.com/repos/Octo-Org/OCTO-repo',
            name: 'octo-repo'
          }
        }
      })
      // The fixture's repository's default branch is master, and pull
      // request #42 is based on main: its config file is read at master's
      // head (none there), which GitHub must know.
      github.state.branches = { master: 'f'.repeat(40) }
      const { result } = await run({ eventName: 'workflow_run', payload })
      expect(result.outputs.status).toBe('success')
      expect(commentsOn(github, 2)).toEqual([])
      expect(commentsOn(github, 42).join('\n')).toContain(
        'Answer from agent_a.'
      )
    },
    TIMEOUT
  )
})

describe('a permission check that fails (finding 13)', () => {
  /** The fixture's `/massgen` comment on PR #42, also on the server. */
  const commentOnPull = () => {
    const payload = event('issue_comment.created.pr') as {
      comment: { id: number; body: string; user: never }
    }
    payload.comment.id = addComment(
      github.state,
      42,
      payload.comment.body,
      payload.comment.user,
      null
    ).id
    return payload
  }

  /** Failed visibly: the step fails, the reason in the summary and the comment. */
  function expectFailedClosed(
    result: Awaited<ReturnType<typeof run>>['result'],
    massgenRan: boolean,
    issue: number
  ) {
    expect(massgenRan).toBe(false)
    expect(result.exitCode).toBe(1)
    expect(result.outputs.status).toBe('failed')
    const reason =
      "The permission check failed, so nothing was run: could not check alice-maintainer's permission"
    expect(result.stdout).toContain(`::error::${reason}`)
    expect(result.stdout).not.toMatch(/::notice::MassGen run skipped/)
    const summary = shown(result.summary)
    expect(summary).toContain('### ❌ MassGen failed')
    expect(summary).toContain(reason)
    // Not a refusal of anyone, and not a config error.
    expect(summary).not.toMatch(/has \w+ access|skipped|config-error/)
    const comments = commentsOn(github, issue)
    expect(comments.filter((c) => shown(c).includes(reason))).toHaveLength(1)
    expectNoKeyLeak(result, github)
  }

  it(
    'attack: the permission API keeps answering 502 through every retry, hoping the comment run ends green with no review — fails',
    async () => {
      // The first request and the client's 3 retries.
      github.injectFault(PERMISSION, faults.serverError(502), 4)
      const { result, massgenRan } = await run({
        eventName: 'issue_comment',
        payload: commentOnPull()
      })
      expectFailedClosed(result, massgenRan, 42)
      expect(
        github.requests.filter((r) => r.path.endsWith('/permission'))
      ).toHaveLength(4)
    },
    TIMEOUT
  )

  it(
    'attack: the permission API refuses the token (403) on a pull_request run, hoping the pull request silently goes without its review — fails',
    async () => {
      github.injectFault(PERMISSION, faults.forbidden(), 1)
      const { result, massgenRan } = await run({
        eventName: 'pull_request',
        payload: event('pull_request.opened')
      })
      expectFailedClosed(result, massgenRan, 42)
    },
    TIMEOUT
  )

  it(
    'a reader is still refused as before: skipped, not failed',
    async () => {
      const payload = commentOnPull() as unknown as {
        comment: { user: { login: string } }
      }
      payload.comment.user = { ...payload.comment.user, login: 'bob-reader' }
      const { result, massgenRan } = await run({
        eventName: 'issue_comment',
        payload
      })
      expect(massgenRan).toBe(false)
      expect(result.exitCode).toBe(0)
      expect(result.outputs.status).toBe('skipped')
      expect(result.stdout).toMatch(
        /::notice::MassGen run skipped: bob-reader has read access/
      )
    },
    TIMEOUT
  )
})
