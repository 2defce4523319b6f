// The vote round's MassGen started warm: importing MassGen takes ~6 s of
// CPU before it sends its first request, so the ballot run's process starts
// beside the answers' run, with the very command, sandbox, guard,
// environment (the same keys, no more) and cwd the answers' MassGen got, in
// a process group of its own as every MassGen, and the guard's warm start (safety/massgen-guard.ts
// WARM_START_ENV) holds it after the import until its arguments come, one
// JSON line on its stdin: a pipe only the action holds, never a path
// anything else could write to. The ballot run takes it only when its own
// launch is that same launch with its arguments after it; anything else (it
// died, the launch differs) is a cold start as before. Its deadline, cost
// watch and output start at the hand-off (run/run-massgen.ts starts them
// when it "starts" the process). Not needed (no findings, the run failed,
// a cancel): its stdin is closed and its process group killed; it has done
// nothing but import.
import * as fs from 'node:fs'
import type { StageLog } from '../core/log.js'
import type {
  ProcessRunner,
  RunningProcess,
  StartOptions
} from '../core/process.js'
import { saveStepState } from '../core/step-state.js'
import { processIdentity } from '../run/process-identity.js'
import { WARM_READY_LINE, WARM_START_ENV } from '../safety/massgen-guard.js'
import type { Launch } from '../safety/sandbox.js'

/** Lines the warm process prints before the hand-off, kept for the log. */
const HELD_LINES = 200
/** How long a killed warm process's group may take to go. */
const GONE_WAIT_MS = 5000

type LineHandler = (stream: 'stdout' | 'stderr', line: string) => void

export interface WarmBallot {
  readonly pid: number
  /**
   * The runner the ballot run starts MassGen with: its start hands the
   * arguments to the warm process when the launch is the warm one's with
   * arguments after it; otherwise the warm process goes and MassGen
   * starts cold.
   */
  runner(cold: ProcessRunner): ProcessRunner
  /** Kills the warm process unless it was handed the ballots; waits till its group is gone. */
  discard(why: string): Promise<void>
}

/** Where and with what the warm process starts, and what it is handed. */
interface WarmStart {
  /** MassGen's command and arguments before the plan's, as installed or given. */
  installation: { command: string; prefixArgs: readonly string[] }
  /** The answers' MassGen arguments, the last of their launch's. */
  args: readonly string[]
  cwd: string
  log: StageLog
}

/**
 * Starts the ballot run's MassGen beside the answers' (whose launch is
 * `answers`); undefined when the command is not MassGen's own console
 * script (a `massgen-command` wrapper: cold, as before) or the launch does
 * not end with the answers' arguments.
 */
export function startWarmBallot(
  runner: ProcessRunner,
  answers: Launch,
  where: WarmStart
): WarmBallot | undefined {
  const launch = warmLaunch(answers, where)
  if (!launch) return undefined
  const started = Date.now()
  const output = heldOutput()
  const child = runner.start(launch.command, launch.args, {
    cwd: where.cwd,
    env: { ...launch.env, [WARM_START_ENV]: '1' },
    input: true,
    sink: process.stdout,
    onLine: output.onLine
  })
  const { log } = where
  // The main step's end (index.ts exits) never leaves it waiting.
  const onExit = () => child.signalGroup('SIGKILL')
  process.once('exit', onExit)
  // For the post step, should the main step die before it is stopped.
  saveStepState('warmMassgenPid', child.pid)
  saveStepState('warmMassgenIdentity', processIdentity(child.pid) ?? '')
  log.info(
    `Finding vote: MassGen for the ballots started warm beside the answers (pid ${child.pid}); it waits for the ballots.`
  )
  let ended = false
  void child.exited.then(() => (ended = true))
  let state: 'waiting' | 'handed' | 'gone' = 'waiting'

  const discard = async (why: string) => {
    if (state !== 'waiting') return
    state = 'gone'
    process.off('exit', onExit)
    // stdin closed without arguments: the guard's cli_main exits 0, even
    // where the signal cannot reach (sudo's sandbox runs as root).
    child.send?.('')
    child.signalGroup('SIGKILL')
    await waitGroupGone(child)
    log.info(
      `Finding vote: the warm MassGen (pid ${child.pid}) was not used: ${why}; ` +
        (child.groupAlive()
          ? 'its process group outlived SIGKILL.'
          : 'its process group is gone.')
    )
  }

  const handOff = (cold: Launch, options: StartOptions) => {
    state = 'handed'
    process.off('exit', onExit)
    output.attach(options.onLine)
    child.send?.(`${JSON.stringify(cold.args.slice(launch.args.length))}\n`)
    log.info(
      `Finding vote: the warm MassGen (pid ${child.pid}) takes the ballots, started ` +
        `${seconds(Date.now() - started)} s before they were due` +
        (output.readyAt === undefined
          ? ' (still importing MassGen).'
          : `, ready after ${seconds(output.readyAt - started)} s.`)
    )
    return child
  }

  return {
    pid: child.pid,
    discard,
    runner: (cold) => ({
      exec: (command, args, options) => cold.exec(command, args, options),
      start(command, args, options) {
        if (state !== 'waiting') return cold.start(command, args, options)
        const why = ended
          ? 'it ended before the ballots were due'
          : mismatch(
              launch,
              where.cwd,
              { command, args, env: options.env },
              options.cwd
            )
        if (why === undefined)
          return handOff({ command, args, env: options.env }, options)
        void discard(why)
        return cold.start(command, args, options)
      }
    })
  }
}

