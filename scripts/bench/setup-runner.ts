// Bench section "setup on a runner": the bundled action, in Docker mode, set
// up the way a hosted runner sets it up, each phase timed by the action
// itself (its `Setup:` line, prepare/setup.ts) and the critical path printed
// against its longest phase (the limit of a parallel setup).
//
//   cold   an empty tool cache, an empty Actions cache (the stand-in,
//          test-support/cache-server.ts, so @actions/cache really tars,
//          uploads, downloads and extracts), and the image pulled from a
//          loopback registry (distribution's `registry`, built with Go from
//          the module proxy); MassGen installed from PyPI with an empty uv
//          cache. Its post step saves the install (ref refs/heads/main).
//   warm   a pull request's run (refs/pull/1/merge): an empty tool cache
//          (the same path: the cache's version hashes it), the entries the
//          cold run saved, the image absent, then present; then, image
//          present, a run with a user `config`, which may reach the extras
//          (src/prepare/install/split.ts), so restores core and extras at once.
//
// With BENCH_BASELINE_DIST=<a dist/ folder> (say, main's bundle before a
// change) the baseline installs cold too (its own entry; uv's cache warm, so
// its cold figure is not comparable), then the warm runs with the image
// present alternate, this bundle then the baseline, BENCH_PAIRS times
// (default 2), and the ratios are printed pair by pair: the load of a shared
// machine drifts, a pair's two runs see about the same.
//
// The image the registry serves is a copy of the runtime image with one
// extra file, so its single layer is new to the daemon and a pull really
// downloads and extracts it (the runtime image itself stays, for everyone).
// Run: node scripts/bench/setup-runner.ts (root; needs PyPI, Go, Docker).
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { startCacheServer } from '../../test-support/cache-server.ts'
import { startLlmServer } from '../../test-support/llm-server.ts'
import { runAction } from '../../test-support/run-action.ts'

const REGISTRY_MODULE = 'github.com/distribution/distribution/v3/cmd/registry'
const REGISTRY_VERSION = 'v3.1.2'
const SOURCE_IMAGE =
  process.env.MASSGEN_ACTION_TEST_IMAGE ?? 'massgen-action-runtime:test'
const BENCH_KEY = 'sk-benchOPENAIkey1234567890abcdef'

export interface SetupRun {
  name: string
  phases: { name: string; seconds: number }[]
  criticalPath: number
  /** The step's start to MassGen's start (its output group opens). */
  toMassgenStart?: number
  saveSeconds?: number
  status?: string
  postLine?: string
  /** The step's error lines, when it failed. */
  errors?: string
  /** The restore's own line (`MassGen: restored from cache ...`). */
  restored?: string
  /** Each entry's restore inside the run, from when its lines arrived. */
  restoreSteps?: RestoreSteps[]
}

/**
 * One entry's restore as @actions/cache logs it: `Cache Size: ...` once the
 * download is on disk, `[command]...tar -xf` as the extraction starts,
 * `Cache restored successfully` when it ends; seconds since the step's start.
 */
interface RestoreSteps {
  downloaded: number
  extractionStart: number
  restored: number
}

/** The restores of one run's stamped output lines (entries in their order). */
function restoreStepsOf(lines: { at: number; text: string }[]): RestoreSteps[] {
  const at = (pattern: RegExp) =>
    lines.filter((l) => pattern.test(l.text)).map((l) => l.at)
  const downloaded = at(/^Cache Size: /)
  const starts = at(/^\[command\]\S*tar -xf /)
  const restored = at(/^Cache restored successfully/)
  return downloaded.flatMap((d, i) =>
    starts[i] !== undefined && restored[i] !== undefined
      ? [{ downloaded: d, extractionStart: starts[i], restored: restored[i] }]
      : []
  )
}

/** distribution's registry, built once into the tool folder the linters use. */
function registryBinary(say: (line: string) => void): string {
  const dir = path.join(
    os.homedir(),
    '.cache',
    'massgen-action-tools',
    `registry-${REGISTRY_VERSION}`
  )
  const binary = path.join(dir, 'registry')
  if (fs.existsSync(binary)) return binary
  say(`building ${REGISTRY_MODULE}@${REGISTRY_VERSION} with Go`)
  execFileSync('go', ['install', `${REGISTRY_MODULE}@${REGISTRY_VERSION}`], {
    env: { ...process.env, GOBIN: dir },
    stdio: 'inherit'
  })
  return binary
}

