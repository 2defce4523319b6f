// Benchmarks of the bundled action (dist/index.js) run the way a runner runs
// it, by the runner imitation the tests use (test-support/run-action.ts),
// against the loopback GitHub server and, for MassGen, the real MassGen 0.1.97
// with the scripted LLM server or test-support/fake-massgen.mjs. Everything
// is measured in one run, side by side, and printed as ONE table; the machine
// is noisy, so figures are medians and ratios, never pass/fail.
//
//   npm run bench              overhead, report latency, time to consensus per
//                              config, install size, scale, memory, warm setup
//                              (several minutes)
//   npm run bench -- --cold    also cold pip and cold uv installs (minutes, needs PyPI)
//   npm run bench -- --runs 5  repetitions of the real-MassGen run (default 3)
//   npm run bench -- --only docker --docker-stop
//                              Docker mode vs local mode only; --docker-stop
//                              adds runs of a bundle patched not to kill the
//                              containers at MassGen's result line;
//                              --docker-kinds docker,local runs only those kinds
//   npm run bench -- --only vote
//                              the review with the vote on every finding and
//                              without it: the vote round's tokens and MassGen time
//   npm run bench -- --only consensus --runs 1
//                              a consensus review of 3 models (with the vote) against
//                              each model reviewing alone, same case: LLM calls,
//                              tokens, seconds, and the sum of the three alone
//   npm run bench -- --only shards
//                              a matrix review of a 1,000-file pull request by 1, 2
//                              and 4 shards run in parallel: slowest shard + aggregate
//   npm run bench -- --only runner,docker --docker-kinds docker,local
//                              the setup on a runner (cold and warm, its own
//                              section: scripts/bench/setup-runner.ts; root,
//                              PyPI, Go) and Docker vs local mode, in one run
//   npm run bench -- --only price
//                              the price of consensus: two agents with and without
//                              the vote against each model alone, small and large
//                              pull request: requests, bytes, calls in turn, wall
//                              (BENCH_BASELINE_DIST=<dist/> runs another bundle
//                              side by side; local-model prompt tokens before/after:
//                              scripts/bench/local-model-price.ts)
//   npm run bench -- --only local-model
//                              a review by two agents on the local model (SmolLM2-135M
//                              on the CPU) and the same review by the scripted server,
//                              side by side: wall time and its parts, tokens per second
//   --only real|configs|setup|scale|docker|vote|pushes|shards|runner|price|consensus|local-model runs those parts, a
//                              comma list (a development aid; pushes: prompt bytes per
//                              push, incremental vs full review);
//   BENCH_NODE_ARGS adds Node flags to the action (e.g. --cpu-prof).
//
// Run by Node 24 directly (it strips the types). Method and results:
// docs/benchmarks.md.
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { startGitHubServer } from '../test-support/github-server.ts'
import { samplePull } from '../test-support/sample-pull.ts'
import { printTable, type Row } from './bench/format.ts'
import { measurer, timingWrapper, type Measure } from './bench/measure.ts'
import {
  coldRows,
  configRows,
  dockerVsLocalRows,
  fakeRows,
  realRows,
  setupRows,
  startupRow
} from './bench/rows.ts'
import {
  coldInstalls,
  configComparison,
  dockerVsLocal,
  fakeRuns,
  realRuns,
  startup,
  warmSetup
} from './bench/sections.ts'
import { voteCost, voteCostRows } from './bench/vote.ts'
import { priceRows, priceRuns } from './bench/price.ts'
import { consensusCost, consensusCostRows } from './bench/consensus.ts'
import { pushesRows } from './bench/pushes.ts'
import { shardsRows } from './bench/shards.ts'
import { setupOnRunner } from './bench/setup-runner.ts'
import { localModelBench, localModelRows } from './bench/local-model.ts'

type Part =
  | 'real'
  | 'configs'
  | 'setup'
  | 'scale'
  | 'docker'
  | 'vote'
  | 'consensus'
  | 'pushes'
  | 'shards'
  | 'runner'
  | 'price'
  | 'local-model'

