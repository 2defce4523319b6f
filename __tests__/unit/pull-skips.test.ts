// Which pull requests are reviewed: the skip rules on GitHub's own example
// payloads (npm @octokit/webhooks-examples: converted_to_draft,
// ready_for_review, locked, closed, labeled) and the inputs that set them.
import { describe, expect, it } from '@jest/globals'
import { createRequire } from 'node:module'
import { readTrigger } from '../../src/event/trigger.js'
import { pullSkipReason } from '../../src/event/pull-skips.js'
import { readPullFilters } from '../../src/inputs/pull-filters.js'
import type { Trigger } from '../../src/core/types.js'

type Example = {
  action: string
  pull_request: Record<string, unknown>
} & Record<string, unknown>
const examples =
  (
    createRequire(import.meta.url)(
      '@octokit/webhooks-examples/api.github.com/index.json'
    ) as Array<{
      name: string
      examples: Example[]
    }>
  ).find((e) => e.name === 'pull_request')?.examples ?? []

function example(
  action: string,
  test: (e: Example) => boolean = () => true
): Example {
  const found = examples.find((e) => e.action === action && test(e))
  if (!found) throw new Error(`no ${action} example`)
  return found
}
const pullTrigger = (payload: unknown) =>
  readTrigger('pull_request', payload, 'someone') as Extract<
    Trigger,
    { kind: 'pull_request' }
  >
const defaults = {
  skipDrafts: true,
  skipBots: false,
  skipLabels: [] as string[]
}

describe('the skip rules on GitHub example payloads', () => {
  it('reads draft, state, locked, labels and the action', () => {
    const t = pullTrigger(example('converted_to_draft'))
    expect(t).toMatchObject({
      kind: 'pull_request',
      action: 'converted_to_draft',
      draft: true,
      state: 'open',
      locked: false
    })
    expect(pullTrigger(example('ready_for_review')).labels).toEqual(['bug'])
  })
  it('a draft is skipped with the way to get it reviewed; ready_for_review runs', () => {
    expect(
      pullSkipReason(defaults, pullTrigger(example('converted_to_draft')))
    ).toMatch(
      /is a draft and 'skip-drafts' is on: it is reviewed when marked ready for review/
    )
    expect(
      pullSkipReason(
        { ...defaults, skipDrafts: false },
        pullTrigger(example('converted_to_draft'))
      )
    ).toBeUndefined()
    expect(
      pullSkipReason(defaults, pullTrigger(example('ready_for_review')))
    ).toBeUndefined()
  })
  it('closed and locked pull requests are skipped whatever the inputs', () => {
    expect(pullSkipReason(defaults, pullTrigger(example('closed')))).toMatch(
      /is closed/
    )
    expect(pullSkipReason(defaults, pullTrigger(example('locked')))).toMatch(
      /is locked/
    )
  })
  it('skip-labels matches without case; skip-bots names the bot', () => {
    const labeled = pullTrigger(example('ready_for_review'))
    expect(
      pullSkipReason({ ...defaults, skipLabels: ['bug'] }, labeled)
    ).toMatch(/has the label 'bug', one of 'skip-labels'/)
    const bot = pullTrigger({
      ...example('opened'),
      pull_request: {
        ...example('opened').pull_request,
        user: { login: 'renovate[bot]', type: 'Bot' }
      }
    })
    expect(pullSkipReason(defaults, bot)).toBeUndefined()
    expect(pullSkipReason({ ...defaults, skipBots: true }, bot)).toMatch(
      /opened by a bot \('renovate\[bot\]'\)/
    )
  })
  it('attack: a label named with line breaks and workflow commands is never echoed into the reason — fails', () => {
    const t = pullTrigger({
      ...example('opened'),
      pull_request: {
        ...example('opened').pull_request,
        labels: [{ name: 'WIP\n::error::owned' }]
      }
    })
    expect(
      pullSkipReason({ ...defaults, skipLabels: ['wip'] }, t)
    ).toBeUndefined()
    const reason = pullSkipReason(
      { ...defaults, skipLabels: ['wip\n::error::owned'.split('\n')[0] ?? ''] },
      {
        ...t,
        labels: ['WIP']
      }
    )
    expect(reason).toBe(
      "Pull request #2 has the label 'wip', one of 'skip-labels'. Nothing was run."
    )
  })
})

describe('readPullFilters', () => {
  const read = (inputs: Record<string, string>) => {
    const errors: string[] = []
    const filters = readPullFilters((n) => inputs[n] ?? '', errors)
    return { filters, errors }
  }
  it('defaults: drafts skipped, bots reviewed, no labels, no file limit', () => {
    expect(read({})).toEqual({
      filters: {
        skipDrafts: true,
        skipBots: false,
        skipLabels: [],
        maxChangedFiles: undefined
      },
      errors: []
    })
  })
  it('reads lists and numbers', () => {
    expect(
      read({
        'skip-drafts': 'False',
        'skip-bots': 'true',
        'skip-labels': 'WIP, no-review\nwip',
        'max-changed-files': '500'
      }).filters
    ).toEqual({
      skipDrafts: false,
      skipBots: true,
      skipLabels: ['wip', 'no-review'],
      maxChangedFiles: 500
    })
  })
  it('names the input and the expected form on bad values', () => {
    const { errors } = read({
      'skip-bots': 'yes',
      'max-changed-files': '0',
      'skip-labels': 'a'.repeat(51)
    })
    expect(errors).toEqual([
      "Input 'skip-bots': got 'yes', expected 'true' or 'false'",
      expect.stringMatching(
        /^Input 'skip-labels': got '.*', expected label names of at most 50 characters/
      ),
      "Input 'max-changed-files': got '0', expected a whole number of files from 1 to 1000000, or empty for no limit"
    ])
  })
})