async function startRegistry(
  binary: string,
  work: string
): Promise<{ host: string; stop: () => void }> {
  const port = 15000 + Math.floor(Math.random() * 2000)
  const config = path.join(work, 'registry.yml')
  fs.writeFileSync(
    config,
    [
      'version: 0.1',
      'log: { level: error }',
      `storage: { filesystem: { rootdirectory: ${path.join(work, 'registry')} } }`,
      `http: { addr: 127.0.0.1:${port} }`,
      ''
    ].join('\n')
  )
  const child = spawn(binary, ['serve', config], { stdio: 'ignore' })
  const host = `127.0.0.1:${port}`
  for (let i = 0; i < 100; i++) {
    const up = await fetch(`http://${host}/v2/`).then(
      (r) => r.ok,
      () => false
    )
    if (up) return { host, stop: () => child.kill('SIGTERM') }
    await new Promise((r) => setTimeout(r, 100))
  }
  child.kill('SIGKILL')
  throw new Error('the registry did not answer')
}

const docker = (args: string[], input?: Buffer) =>
  execFileSync('docker', args, {
    input,
    stdio: ['pipe', 'pipe', 'inherit'],
    maxBuffer: 1 << 30
  })
    .toString()
    .trim()

/** A copy of the runtime image with a layer of its own, pushed; absent locally. */
function pushFreshCopy(host: string): string {
  const config = JSON.parse(
    docker(['image', 'inspect', '--format', '{{json .Config}}', SOURCE_IMAGE])
  ) as {
    User?: string
    Env?: string[]
    Cmd?: string[]
    WorkingDir?: string
  }
  const container = docker(['create', SOURCE_IMAGE])
  const marker = path.join(os.tmpdir(), `bench-layer-${process.pid}`)
  fs.writeFileSync(marker, `${Date.now()}\n`)
  docker(['cp', marker, `${container}:/.bench-layer`])
  fs.rmSync(marker)
  const image = `${host}/massgen-action-runtime:bench-${process.pid}`
  const changes = [
    ...(config.User ? [`USER ${config.User}`] : []),
    ...(config.Env ?? []).map((e) => `ENV ${e.replace('=', ' ')}`),
    ...(config.WorkingDir ? [`WORKDIR ${config.WorkingDir}`] : []),
    ...(config.Cmd ? [`CMD ${JSON.stringify(config.Cmd)}`] : [])
  ].flatMap((c) => ['--change', c])
  const exported = spawnSync('docker', ['export', container], {
    maxBuffer: 4 << 30
  }).stdout
  docker(['import', ...changes, '-', image], exported)
  docker(['rm', container])
  docker(['push', '--quiet', image])
  return image
}

function removeImage(image: string): void {
  spawnSync('docker', ['image', 'rm', '--force', image], { stdio: 'ignore' })
}

/** The phases from the action's `Setup:` line. */
function parseSetup(stdout: string): Pick<SetupRun, 'phases' | 'criticalPath'> {
  const line = /^Setup: (.*)$/m.exec(stdout)?.[1] ?? ''
  const [list = '', rest = ''] = line.split('; critical path ')
  const phases = list.split(', ').flatMap((part) => {
    const m = /^(.*) ([\d.]+) s$/.exec(part)
    return m ? [{ name: m[1]!, seconds: Number(m[2]) }] : []
  })
  return { phases, criticalPath: Number(/^([\d.]+) s/.exec(rest)?.[1] ?? NaN) }
}

