// What the bench measures, one function per part of its table.
import { execFileSync, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import type { LlmScript } from '../../test-support/llm-server.ts'
import { startLlmServer } from '../../test-support/llm-server.ts'
import {
  massgenBinary,
  virtualenvFolders
} from '../../test-support/massgen-binary.ts'
import { FAKE_MASSGEN, NODE24, ROOT } from '../../test-support/run-action.ts'
import type { Measure, Measured } from './measure.ts'
import type { Row } from './format.ts'

const QUESTION = 'Which parser change is safest?'
const BENCH_KEY = 'sk-benchOPENAIkey1234567890abcdef'
const SETUP_SCRIPT = path.join(ROOT, 'scripts', 'setup-massgen.sh')

/** Two agents that agree on B; A optionally runs commands first. */
function twoAgents(commands?: string[]): LlmScript {
  return {
    agentIds: ['agent_a', 'agent_b'],
    agents: {
      'model-a': {
        answer: 'Answer A: keep the old parser.',
        ...(commands ? { commands } : {}),
        voteFor: 'agent_b',
        voteReason: 'B measured it.'
      },
      'model-b': {
        answer: 'Answer B: the new parser is 2x faster.',
        voteFor: 'agent_b',
        voteReason: 'Mine has numbers.'
      }
    }
  }
}

/** Wall times (ms) of `times` runs of a command. */
function timesOf(times: number, run: () => void): number[] {
  return Array.from({ length: times }, () => {
    const t = Date.now()
    run()
    return Date.now() - t
  })
}

/** Node start-up: bare, and the bundle failing at once (no inputs). */
export function startup(): { bare: number[]; bundle: number[] } {
  const bundle = timesOf(5, () =>
    spawnSync(NODE24, [path.join(ROOT, 'dist', 'index.js')], {
      env: { PATH: process.env.PATH },
      stdio: 'ignore'
    })
  )
  const bare = timesOf(5, () =>
    execFileSync(NODE24, ['-e', '0'], { stdio: 'ignore' })
  )
  return { bare, bundle }
}

/** Real MassGen, scripted consensus, `runs` times: overhead, report latency. */
export async function realRuns(
  measure: Measure,
  wrapper: string,
  runs: number,
  say: (line: string) => void
): Promise<Measured[]> {
  const massgen = massgenBinary()
  const llm = await startLlmServer(twoAgents())
  const real: Measured[] = []
  for (let i = 0; i < runs; i++) {
    say(`real MassGen run ${i + 1}/${runs}`)
    real.push(
      await measure({
        inputs: {
          query: QUESTION,
          models: 'vllm/model-a vllm/model-b',
          'base-url': llm.url,
          'openai-api-key': BENCH_KEY,
          'massgen-command': `${wrapper} ${massgen}`,
          'max-duration': '120'
        },
        pathExtra: virtualenvFolders(massgen)
      })
    )
  }
  await llm.close()
  return real
}

/** The action's own prepareMassgen ('local'), and setup-massgen.sh warm. */
export async function warmSetup(
  measure: Measure,
  say: (line: string) => void
): Promise<{ local: Measured; script: number[] }> {
  say('real MassGen run without massgen-command (prepareMassgen local)')
  const llm = await startLlmServer({ agentIds: ['agent_a', 'agent_b'] })
  const local = await measure({
    inputs: {
      query: QUESTION,
      models: 'vllm/model-a vllm/model-b',
      'base-url': llm.url,
      'openai-api-key': BENCH_KEY,
      'max-duration': '120'
    }
  })
  await llm.close()
  const script = timesOf(3, () =>
    execFileSync('bash', [SETUP_SCRIPT], { stdio: 'ignore' })
  )
  return { local, script }
}

export interface FakeRuns {
  small: Measured
  scale: Measured
  quiet: Measured
  loud: Measured
  capped: Measured
}

/** Scale and memory with test-support/fake-massgen.mjs. */
export async function fakeRuns(
  measure: Measure,
  wrapper: string,
  say: (line: string) => void
): Promise<FakeRuns> {
  const agents16 = Array.from(
    { length: 16 },
    (_, i) => `vllm/model-${i + 1}`
  ).join(' ')
  const fake = (
    env: Record<string, string>,
    models = 'vllm/model-a vllm/model-b',
    nodeArgs: string[] = []
  ) =>
    measure({
      inputs: {
        query: QUESTION,
        models,
        'base-url': 'http://127.0.0.1:9/v1',
        'massgen-command': `${wrapper} ${NODE24} ${FAKE_MASSGEN}`,
        'max-duration': '300'
      },
      env,
      nodeArgs
    })
  const loudEnv = {
    FAKE_MASSGEN_SCENARIO: 'scale',
    FAKE_MASSGEN_STDOUT_MB: '200'
  }
  say('fake MassGen, small')
  const small = await fake({ FAKE_MASSGEN_SCENARIO: 'success' })
  say('fake MassGen, scale: 16 agents, 1 MiB answers, 100 MiB logs')
  const scale = await fake({ FAKE_MASSGEN_SCENARIO: 'scale' }, agents16)
  say('fake MassGen, small answers and logs, 200 MiB of stdout')
  const quiet = await fake({
    FAKE_MASSGEN_SCENARIO: 'scale',
    FAKE_MASSGEN_ANSWER_BYTES: '200',
    FAKE_MASSGEN_LOG_MB: '0',
    FAKE_MASSGEN_STDOUT_MB: process.env.BENCH_STDOUT_MB ?? '200'
  })
  say('fake MassGen, scale + 200 MiB of stdout')
  const loud = await fake(loudEnv, agents16)
  say('the same with the V8 heap capped: live memory, not garbage')
  const capped = await fake(loudEnv, agents16, [
    '--max-old-space-size=48',
    '--max-semi-space-size=2'
  ])
  return { small, scale, quiet, loud, capped }
}

export type DockerVsLocal =
  | { skipped: string }
  | { docker: Measured[]; local: Measured[]; dockerNoKill: Measured[] }

type Kind = 'docker' | 'local' | 'dockerNoKill'

/**
 * Docker mode vs local mode, side by side: the same scripted consensus (two
 * vllm agents; agent A runs one trivial command, `echo bench`, so the
 * command path is part of both: a `docker exec` in one, the local sandbox in
 * the other), the same MassGen (the [docker] virtualenv, for both modes),
 * runs alternated. The image must be present: pulling is not measured.
 * Docker mode runs where /.dockerenv does not show (the action refuses
 * Docker mode inside a container, and MassGen would run the commands
 * locally). With `withoutKill`, a third kind of run uses a copy of the
 * bundle whose kill of the run's containers at MassGen's `COMPLETED:` line
 * is patched out, so what that kill saves is measured in the same
 * invocation; the action has no knob for it.
 */
export async function dockerVsLocal(
  measure: Measure,
  options: {
    wrapper: string
    runs: number
    work: string
    say: (line: string) => void
    withoutKill: boolean
  }
): Promise<DockerVsLocal> {
  const image =
    process.env.MASSGEN_ACTION_TEST_IMAGE ?? 'massgen-action-runtime:test'
  const unavailable = dockerUnavailable(image)
  if (unavailable) {
    options.say(`Docker vs local skipped: ${unavailable}`)
    return { skipped: unavailable }
  }
  const massgen = massgenBinary('docker')
  const noKill = options.withoutKill
    ? bundleWithoutContainerKill(options.work)
    : undefined
  const order: Kind[] = [
    'docker',
    'local',
    ...(noKill ? ['dockerNoKill' as const] : [])
  ]
  const results: Record<Kind, Measured[]> = {
    docker: [],
    local: [],
    dockerNoKill: []
  }
  for (let i = 0; i < options.runs; i++)
    for (const kind of order) {
      options.say(`Docker vs local: ${kind} run ${i + 1}/${options.runs}`)
      results[kind].push(
        await oneModeRun(measure, kind, {
          image,
          massgen,
          wrapper: options.wrapper,
          noKill
        })
      )
    }
  return results
}

/** One run of the consensus with one command, in Docker or local mode. */
async function oneModeRun(
  measure: Measure,
  kind: Kind,
  with_: { image: string; massgen: string; wrapper: string; noKill?: string }
): Promise<Measured> {
  // A fresh server each run: it remembers which agents ran their commands.
  const llm = await startLlmServer(twoAgents(['echo bench']))
  const inDocker = kind !== 'local'
  const run = await measure({
    inputs: {
      query: QUESTION,
      models: 'vllm/model-a vllm/model-b',
      'base-url': llm.url,
      'openai-api-key': BENCH_KEY,
      'massgen-command': `${with_.wrapper} ${with_.massgen}`,
      'max-duration': '600',
      ...(inDocker
        ? { docker: 'true', 'docker-image': with_.image }
        : { docker: 'false' })
    },
    hideDockerenv: inDocker,
    pathExtra: inDocker ? [] : virtualenvFolders(with_.massgen),
    ...(kind === 'dockerNoKill' ? { actionDir: with_.noKill } : {})
  })
  await llm.close()
  return run
}

/** Why Docker mode cannot be measured here, or undefined when it can. */
function dockerUnavailable(image: string): string | undefined {
  const probe = (args: string[]) =>
    spawnSync('docker', args, { stdio: 'ignore', timeout: 30_000 }).status
  if (probe(['info']) !== 0) return 'no Docker daemon answers `docker info`'
  if (probe(['image', 'inspect', image]) !== 0)
    return `image ${image} is absent (scripts/build-runtime-image.sh builds it)`
  if (fs.existsSync('/.dockerenv') && process.getuid?.() !== 0)
    return 'this machine has /.dockerenv and without-dockerenv.sh needs root'
  return undefined
}

/**
 * A copy of dist/ whose index.js never sees MassGen's result line as the
 * moment to kill the containers; returns the copy's folder.
 */
function bundleWithoutContainerKill(work: string): string {
  const copy = path.join(work, 'dist-without-container-kill')
  fs.cpSync(path.join(ROOT, 'dist'), copy, { recursive: true })
  const index = path.join(copy, 'index.js')
  const code = fs.readFileSync(index, 'utf8')
  const trigger = "line.startsWith('COMPLETED:')"
  if (code.split(trigger).length !== 2)
    throw new Error(`dist/index.js: expected one ${trigger} to patch out`)
  fs.writeFileSync(index, code.replace(trigger, 'false'))
  return copy
}

/** Cold installs in fresh folders with empty caches (minutes; needs PyPI). */
export function coldInstalls(work: string, say: (line: string) => void): Row[] {
  const fresh = (name: string) => fs.mkdtempSync(path.join(work, `${name}-`))
  say('cold uv install (setup-massgen.sh, empty tool cache and uv cache)')
  const toolCache = fresh('toolcache')
  const uvRow = timedRow(
    'setup, cold uv, locked, bytecode (`setup-massgen.sh`)',
    () =>
      execFileSync('bash', [SETUP_SCRIPT], {
        stdio: ['ignore', 'ignore', 'inherit'],
        env: {
          ...process.env,
          RUNNER_TOOL_CACHE: toolCache,
          UV_CACHE_DIR: fresh('uvcache'),
          PIP_NO_CACHE_DIR: '1'
        }
      })
  )
  fs.rmSync(toolCache, { recursive: true, force: true })
  say('cold pip install (venv + pip, no cache, same constraints)')
  const venv = fresh('pipvenv')
  const pipRow = timedRow('setup, cold pip, locked', () =>
    pipInstall(venv, lockConstraints(work))
  )
  fs.rmSync(venv, { recursive: true, force: true })
  return [uvRow, pipRow]
}

/** The action's lock for MassGen 0.1.97 as a pip constraints file, if found. */
function lockConstraints(work: string): string | undefined {
  const lock = fs.readFileSync(
    path.join(ROOT, 'src', 'prepare', 'install', 'lock.ts'),
    'utf8'
  )
  const block =
    /^# BEGIN massgen 0\.1\.97$[\s\S]*?^# END massgen 0\.1\.97$/m.exec(
      lock
    )?.[0]
  if (!block) return undefined
  const constraints = path.join(work, 'constraints.txt')
  fs.writeFileSync(constraints, block)
  return constraints
}

function pipInstall(venv: string, constraints?: string): void {
  execFileSync('python3', ['-m', 'venv', venv], { stdio: 'ignore' })
  execFileSync(
    path.join(venv, 'bin', 'pip'),
    [
      'install',
      '--no-cache-dir',
      '--quiet',
      ...(constraints ? ['--constraint', constraints] : []),
      'massgen==0.1.97'
    ],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: {
        ...process.env,
        PIP_DISABLE_PIP_VERSION_CHECK: '1',
        PIP_NO_INPUT: '1'
      }
    }
  )
}

/** A table row with how long `fn` took, or why it failed. */
function timedRow(what: string, fn: () => void): Row {
  const t = Date.now()
  try {
    fn()
    return [
      what,
      `${((Date.now() - t) / 1000).toFixed(1)} s`,
      'measured now',
      ''
    ]
  } catch (error) {
    return [
      what,
      'failed',
      String((error as Error).message).split('\n')[0] ?? '',
      ''
    ]
  }
}
