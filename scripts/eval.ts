// `npm run eval`: what a consensus review is worth, measured. Every case of
// a corpus is reviewed by the bundled action (dist/index.js) as a pull
// request on a loopback GitHub, with the real MassGen unless
// `--input massgen-command=...` says otherwise: once by the consensus of the
// models given, and once by each model alone; each scored against the
// case's known problems (docs/evaluation.md).
//
//   npm run eval -- --corpus <dir> --out <file.json> [--input name=value ...]
//        [--cases a,b] [--jobs N] [--tolerance 3]
//        [--model-server '<command>'] [--model-server-wait 600] [--env NAME ...]
//        [--keep <dir>]
//   npm run eval -- corpus-from-git --repo <path> --out <dir> [--max-cases N]
//   npm run eval -- corpus-inject --out <dir>
//
// Keys come from the environment as the action takes them (OPENAI_API_KEY
// -> openai-api-key, ...) unless an --input gives them. `--model-server`
// starts a local model server command first and stops it after: ready when
// it prints an `http://127.0.0.1:N` URL (the base-url, unless one is given)
// or when the given base-url's port accepts connections.
// `--keep <dir>` keeps each run's job summary and outputs (why a run
// failed) under <dir>/<case>/<configuration>/.
// `--env NAME` hands that variable of this environment to the action's
// (name it in `--input pass-env=NAME` too when MassGen needs it).
// Run by Node 24 directly (it strips the types).
import { spawn, type ChildProcess } from 'node:child_process'
import * as fs from 'node:fs'
import * as net from 'node:net'
import * as path from 'node:path'
import {
  massgenBinary,
  virtualenvFolders
} from '../test-support/massgen-binary.ts'
import { killLiveChildren } from '../test-support/live.ts'
import { readCorpus } from './eval/corpus.ts'
import { evaluate } from './eval/evaluate.ts'
import { injectCorpus } from './eval/inject.ts'
import { markdownOf } from './eval/markdown.ts'
import { DEFAULT_TOLERANCE } from './eval/score.ts'
import { corpusFromGit } from './eval/szz.ts'

const say = (line: string) => process.stderr.write(`eval: ${line}\n`)

/** The provider keys the action takes as inputs, from the variables MassGen reads. */
const KEY_INPUTS: Array<[input: string, vars: string[]]> = [
  ['openai-api-key', ['OPENAI_API_KEY']],
  ['gemini-api-key', ['GEMINI_API_KEY', 'GOOGLE_API_KEY']],
  ['anthropic-api-key', ['ANTHROPIC_API_KEY']],
  ['xai-api-key', ['XAI_API_KEY']],
  ['openrouter-api-key', ['OPENROUTER_API_KEY']]
]

interface Args {
  values: Map<string, string[]>
  command?: string
}

function parseArgs(argv: string[]): Args {
  const values = new Map<string, string[]>()
  let command: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? ''
    if (!arg.startsWith('--')) {
      if (command) throw new Error(`unexpected argument '${arg}'`)
      command = arg
      continue
    }
    const value = argv[i + 1]
    if (value === undefined) throw new Error(`${arg}: a value is needed`)
    values.set(arg, [...(values.get(arg) ?? []), value])
    i++
  }
  return { values, ...(command ? { command } : {}) }
}

const one = (args: Args, flag: string): string | undefined =>
  args.values.get(flag)?.at(-1)

function required(args: Args, flag: string, form: string): string {
  const v = one(args, flag)
  if (!v) throw new Error(`${flag}: needed (${form})`)
  return v
}

function wholeFlag(
  args: Args,
  flag: string,
  fallback: number,
  min: number
): number {
  const raw = one(args, flag)
  if (raw === undefined) return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < min)
    throw new Error(
      `${flag}: expected a whole number of at least ${min}, got '${raw}'`
    )
  return n
}

function inputsOf(args: Args): Record<string, string> {
  const inputs: Record<string, string> = {}
  for (const pair of args.values.get('--input') ?? []) {
    const at = pair.indexOf('=')
    if (at <= 0) throw new Error(`--input: expected name=value, got '${pair}'`)
    inputs[pair.slice(0, at).trim()] = pair.slice(at + 1)
  }
  for (const [input, vars] of KEY_INPUTS) {
    if (inputs[input] !== undefined) continue
    const value = vars.map((v) => process.env[v]).find(Boolean)
    if (value) inputs[input] = value
  }
  return inputs
}

