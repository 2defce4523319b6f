// A review by the local model against the same review by the scripted
// server, side by side in one run (issue 44): pull request #42
// (review-pull.ts) by two agents through the bundled action with the real
// MassGen, `review: inline` and the vote on every finding, the settings of
// the demo and the real-model lane (test-support/local-review.ts). The
// local review's agents are SmolLM2-135M on the CPU (local-model.ts); the
// scripted one's answer with findings and ballots at once (the vote
// script's agents a and b, review-vote-script.ts).
//
// Its parts: the model's load (the server's start until it listens), the
// action's setup and MassGen's start and its report (the job summary's
// "Where the time went", measured by the action), the answers and MassGen's
// vote (MassGen's events.jsonl: its start to the last answer, then to its
// end), the vote on the findings (the action's `Finding vote:` line), and
// tokens per second (the local model's own log; the review's tokens over
// its MassGen time).
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { event } from '../../test-support/fixtures.ts'
import { startGitHubServer } from '../../test-support/github-server.ts'
import { startLlmServer } from '../../test-support/llm-server.ts'
import {
  startLocalModel,
  type LocalRequest
} from '../../test-support/local-model-process.ts'
import {
  LOCAL_AGENTS,
  localReviewInputs
} from '../../test-support/local-review.ts'
import { massgenBinary } from '../../test-support/massgen-binary.ts'
import { reviewPull } from '../../test-support/review-pull.ts'
import { voteScript } from '../../test-support/review-vote-script.ts'
import type { LlmScript } from '../../test-support/llm-protocol.ts'
import { runAction } from '../../test-support/run-action.ts'
import type { Row } from './format.ts'
import { footerTokens, voteLine } from './vote.ts'

export interface LocalModelRun {
  server: 'local model' | 'scripted'
  status?: string
  verdict?: string
  wallMs: number
  /** The model server's start until it listens (the model loaded). */
  loadMs: number
  setupS?: number
  massgenStartS?: number
  answersS?: number
  votesS?: number
  findingVoteS?: number
  /** Why the vote on findings did not run, as the report says. */
  voteSkipped?: string
  /** The answers' MassGen exit to the end: the vote's run, with its start-up, and the report. */
  reportS?: number
  tokens?: number
  /** The local model's own figures (its request log). */
  model?: {
    requests: number
    modelMs: number
    promptTokens: number
    completionTokens: number
  }
  loadBefore: number
  loadAfter: number
}

/** The scripted agents local-a and local-b: the vote script's agents a and b. */
function scriptedReview(): LlmScript {
  const script = voteScript()
  return {
    agentIds: ['agent_a', 'agent_b'],
    agents: {
      [LOCAL_AGENTS[0] as string]: script.agents?.['model-a'] ?? {},
      [LOCAL_AGENTS[1] as string]: script.agents?.['model-b'] ?? {}
    }
  }
}

/** A row's seconds of the job summary's "Where the time went". */
function timing(summary: string, part: RegExp): number | undefined {
  for (const line of summary.split('\n')) {
    const cells = line.split('|').map((c) => c.replace(/\*/g, '').trim())
    if (cells[1] && part.test(cells[1])) {
      const m = /([\d.]+) s/.exec(cells[2] ?? '')
      if (m) return Number(m[1])
    }
  }
  return undefined
}

/** MassGen's answers and its vote, from its events.jsonl (local times). */
function answersAndVotes(logDir: string | undefined): {
  answersS?: number
  votesS?: number
} {
  if (!logDir) return {}
  const file = path.join(logDir, 'turn_1', 'attempt_1', 'events.jsonl')
  if (!fs.existsSync(file)) return {}
  const events = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { timestamp: string; event_type: string })
  const t = (e: { timestamp: string }) => new Date(e.timestamp).getTime()
  const first = events[0]
  const last = events.at(-1)
  const answers = events.filter((e) => e.event_type === 'answer_submitted')
  const lastAnswer = answers.at(-1)
  if (!first || !last || !lastAnswer) return {}
  return {
    answersS: (t(lastAnswer) - t(first)) / 1000,
    votesS: (t(last) - t(lastAnswer)) / 1000
  }
}

