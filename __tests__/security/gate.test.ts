// Attacks on the event gate, played through the bundled action (dist/ under
// Node 24, loopback GitHub API, fake MassGen): someone without write access
// tries to start a run, and so spend the keys, through an event other than a
// comment command.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals'
import { faults, type GitHubServer } from '../../test-support/github-server.js'
import { FAKE_MASSGEN, runAction } from '../../test-support/run-action.js'
import { R } from '../../test-support/github-routes.js'
import { commentsOn, githubWithPull } from '../../test-support/loopback.js'
import { event, KEYS } from '../../test-support/fixtures.js'

let github: GitHubServer
beforeEach(async () => {
  github = await githubWithPull()
  github.state.permissions = {
    'alice-maintainer': 'maintain',
    'bob-reader': 'read',
    'tom-triage': 'triage'
  }
})
afterEach(async () => {
  await github.close()
})

const TIMEOUT = 60_000
const PERMISSION = `GET ${R}/collaborators/{username}/permission`

function run(
  eventName: string,
  payload: unknown,
  inputs: Record<string, string> = {},
  env: Record<string, string> = {}
) {
  return runAction({
    githubApiUrl: github.url,
    eventName,
    payload,
    inputs: {
      query: 'Review the repository',
      models: 'openai/gpt-5.4 claude/claude-opus-4-6',
      'openai-api-key': KEYS.openai,
      'anthropic-api-key': KEYS.anthropic,
      'massgen-command': `node ${FAKE_MASSGEN}`,
      ...inputs
    },
    env: { FAKE_MASSGEN_SCENARIO: 'success', ...env }
  })
}

const user = (login: string) => ({ login, id: 1, type: 'User' })
const bot = (login: string) => ({ login, id: 2, type: 'Bot' })

