import { describe, expect, it } from '@jest/globals'
import {
  carriesOthersText,
  localModeRefusal
} from '../../src/event/local-mode.js'
import type { Trigger } from '../../src/core/types.js'

const pr = (fromFork: boolean): Trigger => ({
  kind: 'pull_request',
  eventName: 'pull_request',
  number: 1,
  actor: { login: 'a', isBot: false },
  author: 'a',
  fromFork,
  authorIsBot: false
})
const manual = (eventName: string): Trigger =>
  ['schedule', 'workflow_dispatch'].includes(eventName)
    ? { kind: 'manual', eventName, issueNumber: undefined }
    : {
        kind: 'event',
        eventName,
        issueNumber: undefined,
        actors: [{ login: 'a', isBot: false }]
      }

describe('carriesOthersText', () => {
  it.each([
    ['schedule', manual('schedule'), false],
    ['workflow_dispatch', manual('workflow_dispatch'), false],
    ['push', manual('push'), false],
    ['pull_request from the repository', pr(false), false],
    ['pull_request from a fork', pr(true), true],
    ['issues', manual('issues'), true],
    ['discussion_comment', manual('discussion_comment'), true],
    ['workflow_run', manual('workflow_run'), true]
  ])('%s: %s', (_name, trigger, expected) => {
    expect(carriesOthersText(trigger.eventName, trigger)).toBe(expected)
  })
  it('a bot named as acting always does: its pull request or push carries upstream text', () => {
    const bot = { login: 'dependabot[bot]', isBot: true }
    const own = pr(false) as Extract<Trigger, { kind: 'pull_request' }>
    const botPr: Trigger = { ...own, actor: bot, authorIsBot: true }
    expect(carriesOthersText('pull_request', botPr)).toBe(true)
    const botSender: Trigger = { ...own, actor: bot }
    expect(carriesOthersText('pull_request', botSender)).toBe(true)
    const push: Trigger = {
      kind: 'event',
      eventName: 'push',
      issueNumber: undefined,
      actors: [bot]
    }
    expect(carriesOthersText('push', push)).toBe(true)
    expect(
      localModeRefusal(
        { docker: false, acceptLocalModeRisk: false },
        'pull_request',
        botPr
      )
    ).toMatch(/a bot started it/)
  })
  it('pull_request_target always does', () => {
    expect(carriesOthersText('pull_request_target', pr(false))).toBe(true)
  })
})

describe('localModeRefusal', () => {
  it('names the input that accepts the risk', () => {
    const reason = localModeRefusal(
      { docker: false, acceptLocalModeRisk: false },
      'issue_comment',
      manual('issue_comment')
    )
    expect(reason).toContain("'accept-local-mode-risk: true'")
  })
  it('Docker mode and consent run', () => {
    for (const s of [
      { docker: true, acceptLocalModeRisk: false },
      { docker: false, acceptLocalModeRisk: true }
    ])
      expect(localModeRefusal(s, 'issues', manual('issues'))).toBeUndefined()
  })
})
