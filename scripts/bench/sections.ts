// What the bench measures, one function per part of its table.
import { execFileSync, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import type { LlmScript } from '../../test-support/llm-server.ts'
import { startLlmServer } from '../../test-support/llm-server.ts'
import {
  massgenBinary,
  virtualenvFolders
} from '../../test-support/massgen-binary.ts'
import { FAKE_MASSGEN, NODE24, ROOT } from '../../test-support/run-action.ts'
import { lockText } from '../../src/prepare/install/lock.ts'
import { prunedFor } from '../../src/prepare/install/prune.ts'
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

export type ConfigKind = 'default' | 'previous' | 'floor'

/** A time-to-consensus run: the MCP tools the agents were offered, the load. */
export interface ConfigRun extends Measured {
  mcpTools: string[]
  load: number
}

export interface InstallSize {
  venv: string
  bytes: number
  /** What the install's prune step removes (src/prepare/install/prune.ts). */
  prunable: number
  names: number
}

export type ConfigComparison = Record<ConfigKind, ConfigRun[]> & {
  size: InstallSize
}

/**
 * The same scripted two-agent consensus (LLM time ~0) with the action's
 * default config, the previous default and MassGen's floor (the wrapper's
 * BENCH_CONFIG_VARIANT), runs interleaved, `runs` of each: MassGen's own
 * wall time (the wrapper) is the time to consensus. Plus the size of the
 * virtualenv, and of what the install removes from it.
 */
export async function configComparison(
  measure: Measure,
  wrapper: string,
  runs: number,
  say: (line: string) => void
): Promise<ConfigComparison> {
  const massgen = massgenBinary()
  const kinds: ConfigKind[] = ['default', 'previous', 'floor']
  const results: Record<ConfigKind, ConfigRun[]> = {
    default: [],
    previous: [],
    floor: []
  }
  for (let i = 0; i < runs; i++)
    for (const kind of kinds) {
      say(`time to consensus: ${kind} config, run ${i + 1}/${runs}`)
      const llm = await startLlmServer(twoAgents())
      const run = await measure({
        inputs: {
          query: QUESTION,
          models: 'vllm/model-a vllm/model-b',
          'base-url': llm.url,
          'openai-api-key': BENCH_KEY,
          'massgen-command': `${wrapper} ${massgen}`,
          'max-duration': '600'
        },
        env: kind === 'default' ? {} : { BENCH_CONFIG_VARIANT: kind },
        pathExtra: virtualenvFolders(massgen)
      })
      const offered = new Set(llm.requests.flatMap((r) => r.toolNames))
      const mcpTools = [...offered].filter((n) => n.startsWith('mcp__'))
      results[kind].push({ ...run, mcpTools, load: os.loadavg()[0] ?? 0 })
      await llm.close()
    }
  return { ...results, size: installSize(massgen) }
}

/** Bytes of a file or folder tree, by du. */
function diskBytes(file: string): number {
  const out = execFileSync('du', ['-sk', file], { encoding: 'utf8' })
  return Number(out.trim().split('\t')[0]) * 1024
}

/**
 * Each distribution's files (its RECORD) and their bytecode; prints the
 * total bytes of the distributions named in argv.
 */
const DISTRIBUTION_BYTES_PY = `import sys, os, importlib.metadata as md
total = 0
for name in sys.argv[1:]:
    try: dist = md.distribution(name)
    except md.PackageNotFoundError: continue
    for f in dist.files or []:
        p = str(f.locate())
        if p.endswith('.py'):
            d, b = os.path.split(p)
            cache = os.path.join(d, '__pycache__')
            if os.path.isdir(cache):
                for c in os.listdir(cache):
                    if c.startswith(b[:-3] + '.'):
                        try: total += os.path.getsize(os.path.join(cache, c))
                        except OSError: pass
        try: total += os.path.getsize(p)
        except OSError: pass
print(total)`

/**
 * du of the virtualenv, and the bytes of the distributions a fresh install
 * removes (0 when the virtualenv in use was already pruned).
 */
function installSize(massgen: string): InstallSize {
  const venv = path.dirname(path.dirname(massgen))
  const names = prunedFor('0.1.97', true)
  const prunable = Number(
    execFileSync(
      path.join(venv, 'bin', 'python'),
      ['-c', DISTRIBUTION_BYTES_PY, ...names],
      { encoding: 'utf8' }
    ).trim()
  )
  return { venv, bytes: diskBytes(venv), prunable, names: names.length }
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
  | ({
      commandsOffered: Partial<Record<Kind, boolean[]>>
      /** scripts/without-dockerenv.sh's own start, ms (dockerenvHiding). */
      hidingMs: number[]
    } & Record<Kind, Measured[]>)

/**
 * `docker` and `local`: the action's defaults for a read-only review (Docker
 * mode: the read server in a container, contained-read-server.ts; local
 * mode: the read server in the sandbox). `dockerHostRead`: the candidate
 * not taken, Docker mode with the read server on the runner (the config
 * rewritten by the wrapper, BENCH_CONFIG_VARIANT=host-read).
 * `dockerCommands`: `agent-commands: true`, MassGen's command server in
 * Docker mode (the default before), the agents running no command.
 * `dockerNoKill`: one command run, with a bundle that does not kill the
 * containers at the result line (--docker-stop).
 */
export type Kind =
  'docker' | 'local' | 'dockerHostRead' | 'dockerCommands' | 'dockerNoKill'

/**
 * Docker mode vs local mode for a review that runs no command, side by
 * side: the same scripted consensus (two vllm agents, no command), the same
 * MassGen (the [docker] virtualenv, for both modes), runs alternated. The
 * image must be present: pulling is not measured. Docker mode runs where
 * /.dockerenv does not show (the action refuses Docker mode inside a
 * container, and MassGen would run the commands locally). With
 * `withoutKill`, a run with one command uses a copy of the bundle whose kill
 * of the run's containers at MassGen's `COMPLETED:` line is patched out, so
 * what that kill saves is measured in the same invocation; the action has no
 * knob for it.
 */
export async function dockerVsLocal(
  measure: Measure,
  options: {
    wrapper: string
    runs: number
    work: string
    say: (line: string) => void
    withoutKill: boolean
    /** Only these kinds (a development aid); all by default. */
    kinds?: string[]
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
  const order = (
    [
      'docker',
      'local',
      'dockerHostRead',
      'dockerCommands',
      ...(noKill ? ['dockerNoKill' as const] : [])
    ] as Kind[]
  ).filter((kind) => !options.kinds || options.kinds.includes(kind))
  const results: Record<Kind, Measured[]> = {
    docker: [],
    local: [],
    dockerHostRead: [],
    dockerCommands: [],
    dockerNoKill: []
  }
  const commandsOffered: Partial<Record<Kind, boolean[]>> = {}
  for (let i = 0; i < options.runs; i++)
    for (const kind of order) {
      options.say(`Docker vs local: ${kind} run ${i + 1}/${options.runs}`)
      const { run, offered } = await oneModeRun(measure, kind, {
        image,
        massgen,
        wrapper: options.wrapper,
        noKill
      })
      results[kind].push(run)
      ;(commandsOffered[kind] ??= []).push(offered)
    }
  return { ...results, commandsOffered, hidingMs: dockerenvHiding(5) }
}

/**
 * What the bench's own scripts/without-dockerenv.sh adds to each Docker-mode
 * action wall (this machine is a container; a runner is not): the start of
 * `true` under it, N times.
 */
function dockerenvHiding(times: number): number[] {
  const script = path.join(ROOT, 'scripts', 'without-dockerenv.sh')
  return Array.from({ length: times }, () => {
    const started = performance.now()
    spawnSync(script, ['true'], { stdio: 'ignore' })
    return performance.now() - started
  })
}

/** One run of the consensus in Docker or local mode; whether the command tool was offered. */
async function oneModeRun(
  measure: Measure,
  kind: Kind,
  with_: { image: string; massgen: string; wrapper: string; noKill?: string }
): Promise<{ run: Measured; offered: boolean }> {
  // A fresh server each run: it remembers which agents ran their commands.
  const llm = await startLlmServer(
    twoAgents(kind === 'dockerNoKill' ? ['echo bench'] : undefined)
  )
  const inDocker = kind !== 'local'
  const commands = kind === 'dockerCommands' || kind === 'dockerNoKill'
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
        : { docker: 'false' }),
      ...(commands ? { 'agent-commands': 'true' } : {})
    },
    ...(kind === 'dockerHostRead'
      ? { env: { BENCH_CONFIG_VARIANT: 'host-read' } }
      : {}),
    hideDockerenv: inDocker,
    pathExtra: inDocker ? [] : virtualenvFolders(with_.massgen),
    ...(kind === 'dockerNoKill' ? { actionDir: with_.noKill } : {})
  })
  const offered = llm.requests.some((r) =>
    r.toolNames.some((t) => t.includes('execute_command'))
  )
  await llm.close()
  return { run, offered }
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

/** The action's lock for MassGen 0.1.97 (Python 3.11) as a pip constraints file. */
function lockConstraints(work: string): string | undefined {
  const lock = lockText('0.1.97', '3.11')
  if (!lock) return undefined
  const constraints = path.join(work, 'constraints.txt')
  fs.writeFileSync(constraints, lock)
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