/** Whether something accepts connections at the URL's host and port. */
function answers(url: string): Promise<boolean> {
  const { hostname, port, protocol } = new URL(url)
  return new Promise((resolve) => {
    const socket = net.connect({
      host: hostname,
      port: Number(port || (protocol === 'https:' ? 443 : 80))
    })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

/**
 * Starts the model server. Ready when it prints a loopback URL (on stdout
 * or stderr, which go on to this command's stderr), or, when `baseUrl` is
 * given, once that URL's port accepts connections.
 */
function startModelServer(
  command: string,
  waitSeconds: number,
  baseUrl: string | undefined
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn('bash', ['-c', command], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe']
  })
  return new Promise((resolve, reject) => {
    let seen = ''
    let done = false
    const finish = (error: Error | undefined, url = ''): void => {
      if (done) return
      done = true
      clearTimeout(timer)
      clearInterval(poll)
      if (error) {
        void stopModelServer(child)
        reject(error)
      } else resolve({ url, child })
    }
    const timer = setTimeout(
      () =>
        finish(
          new Error(
            `--model-server: not ready in ${waitSeconds} s (no http://127.0.0.1:PORT printed${baseUrl ? `, nothing at ${baseUrl}` : ''})`
          )
        ),
      waitSeconds * 1000
    )
    const poll = setInterval(() => {
      if (baseUrl)
        void answers(baseUrl).then((up) => up && finish(undefined, baseUrl))
    }, 500)
    for (const stream of [child.stdout, child.stderr])
      stream?.on('data', (chunk: Buffer) => {
        process.stderr.write(chunk)
        if (done) return
        seen = (seen + chunk.toString()).slice(-4096)
        const m = /https?:\/\/(?:127\.0\.0\.1|localhost):\d+(?:\/v1)?/.exec(
          seen
        )
        if (m) finish(undefined, m[0].endsWith('/v1') ? m[0] : `${m[0]}/v1`)
      })
    child.on('exit', (code) =>
      finish(
        new Error(
          `--model-server: the command ended (exit code ${code}) before it was ready`
        )
      )
    )
  })
}

/** Ends the server's process group: SIGTERM, then SIGKILL after 10 s. */
async function stopModelServer(child: ChildProcess): Promise<void> {
  if (
    child.pid === undefined ||
    child.exitCode !== null ||
    child.signalCode !== null
  )
    return
  const pid = child.pid
  const gone = new Promise<void>((resolve) =>
    child.once('exit', () => resolve())
  )
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-pid, name)
    } catch {
      // Already gone.
    }
  }
  signal('SIGTERM')
  const timer = setTimeout(() => signal('SIGKILL'), 10_000)
  await gone
  clearTimeout(timer)
}

async function runEval(args: Args): Promise<void> {
  const corpus = required(
    args,
    '--corpus',
    'a folder of cases, docs/evaluation.md'
  )
  const out = required(
    args,
    '--out',
    'the JSON file to write; the Markdown goes beside it'
  )
  const only = one(args, '--cases')
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  const cases = readCorpus(corpus, only)
  const inputs: Record<string, string> = {
    query: 'Review this pull request.',
    review: 'inline',
    'upload-logs': 'false',
    'max-duration': '900',
    ...inputsOf(args)
  }
  let pathExtra: string[] | undefined
  if (!inputs['massgen-command']) {
    inputs['massgen-command'] = massgenBinary()
    pathExtra = virtualenvFolders(inputs['massgen-command'])
  }
  let server: ChildProcess | undefined
  // Interrupted: the runs under way and the server end too (each leads a
  // process group of its own, which a terminal's Ctrl-C does not reach).
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      killLiveChildren()
      void (server ? stopModelServer(server) : Promise.resolve()).then(() =>
        process.exit(130)
      )
    })
  const serverCommand = one(args, '--model-server')
  if (serverCommand) {
    const started = await startModelServer(
      serverCommand,
      wholeFlag(args, '--model-server-wait', 600, 1),
      inputs['base-url']
    )
    server = started.child
    inputs['base-url'] ??= started.url
    say(`model server up at ${started.url}`)
  }
  const env = Object.fromEntries(
    (args.values.get('--env') ?? []).flatMap((name) =>
      process.env[name] === undefined ? [] : [[name, process.env[name]]]
    )
  )
  const keep = one(args, '--keep')
  try {
    const started = Date.now()
    const report = await evaluate({
      cases,
      inputs,
      env,
      ...(pathExtra ? { pathExtra } : {}),
      jobs: wholeFlag(args, '--jobs', 1, 1),
      tolerance: wholeFlag(args, '--tolerance', DEFAULT_TOLERANCE, 0),
      ...(keep ? { keep } : {}),
      say
    })
    fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true })
    fs.writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`)
    const md = out.replace(/\.json$/i, '') + '.md'
    fs.writeFileSync(md, markdownOf(report))
    process.stdout.write(markdownOf(report))
    say(
      `${cases.length} case(s) in ${((Date.now() - started) / 1000).toFixed(0)} s; wrote ${out} and ${md}`
    )
  } finally {
    if (server) await stopModelServer(server)
  }
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2))
  switch (args.command) {
    case undefined:
      return runEval(args)
    case 'corpus-from-git': {
      const made = corpusFromGit({
        repo: required(args, '--repo', 'a local git repository'),
        out: required(args, '--out', 'the corpus folder to write'),
        maxCases: wholeFlag(args, '--max-cases', 50, 1),
        say
      })
      say(`${made.length} case(s) written`)
      return
    }
    case 'corpus-inject': {
      const made = injectCorpus(
        required(args, '--out', 'the corpus folder to write')
      )
      say(`${made.length} case(s) written`)
      return
    }
    default:
      throw new Error(
        `unknown command '${args.command}': none (evaluate), corpus-from-git or corpus-inject`
      )
  }
}

try {
  await main()
} catch (error) {
  say(error instanceof Error ? error.message : String(error))
  process.exitCode = 1
}