async function oneRun(
  name: string,
  with_: {
    image: string
    toolCache: string
    cacheUrl: string
    ref: string
    /** uv's own cache, empty for a cold run. */
    uvCache: string
    /** The bundle to run (default this checkout's dist/). */
    actionDir?: string
    /** Extra inputs (a user `config`). */
    inputs?: Record<string, string>
  }
): Promise<SetupRun> {
  const llm = await startLlmServer({
    agentIds: ['agent_a', 'agent_b'],
    agents: {
      'model-a': { answer: 'A.', voteFor: 'agent_b', voteReason: 'B.' },
      'model-b': { answer: 'B.', voteFor: 'agent_b', voteReason: 'B.' }
    }
  })
  const started = Date.now()
  let toMassgenStart: number | undefined
  const stamped: { at: number; text: string }[] = []
  let partial = ''
  const run = await runAction({
    inputs: {
      query: 'Which parser change is safest?',
      models: 'vllm/model-a vllm/model-b',
      'base-url': llm.url,
      'openai-api-key': BENCH_KEY,
      docker: 'true',
      'docker-image': with_.image,
      'max-duration': '600',
      'upload-logs': 'false',
      ...with_.inputs
    },
    ...(with_.actionDir ? { actionDir: with_.actionDir } : {}),
    env: {
      RUNNER_TOOL_CACHE: with_.toolCache,
      ACTIONS_CACHE_URL: `${with_.cacheUrl}/`,
      ACTIONS_RUNTIME_TOKEN: 'bench-runtime-token',
      GITHUB_REF: with_.ref,
      UV_CACHE_DIR: with_.uvCache,
      // PyPI for a cold install: the runner imitation's proxies point nowhere.
      HTTP_PROXY: undefined,
      HTTPS_PROXY: undefined,
      http_proxy: undefined,
      https_proxy: undefined,
      // This machine reaches PyPI through a TLS proxy with its own CA.
      ...Object.fromEntries(
        ['SSL_CERT_FILE', 'SSL_CERT_DIR', 'PIP_CERT']
          .filter((name) => process.env[name])
          .map((name) => [name, process.env[name]])
      )
    },
    hideDockerenv: true,
    onOutput: (stream, chunk) => {
      if (stream === 'stdout') {
        const at = (Date.now() - started) / 1000
        const lines = (partial + chunk.toString()).split('\n')
        partial = lines.pop() ?? ''
        for (const text of lines) stamped.push({ at, text })
      }
      if (
        toMassgenStart === undefined &&
        chunk.toString().includes('::group::MassGen output')
      )
        toMassgenStart = (Date.now() - started) / 1000
    }
  })
  await llm.close()
  const postOut = run.post?.stdout ?? ''
  const save =
    /saved the install to the Actions cache as .+? \(([\d.]+) s/.exec(postOut)
  return {
    name,
    ...parseSetup(run.stdout),
    ...(toMassgenStart !== undefined ? { toMassgenStart } : {}),
    ...(save ? { saveSeconds: Number(save[1]) } : {}),
    status: run.outputs.status,
    ...(run.outputs.status === 'success'
      ? {}
      : {
          errors: run.stdout
            .split('\n')
            .filter((l) => l.startsWith('::error') || l.startsWith('::warning'))
            .join('\n')
            .slice(0, 2000)
        }),
    postLine: /^.*MassGen: (?:saved|not saved|cache save failed).*$/m.exec(
      postOut
    )?.[0],
    restored: /MassGen: restored from cache .*$/m.exec(run.stdout)?.[0],
    restoreSteps: restoreStepsOf(stamped)
  }
}

export async function setupOnRunner(
  say: (line: string) => void
): Promise<SetupRun[]> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-setup-runner-'))
  const registry = await startRegistry(registryBinary(say), work)
  const cache = await startCacheServer({ dir: path.join(work, 'cache') })
  const runs: SetupRun[] = []
  let image: string | undefined
  try {
    say('pushing a copy of the runtime image to the loopback registry')
    image = pushFreshCopy(registry.host)
    const fresh = (label: string) => {
      const dir = path.join(work, label)
      fs.mkdirSync(dir)
      return dir
    }
    // One path for every run, emptied before each, as a runner's
    // /opt/hostedtoolcache: @actions/cache's version hashes the paths, so
    // an entry saved from one folder is never restored into another.
    const toolCache = path.join(work, 'tool-cache')
    // A hosted runner starts each job with no MassGen in its tool cache,
    // and nothing deleting files beside it. So the previous run's 1.4 GB
    // tool cache is moved aside (a rename), not deleted: deleting 58,000
    // files here slows the disk for tens of seconds after `rm` returns
    // (even after `sync`: this disk is mounted with `discard`), and a
    // restore timed right after it measured 8-9 s more than one after a
    // rename. The trees moved aside go with `work` at the end, after the
    // figures are printed.
    let runsSoFar = 0
    const emptyToolCache = () => {
      if (fs.existsSync(toolCache))
        fs.renameSync(
          toolCache,
          path.join(work, `old-tool-cache-${runsSoFar++}`)
        )
      fs.mkdirSync(toolCache)
      execFileSync('sync')
      return toolCache
    }
    removeImage(image)
    say('cold run (PyPI install, image pull, empty cache)')
    runs.push(
      await oneRun('cold', {
        image,
        toolCache: emptyToolCache(),
        cacheUrl: cache.url,
        ref: 'refs/heads/main',
        uvCache: fresh(`uv-cache-${runs.length}`)
      })
    )
    removeImage(image)
    say('warm run, image absent (cache restore, image pull)')
    runs.push(
      await oneRun('warm, image absent', {
        image,
        toolCache: emptyToolCache(),
        cacheUrl: cache.url,
        ref: 'refs/pull/1/merge',
        uvCache: fresh(`uv-cache-${runs.length}`)
      })
    )
    const baseline = process.env.BENCH_BASELINE_DIST
    if (baseline) {
      say(`baseline cold run (${baseline}; uv's cache warm)`)
      runs.push(
        await oneRun('baseline: cold (uv cache warm)', {
          image,
          toolCache: emptyToolCache(),
          cacheUrl: cache.url,
          ref: 'refs/heads/main',
          uvCache: path.join(work, 'uv-cache-0'),
          actionDir: baseline
        })
      )
    }
    const pairs = baseline ? Number(process.env.BENCH_PAIRS ?? 2) : 1
    for (let i = 0; i < pairs; i++) {
      say('warm run, image present (cache restore)')
      runs.push(
        await oneRun('warm, image present', {
          image,
          toolCache: emptyToolCache(),
          cacheUrl: cache.url,
          ref: 'refs/pull/1/merge',
          uvCache: fresh(`uv-cache-${runs.length}`)
        })
      )
      if (!baseline) break
      say('baseline warm run, image present')
      runs.push(
        await oneRun('baseline: warm, image present', {
          image,
          toolCache: emptyToolCache(),
          cacheUrl: cache.url,
          ref: 'refs/pull/1/merge',
          uvCache: fresh(`uv-cache-${runs.length}`),
          actionDir: baseline
        })
      )
    }
    say('warm run, image present, a user config (core and extras at once)')
    runs.push(
      await oneRun('warm, image present, user config', {
        image,
        toolCache: emptyToolCache(),
        cacheUrl: cache.url,
        ref: 'refs/pull/1/merge',
        uvCache: fresh(`uv-cache-${runs.length}`),
        inputs: { config: 'orchestrator:\n  voting_sensitivity: strict' }
      })
    )
    const parts = await restoreParts(cache, work)
    // Before the clean-up, which takes minutes on a loaded disk.
    printSetupRuns(runs)
    printRestoreParts(parts)
    say(
      `cache entries: ${cache.entries
        .filter((e) => e.committed)
        .map((e) => `${e.key} ${(e.size / 1e6).toFixed(0)} MB`)
        .join(', ')}`
    )
  } finally {
    if (image) removeImage(image)
    registry.stop()
    await cache.close()
    fs.rmSync(work, { recursive: true, force: true })
  }
  return runs
}

