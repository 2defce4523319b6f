// One measured run of the bundled action: the runner imitation of the tests
// (test-support/run-action.ts) plus what the bench reads around it, the
// times the GitHub server saw requests, MassGen's own start and end (from a
// wrapper script), the action's peak memory (scripts/bench-rss.mjs) and when
// MassGen's result line reached the job log.
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import type { GitHubServer } from '../../test-support/github-server.ts'
import { ROOT, runAction } from '../../test-support/run-action.ts'

/** What one run measured; undefined where the run did not get that far. */
export interface Measured {
  exitCode: number | null
  status?: string
  wallMs: number
  massgenMs?: number
  /** spawn -> MassGen starts (the wrapper's start). */
  beforeMs?: number
  /** spawn -> first GitHub request: Node, the bundle, inputs, event. */
  firstRequestMs?: number
  /** first request -> last one before MassGen starts. */
  githubBeforeMs?: number
  requestsBefore: number
  afterMs?: number
  /** MassGen's result line printed -> MassGen exited (its cleanup). */
  completedToExitMs?: number
  /** MassGen exited -> last comment write on the server. */
  reportMs?: number
  commentChars?: number
  summaryBytes: number
  maxRssMiB?: number
  heapMiB?: number
  heapUsedMiB?: number
  externalMiB?: number
  stdoutBytes: number
  commentWrites: number
  requests: number
  prepare?: string
  tail: string
}

export interface MeasureOptions {
  inputs: Record<string, string>
  env?: Record<string, string>
  nodeArgs?: string[]
  /** Run where /.dockerenv does not show (Docker mode on this machine). */
  hideDockerenv?: boolean
  /** Another copy of dist/ (a patched one, for a comparison). */
  actionDir?: string
  /** Folders added to PATH: local mode's sandbox binds those back. */
  pathExtra?: string[]
}

interface Arrival {
  at: number
  method: string
  path: string
  body: unknown
}

export type Measure = (options: MeasureOptions) => Promise<Measured>

/** Where the wrapper leaves MassGen's start and end, in MassGen's cwd. */
const TIMES_FILE = '.bench-massgen-times'

/**
 * Rewrites the config MassGen was given (the `--config` argument) into
 * another one, by BENCH_CONFIG_VARIANT; run with the virtualenv's Python,
 * which has PyYAML. `previous` is the action's default before
 * docs/massgen-time.md (MassGen's own file servers through npx and its
 * Python command server in local mode), `floor` is MassGen without any tool
 * (no `cwd`: no MCP server).
 */
const CONFIG_VARIANTS_PY = `import sys, yaml
variant, args = sys.argv[1], sys.argv[2:]
path = args[args.index('--config') + 1]
config = yaml.safe_load(open(path))
if variant == 'host-read':
    # Docker mode's read server on the runner instead of in its container:
    # the runner's side of the read container's mounts names Node and server.
    import subprocess
    for agent in config['agents']:
        for server in agent['backend'].get('mcp_servers', []):
            if not server['command'].endswith('/docker'):
                continue
            run = server['args']
            name, node, script = run[2], run[3], run[4]
            mounts = subprocess.run(
                [server['command'], 'inspect', '--format',
                 '{{range .Mounts}}{{.Destination}}={{.Source}} {{end}}', name],
                check=True, capture_output=True, text=True).stdout.split()
            host = dict(m.split('=', 1) for m in mounts)
            server_dir, file = script.rsplit('/', 1)
            server['command'] = host[node]
            server['args'] = [host[server_dir] + '/' + file] + run[5:]
            server.pop('security', None)
            server.pop('env', None)
    with open(path, 'w') as f:
        yaml.safe_dump(config, f)
    sys.exit(0)
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

/**
 * A wrapper that runs MassGen (its arguments) and writes its start and end
 * (ms) to $PWD/.bench-massgen-times; with BENCH_CONFIG_VARIANT set it first
 * rewrites MassGen's config (bench-config.py beside it, CONFIG_VARIANTS_PY).
 * Local mode's sandbox runs MassGen as nobody when the bench is root; it
 * sees the wrapper's folder read-only only when that folder is open to all,
 * and can write only MassGen's cwd.
 */
export function timingWrapper(): { wrapper: string; remove: () => void } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-bench-bin-'))
  fs.chmodSync(home, 0o755)
  fs.mkdirSync(path.join(home, 'bin'), { mode: 0o755 })
  const wrapper = path.join(home, 'bin', 'timed-massgen.sh')
  const script = [
    '#!/bin/sh',
    `# start/end (ms) of the wrapped command, to $PWD/${TIMES_FILE}`,
    '# BENCH_CONFIG_VARIANT rewrites the config first (bench-config.py),',
    '# outside the timed span.',
    'if [ -n "$BENCH_CONFIG_VARIANT" ]; then',
    '  "$(dirname "$1")/python" "$(dirname "$0")/bench-config.py" "$BENCH_CONFIG_VARIANT" "$@" || exit 99',
    'fi',
    'start=$(date +%s%3N)',
    'PATH="$(dirname "$1"):$PATH" "$@"',
    'rc=$?',
    `echo "$start $(date +%s%3N)" > "$PWD/${TIMES_FILE}"`,
    'exit $rc',
    ''
  ]
  fs.writeFileSync(wrapper, script.join('\n'), { mode: 0o755 })
  fs.writeFileSync(
    path.join(home, 'bin', 'bench-config.py'),
    CONFIG_VARIANTS_PY,
    {
      mode: 0o644
    }
  )
  return {
    wrapper,
    remove: () => fs.rmSync(home, { recursive: true, force: true })
  }
}

