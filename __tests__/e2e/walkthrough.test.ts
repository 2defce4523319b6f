// The walkthrough, end to end: the bundled action under Node 24, three agents
// played by the MassGen stand-in (their answers and votes in the layout
// MassGen 0.1.97 leaves), the loopback GitHub. The comment opens with the
// verdict, then what the change does file by file: the walkthrough of the
// answer the models voted for, named as such; and a hostile walkthrough
// (mentions, HTML, a file the pull request does not change, 10,000 lines)
// shows as plain, capped text.
import { beforeAll, describe, expect, it, jest } from '@jest/globals'
import {
  startGitHubServer,
  type GitHubServer
} from '../../test-support/github-server.js'
import {
  FAKE_MASSGEN,
  runAction,
  type ActionRun
} from '../../test-support/run-action.js'
import {
  findingsBlock,
  reviewPull,
  walkthroughBlock
} from '../../test-support/review-pull.js'
import {
  NO_LLM_URL,
  scriptedAgents,
  threeAgentReview
} from '../../test-support/pr-run.js'
import { event } from '../../test-support/fixtures.js'
import {
  detailsBalance,
  liveBrackets,
  liveHtml,
  liveMentions,
  liveReferences
} from '../unit/markdown-oracle.js'

jest.setTimeout(300_000)

const blocker = {
  file: 'src/parser.ts',
  line: 18,
  severity: 'blocker',
  title: 'Unbounded recursion in parseNested',
  explanation: 'Deeply nested input overflows the stack.'
}

/** A review of #42 where agent_b's answer wins; `walkthroughs` by agent. */
async function review(
  walkthroughs: Record<string, string[]>
): Promise<{ run: ActionRun; comment: string }> {
  const github: GitHubServer = await startGitHubServer({ issues: [42] })
  try {
    github.state.pulls['42'] = reviewPull()
    const ids = ['agent_a', 'agent_b', 'agent_c']
    const run = await runAction({
      eventName: 'pull_request',
      payload: event('pull_request.opened'),
      githubApiUrl: github.url,
      env: scriptedAgents(
        Object.fromEntries(
          ids.map((id) => [
            id,
            {
              answer: [
                `Review by ${id}.`,
                walkthroughBlock(walkthroughs[id] ?? []),
                findingsBlock([blocker])
              ].join('\n\n'),
              voteFor: 'agent_b'
            }
          ])
        )
      ),
      inputs: {
        ...threeAgentReview(NO_LLM_URL, FAKE_MASSGEN),
        'finding-vote': 'false'
      }
    })
    const comment =
      github.state.comments.find((c) => c.issueNumber === 42)?.body ?? ''
    return { run, comment }
  } finally {
    await github.close()
  }
}

/** The comment's lines, the hidden sticky marker left out. */
const shownLines = (comment: string) =>
  comment.split('\n').filter((l) => !l.startsWith('<!--'))

describe('the walkthrough of the voted answer', () => {
  let plain: { run: ActionRun; comment: string }
  let hostile: { run: ActionRun; comment: string }
  const flood = Array.from(
    { length: 10_000 },
    (_, i) => `src/parser.ts: line ${i} @octocat <b>loud</b>`
  )
  beforeAll(async () => {
    ;[plain, hostile] = await Promise.all([
      review({
        agent_a: ['src/parser.ts: the words of agent_a, not voted for.'],
        agent_b: [
          'src/parser.ts: Adds parseNested, a recursive parser of nested brackets.',
          '- `src/cache.ts`: New cache of parsed nodes by key.',
          'README.md: Documents a --fast flag.'
        ],
        agent_c: ['src/cache.ts: the words of agent_c, not voted for.']
      }),
      review({
        agent_b: [
          'src/other.ts: a file this pull request does not change',
          'README.md: Hi @octocat <img src=x onerror=alert(1)> </details> <!-- massgen-action:sticky tag=massgen --> [click](https://evil.example/x) see #1',
          `src/cache.ts: ${'x'.repeat(5000)}`,
          ...flood
        ]
      })
    ])
  })

  it('the first screen: the verdict, then what the change does, file by file, before the findings', () => {
    expect(plain.run.outputs.verdict).toBe('blockers')
    const lines = shownLines(plain.comment)
    expect(lines[0]).toMatch(/^### 🔴 MassGen review: 1 blocker/)
    const head = lines.slice(0, 10).join('\n')
    expect(head).toContain('**What the change does**, file by file')
    expect(head).toMatch(
      /as \*\*agent_b\*\* \(vllm \/ model-b\) wrote it in the answer the models voted for:/
    )
    expect(head).toContain(
      '- src/parser.ts: Adds parseNested, a recursive parser of nested brackets.'
    )
    expect(head).toContain('- src/cache.ts: New cache of parsed nodes by key.')
    expect(head).toContain('- README.md: Documents a --fast flag.')
    expect(plain.comment.indexOf('What the change does')).toBeLessThan(
      plain.comment.indexOf('#### 🔎 Findings')
    )
    // Only the voted answer's walkthrough; the block itself is not repeated.
    expect(plain.comment).not.toContain('not voted for')
    expect(plain.comment).not.toContain('massgen-walkthrough')
    expect(plain.run.summary).toContain('**What the change does**')
  })

  it('hostile walkthrough text is plain, capped text: no mention, HTML, link or marker; no file outside the diff; at most 20 lines', () => {
    const c = hostile.comment
    expect(hostile.run.outputs.verdict).toBe('blockers')
    const section = c.slice(
      c.indexOf('**What the change does**'),
      c.indexOf('#### 🔎 Findings')
    )
    expect(section).not.toContain('src/other.ts')
    expect(liveMentions(section)).toEqual([])
    // Only the note's own <sub>: none of the agent's HTML.
    expect(liveHtml(section).filter((t) => !/^<\/?sub>$/.test(t))).toEqual([])
    expect(liveBrackets(section)).toEqual([])
    expect(liveReferences(section)).toEqual([])
    expect(section).not.toContain('<!-- massgen-action')
    expect(detailsBalance(c)).toBe(0)
    const items = section.split('\n').filter((l) => l.startsWith('- '))
    expect(items).toHaveLength(3)
    expect(items.map((l) => l.split(':')[0])).toEqual([
      '- README.md',
      '- src/cache.ts',
      '- src/parser.ts'
    ])
    for (const l of items) expect(l.length).toBeLessThan(400)
    expect(section).toMatch(/10000 more lines of it left out/)
    expect(liveMentions(c)).toEqual([])
    expect(c.length).toBeLessThan(66_000)
  })
})
