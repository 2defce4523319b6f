// The price of consensus: the same review by two scripted agents with the
// real MassGen 0.1.97, with the vote on every finding and without it,
// against each model alone (the same inputs, one model), on a small pull
// request (3 files, 19 lines) and a large one (one 482-line file). The
// agents read the diff the prompt points them at, answer with findings and
// vote on the ballot; the scripted LLM server records every request. Per
// review: requests, request bytes (whole bodies, and the messages' text),
// the calls in turn (requests one after another: the longest chain of
// requests no other request overlaps) and the action's wall time; then
// where the bytes went (system prompt, tool schemas, question, diff and
// files read, answers shown). `BENCH_PRICE_DUMP=<folder>` also writes every
// request body there. `BENCH_BASELINE_DIST=<a dist/ folder>` (say, main's
// bundle before a change) runs every review with that bundle too, right
// before this checkout's, and prints both side by side; `BENCH_PRICE_ONLY`
// (a review's name, e.g. `consensus + vote`, or several, comma-separated)
// runs those reviews alone.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { startGitHubServer } from '../../test-support/github-server.ts'
import type { ServerPull } from '../../test-support/github-state.ts'
import { largePull } from '../../test-support/large-pull.ts'
import {
  startLlmServer,
  type RecordedRequest
} from '../../test-support/llm-server.ts'
import {
  massgenBinary,
  virtualenvFolders
} from '../../test-support/massgen-binary.ts'
import { findingsBlock, reviewPull } from '../../test-support/review-pull.ts'
import { messageText } from '../../test-support/llm-protocol.ts'
import { ROOT, runAction } from '../../test-support/run-action.ts'
import { med, ratio, s, type Row } from './format.ts'

const KEY = 'sk-benchOPENAIkey1234567890abcdef'
const MODELS = ['model-a', 'model-b'] as const
/** Lines of the large pull request's one file. */
const LARGE_LINES = 482

type Review =
  'consensus + vote' | 'consensus' | 'model-a alone' | 'model-b alone'
const REVIEWS: readonly Review[] = [
  'consensus + vote',
  'consensus',
  'model-a alone',
  'model-b alone'
]

interface Pull {
  name: string
  pull: () => ServerPull
  /** Where the scripted findings point (a changed line of the diff). */
  file: string
  line: number
}

const PULLS: readonly Pull[] = [
  {
    name: 'small PR (3 files, 19 lines)',
    pull: reviewPull,
    file: 'src/parser.ts',
    line: 18
  },
  {
    name: `large PR (one ${LARGE_LINES}-line file)`,
    pull: () =>
      largePull([
        {
          filename: 'src/big.ts',
          status: 'added',
          additions: LARGE_LINES,
          deletions: 0,
          patch: [
            `@@ -0,0 +1,${LARGE_LINES} @@`,
            ...Array.from(
              { length: LARGE_LINES },
              (_, i) =>
                `+export const value${i} = compute(${i}, 'entry ${i} of the table')`
            )
          ].join('\n')
        }
      ]),
    file: 'src/big.ts',
    line: 120
  }
]

/** Where one request's bytes go. */
interface Parts {
  system: number
  tools: number
  question: number
  reads: number
  answers: number
  other: number
}

/** Which bundle ran: this checkout's dist/ or BENCH_BASELINE_DIST. */
type Bundle = 'before' | 'after'

export interface PriceRun {
  pull: string
  review: Review
  bundle: Bundle
  status?: string
  verdict?: string
  requests: number
  voteRoundRequests: number
  bodyBytes: number
  voteRoundBodyBytes: number
  promptBytes: number
  callsInTurn: number
  wallMs: number
  /** The vote round's own MassGen time (its `Finding vote:` log line). */
  voteMassgenMs?: number
  /** From the answers' last request to the ballots' first: the second MassGen's start-up and more. */
  ballotGapMs?: number
  /**
   * The vote round in the action's log, as the lines arrived: from
   * `Finding vote: N finding(s) put to` to `Finding vote: MassGen <outcome>
   * in`, the start-up of its MassGen and the judging included.
   */
  voteWallMs?: number
  /** From the action's start to the answers' first request: setup and MassGen's start-up. */
  firstRequestMs?: number
  parts: Parts
}

