// The comments a pull request's author sees, for the screenshots
// (scripts/screenshots.ts, docs/screenshots/) and the test of their HTML
// (__tests__/e2e/screenshots.test.ts): four runs of the bundled action with
// the MassGen stand-in playing the agents (test-support/pr-run.ts
// scriptedAgents) and the loopback GitHub: a review with a blocker, a clean
// review, a later push's review, and a run whose MassGen failed.
import { event, KEYS } from './fixtures.ts'
import { pushToPull, startGitHubServer } from './github-server.ts'
import { NO_LLM_URL, scriptedAgents, threeAgentReview } from './pr-run.ts'
import { answerAt, pushesPull, pushOf, PUSH_SHAS } from './pushes-pull.ts'
import {
  AGENT_FINDINGS,
  findingsBlock,
  HOSTILE_TITLE,
  reviewPull,
  walkthroughBlock
} from './review-pull.ts'
import { FAKE_MASSGEN, runAction } from './run-action.ts'
import type { GitHubServer } from './github-server.ts'

/** The sticky comment on #42, as last written. */
const stickyOn42 = (github: GitHubServer): string =>
  github.state.comments.filter((c) => c.issueNumber === 42).at(-1)?.body ?? ''

export interface GalleryComment {
  /** The PNG's and HTML's base name. */
  name: string
  /** What the run was. */
  title: string
  /** The sticky comment, as posted. */
  markdown: string
}

const PULL_WALKTHROUGH = [
  'src/parser.ts: Adds parseNested, which builds a tree of nodes from nested brackets.',
  'src/cache.ts: New: caches parsed nodes by key, so a repeated input is parsed once.',
  'README.md: Documents the new --fast flag.'
]
const PUSHES_WALKTHROUGH = [
  'src/limits.ts: parsePort now parses base 10 and refuses numbers outside 1 to 65535.',
  'src/retry.ts: New retry helper that runs the work again when it throws.'
]

const withWalkthrough = (answer: string, lines: string[]) => {
  const [first, ...rest] = answer.split('\n\n')
  return [first, walkthroughBlock(lines), ...rest].join('\n\n')
}

function agents(answer: (id: string) => string) {
  return scriptedAgents(
    Object.fromEntries(
      ['agent_a', 'agent_b', 'agent_c'].map((id) => [
        id,
        {
          answer: answer(id),
          voteFor: 'agent_b',
          voteReason: 'Its findings point at the lines that cause them.'
        }
      ])
    )
  )
}

const REVIEW_INPUTS = {
  ...threeAgentReview(NO_LLM_URL, FAKE_MASSGEN),
  'finding-vote': 'false'
}

/** One review of #42 (reviewPull) with each agent's answer from `answer`. */
async function reviewOf42(
  answer: (id: string) => string,
  inputs: Record<string, string> = {},
  env: Record<string, string> = {}
): Promise<string> {
  const github = await startGitHubServer({ issues: [42] })
  try {
    github.state.pulls['42'] = reviewPull()
    await runAction({
      eventName: 'pull_request',
      payload: event('pull_request.opened'),
      githubApiUrl: github.url,
      env: { ...agents(answer), ...env },
      inputs: { ...REVIEW_INPUTS, ...inputs }
    })
    return stickyOn42(github)
  } finally {
    await github.close()
  }
}

const letter = (id: string) => id.slice(-1) as 'a' | 'b' | 'c'

/**
 * A review whose three agents raise the same blocker: review-pull.ts's
 * findings without the ones its attack tests plant (a hostile title, bad
 * items the action drops).
 */
function blockerReview(): Promise<string> {
  const plain = (f: { title: string; file: string; severity: string }) =>
    f.title !== HOSTILE_TITLE &&
    !f.file.startsWith('../') &&
    f.file !== 'src/other.ts' &&
    f.severity !== 'critical'
  return reviewOf42((id) =>
    [
      `Review by ${id}: the nested parser needs a depth limit.`,
      walkthroughBlock(PULL_WALKTHROUGH),
      findingsBlock(AGENT_FINDINGS[letter(id)].filter(plain))
    ].join('\n\n')
  )
}

/** A review that finds nothing to fix. */
function cleanReview(): Promise<string> {
  return reviewOf42(
    (id) =>
      `Review by ${id}: the change is sound.\n\n${walkthroughBlock(PULL_WALKTHROUGH)}\n\n` +
      '```massgen-findings\n[]\n```'
  )
}

/** A run whose MassGen exits with an error before any answer. */
function failedRun(): Promise<string> {
  return reviewOf42(() => '', {}, { FAKE_MASSGEN_SCENARIO: 'exit-2' })
}

/** The second push of pushes-pull.ts: one finding fixed, one new. */
async function laterPushReview(): Promise<string> {
  const github = await startGitHubServer({ issues: [42] })
  try {
    github.state.pulls['42'] = pushesPull()
    for (const push of [0, 1]) {
      if (push === 1) pushToPull(github.state, 42, pushOf(1))
      const payload = event('pull_request.opened') as {
        action: string
        pull_request: { head: { sha: string } }
      }
      payload.action = push === 0 ? 'opened' : 'synchronize'
      payload.pull_request.head.sha = PUSH_SHAS[push] as string
      await runAction({
        eventName: 'pull_request',
        payload,
        githubApiUrl: github.url,
        env: agents((id) =>
          withWalkthrough(answerAt(push, id), PUSHES_WALKTHROUGH)
        ),
        inputs: {
          ...REVIEW_INPUTS,
          'openai-api-key': KEYS.openai,
          'min-severity': 'nit'
        }
      })
    }
    return stickyOn42(github)
  } finally {
    await github.close()
  }
}

/** The four comments, each from its own run (the runs go two at a time). */
export async function galleryComments(): Promise<GalleryComment[]> {
  const [blocker, clean] = await Promise.all([blockerReview(), cleanReview()])
  const [later, failed] = await Promise.all([laterPushReview(), failedRun()])
  return [
    {
      name: 'blocker-review',
      title: 'A review with a blocker',
      markdown: blocker
    },
    { name: 'clean-review', title: 'A clean review', markdown: clean },
    { name: 'later-push', title: "A later push's review", markdown: later },
    { name: 'failed-run', title: 'A run that failed', markdown: failed }
  ]
}