/** Records the time each request reached the GitHub server. */
function recordArrivals(github: GitHubServer): Arrival[] {
  const arrivals: Arrival[] = []
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
  return arrivals
}

/** Watches the action's stdout as it streams; keeps only a short tail. */
function outputWatch() {
  const seen = {
    stdoutBytes: 0,
    completedAt: undefined as number | undefined,
    prepare: undefined as string | undefined,
    tail: [] as string[]
  }
  // Of a line split between chunks only its start is kept: enough to know
  // whether it is the result line.
  let lineStart = ''
  const onOutput = (stream: 'stdout' | 'stderr', chunk: Buffer) => {
    seen.tail.push(chunk.toString())
    if (seen.tail.length > 40) seen.tail.shift()
    if (stream === 'stderr') return
    seen.stdoutBytes += chunk.length
    const text = lineStart + chunk.toString()
    const lastBreak = text.lastIndexOf('\n')
    seen.completedAt ??= text
      .slice(0, lastBreak + 1)
      .split('\n')
      .some((l) => l.startsWith('COMPLETED:'))
      ? Date.now()
      : undefined
    lineStart = text.slice(lastBreak + 1, lastBreak + 17)
    // prepareMassgen's own line: 'MassGen: reused <dir> (0.3 s)'.
    seen.prepare ??= /MassGen: reused .* \(([\d.]+) s\)/.exec(
      chunk.toString()
    )?.[1]
  }
  return { seen, onOutput }
}

/** MassGen's start and end from the wrapper, in RUNNER_TEMP/massgen-*. */
function massgenTimes(runnerTemp: string): [number?, number?] {
  const run = fs.existsSync(runnerTemp)
    ? fs.readdirSync(runnerTemp).find((e) => e.startsWith('massgen-'))
    : undefined
  const file = run ? path.join(runnerTemp, run, TIMES_FILE) : ''
  if (!file || !fs.existsSync(file)) return []
  const [start, end] = fs.readFileSync(file, 'utf8').trim().split(' ')
  return [Number(start), Number(end)]
}

interface Rss {
  maxRssKiB?: number
  peakHeapTotalMiB?: number
  peakHeapUsedMiB?: number
  peakExternalMiB?: number
}

function readRss(file: string): Rss {
  return fs.existsSync(file) && fs.statSync(file).size > 0
    ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Rss)
    : {}
}

/** The comment writes (new or edited) among the requests. */
function commentWrites(requests: Arrival[]): Arrival[] {
  return requests.filter(
    (r) =>
      (r.method === 'POST' || r.method === 'PATCH') &&
      /\/issues\/(\d+\/)?comments/.test(r.path)
  )
}