/** `Finding vote: MassGen success in 1.8 s, ...` */
function voteMassgenMs(stdout: string): number | undefined {
  const m = /Finding vote: MassGen \S+ in ([\d.]+) s/.exec(stdout)
  return m ? Number(m[1]) * 1000 : undefined
}

const VOTE_PUT = /Finding vote: \d+ finding\(s\) put to/
const VOTE_JUDGED = /Finding vote: MassGen \S+ in [\d.]+ s/

/** When each of the vote round's two log lines arrived (the main step's output, live). */
function voteRoundClock() {
  let text = ''
  let put: number | undefined
  let judged: number | undefined
  return {
    onOutput: (stream: 'stdout' | 'stderr', chunk: Buffer) => {
      if (stream !== 'stdout' || judged !== undefined) return
      // The last few KiB: a line split between chunks is still found.
      text = (text + chunk.toString('utf8')).slice(-8192)
      if (put === undefined && VOTE_PUT.test(text)) put = Date.now()
      if (put !== undefined && VOTE_JUDGED.test(text)) judged = Date.now()
    },
    wallMs: () =>
      put === undefined || judged === undefined ? undefined : judged - put
  }
}

function ballotGap(requests: RecordedRequest[]): number | undefined {
  const answers = requests.filter((r) => !r.voteRound).map((r) => r.at)
  const ballots = requests.filter((r) => r.voteRound).map((r) => r.at)
  if (answers.length === 0 || ballots.length === 0) return undefined
  return Math.min(...ballots) - Math.max(...answers)
}

const bytes = (text: string) => Buffer.byteLength(text, 'utf8')

/** A request's bytes by what they carry. */
function partsOf(body: Record<string, unknown>): Parts {
  const messages = (Array.isArray(body.messages) ? body.messages : []) as {
    role?: string
    content?: unknown
    tool_calls?: unknown
  }[]
  const parts: Parts = {
    system: 0,
    tools: bytes(JSON.stringify(body.tools ?? [])),
    question: 0,
    reads: 0,
    answers: 0,
    other: 0
  }
  for (const m of messages) {
    const text = messageText(m.content)
    if (m.role === 'system') parts.system += bytes(text)
    else if (m.role === 'tool') parts.reads += bytes(text)
    else if (m.role === 'user') {
      // The answers MassGen shows: `<agentN.M> ... <end of agentN.M>`.
      const shown = [
        ...text.matchAll(/<(agent\d+\.\d+)>[\s\S]*?<end of \1>/g)
      ].reduce((n, x) => n + bytes(x[0]), 0)
      parts.answers += shown
      parts.question += bytes(text) - shown
    } else
      parts.other +=
        bytes(text) + bytes(m.tool_calls ? JSON.stringify(m.tool_calls) : '')
  }
  return parts
}

function addParts(a: Parts, b: Parts): Parts {
  return {
    system: a.system + b.system,
    tools: a.tools + b.tools,
    question: a.question + b.question,
    reads: a.reads + b.reads,
    answers: a.answers + b.answers,
    other: a.other + b.other
  }
}

const NO_PARTS: Parts = {
  system: 0,
  tools: 0,
  question: 0,
  reads: 0,
  answers: 0,
  other: 0
}

/**
 * Requests one after another: a request starts a new step when it came
 * after the previous step's requests were answered (the server records
 * when each arrived; a step's requests arrive together, within `gapMs`).
 */