/** The answers' launch without their arguments; undefined if it cannot be warmed. */
function warmLaunch(answers: Launch, where: WarmStart): Launch | undefined {
  const { installation, args } = where
  if (installation.prefixArgs.length > 0) return undefined
  if (!isMassgenScript(installation.command)) return undefined
  const prefix = answers.args.length - args.length
  if (prefix < 0 || !args.every((arg, i) => answers.args[prefix + i] === arg))
    return undefined
  return { ...answers, args: answers.args.slice(0, prefix) }
}

/** Why the ballot run's launch is not the warm one's with arguments after it, if it is not. */
function mismatch(
  warm: Launch,
  warmCwd: string,
  cold: Launch,
  cwd: string
): string | undefined {
  const same =
    cold.command === warm.command &&
    cwd === warmCwd &&
    sameEnv(cold.env, warm.env) &&
    cold.args.length >= warm.args.length &&
    warm.args.every((arg, i) => cold.args[i] === arg)
  return same ? undefined : "the ballot run's launch differs from the answers'"
}

/** The warm process's lines: held (bounded) until the ballot run takes them. */
function heldOutput() {
  const held: Array<[stream: 'stdout' | 'stderr', line: string]> = []
  let target: LineHandler | undefined
  const output = {
    readyAt: undefined as number | undefined,
    onLine: (stream: 'stdout' | 'stderr', line: string) => {
      if (line === WARM_READY_LINE) output.readyAt ??= Date.now()
      if (target) target(stream, line)
      else if (held.length < HELD_LINES) held.push([stream, line])
    },
    attach: (onLine: LineHandler | undefined) => {
      target = onLine
      for (const [stream, line] of held.splice(0)) target?.(stream, line)
    }
  }
  return output
}

const seconds = (ms: number) => (ms / 1000).toFixed(1)

/** The installed console script (`from massgen.cli import cli_main`), read from its start. */
function isMassgenScript(command: string): boolean {
  if (!command.startsWith('/')) return false
  try {
    const fd = fs.openSync(
      command,
      fs.constants.O_RDONLY | fs.constants.O_NONBLOCK
    )
    try {
      if (!fs.fstatSync(fd).isFile()) return false
      const head = Buffer.alloc(4096)
      const read = fs.readSync(fd, head, 0, head.length, 0)
      return head
        .subarray(0, read)
        .toString('utf8')
        .includes('from massgen.cli import cli_main')
    } finally {
      fs.closeSync(fd)
    }
  } catch {
    return false
  }
}

function sameEnv(a: NodeJS.ProcessEnv, b: NodeJS.ProcessEnv): boolean {
  const keys = Object.keys(a)
  return (
    keys.length === Object.keys(b).length &&
    keys.every((key) => Object.hasOwn(b, key) && a[key] === b[key])
  )
}

/** Until its leader has exited and no process of its group lives, at most GONE_WAIT_MS. */
async function waitGroupGone(child: RunningProcess): Promise<void> {
  let exited = false
  void child.exited.then(() => (exited = true))
  for (
    let waited = 0;
    waited < GONE_WAIT_MS && (!exited || child.groupAlive());
  ) {
    await sleep(100)
    waited += 100
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
