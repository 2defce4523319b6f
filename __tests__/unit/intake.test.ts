// The intake: from the event and the settings, whether to run, on which
// issue, with which question; every refusal says why.
import { describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { intake as intakeWith, IntakeError } from '../../src/event/intake.js'
import type { GitHubApi, Permission } from '../../src/github/api.js'
import { readSettings } from '../../src/inputs/settings.js'
import { chooseAgents } from '../../src/plan/plan.js'
import type { Settings, Trigger } from '../../src/core/types.js'

const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'intake-'))

function settings(inputs: Record<string, string> = {}): Settings {
  const all: Record<string, string> = {
    'openai-api-key': 'sk-test-value',
    models: 'openai/gpt-5.4',
    ...inputs
  }
  return readSettings({ getInput: (n) => all[n] ?? '', env: {}, workspace })
}

/** The intake with the agents main would choose for these settings. */
const intake = (s: Settings, trigger: Trigger, api: () => GitHubApi) =>
  intakeWith(s, trigger, api, chooseAgents(s))

/** The GitHub permission lookup, recording who was asked. */
function github(role: Permission = 'write') {
  const asked: string[] = []
  const api = {
    owner: 'o',
    repo: 'r',
    getPermission: (user: string) => {
      asked.push(user)
      return Promise.resolve(role)
    }
  } as unknown as GitHubApi
  return { asked, api: () => api }
}

const pr = (extra: Partial<Extract<Trigger, { kind: 'pull_request' }>> = {}) =>
  ({
    kind: 'pull_request',
    eventName: 'pull_request',
    number: 42,
    actor: { login: 'mona', isBot: false },
    author: 'mona',
    fromFork: false,
    authorIsBot: false,
    ...extra
  }) as Trigger

const comment = (body: string, author = 'mona'): Trigger => ({
  kind: 'comment',
  eventName: 'issue_comment',
  issueNumber: 7,
  isPullRequest: true,
  commentId: 99,
  author,
  authorIsBot: false,
  body
})

describe('intake', () => {
  it('ignores what the action does not act on, quietly', async () => {
    const gh = github()
    const trigger: Trigger = {
      kind: 'ignored',
      eventName: 'issue_comment',
      reason: 'edited'
    }
    expect(await intake(settings(), trigger, gh.api)).toEqual({
      action: 'skip',
      reason: 'edited',
      quiet: true
    })
    expect(gh.asked).toEqual([])
  })

  it('runs a pull request of a writer on the question, reported on the pull request', async () => {
    const gh = github('write')
    expect(await intake(settings({ query: 'Safe?' }), pr(), gh.api)).toEqual({
      action: 'run',
      question: 'Safe?',
      issueNumber: 42,
      pullRequest: 42,
      commentId: undefined
    })
    expect(gh.asked).toEqual(['mona'])
  })

  it('refuses a pull request without a question, naming the input', async () => {
    await expect(intake(settings(), pr(), github().api)).rejects.toThrow(
      new IntakeError(
        "Input 'query' (or 'query-file') is required on 'pull_request' events (expected the question the agents answer)"
      )
    )
  })

  it('skips a reader, saying why, before looking at the question', async () => {
    const d = await intake(settings(), pr(), github('read').api)
    expect(d).toMatchObject({ action: 'skip', quiet: false })
  })

  it("skips a fork's pull_request_target unless allowed", async () => {
    const trigger = pr({ eventName: 'pull_request_target', fromFork: true })
    const gh = github()
    const d = await intake(settings({ query: 'q' }), trigger, gh.api)
    expect(d).toMatchObject({ action: 'skip', quiet: false })
    expect(d.action === 'skip' && d.reason).toMatch(
      /allow-fork-pull-request-target: true/
    )
    expect(gh.asked).toEqual([])
    const allowed = settings({
      query: 'q',
      'allow-fork-pull-request-target': 'true'
    })
    expect(await intake(allowed, trigger, gh.api)).toMatchObject({
      action: 'run'
    })
  })

  it('skips a fork or bot pull request that got no keys, instead of failing', async () => {
    const noKeys = settings({ query: 'q', 'openai-api-key': '' })
    for (const trigger of [pr({ fromFork: true }), pr({ authorIsBot: true })]) {
      const d = await intake(noKeys, trigger, github().api)
      expect(d).toMatchObject({ action: 'skip', quiet: false })
      expect(d.action === 'skip' && d.reason).toMatch(
        /gives such runs no secrets/
      )
    }
  })

  it('takes the question from a comment, with its reactions target', async () => {
    const gh = github('admin')
    expect(
      await intake(settings(), comment('/massgen is it safe?'), gh.api)
    ).toMatchObject({
      action: 'run',
      question: 'is it safe?',
      issueNumber: 7,
      pullRequest: 7,
      commentId: 99
    })
  })

  it('falls back to the query input for a bare command, or says what is missing', async () => {
    expect(
      await intake(
        settings({ query: 'Default?' }),
        comment('/massgen'),
        github().api
      )
    ).toMatchObject({ action: 'run', question: 'Default?' })
    const d = await intake(settings(), comment('/massgen'), github().api)
    expect(d).toMatchObject({ action: 'skip', quiet: false })
    expect(d.action === 'skip' && d.reason).toMatch(/needs a question after it/)
  })

  it('ends quietly on a comment that is no command, asking no one', async () => {
    const gh = github()
    const d = await intake(settings(), comment('nice work'), gh.api)
    expect(d).toMatchObject({ action: 'skip', quiet: true })
    expect(gh.asked).toEqual([])
  })

  it('refuses a comment question too long for one argument', async () => {
    const d = await intake(
      settings(),
      comment(`/massgen ${'a'.repeat(100_001)}`),
      github().api
    )
    expect(d).toMatchObject({ action: 'skip', quiet: false })
    expect(d.action === 'skip' && d.reason).toMatch(/at most 100000 fit/)
  })

  it('runs schedule and dispatch on the query, reporting on issue-number if given', async () => {
    const manual: Trigger = {
      kind: 'manual',
      eventName: 'schedule',
      issueNumber: undefined
    }
    const gh = github('none')
    expect(
      await intake(
        settings({ query: 'q', 'issue-number': '5' }),
        manual,
        gh.api
      )
    ).toEqual({
      action: 'run',
      question: 'q',
      issueNumber: 5,
      pullRequest: undefined,
      commentId: undefined
    })
    expect(gh.asked).toEqual([])
  })

  it('runs another event only when everyone acting may', async () => {
    const event: Trigger = {
      kind: 'event',
      eventName: 'issues',
      issueNumber: 3,
      actors: [{ login: 'mona', isBot: false }]
    }
    expect(
      await intake(settings({ query: 'q' }), event, github('maintain').api)
    ).toMatchObject({ action: 'run', issueNumber: 3 })
    expect(
      await intake(settings({ query: 'q' }), event, github('triage').api)
    ).toMatchObject({ action: 'skip', quiet: false })
  })
})
