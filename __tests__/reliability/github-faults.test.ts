// GitHub API faults through the bundled action and the loopback server:
// retried where retrying helps, reported where it cannot, and the job summary
// is written in every case.
import { beforeAll, describe, expect, it } from '@jest/globals'
import {
  faults,
  startGitHubServer,
  type Fault,
  type GitHubServer
} from '../../test-support/github-server.js'
import type { ActionRun } from '../../test-support/run-action.js'
import { expectNoLeak, tally } from '../../test-support/tallies.js'
import { githubWithPull } from '../../test-support/loopback.js'
import { KEYS } from '../../test-support/fixtures.js'
import { EVERY_KEY_QUICK, prRun } from '../../test-support/pr-run.js'
import { stackTraces } from '../../test-support/leaks.js'

const R = '/repos/{owner}/{repo}'
const POST_COMMENT = `POST ${R}/issues/{issue_number}/comments`
const PATCH_COMMENT = `PATCH ${R}/issues/comments/{comment_id}`
const LIST_COMMENTS = `GET ${R}/issues/{issue_number}/comments`
const TOKEN = 'ghs_e2eTokenValue00000000000000000000000'

interface GitHubFault {
  name: string
  setup(server: GitHubServer): void
  /** A server that knows no pull request #42 at all. */
  prGone?: boolean
  /** The step fails though the run succeeded (its report was not posted). */
  failsStep?: boolean
  inputs?: Record<string, string>
  check(run: ActionRun, server: GitHubServer, comment: string | undefined): void
}

const count = (server: GitHubServer, method: string, pattern: RegExp) =>
  server.requests.filter((r) => r.method === method && pattern.test(r.path))
    .length
const COMMENTS = /\/issues\/42\/comments$/
const A_COMMENT = /\/issues\/comments\/\d+$/
const warnings = (run: ActionRun) =>
  run.stdout.split('\n').filter((l) => l.startsWith('::warning'))

const tooLong: Fault = {
  status: 422,
  body: {
    message: 'Validation Failed',
    errors: [
      {
        resource: 'IssueComment',
        code: 'custom',
        field: 'body',
        message: 'body is too long (maximum is 65536 characters)'
      }
    ],
    documentation_url:
      'https://docs.github.com/rest/issues/comments#create-an-issue-comment',
    status: '422'
  }
}