interface Flags {
  cold: boolean
  dockerStop: boolean
  runs: number
  only?: string
  /** `--docker-kinds docker,local`: only these kinds of the Docker section. */
  dockerKinds?: string[]
}

function parseFlags(argv: string[]): Flags {
  const valueOf = (flag: string) => {
    const at = argv.indexOf(flag)
    return at >= 0 ? argv[at + 1] : undefined
  }
  const runs = Number(valueOf('--runs') ?? 3)
  if (!Number.isInteger(runs) || runs < 1)
    throw new Error(
      `--runs: expected a whole number of at least 1, got '${valueOf('--runs')}'`
    )
  return {
    cold: argv.includes('--cold'),
    dockerStop: argv.includes('--docker-stop'),
    runs,
    only: valueOf('--only'),
    ...(valueOf('--docker-kinds')
      ? { dockerKinds: valueOf('--docker-kinds')!.split(',') }
      : {})
  }
}

const say = (line: string) => process.stderr.write(`bench: ${line}\n`)

/** Every part the flags ask for, measured in order; the table's rows. */
async function measureAll(
  flags: Flags,
  measure: Measure,
  wrapper: string,
  work: string
): Promise<Row[]> {
  const only = flags.only?.split(',')
  const want = (part: Part) => !only || only.includes(part)
  const { bare, bundle } = startup()
  const real = want('real')
    ? await realRuns(measure, wrapper, flags.runs, say)
    : []
  const configs = want('configs')
    ? await configComparison(measure, wrapper, flags.runs, say)
    : undefined
  const setup = want('setup') ? await warmSetup(measure, say) : undefined
  const fake = want('scale') ? await fakeRuns(measure, wrapper, say) : {}
  const docker = want('docker')
    ? await dockerVsLocal(measure, {
        wrapper,
        runs: flags.runs,
        work,
        say,
        withoutKill: flags.dockerStop,
        ...(flags.dockerKinds ? { kinds: flags.dockerKinds } : {})
      })
    : undefined
  const vote = want('vote') ? await voteCost(flags.runs, say) : undefined
  const price = want('price') ? await priceRuns(flags.runs, say) : undefined
  const consensus = want('consensus')
    ? await consensusCost(flags.runs, say)
    : undefined
  // Only when asked: minutes of the model on the CPU.
  const localModel = only?.includes('local-model')
    ? await localModelBench(say)
    : undefined
  const cold = flags.cold ? coldInstalls(work, say) : undefined
  const pushes = want('pushes') ? await pushesRows(say) : []
  const shards = want('shards') ? await shardsRows(say) : []
  // Its own section, printed as it ends (setup-runner.ts): the bundle set
  // up as a hosted runner sets it up, cold and warm.
  if (want('runner')) await setupOnRunner(say)
  return [
    startupRow(bare, bundle),
    ...realRows(real, flags.runs),
    ...(configs ? configRows(configs) : []),
    ...fakeRows(fake),
    ...setupRows(setup?.local, setup?.script ?? []),
    ...(docker ? dockerVsLocalRows(docker) : []),
    ...(vote ? voteCostRows(vote, flags.runs) : []),
    ...(price ? priceRows(price, flags.runs) : []),
    ...(consensus ? consensusCostRows(consensus, flags.runs) : []),
    ...(localModel ? localModelRows(localModel) : []),
    ...coldRows(cold),
    ...pushes,
    ...shards
  ]
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2))
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-bench-'))
  const github = await startGitHubServer({ issues: [42] })
  github.state.pulls['42'] = samplePull()
  const timing = timingWrapper()
  try {
    const measure = measurer(github, work, say)
    printTable(await measureAll(flags, measure, timing.wrapper, work))
  } finally {
    await github.close()
    fs.rmSync(work, { recursive: true, force: true })
    timing.remove()
  }
}

await main()