function callsInTurn(requests: RecordedRequest[], gapMs = 250): number {
  const at = requests.map((r) => r.at).sort((a, b) => a - b)
  let steps = 0
  let last = -Infinity
  for (const t of at) {
    if (t - last > gapMs) steps++
    last = t
  }
  return steps
}

function scriptFor(pull: Pull) {
  const finding = (x: string) => ({
    file: pull.file,
    line: pull.line,
    severity: 'concern',
    title: `Problem on line ${pull.line}`,
    explanation: `Agent ${x}: the value on line ${pull.line} is computed twice.`
  })
  const votes = [
    'My votes on the findings.',
    '',
    '```massgen-finding-votes',
    JSON.stringify([
      { finding: 'F1', vote: 'confirm', reason: 'the diff shows it' }
    ]),
    '```'
  ].join('\n')
  return {
    agentIds: ['agent_a', 'agent_b'],
    agents: Object.fromEntries(
      MODELS.map((m) => {
        const x = m.slice(-1)
        return [
          m,
          {
            reads: ['prompt:diff.patch'],
            answer: `Review by agent ${x}.\n\n${findingsBlock([finding(x)])}`,
            voteFor: 'agent_a',
            // The ballot quotes the code: no reading again.
            voteRound: { answer: votes, reads: [] }
          }
        ]
      })
    )
  }
}

function modelsOf(review: Review): string {
  if (review === 'model-a alone') return 'vllm/model-a'
  if (review === 'model-b alone') return 'vllm/model-b'
  return 'vllm/model-a vllm/model-b'
}

async function oneReview(
  pull: Pull,
  review: Review,
  bundle: { name: Bundle; dir: string },
  dump: string | undefined
): Promise<PriceRun> {
  const github = await startGitHubServer({ issues: [42] })
  github.state.pulls['42'] = pull.pull()
  const llm = await startLlmServer(scriptFor(pull), { keepBodies: true })
  const massgen = massgenBinary()
  const payload: unknown = JSON.parse(
    fs.readFileSync(
      path.join(ROOT, '__fixtures__', 'events', 'pull_request.opened.json'),
      'utf8'
    )
  )
  try {
    const started = Date.now()
    const clock = voteRoundClock()
    const run = await runAction({
      eventName: 'pull_request',
      payload,
      githubApiUrl: github.url,
      inputs: {
        query: 'Review this pull request.',
        models: modelsOf(review),
        'base-url': llm.url,
        'openai-api-key': KEY,
        'massgen-command': massgen,
        'max-duration': '600',
        'upload-logs': 'false',
        review: 'inline',
        'finding-vote': String(review !== 'consensus')
      },
      pathExtra: virtualenvFolders(massgen),
      actionDir: bundle.dir,
      onOutput: clock.onOutput
    })
    const wallMs = Date.now() - started
    const requests = llm.requests.filter((r) => r.path.endsWith('/completions'))
    if (dump) {
      const dir = path.join(
        dump,
        `${pull.file.replace(/\W/g, '_')}-${review.replace(/\W+/g, '_')}-${bundle.name}`
      )
      fs.mkdirSync(dir, { recursive: true })
      requests.forEach((r, i) =>
        fs.writeFileSync(
          path.join(
            dir,
            `${String(i).padStart(2, '0')}-${r.model}${r.voteRound ? '-ballot' : ''}.json`
          ),
          JSON.stringify(r.body, null, 1)
        )
      )
      fs.writeFileSync(path.join(dir, 'stdout.txt'), run.stdout)
    }
    return {
      pull: pull.name,
      review,
      bundle: bundle.name,
      ...(run.outputs.status ? { status: run.outputs.status } : {}),
      ...(run.outputs.verdict ? { verdict: run.outputs.verdict } : {}),
      requests: requests.length,
      voteRoundRequests: requests.filter((r) => r.voteRound).length,
      bodyBytes: requests.reduce(
        (n, r) => n + bytes(JSON.stringify(r.body ?? {})),
        0
      ),
      voteRoundBodyBytes: requests
        .filter((r) => r.voteRound)
        .reduce((n, r) => n + bytes(JSON.stringify(r.body ?? {})), 0),
      promptBytes: requests.reduce((n, r) => n + r.promptBytes, 0),
      callsInTurn: callsInTurn(requests),
      wallMs,
      ...(voteMassgenMs(run.stdout) !== undefined
        ? { voteMassgenMs: voteMassgenMs(run.stdout) }
        : {}),
      ...(clock.wallMs() !== undefined ? { voteWallMs: clock.wallMs() } : {}),
      ...(requests.length > 0
        ? { firstRequestMs: Math.min(...requests.map((r) => r.at)) - started }
        : {}),
      ...(ballotGap(requests) !== undefined
        ? { ballotGapMs: ballotGap(requests) }
        : {}),
      parts: requests
        .map((r) => partsOf((r.body ?? {}) as Record<string, unknown>))
        .reduce(addParts, NO_PARTS)
    }
  } finally {
    await llm.close()
    await github.close()
  }
}