function bodyLength(body: unknown): number | undefined {
  if (!body || typeof body !== 'object' || !('body' in body)) return undefined
  const text = (body as { body?: unknown }).body
  if (typeof text === 'string') return text.length
  return text === undefined || text === null ? 0 : JSON.stringify(text).length
}

/**
 * Measures runs of dist/index.js on a pull_request event, against `github`,
 * in folders under `work`; `say` gets progress and failures.
 */
export function measurer(
  github: GitHubServer,
  work: string,
  say: (line: string) => void
): Measure {
  const arrivals = recordArrivals(github)
  const payload: unknown = JSON.parse(
    fs.readFileSync(
      path.join(ROOT, '__fixtures__', 'events', 'pull_request.opened.json'),
      'utf8'
    )
  )
  let seq = 0
  return async (options) => {
    const n = ++seq
    const rssFile = path.join(work, `rss-${n}.json`)
    const home = fs.mkdtempSync(path.join(work, `home-${n}-`))
    const from = arrivals.length
    const watch = outputWatch()
    const run = await runAction({
      eventName: 'pull_request',
      payload,
      githubApiUrl: github.url,
      inputs: options.inputs,
      env: { HOME: home, BENCH_RSS_FILE: rssFile, ...options.env },
      nodeArgs: [
        ...(options.nodeArgs ?? []),
        ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
        '--import',
        path.join(ROOT, 'scripts', 'bench-rss.mjs')
      ],
      hideDockerenv: options.hideDockerenv,
      actionDir: options.actionDir,
      pathExtra: options.pathExtra,
      onOutput: watch.onOutput,
      keepOutput: false,
      post: false
    })
    const mine = arrivals.slice(from)
    const [mgStart, mgEnd] = massgenTimes(path.join(run.dir, 'runner-temp'))
    const measured = summarise(run, mine, watch.seen, readRss(rssFile), [
      mgStart,
      mgEnd
    ])
    if (process.env.BENCH_DEBUG)
      say(`run ${n}: ${JSON.stringify({ ...measured, tail: undefined })}`)
    if (measured.status !== 'success')
      say(
        `run ${n} ended '${measured.status}' (exit ${measured.exitCode}):\n${measured.tail}`
      )
    for (const done of [run.dir, home, rssFile])
      fs.rmSync(done, { recursive: true, force: true })
    return measured
  }
}

function summarise(
  run: Awaited<ReturnType<typeof runAction>>,
  requests: Arrival[],
  seen: ReturnType<typeof outputWatch>['seen'],
  rss: Rss,
  [mgStart, mgEnd]: [number?, number?]
): Measured {
  const spawned = run.spawnedAt
  const closed = run.closedAt
  const beforeRun = requests.filter((r) => mgStart && r.at <= mgStart)
  const writes = commentWrites(requests)
  const last = writes[writes.length - 1]
  const between = (a?: number, b?: number) =>
    a !== undefined && b !== undefined ? b - a : undefined
  return {
    exitCode: run.exitCode,
    status: run.outputs.status,
    wallMs: closed - spawned,
    massgenMs: between(mgStart, mgEnd),
    beforeMs: between(spawned, mgStart),
    firstRequestMs: between(spawned, requests[0]?.at),
    githubBeforeMs: between(beforeRun[0]?.at, beforeRun.at(-1)?.at),
    requestsBefore: beforeRun.length,
    afterMs: between(mgEnd, closed),
    completedToExitMs: between(seen.completedAt, mgEnd),
    reportMs: between(mgEnd, last?.at),
    commentChars: last ? bodyLength(last.body) : undefined,
    summaryBytes: Buffer.byteLength(run.summary),
    maxRssMiB: rss.maxRssKiB ? rss.maxRssKiB / 1024 : undefined,
    heapMiB: rss.peakHeapTotalMiB,
    heapUsedMiB: rss.peakHeapUsedMiB,
    externalMiB: rss.peakExternalMiB,
    stdoutBytes: seen.stdoutBytes,
    commentWrites: writes.length,
    requests: requests.length,
    prepare: seen.prepare === undefined ? undefined : `${seen.prepare} s`,
    tail: seen.tail.join('').slice(-3000)
  }
}