/** A refused run: skipped, said in a notice and the summary, nothing run or posted. */
function expectRefused(
  result: Awaited<ReturnType<typeof run>>,
  reason: RegExp
): void {
  expect(result.exitCode).toBe(0)
  expect(result.outputs.status).toBe('skipped')
  expect(result.stdout).toMatch(
    new RegExp(`::notice::MassGen run skipped: .*${reason.source}`)
  )
  expect(result.summary).toMatch(/skipped/)
  // As GitHub shows it: markdown escapes resolved.
  expect(result.summary.replace(/\\([!-/:-@[-`{-~])/g, '$1')).toMatch(reason)
  expect(result.outputs['config-file']).toBeUndefined()
  expect(github.state.comments).toHaveLength(0)
}

// Events a reader (or a stranger) can cause on a public repository, shaped
// as GitHub sends them (only the fields the action reads).
const readerEvents: Array<[string, string, unknown]> = [
  [
    'opens an issue',
    'issues',
    { action: 'opened', issue: { number: 7 }, sender: user('bob-reader') }
  ],
  [
    'submits a review',
    'pull_request_review',
    {
      action: 'submitted',
      pull_request: { number: 42 },
      review: { user: user('bob-reader') },
      sender: user('bob-reader')
    }
  ],
  [
    'writes a review comment',
    'pull_request_review_comment',
    {
      action: 'created',
      pull_request: { number: 42 },
      // A thread command: other review comments are not for the action.
      comment: { id: 5, body: '/massgen go', user: user('bob-reader') },
      sender: user('bob-reader')
    }
  ],
  [
    'comments on a discussion',
    'discussion_comment',
    {
      action: 'created',
      discussion: { number: 3 },
      comment: { id: 6, body: '/massgen go', user: user('tom-triage') },
      sender: user('tom-triage')
    }
  ],
  [
    'finishes a fork CI run that a workflow_run follows',
    'workflow_run',
    {
      action: 'completed',
      workflow_run: {
        actor: user('mallory-contrib'),
        triggering_actor: user('mallory-contrib'),
        pull_requests: []
      },
      sender: user('mallory-contrib')
    }
  ],
  ['pushes a tag', 'push', { ref: 'refs/tags/x', sender: user('bob-reader') }]
]

describe('the gate on events other than comment commands', () => {
  it.each(readerEvents)(
    'attack: a user without write access %s to start a run — fails',
    async (_what, eventName, payload) => {
      const result = await run(eventName, payload)
      expectRefused(
        result,
        /(bob-reader|tom-triage|mallory-contrib) has \w+ access/
      )
    },
    TIMEOUT
  )

  it(
    'attack: a maintainer re-runs a workflow_run that a reader started — fails',
    async () => {
      const result = await run('workflow_run', {
        action: 'completed',
        workflow_run: {
          actor: user('bob-reader'),
          triggering_actor: user('alice-maintainer'),
          pull_requests: [{ number: 42 }]
        },
        sender: user('alice-maintainer')
      })
      expectRefused(result, /bob-reader has read access/)
    },
    TIMEOUT
  )

  it(
    'attack: an event with no sender at all, hoping to pass unchecked — fails',
    async () => {
      const result = await run('issues', {
        action: 'opened',
        issue: { number: 7 }
      })
      expectRefused(result, /names no one who started it/)
    },
    TIMEOUT
  )

  it(
    'attack: the permission API refuses to answer, hoping the gate fails open — fails (closed, and the step fails)',
    async () => {
      github.injectFault(PERMISSION, faults.forbidden(), 10)
      const result = await run('issues', {
        action: 'opened',
        issue: { number: 7 },
        sender: user('alice-maintainer')
      })
      // Not a refusal of anyone: failed, said in the summary and on the issue.
      expect(result.exitCode).toBe(1)
      expect(result.outputs.status).toBe('failed')
      expect(result.stdout).toMatch(
        /::error::The permission check failed, so nothing was run: could not check alice-maintainer's permission/
      )
      expect(result.summary).toMatch(/could not check alice-maintainer/)
      expect(result.outputs['config-file']).toBeUndefined()
      expect(commentsOn(github, 7).join('\n')).toMatch(
        /could not check alice-maintainer/
      )
    },
    TIMEOUT
  )

  it(
    'attack: a bot that is not allow-listed opens an issue — fails',
    async () => {
      const result = await run('issues', {
        action: 'opened',
        issue: { number: 7 },
        sender: bot('evil-app[bot]')
      })
      expectRefused(result, /evil-app\[bot\] is a bot; list it in allowed-bots/)
    },
    TIMEOUT
  )

  it(
    'a maintainer opening an issue starts a run that reports on that issue',
    async () => {
      const result = await run('issues', {
        action: 'opened',
        issue: { number: 7 },
        sender: user('alice-maintainer')
      })
      expect(result.outputs.status).toBe('success')
      expect(commentsOn(github, 7).join('\n')).toContain('Answer from agent_a.')
    },
    TIMEOUT
  )

  it(
    'a reader named in allowed-users may start a run',
    async () => {
      const result = await run(
        'issues',
        { action: 'opened', issue: { number: 7 }, sender: user('bob-reader') },
        { 'allowed-users': 'Bob-Reader' }
      )
      expect(result.outputs.status).toBe('success')
      expect(commentsOn(github, 7)).toHaveLength(1)
    },
    TIMEOUT
  )

  it(
    "attack: a workflow author writes '*' in allowed-users or allowed-bots — refused as an input error",
    async () => {
      for (const input of ['allowed-users', 'allowed-bots']) {
        const result = await run(
          'issues',
          {
            action: 'opened',
            issue: { number: 7 },
            sender: user('bob-reader')
          },
          { [input]: '*' }
        )
        expect(result.exitCode).toBe(1)
        expect(result.outputs.status).toBe('config-error')
        expect(result.stdout).toContain(
          `::error::Input '${input}': '*' is a wildcard, which is not allowed`
        )
      }
      expect(github.requests).toHaveLength(0)
    },
    TIMEOUT
  )
})

describe('pull requests', () => {
  const forkPayload = (sender: unknown, action = 'opened') => {
    const payload = event('pull_request.fork') as Record<string, unknown>
    return { ...payload, action, sender }
  }
  beforeEach(() => {
    // #43, the fork's pull request, as the API serves it.
    const pull = github.state.pulls['42']!
    github.state.pulls['43'] = {
      ...pull,
      title: 'Fix typo in README',
      author: { login: 'mallory-contrib', id: 5550777, type: 'User' },
      head: {
        ...pull.head,
        // The fork fixture's head: nobody pushed after its event.
        sha: '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d',
        repo: 'mallory-contrib/octo-repo'
      }
    }
  })

  it(
    'attack: a fork opens a pull request under a pull_request_target workflow — fails',
    async () => {
      const result = await run(
        'pull_request_target',
        forkPayload(user('mallory-contrib'))
      )
      expectRefused(result, /allow-fork-pull-request-target: true/)
    },
    TIMEOUT
  )

  it(
    'attack: with the fork opt-in set, the fork author still cannot start a run — fails',
    async () => {
      const result = await run(
        'pull_request_target',
        forkPayload(user('mallory-contrib')),
        { 'allow-fork-pull-request-target': 'true' }
      )
      expectRefused(result, /mallory-contrib has none access/)
    },
    TIMEOUT
  )

  it(
    'with the fork opt-in set, a maintainer labelling the fork pull request starts a run on it',
    async () => {
      const result = await run(
        'pull_request_target',
        forkPayload(user('alice-maintainer'), 'labeled'),
        { 'allow-fork-pull-request-target': 'true' }
      )
      expect(result.outputs.status).toBe('success')
      expect(commentsOn(github, 43).join('\n')).toContain(
        'Answer from agent_a.'
      )
    },
    TIMEOUT
  )

  it(
    'attack: a triager labels a pull request to start a pull_request run with keys — fails',
    async () => {
      const payload = event('pull_request.opened') as Record<string, unknown>
      const result = await run('pull_request', {
        ...payload,
        action: 'labeled',
        sender: user('tom-triage')
      })
      expectRefused(result, /tom-triage has triage access/)
    },
    TIMEOUT
  )

  it(
    'attack: Dependabot (not allow-listed) opens a pull request on a workflow that has keys — fails',
    async () => {
      const result = await run('pull_request', event('pull_request.dependabot'))
      expectRefused(
        result,
        /dependabot\[bot\] is a bot; list it in allowed-bots/
      )
    },
    TIMEOUT
  )
})
