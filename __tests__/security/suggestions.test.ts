// Suggestions that commit something else: with `review: inline` an agent's
// finding may carry a replacement GitHub offers for one-click commit. A
// replacement whose identifier holds a Cyrillic letter inside an ASCII word
// (`MAX_D\u0415PTH` reads as MAX_DEPTH but names another constant) or a
// no-break space must not be offered: it is posted as a plain finding whose
// note names the code points. Played through the bundled action, the
// findings in the answer as an agent writes them.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import {
  startGitHubServer,
  type GitHubServer
} from '../../test-support/github-server.js'
import { findingsBlock, reviewPull } from '../../test-support/review-pull.js'
import { ONE_MODEL, prRun } from '../../test-support/pr-run.js'

let github: GitHubServer
beforeAll(async () => {
  github = await startGitHubServer({ issues: [42] })
  github.state.pulls['42'] = reviewPull()
})
afterAll(async () => {
  await github.close()
})

const FINDINGS = [
  {
    file: 'src/cache.ts',
    start_line: 3,
    line: 4,
    severity: 'concern',
    title: 'Cache never evicts entries',
    explanation: 'Clear it when it is full.',
    suggestion:
      'export function cached(key: string, make: () => Node): Node {\n' +
      '  if (entries.size >= 1000) entries.clear()'
  },
  {
    file: 'src/parser.ts',
    line: 17,
    severity: 'blocker',
    title: 'Depth limit missing',
    explanation: 'Stop at the maximum depth.',
    // U+0415 CYRILLIC CAPITAL LETTER IE inside MAX_DEPTH.
    suggestion: '  if (depth > MAX_D\u0415PTH) throw new Error("too deep")'
  },
  {
    file: 'src/parser.ts',
    line: 11,
    severity: 'nit',
    title: 'Return directly',
    explanation: 'No temporary needed.',
    // U+00A0 NO-BREAK SPACE between two tokens.
    suggestion: '  return\u00a0parseFlat(tokens)'
  }
]

describe('suggestions that commit something else', () => {
  it('attack: a suggestion with a Cyrillic letter inside an ASCII identifier and one with a no-break space are not offered for one-click commit', async () => {
    const run = await prRun(github, {
      inputs: {
        query: 'Review this pull request.',
        ...ONE_MODEL,
        'comment-tag': 'suggestions',
        'max-duration': '60',
        'upload-logs': 'false',
        review: 'inline',
        // The 1.0.0 review: every finding inline, no vote round (review-vote.test.ts has the vote).
        'finding-vote': 'false',
        'min-severity': 'nit',
        'max-inline-comments': '50'
      },
      env: {
        FAKE_MASSGEN_SCENARIO: 'success',
        FAKE_MASSGEN_ANSWER: `Review done.\n\n${findingsBlock(FINDINGS)}`
      }
    })
    expect(run.outputs.status).toBe('success')
    const comments = github.state.reviewComments
    const on = (title: string) =>
      comments.find((c) => c.body.includes(title))?.body ?? ''
    // The clean replacement is offered: the check refuses only look-alikes.
    expect(on('Cache never evicts entries')).toContain('```suggestion')
    const cyrillic = on('Depth limit missing')
    const nbsp = on('Return directly')
    expect(cyrillic).not.toBe('')
    expect(nbsp).not.toBe('')
    for (const body of [cyrillic, nbsp]) {
      expect(body).not.toMatch(/`{3,}suggestion/)
      expect(body).toContain('not offered for commit')
    }
    expect(cyrillic).toContain('U+0415')
    expect(nbsp).toContain('U+00A0')
    // Nowhere else a suggestion block holds them (summary, answer output).
    for (const text of [run.summary, ...comments.map((c) => c.body)])
      expect(text).not.toMatch(/`{3,}suggestion\n[^`]*(\u0415|\u00a0)/)
  }, 120_000)
})