/** Every review of every pull request, `runs` times, interleaved. */
export async function priceRuns(
  runs: number,
  say: (line: string) => void
): Promise<PriceRun[]> {
  const dump = process.env.BENCH_PRICE_DUMP
  // One review's name, or several, comma-separated.
  const only = process.env.BENCH_PRICE_ONLY?.split(',').map((x) => x.trim())
  const baseline = process.env.BENCH_BASELINE_DIST
  const bundles: { name: Bundle; dir: string }[] = [
    ...(baseline
      ? [{ name: 'before' as const, dir: path.resolve(baseline) }]
      : []),
    { name: 'after', dir: path.join(ROOT, 'dist') }
  ]
  const out: PriceRun[] = []
  for (let i = 0; i < runs; i++)
    for (const pull of PULLS)
      for (const review of REVIEWS.filter((r) => !only || only.includes(r)))
        for (const bundle of bundles) {
          say(
            `price: ${pull.name}, ${review}, ${bundle.name}, run ${i + 1}/${runs}`
          )
          out.push(await oneReview(pull, review, bundle, dump))
        }
  return out
}

const kib = (x?: number) =>
  x === undefined ? 'n/a' : `${(x / 1024).toFixed(1)} KiB`

const pct = (part: number, whole: number) =>
  whole ? `${Math.round((100 * part) / whole)} %` : 'n/a'

/** The medians of one review of one pull request. */
function medians(rs: PriceRun[]) {
  const m = (k: keyof PriceRun) => med(rs.map((r) => r[k] as number))
  return {
    requests: m('requests') ?? 0,
    vote: m('voteRoundRequests') ?? 0,
    body: m('bodyBytes') ?? 0,
    voteBody: m('voteRoundBodyBytes') ?? 0,
    prompt: m('promptBytes') ?? 0,
    turns: m('callsInTurn') ?? 0,
    wall: m('wallMs'),
    voteMassgen: m('voteMassgenMs'),
    gap: m('ballotGapMs'),
    voteWall: m('voteWallMs'),
    firstRequest: m('firstRequestMs'),
    parts: rs[0]?.parts ?? NO_PARTS
  }
}

export function priceRows(all: PriceRun[], runs: number): Row[] {
  const rows: Row[] = []
  const bundles = (['before', 'after'] as const).filter((b) =>
    all.some((r) => r.bundle === b)
  )
  for (const bundle of bundles)
    rows.push(
      ...bundleRows(
        all.filter((r) => r.bundle === bundle),
        runs,
        bundles.length > 1 ? `${bundle}, ` : ''
      )
    )
  return rows
}

