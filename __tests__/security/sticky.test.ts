// Attacks on the sticky comment, played through the bundled action: an answer
// that quotes another tag's hidden marker must not make a later run with that
// tag overwrite the wrong comment.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import type { GitHubServer } from '../../test-support/github-server.js'
import { FAKE_MASSGEN, runAction } from '../../test-support/run-action.js'
import { event, KEYS } from '../../test-support/fixtures.js'
import { githubWithPull } from '../../test-support/loopback.js'

let github: GitHubServer
beforeAll(async () => {
  github = await githubWithPull()
})
afterAll(async () => {
  await github.close()
})

const marker = (tag: string) => `<!-- massgen-action:sticky tag=${tag} -->`

function runWithTag(tag: string, answer: string) {
  return runAction({
    githubApiUrl: github.url,
    eventName: 'pull_request',
    payload: event('pull_request.opened'),
    inputs: {
      query: 'Review',
      models: 'openai/gpt-5.4 claude/claude-opus-4-6',
      'openai-api-key': KEYS.openai,
      'anthropic-api-key': KEYS.anthropic,
      'massgen-command': `node ${FAKE_MASSGEN}`,
      'comment-tag': tag
    },
    env: { FAKE_MASSGEN_SCENARIO: 'success', FAKE_MASSGEN_ANSWER: answer }
  })
}

describe('sticky comment', () => {
  it("attack: an answer quotes another tag's marker in a code block so that tag's next run overwrites this comment — fails", async () => {
    // The nightly run's answer carries the default tag's marker, in code
    // (kept verbatim by the sanitiser) and in prose.
    const hostile = [
      'Here is how the action finds its comment:',
      '```html',
      marker('massgen'),
      '```',
      `Inline too: \`${marker('massgen')}\` and ${marker('massgen')}`
    ].join('\n')
    const nightly = await runWithTag('nightly', hostile)
    expect(nightly.outputs.status).toBe('success')
    const before = github.state.comments.filter((c) => c.issueNumber === 42)
    expect(before).toHaveLength(1)
    const nightlyComment = before[0]!
    const nightlyBody = nightlyComment.body
    expect(nightlyBody.startsWith(`${marker('nightly')}\n`)).toBe(true)
    // No text but the first line carries a marker.
    expect(nightlyBody.split('massgen-action:sticky')).toHaveLength(2)

    const review = await runWithTag('massgen', 'The default review.')
    expect(review.outputs.status).toBe('success')
    const after = github.state.comments.filter((c) => c.issueNumber === 42)
    expect(after).toHaveLength(2)
    expect(after.find((c) => c.id === nightlyComment.id)?.body).toBe(
      nightlyBody
    )
    const mine = after.find((c) => c.id !== nightlyComment.id)
    expect(mine?.body.startsWith(`${marker('massgen')}\n`)).toBe(true)
    expect(mine?.body).toContain('The default review.')
  }, 60_000)
})