interface RestorePart {
  key: string
  megabytes: number
  downloadSeconds: number
  extractSeconds: number
}

/**
 * Each saved entry's restore in its two parts, timed here rather than read
 * from outside: the download from the cache stand-in to a file (as
 * @actions/cache downloads it) and the extraction of that file into an
 * empty folder, with the command @actions/cache runs. The sum against a warm
 * run's MassGen phase says how much of that phase the restore itself is.
 */
async function restoreParts(
  cache: {
    url: string
    entries: { id: number; key: string; committed: boolean }[]
  },
  work: string
): Promise<RestorePart[]> {
  const parts: RestorePart[] = []
  for (const entry of cache.entries.filter((e) => e.committed)) {
    const archive = path.join(work, `part-${entry.id}.tzst`)
    const into = path.join(work, `part-${entry.id}`)
    fs.mkdirSync(into)
    execFileSync('sync')
    let started = performance.now()
    const response = await fetch(`${cache.url}/_blob/${entry.id}`)
    fs.writeFileSync(archive, Buffer.from(await response.arrayBuffer()))
    const downloadSeconds = (performance.now() - started) / 1000
    // Members are named relative to the workspace (`../../<tool cache>`):
    // extracted that many folders down, they land inside `into`.
    const first = execFileSync('sh', [
      '-c',
      'tar -tf "$1" --use-compress-program unzstd | head -n 1',
      'sh',
      archive
    ]).toString()
    const depth = /^((?:\.\.\/)*)/.exec(first)![1]!.length / 3
    const deep = path.join(
      into,
      ...Array.from({ length: depth }, (_, i) => `d${i}`)
    )
    fs.mkdirSync(deep, { recursive: true })
    started = performance.now()
    execFileSync('tar', [
      '-xf',
      archive,
      '-P',
      '-C',
      deep,
      '--use-compress-program',
      'unzstd'
    ])
    const extractSeconds = (performance.now() - started) / 1000
    parts.push({
      key: entry.key,
      megabytes: fs.statSync(archive).size / 1e6,
      downloadSeconds,
      extractSeconds
    })
    fs.rmSync(archive)
    fs.rmSync(into, { recursive: true, force: true })
  }
  return parts
}