function bundleRows(results: PriceRun[], runs: number, label: string): Row[] {
  const rows: Row[] = []
  for (const pull of PULLS) {
    if (!results.some((r) => r.pull === pull.name)) continue
    // BENCH_PRICE_ONLY leaves the other reviews out: no rows for them.
    const ran = (review: Review) =>
      results.some((r) => r.pull === pull.name && r.review === review)
    const of = (review: Review) =>
      medians(
        results.filter((r) => r.pull === pull.name && r.review === review)
      )
    // Each model alone with the same inputs (its own vote round on its
    // findings included), and without that round (its requests left out).
    const alone = [of('model-a alone'), of('model-b alone')]
    const aloneRequests = alone.reduce((n, a) => n + a.requests, 0)
    const aloneBody = alone.reduce((n, a) => n + a.body, 0)
    const bareRequests = alone.reduce((n, a) => n + a.requests - a.vote, 0)
    const bareBody = alone.reduce((n, a) => n + a.body - a.voteBody, 0)
    for (const review of REVIEWS.filter(ran)) {
      const r = of(review)
      const verdicts = results
        .filter((x) => x.pull === pull.name && x.review === review)
        .map((x) => `${x.status ?? '?'}/${x.verdict ?? '-'}`)
        .join(',')
      rows.push([
        `price, ${label}${pull.name}, ${review}: requests (vote round) / body / prompt / calls in turn / wall (median of ${runs})`,
        `${r.requests} (${r.vote}) / ${kib(r.body)} / ${kib(r.prompt)} / ${r.turns} / ${s(r.wall)}`,
        `${kib(r.requests ? r.body / r.requests : undefined)} a request; status/verdict ${verdicts}`,
        ''
      ])
    }
    const compared = aloneRequests > 0 ? REVIEWS.slice(0, 2).filter(ran) : []
    for (const review of compared) {
      const r = of(review)
      rows.push([
        `price, ${label}${pull.name}, ${review} / the models alone: requests, body bytes`,
        `${ratio(r.requests, aloneRequests)}x, ${ratio(r.body, aloneBody)}x`,
        `alone: ${aloneRequests} requests, ${kib(aloneBody)}; without their own vote rounds ` +
          `(${bareRequests} requests, ${kib(bareBody)}): ${ratio(r.requests, bareRequests)}x, ${ratio(r.body, bareBody)}x`,
        '<= 1.2'
      ])
    }
    const voted = of('consensus + vote')
    const added =
      voted.wall === undefined || of('consensus').wall === undefined
        ? undefined
        : voted.wall - (of('consensus').wall ?? 0)
    rows.push([
      `price, ${label}${pull.name}: the vote round's MassGen time / action wall added (with - without the vote)`,
      `${s(voted.voteMassgen)} / ${s(added)}`,
      `answers' last request to the ballots' first: ${s(voted.gap)} (MassGen's second start-up)`,
      'added <= MassGen time + 4 s'
    ])
    rows.push([
      `price, ${label}${pull.name}: the vote round's action wall (ballot put to ballots judged) / over its MassGen time`,
      `${s(voted.voteWall)} / ${s(voted.voteWall === undefined || voted.voteMassgen === undefined ? undefined : voted.voteWall - voted.voteMassgen)}`,
      `answers' last request to the ballots' first: ${s(voted.gap)}; the action's start to ` +
        `the answers' first request: ${s(voted.firstRequest)} (without the vote: ${s(of('consensus').firstRequest)})`,
      '<= 4 s'
    ])
    const p: Parts = of('consensus + vote').parts
    const whole =
      p.system + p.tools + p.question + p.reads + p.answers + p.other
    rows.push([
      `price, ${label}${pull.name}, consensus + vote: where the bytes go (first run)`,
      `system ${pct(p.system, whole)}, tool schemas ${pct(p.tools, whole)}, question ${pct(p.question, whole)}, ` +
        `diff and files read ${pct(p.reads, whole)}, answers shown ${pct(p.answers, whole)}, agent's own calls ${pct(p.other, whole)}`,
      `of ${kib(whole)}`,
      ''
    ])
  }
  return rows
}
