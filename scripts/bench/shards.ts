// A matrix review's wall time: a 1,000-file pull request reviewed by 1, 2
// and 4 shards, the shard jobs run in parallel here as a matrix runs them
// on hosted runners, measured side by side in one bench run. Each job is
// the bundled action under Node 24 (test-support/run-action.ts) against the
// loopback GitHub and artifact service; MassGen is test-support/
// fake-massgen.mjs, waiting MODEL_MS_PER_FILE per file of its shard as a
// stand-in for the models' time, which grows with what they read. What is
// measured is the action's part around it: plan, download, run pipeline,
// upload, aggregate (docs/matrix-review.md says what it means on runners).
import * as fs from 'node:fs'
import * as path from 'node:path'
import {
  DEFAULT_RUN_BACKEND_ID,
  fakeRuntimeToken,
  readZip,
  startArtifactServer
} from '../../test-support/artifact-server.ts'
import { startGitHubServer } from '../../test-support/github-server.ts'
import { largePull, manyFiles } from '../../test-support/large-pull.ts'
import {
  FAKE_MASSGEN,
  ROOT,
  runAction,
  type ActionRun
} from '../../test-support/run-action.ts'
import { ratio, s, type Row } from './format.ts'

const FILES = 1000
/** The models' stand-in: 20 ms a file, 20 s for the whole pull request. */
const MODEL_MS_PER_FILE = 20
const SHARDS = [1, 2, 4]

interface Measured {
  shards: number
  planMs: number
  slowestShardMs: number
  aggregateMs: number
  /** Every job's time added up: what the runner minutes pay for. */
  jobsMs: number
  /** The slowest shard less its models' stand-in: the action's own time. */
  shardOverheadMs: number
}

const wall = (run: ActionRun) => run.closedAt - run.spawnedAt

async function matrixReview(
  shards: number,
  say: (line: string) => void
): Promise<Measured> {
  const github = await startGitHubServer({ issues: [42] })
  github.state.pulls['42'] = largePull(manyFiles(FILES))
  const artifacts = await startArtifactServer()
  const payload = JSON.parse(
    fs.readFileSync(
      path.join(ROOT, '__fixtures__', 'events', 'pull_request.opened.json'),
      'utf8'
    )
  ) as unknown
  let jobs = 0
  const job = (
    role: string,
    inputs: Record<string, string>,
    env: Record<string, string> = {}
  ) => {
    jobs++
    return runAction({
      eventName: 'pull_request',
      payload,
      githubApiUrl: github.url,
      post: false,
      keepOutput: false,
      inputs: {
        role,
        query: 'Review this pull request.',
        models: 'openai/gpt-5.4 gemini/gemini-3.1-pro-preview',
        'openai-api-key': 'sk-benchOPENAIkey1234567890abcdef',
        'gemini-api-key': 'AIzaBenchGeminiKey0123456789abcdefghij',
        'massgen-command': `node ${FAKE_MASSGEN}`,
        'max-duration': '120',
        'upload-logs': 'false',
        'max-shards': String(shards),
        review: 'inline',
        ...inputs
      },
      env: {
        ACTIONS_RESULTS_URL: `${artifacts.url}/`,
        ACTIONS_RUNTIME_TOKEN: fakeRuntimeToken(
          DEFAULT_RUN_BACKEND_ID,
          `a1b2c3d4-0000-4000-8000-${String(jobs).padStart(12, '0')}`
        ),
        ...env
      }
    })
  }
  try {
    say(`matrix review: ${shards} shard(s), plan`)
    const plan = await job('matrix', {})
    const entries = (
      JSON.parse(plan.outputs.matrix ?? '{"include":[]}') as {
        include: Array<{ id: string; question: string }>
      }
    ).include
    // The matrix names the shards; their files are in the plan artifact.
    const uploaded = artifacts.artifacts.find((a) =>
      a.name.startsWith('massgen-shards-plan-')
    )
    const planned = JSON.parse(
      (uploaded &&
        readZip(uploaded.bytes).get('plan.json')?.toString('utf8')) ||
        '{"shards":[]}'
    ) as { shards: Array<{ id: string; files: string[] }> }
    const filesOf = (id: string) =>
      planned.shards.find((e) => e.id === id)?.files.length ?? 0
    say(
      `matrix review: ${shards} shard(s), ${entries.length} shard job(s) at once`
    )
    const runs = await Promise.all(
      entries.map((entry) =>
        job(
          'shard',
          { 'github-token': '', shard: JSON.stringify(entry) },
          {
            FAKE_MASSGEN_SCENARIO: 'success',
            FAKE_MASSGEN_DELAY_MS: String(filesOf(entry.id) * MODEL_MS_PER_FILE)
          }
        ).then((run) => ({ run, files: filesOf(entry.id) }))
      )
    )
    for (const { run } of runs)
      if (run.exitCode !== 0)
        throw new Error(`a shard job failed (exit ${run.exitCode})`)
    say(`matrix review: ${shards} shard(s), aggregate`)
    const aggregate = await job('aggregate', { 'shards-result': 'success' })
    if (aggregate.exitCode !== 0) throw new Error('the aggregate job failed')
    const slowest = runs.reduce((a, b) => (wall(b.run) > wall(a.run) ? b : a))
    return {
      shards,
      planMs: wall(plan),
      slowestShardMs: wall(slowest.run),
      aggregateMs: wall(aggregate),
      jobsMs:
        wall(plan) +
        runs.reduce((sum, r) => sum + wall(r.run), 0) +
        wall(aggregate),
      shardOverheadMs: wall(slowest.run) - slowest.files * MODEL_MS_PER_FILE
    }
  } finally {
    await github.close()
    await artifacts.close()
  }
}

export async function shardsRows(say: (line: string) => void): Promise<Row[]> {
  const measured: Measured[] = []
  for (const n of SHARDS) measured.push(await matrixReview(n, say))
  const one = measured[0] as Measured
  const total = (m: Measured) => m.slowestShardMs + m.aggregateMs
  return measured.flatMap((m): Row[] => [
    [
      `matrix review, ${FILES} files, ${m.shards} shard(s): slowest shard + aggregate`,
      s(total(m)),
      `shard ${s(m.slowestShardMs)} (action ${s(m.shardOverheadMs)} + models' stand-in ` +
        `${s(m.slowestShardMs - m.shardOverheadMs)}), aggregate ${s(m.aggregateMs)}, plan ${s(m.planMs)}; ` +
        `x${ratio(total(m), total(one))} of 1 shard`,
      'falls with shards'
    ],
    [
      `matrix review, ${m.shards} shard(s): all jobs' time (runner minutes)`,
      s(m.jobsMs),
      `x${ratio(m.jobsMs, one.jobsMs)} of 1 shard`,
      'grows slowly'
    ]
  ])
}