async function oneReview(
  server: LocalModelRun['server'],
  massgen: string
): Promise<LocalModelRun> {
  const loadBefore = os.loadavg()[0] ?? 0
  const github = await startGitHubServer({ issues: [42] })
  github.state.pulls['42'] = reviewPull()
  const loading = Date.now()
  const model =
    server === 'local model'
      ? await startLocalModel({ models: LOCAL_AGENTS })
      : await startLlmServer(scriptedReview())
  const loadMs = Date.now() - loading
  try {
    const started = Date.now()
    const run = await runAction({
      eventName: 'pull_request',
      payload: event('pull_request.opened'),
      githubApiUrl: github.url,
      inputs: localReviewInputs(model.url, massgen)
    })
    const wallMs = Date.now() - started
    const requests = 'logFile' in model ? model.requests() : []
    const sum = (f: (r: LocalRequest) => number | undefined) =>
      requests.reduce((n, r) => n + (f(r) ?? 0), 0)
    const round = voteLine(run.stdout)
    const tokens = footerTokens(run.summary)
    return {
      server,
      ...(run.outputs.status ? { status: run.outputs.status } : {}),
      ...(run.outputs.verdict ? { verdict: run.outputs.verdict } : {}),
      wallMs,
      loadMs,
      ...optional('setupS', timing(run.summary, /^setup, critical path$/)),
      ...optional('massgenStartS', timing(run.summary, /^MassGen start$/)),
      ...answersAndVotes(run.outputs['log-dir']),
      ...optional(
        'findingVoteS',
        round.ms === undefined ? undefined : round.ms / 1000
      ),
      ...(noVote(run.summary) ? { voteSkipped: noVote(run.summary) } : {}),
      ...optional('reportS', timing(run.summary, /^report$/)),
      ...optional('tokens', tokens),
      ...(requests.length
        ? {
            model: {
              requests: requests.length,
              modelMs: sum((r) => r.ms),
              promptTokens: sum((r) => r.promptTokens),
              completionTokens: sum((r) => r.completionTokens)
            }
          }
        : {}),
      loadBefore,
      loadAfter: os.loadavg()[0] ?? 0
    }
  } finally {
    await model.close()
    await github.close()
  }
}

/** The report's `No vote on the findings: <why>; the raisers alone count.` */
function noVote(summary: string): string | undefined {
  return /No vote on the findings: (.*?); the raisers alone count/.exec(
    summary
  )?.[1]
}

function optional<K extends string>(key: K, value: number | undefined) {
  return value === undefined ? {} : ({ [key]: value } as Record<K, number>)
}

/** The local model's review, then the scripted one: one after the other, never at once. */
export async function localModelBench(
  say: (line: string) => void
): Promise<LocalModelRun[]> {
  const massgen = massgenBinary()
  const out: LocalModelRun[] = []
  for (const server of ['local model', 'scripted'] as const) {
    say(`local-model: the review with the ${server} server...`)
    out.push(await oneReview(server, massgen))
  }
  return out
}

const sec = (x?: number) => (x === undefined ? 'n/a' : `${x.toFixed(1)} s`)

export function localModelRows(runs: LocalModelRun[]): Row[] {
  const local = runs.find((r) => r.server === 'local model')
  const scripted = runs.find((r) => r.server === 'scripted')
  const pair = (
    what: string,
    f: (r: LocalModelRun) => string,
    detail = ''
  ): Row => [
    `local model / scripted: ${what}`,
    `${local ? f(local) : 'n/a'} / ${scripted ? f(scripted) : 'n/a'}`,
    detail,
    ''
  ]
  const m = local?.model
  const mSeconds = m ? m.modelMs / 1000 : 0
  const reviewRate = (r: LocalModelRun) => {
    const massgen = (r.answersS ?? 0) + (r.votesS ?? 0) + (r.findingVoteS ?? 0)
    return r.tokens === undefined || massgen === 0
      ? 'n/a'
      : `${(r.tokens / massgen).toFixed(0)} tok/s`
  }
  return [
    pair(
      'review wall (the action, model loaded)',
      (r) => sec(r.wallMs / 1000),
      `status ${local?.status ?? '?'} / ${scripted?.status ?? '?'}, verdict ${local?.verdict ?? '?'} / ${scripted?.verdict ?? '?'}`
    ),
    pair('model load (server start to listening)', (r) => sec(r.loadMs / 1000)),
    pair('setup (critical path)', (r) => sec(r.setupS)),
    pair('MassGen start (spawn to first status)', (r) => sec(r.massgenStartS)),
    pair(
      'answers (MassGen start to its last answer)',
      (r) => sec(r.answersS),
      "MassGen's events.jsonl"
    ),
    pair(
      "votes (MassGen's vote and final presentation)",
      (r) => sec(r.votesS),
      "MassGen's events.jsonl"
    ),
    pair(
      "the vote on findings (its MassGen run's own time)",
      (r) => sec(r.findingVoteS),
      runs
        .filter((r) => r.voteSkipped)
        .map((r) => `${r.server}: no vote, ${r.voteSkipped}`)
        .join('; ')
    ),
    pair(
      "after the answers' MassGen: the vote's run with its start-up, and the report",
      (r) => sec(r.reportS),
      'the summary\'s "report" part'
    ),
    pair(
      "tokens in all / per second of MassGen's time",
      (r) => `${r.tokens ?? 'n/a'} / ${reviewRate(r)}`,
      'answers, vote and vote on findings'
    ),
    [
      'local model: requests / in the model / generated tokens per second',
      m
        ? `${m.requests} / ${sec(mSeconds)} / ${mSeconds ? (m.completionTokens / mSeconds).toFixed(1) : 'n/a'} tok/s`
        : 'n/a',
      m
        ? `${m.promptTokens} prompt + ${m.completionTokens} completion tokens, ${mSeconds ? ((m.promptTokens + m.completionTokens) / mSeconds).toFixed(1) : 'n/a'} tok/s in all; one thread`
        : '',
      ''
    ],
    [
      'load (1 min) before / after each review',
      runs
        .map(
          (r) =>
            `${r.server}: ${r.loadBefore.toFixed(1)} / ${r.loadAfter.toFixed(1)}`
        )
        .join('; '),
      `${os.cpus().length} CPUs`,
      ''
    ]
  ]
}
