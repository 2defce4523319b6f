// The cost of the vote on every finding (`finding-vote`): the same review,
// three scripted agents with the real MassGen 0.1.97, run with the vote and
// without it, alternately, `runs` times each. Printed: the action's wall
// time, MassGen's time and tokens for the answers (every run) and for the
// vote round (its own MassGen run, read from the action's log line), and
// the ratios, all measured in this one run.
import { startGitHubServer } from '../../test-support/github-server.ts'
import { startLlmServer } from '../../test-support/llm-server.ts'
import {
  massgenBinary,
  virtualenvFolders
} from '../../test-support/massgen-binary.ts'
import { reviewPull } from '../../test-support/review-pull.ts'
import {
  plantedBody,
  voteScript
} from '../../test-support/review-vote-script.ts'
import { ROOT, runAction } from '../../test-support/run-action.ts'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { med, ms, ratio, s, spread, type Row } from './format.ts'

export interface ReviewRun {
  vote: boolean
  wallMs: number
  /** MassGen's time for the answers (duration-seconds). */
  answersMs?: number
  answersTokens?: number
  /** The vote round's own MassGen time and tokens. */
  voteMs?: number
  voteTokens?: number
  verdict?: string
}

/** `🔤 1,234 in / 56 out tokens` of the report's footer. */
export function footerTokens(summary: string): number | undefined {
  const m = /🔤 ([\d,]+) in \/ ([\d,]+) out tokens/.exec(summary)
  return m
    ? Number((m[1] ?? '').replace(/,/g, '')) +
        Number((m[2] ?? '').replace(/,/g, ''))
    : undefined
}

/** The vote round's line: `Finding vote: MassGen success in 12.3 s, 100 input + 20 output tokens`. */
export function voteLine(stdout: string): { ms?: number; tokens?: number } {
  const m =
    /Finding vote: MassGen \S+ in ([\d.]+) s, (\d+) input \+ (\d+) output tokens/.exec(
      stdout
    )
  return m
    ? {
        ms: Number(m[1]) * 1000,
        tokens: Number(m[2]) + Number(m[3])
      }
    : {}
}

export async function voteCost(
  runs: number,
  say: (line: string) => void
): Promise<ReviewRun[]> {
  const github = await startGitHubServer({ issues: [42] })
  const llm = await startLlmServer(voteScript())
  const massgen = massgenBinary()
  const payload: unknown = JSON.parse(
    fs.readFileSync(
      path.join(ROOT, '__fixtures__', 'events', 'pull_request.opened.json'),
      'utf8'
    )
  )
  const out: ReviewRun[] = []
  try {
    for (let i = 0; i < runs; i++)
      for (const vote of [true, false]) {
        say(
          `review ${vote ? 'with' : 'without'} the vote, run ${i + 1}/${runs}`
        )
        // A fresh pull request each time: no finding is a duplicate.
        github.state.pulls['42'] = { ...reviewPull(), body: plantedBody() }
        github.state.reviews.length = 0
        github.state.reviewComments.length = 0
        const started = Date.now()
        const run = await runAction({
          eventName: 'pull_request',
          payload,
          githubApiUrl: github.url,
          inputs: {
            query: 'Review this pull request.',
            models: 'vllm/model-a vllm/model-b vllm/model-c',
            'base-url': llm.url,
            'openai-api-key': 'sk-benchOPENAIkey1234567890abcdef',
            'massgen-command': massgen,
            'max-duration': '600',
            'upload-logs': 'false',
            review: 'inline',
            'finding-vote': String(vote)
          },
          pathExtra: virtualenvFolders(massgen)
        })
        const round = voteLine(run.stdout)
        const duration = Number(run.outputs['duration-seconds'])
        out.push({
          vote,
          wallMs: Date.now() - started,
          ...(Number.isFinite(duration) ? { answersMs: duration * 1000 } : {}),
          ...(footerTokens(run.summary) !== undefined
            ? { answersTokens: footerTokens(run.summary) }
            : {}),
          ...(round.ms !== undefined ? { voteMs: round.ms } : {}),
          ...(round.tokens !== undefined ? { voteTokens: round.tokens } : {}),
          ...(run.outputs.verdict ? { verdict: run.outputs.verdict } : {})
        })
      }
  } finally {
    await llm.close()
    await github.close()
  }
  return out
}

const count = (x?: number): string =>
  x === undefined ? 'n/a' : String(Math.round(x))

export function voteCostRows(results: ReviewRun[], runs: number): Row[] {
  const withVote = results.filter((r) => r.vote)
  const without = results.filter((r) => !r.vote)
  const medOf = (rs: ReviewRun[], k: keyof ReviewRun) =>
    med(rs.map((r) => r[k] as number | undefined))
  const total = (r: ReviewRun) =>
    r.answersMs === undefined ? undefined : r.answersMs + (r.voteMs ?? 0)
  const totalTokens = (r: ReviewRun) =>
    r.answersTokens === undefined
      ? undefined
      : r.answersTokens + (r.voteTokens ?? 0)
  const n = `median of ${runs}`
  return [
    [
      `review, 3 agents, without the vote: action wall / MassGen time / tokens (${n})`,
      `${s(medOf(without, 'wallMs'))} / ${s(medOf(without, 'answersMs'))} / ${count(medOf(without, 'answersTokens'))}`,
      spread(
        without.map((r) => r.wallMs),
        ms
      ),
      ''
    ],
    [
      `review, 3 agents, with the vote: action wall / MassGen time (both runs) / tokens (${n})`,
      `${s(medOf(withVote, 'wallMs'))} / ${s(med(withVote.map(total)))} / ${count(med(withVote.map(totalTokens)))}`,
      spread(
        withVote.map((r) => r.wallMs),
        ms
      ),
      ''
    ],
    [
      `the vote round alone: MassGen time / tokens (${n})`,
      `${s(medOf(withVote, 'voteMs'))} / ${count(medOf(withVote, 'voteTokens'))}`,
      `verdicts with / without: ${withVote.map((r) => r.verdict).join(',')} / ${without.map((r) => r.verdict).join(',')}`,
      ''
    ],
    [
      'with the vote / without: action wall, MassGen time, tokens',
      `${ratio(medOf(withVote, 'wallMs'), medOf(without, 'wallMs'))}, ` +
        `${ratio(med(withVote.map(total)), medOf(without, 'answersMs'))}, ` +
        `${ratio(med(withVote.map(totalTokens)), medOf(without, 'answersTokens'))}`,
      'side by side in this run',
      ''
    ]
  ]
}