function printRestoreParts(parts: RestorePart[]): void {
  if (parts.length === 0) return
  console.log('\n| cache entry | size | download to a file | extraction |')
  console.log('| --- | --- | --- | --- |')
  for (const p of parts)
    console.log(
      `| ${p.key} | ${p.megabytes.toFixed(0)} MB | ${p.downloadSeconds.toFixed(1)} s | ${p.extractSeconds.toFixed(1)} s |`
    )
}

export function printSetupRuns(runs: SetupRun[]): void {
  console.log('\n## setup on a runner (Docker mode)\n')
  console.log(
    '| run | phases (s) | critical path | longest phase | ratio | step start -> MassGen start | post-step save | status |'
  )
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |')
  for (const r of runs) {
    const longest = [...r.phases].sort((a, b) => b.seconds - a.seconds)[0]
    const ratio = longest ? r.criticalPath / longest.seconds : NaN
    console.log(
      `| ${r.name} | ${r.phases.map((p) => `${p.name} ${p.seconds.toFixed(1)}`).join(', ')} | ` +
        `${r.criticalPath.toFixed(1)} s | ${longest?.name ?? 'n/a'} ${longest?.seconds.toFixed(1) ?? ''} s | ` +
        `x${ratio.toFixed(2)} | ${r.toMassgenStart?.toFixed(1) ?? 'n/a'} s | ` +
        `${r.saveSeconds !== undefined ? `${r.saveSeconds.toFixed(1)} s` : (r.postLine ?? 'none')} | ${r.status ?? 'n/a'} |`
    )
  }
  printPairs(runs)
  for (const r of runs.filter((r) => r.restored))
    console.log(`${r.name}: ${r.restored}`)
  for (const r of runs.filter((r) => r.restoreSteps?.length))
    console.log(
      `${r.name}, each entry (s from the step's start): ` +
        r
          .restoreSteps!.map(
            (e) =>
              `downloaded at ${e.downloaded.toFixed(1)}, extraction ${e.extractionStart.toFixed(1)} -> ${e.restored.toFixed(1)} (${(e.restored - e.extractionStart).toFixed(1)} s)`
          )
          .join('; ')
    )
  for (const r of runs.filter((r) => r.errors))
    console.log(`\n${r.name} failed:\n${r.errors}`)
  console.log(
    '\nGoals: cold critical path <= x1.15 its longest phase; warm step start -> MassGen start <= 15 s.'
  )
}

/** Each warm run against the baseline's run right after it, and the median. */
function printPairs(runs: SetupRun[]): void {
  const ratios: { start: number; massgen: number }[] = []
  runs.forEach((run, i) => {
    const base = runs[i + 1]
    if (
      run.name !== 'warm, image present' ||
      base?.name !== 'baseline: warm, image present'
    )
      return
    const massgen = (r: SetupRun) =>
      r.phases.find((p) => p.name === 'MassGen')?.seconds ?? NaN
    ratios.push({
      start: (run.toMassgenStart ?? NaN) / (base.toMassgenStart ?? NaN),
      massgen: massgen(run) / massgen(base)
    })
  })
  if (ratios.length === 0) return
  const median = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b)
    const mid = Math.floor(sorted.length / 2)
    return sorted.length % 2
      ? sorted[mid]!
      : (sorted[mid - 1]! + sorted[mid]!) / 2
  }
  console.log(
    '\n| warm, image present: this bundle / the baseline | each pair | median |'
  )
  console.log('| --- | --- | --- |')
  for (const [label, pick] of [
    ['step start -> MassGen start', (r: (typeof ratios)[0]) => r.start],
    ['MassGen phase (the restore)', (r: (typeof ratios)[0]) => r.massgen]
  ] as const)
    console.log(
      `| ${label} | ${ratios.map((r) => `x${pick(r).toFixed(2)}`).join(', ')} | x${median(ratios.map(pick)).toFixed(2)} |`
    )
}

if (import.meta.filename === path.resolve(process.argv[1] ?? '')) {
  await setupOnRunner((line) => console.error(`[bench] ${line}`))
}