const FAULTS: GitHubFault[] = [
  {
    name: '500 on creating the comment: retried, then posted',
    // The default models, from every key given.
    inputs: { models: '' },
    setup: (s) => s.injectFault(POST_COMMENT, faults.serverError(500), 1),
    check(run, server, comment) {
      expect(run.outputs.status).toBe('success')
      expect(count(server, 'POST', COMMENTS)).toBe(2)
      expect(comment).toContain('Answer from agent_a.')
      expect(run.outputs['comment-url']).toMatch(/#issuecomment-\d+$/)
      // No `models`: the report says the keys chose them (a key added for
      // another tool adds an agent).
      expect(comment).toMatch(
        /🔑 The models came from the API keys this step was given \([a-z, ]*claude[a-z, ]*\): every key passed to it adds its default model/
      )
      expect(comment).toMatch(/\(.*grok.*\): every key/)
    }
  },
  {
    name: '502 on updating the comment: retried, then updated',
    setup: (s) => s.injectFault(PATCH_COMMENT, faults.serverError(502), 1),
    check(run, server, comment) {
      expect(run.outputs.status).toBe('success')
      expect(count(server, 'PATCH', A_COMMENT)).toBe(2)
      expect(comment).toContain('Answer from agent_a.')
      expect(run.outputs['comment-url']).toMatch(/#issuecomment-\d+$/)
    }
  },
  {
    name: '403 secondary rate limit: Retry-After waited out, then posted',
    setup: (s) =>
      s.injectFault(POST_COMMENT, faults.secondaryRateLimit(1, 403), 1),
    check(run, server, comment) {
      expect(run.outputs.status).toBe('success')
      expect(count(server, 'POST', COMMENTS)).toBe(2)
      expect(run.stdout).toMatch(
        /GitHub rate limit on POST \S*issues\/(42|\{issue_number\})\/comments\S*: retrying in 1s/
      )
      expect(comment).toContain('Answer from agent_a.')
    }
  },
  {
    name: '429 with Retry-After: waited out, then listed',
    setup: (s) =>
      s.injectFault(LIST_COMMENTS, faults.secondaryRateLimit(1, 429), 1),
    check(run, server, comment) {
      expect(run.outputs.status).toBe('success')
      const lists = server.requests.filter(
        (r) => r.method === 'GET' && COMMENTS.test(r.path)
      ).length
      // The refused listing and its retry; later updates PATCH the comment
      // this action wrote without listing again.
      expect(lists).toBeGreaterThanOrEqual(2)
      expect(run.stdout).toMatch(
        /GitHub rate limit on GET \S*issues\/(42|\{issue_number\})\/comments\S*: retrying in 1s/
      )
      expect(comment).toContain('Answer from agent_a.')
      expect(run.outputs['comment-url']).toMatch(/#issuecomment-\d+$/)
    }
  },
  {
    // Its head cannot be checked against the event's (head-check.ts): fail closed.
    name: '404: the pull request is gone: nothing runs, the step fails, the summary says why',
    prGone: true,
    inputs: { 'pr-context': 'false' },
    setup: () => undefined,
    check(run, _server, comment) {
      expect(comment).toBeUndefined()
      expect(run.outputs.status).toBe('failed')
      expect(run.outputs['config-file']).toBeUndefined()
      expect(run.summary).toMatch(
        /Could not check the pull request's head commit, so nothing was run: Reading the head of pull request #\u200B42 failed \(404/
      )
      expect(warnings(run).join('\n')).toMatch(
        /Could not post the comment on #42 \(not-found: .*404.*gone, or hidden from the token\)/
      )
    }
  },
  {
    name: "404 on the pull request's files when its context is read",
    setup: (s) =>
      s.injectFault(`GET ${R}/pulls/{pull_number}/files`, faults.notFound(), 1),
    check(run, _server, comment) {
      expect(run.outputs.status).toBe('failed')
      // `#42` in posted text carries a zero-width space (no backlink).
      expect(run.summary).toMatch(/Reading pull request #\u200B42 failed \(404/)
      expect(comment).toMatch(/Reading pull request #\u200B42 failed \(404/)
    }
  },
  {
    name: '422 body too long',
    setup: (s) => s.injectFault(POST_COMMENT, tooLong, 5),
    check(run, _server, comment) {
      expect(comment).toBeUndefined()
      expect(run.outputs.status).toBe('success')
      expect(warnings(run).join('\n')).toMatch(
        /Could not post the comment on #42 \(body-too-long: .*limit is 65536 characters\).*The job summary still has the report/
      )
      expect(run.summary).toContain('Answer from agent_a.')
    }
  },
  {
    // A pull request must not silently go without its report: the step
    // fails, naming the permission, once (no warning besides).
    name: '403 token without write permission: the step fails once, naming pull-requests: write',
    failsStep: true,
    setup: (s) => s.injectFault(POST_COMMENT, faults.forbidden(), 5),
    check(run, _server, comment) {
      expect(comment).toBeUndefined()
      expect(run.outputs.status).toBe('success')
      const errors = run.stdout
        .split('\n')
        .filter((l) => l.startsWith('::error'))
      expect(errors).toHaveLength(1)
      expect(errors[0]).toMatch(
        /The report was not posted: Could not post the comment on #42 \(forbidden: .*403: Resource not accessible by integration/
      )
      expect(errors[0]).toMatch(/Give the workflow `pull-requests: write`/)
      expect(warnings(run).join('\n')).not.toMatch(/Could not post/)
      expect(run.summary).toContain('Answer from agent_a.')
    }
  }
]

const outcomes = new Map<
  string,
  { run: ActionRun; server: GitHubServer; comment: string | undefined }
>()

beforeAll(async () => {
  await Promise.all(
    FAULTS.map(async (f, i) => {
      const server = f.prGone
        ? await startGitHubServer({ issues: [] })
        : await githubWithPull()
      f.setup(server)
      const tag = `ghfault-${i}`
      try {
        const run = await prRun(server, {
          inputs: { ...EVERY_KEY_QUICK, 'comment-tag': tag, ...f.inputs },
          env: { FAKE_MASSGEN_SCENARIO: 'success' }
        })
        const comment = server.state.comments
          .filter((c) => c.body.includes(`tag=${tag} `))
          .at(-1)?.body
        outcomes.set(f.name, { run, server, comment })
      } finally {
        await server.close()
      }
    })
  )
}, 120_000)

describe('GitHub API faults through the bundled action', () => {
  it.each(FAULTS.map((f) => [f.name, f] as const))('%s', (_name, f) => {
    const outcome = outcomes.get(f.name)
    expect(outcome).toBeDefined()
    const { run, server, comment } = outcome!
    f.check(run, server, comment)
    // The summary is written whatever GitHub did, and the run says what happened.
    expect(run.summary.trim().length).toBeGreaterThan(0)
    expect(run.exitCode).toBe(
      run.outputs.status === 'success' && !f.failsStep ? 0 : 1
    )
    expect(stackTraces(run.stdout + run.stderr)).toEqual([])
    expectNoLeak(run, server, [...Object.values(KEYS), TOKEN])
    tally('githubFaults', 1, f.name)
  })
})
