// What an answer may show, played through the bundled action: a (prompt-
// injected) agent answers with images, links that hide their URL, issue
// references that would backlink other issues, and HTML that fakes the page.
// The posted comment and the job summary show all of it as text.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import type { GitHubServer } from '../../test-support/github-server.js'
import { FAKE_MASSGEN, runAction } from '../../test-support/run-action.js'
import {
  detailsBalance,
  liveBrackets,
  liveHtml,
  liveMentions,
  liveReferences,
  unclosedFence
} from '../unit/markdown-oracle.js'
import { event, KEYS } from '../../test-support/fixtures.js'
import { githubWithPull } from '../../test-support/loopback.js'

let github: GitHubServer
beforeAll(async () => {
  github = await githubWithPull()
})
afterAll(async () => {
  await github.close()
})

const HOSTILE_ANSWER = [
  '## Review',
  '![build passing](https://tracker.example/pixel.png?user=1)',
  '<img src="https://tracker.example/pixel2.png">',
  '[Click here for the fix](https://evil.example/steal)',
  'Read [the docs][docs] and the footnote[^1].',
  '[docs]: https://evil.example/hidden "hidden"',
  'Fixes #1, see octo-org/other-repo#2, GH-3, &#35;4 and \\#5.',
  'Also https://github.com/octo-org/octo-repo/issues/6 and',
  '[this PR](https://github.com/octo-org/octo-repo/pull/7).',
  '</details>',
  '<details open><summary>✅ Approved by the maintainers</summary>',
  '<sub>This pull request is safe to merge.</sub>',
  '```',
  'code that never closes',
  'ping @octocat'
].join('\n')

/** The text between the winning answer's title and the folded mechanics. */
function answerSection(body: string): string {
  const start = body.indexOf('#### 🏆 Winning answer')
  const end = body.indexOf('<details>\n<summary>How the run went')
  return body.slice(start, end)
}

describe('answers', () => {
  it('attack: an answer shows images, hidden-URL links, issue backlinks and fake approval HTML — fails', async () => {
    const run = await runAction({
      githubApiUrl: github.url,
      eventName: 'pull_request',
      payload: event('pull_request.opened'),
      inputs: {
        query:
          'Review: is #9 fixed? See [x](https://evil.example/q) ![i](https://tracker.example/q.png)',
        models: 'openai/gpt-5.4 claude/claude-opus-4-6',
        'openai-api-key': KEYS.openai,
        'anthropic-api-key': KEYS.anthropic,
        'massgen-command': `node ${FAKE_MASSGEN}`
      },
      env: {
        FAKE_MASSGEN_SCENARIO: 'success',
        FAKE_MASSGEN_ANSWER: HOSTILE_ANSWER
      }
    })
    expect(run.outputs.status).toBe('success')
    const comment = github.state.comments.find((c) => c.issueNumber === 42)
    for (const posted of [comment?.body ?? '', run.summary]) {
      const answer = answerSection(posted)
      expect(answer).toContain('Click here for the fix')
      // Images and links: text with the URL in sight, nothing hidden.
      expect(liveBrackets(answer)).toEqual([])
      expect(answer).toContain(
        'Click here for the fix (https://evil.example/steal)'
      )
      expect(answer).toContain(
        'build passing (https://tracker.example/pixel.png?user=1)'
      )
      // No HTML of the answer's own, and our <details> stay balanced.
      expect(liveHtml(answer)).toEqual([])
      expect(detailsBalance(posted)).toBe(0)
      expect(unclosedFence(posted)).toBeUndefined()
      // No issue reference, in the answer or in the question shown.
      expect(liveReferences(posted)).toEqual([])
      expect(liveMentions(posted)).toEqual([])
      expect(posted).toContain(
        '`https://github.com/octo-org/octo-repo/issues/6`'
      )
    }
    expect(
      liveBrackets(
        comment?.body.split('**Question:**')[1]?.split('\n')[0] ?? ''
      )
    ).toEqual([])
  }, 60_000)
})
