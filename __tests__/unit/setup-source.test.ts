// Which events read the setup files from the base commit (setup-source.ts).
import { describe, expect, it } from '@jest/globals'
import {
  eventBase,
  eventDefaultBranch,
  setupSourceFor
} from '../../src/event/setup-source.js'
import { readTrigger } from '../../src/event/trigger.js'
import { event } from '../../test-support/fixtures.js'

const ours = { id: 1, full_name: 'octo-org/octo-repo', default_branch: 'main' }
const source = (name: string, payload: unknown) =>
  setupSourceFor(readTrigger(name, payload, 'someone'), payload)

describe('where the setup files come from', () => {
  it('pull requests, labels and comments or reviews on them: the base commit', () => {
    for (const [name, fixture] of [
      ['pull_request', 'pull_request.opened'],
      ['pull_request_target', 'pull_request.fork'],
      ['pull_request', 'pull_request.labeled'],
      ['issue_comment', 'issue_comment.created.pr'],
      ['pull_request_review_comment', 'pull_request_review_comment.created']
    ] as const)
      expect(source(name, event(fixture))).toMatchObject({
        from: 'pull-base'
      })
    expect(
      source('pull_request_review', {
        action: 'submitted',
        pull_request: { number: 9 },
        repository: ours
      })
    ).toMatchObject({ from: 'pull-base', pullNumber: 9 })
  })
  it("the repository's own code: the workspace", () => {
    expect(source('schedule', event('schedule'))).toEqual({ from: 'workspace' })
    expect(source('workflow_dispatch', event('workflow_dispatch'))).toEqual({
      from: 'workspace'
    })
    expect(
      source('issue_comment', event('issue_comment.created.issue'))
    ).toEqual({ from: 'workspace' })
    expect(
      source('push', { ref: 'refs/heads/main', repository: ours })
    ).toEqual({ from: 'workspace' })
    expect(
      source('workflow_run', {
        workflow_run: { pull_requests: [], head_repository: ours },
        repository: ours
      })
    ).toEqual({ from: 'workspace' })
  })
  it("workflow_run: this repository's pull request, else the default branch for outside code", () => {
    const pr = (repo: unknown) => ({
      number: 2,
      base: { repo },
      head: { repo }
    })
    expect(
      source('workflow_run', {
        workflow_run: { pull_requests: [pr(ours)], head_repository: ours },
        repository: ours
      })
    ).toMatchObject({ from: 'pull-base', pullNumber: 2 })
    const fork = { id: 99, full_name: 'someone/octo-repo' }
    for (const run of [
      { pull_requests: [], head_repository: fork },
      { pull_requests: [], head_repository: null },
      { pull_requests: [pr(fork)], head_repository: fork }
    ])
      expect(
        source('workflow_run', { workflow_run: run, repository: ours })
      ).toMatchObject({ from: 'branch', ref: 'main' })
    expect(
      source('workflow_run', {
        workflow_run: { pull_requests: [], head_repository: fork },
        repository: { id: 1 }
      })
    ).toMatchObject({ from: 'none' })
  })
})

describe("the base a pull_request event names and the default branch (the config file's, no API call)", () => {
  it('the base is a full SHA and a branch, or nothing, whatever the payload holds', () => {
    expect(eventBase(event('pull_request.opened'))).toEqual({
      sha: '5c3f0d8e2b1a4c6d7e8f9a0b1c2d3e4f5a6b7c8d',
      ref: 'main'
    })
    expect(eventBase(event('issue_comment.created.pr'))).toBeUndefined()
    for (const sha of ['main', 42, null, 'a'.repeat(41)])
      expect(
        eventBase({ pull_request: { base: { sha, ref: 'main' } } })
      ).toBeUndefined()
    for (const ref of [undefined, '', ' ', 42])
      expect(
        eventBase({ pull_request: { base: { sha: 'a'.repeat(40), ref } } })
      ).toBeUndefined()
    expect(eventBase('text')).toBeUndefined()
  })
  it('the default branch is a name, or nothing', () => {
    expect(eventDefaultBranch(event('issue_comment.created.pr'))).toBe('main')
    for (const payload of [
      {},
      { repository: {} },
      { repository: { default_branch: '' } },
      { repository: { default_branch: 7 } },
      'text'
    ])
      expect(eventDefaultBranch(payload)).toBeUndefined()
  })
})
