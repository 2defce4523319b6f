// Runs MassGen once under the action's own deadline and streams its output.
import { DeadlineGraceSeconds, InterruptGraceMs } from '../core/constants.js'
import { foldOutputLine, stripAnsi, type OutputHints } from './output-lines.js'
import type { Exit, ProcessRunner, RunningProcess } from '../core/process.js'
import type { MassgenStatus } from './status-file.js'
import { readStatusFile } from './status-file.js'

interface MassgenRunRequest {
  command: string
  args: string[]
  cwd: string
  env: NodeJS.ProcessEnv
  /** Where MassGen puts `log_*` folders for this cwd. */
  logBase: string
  maxDurationSeconds: number
  /** Cancels the run (job cancelled): SIGINT, grace, SIGKILL. */
  abort?: AbortSignal
  /** Every output line, ANSI stripped (for the log group). */
  onLine?: (line: string) => void
  /** Where onLine writes (default process.stdout): reading waits while it is full. */
  sink?: NodeJS.WritableStream & { writableLength?: number }
  /** A fresh status.json, read every `pollMs` while MassGen runs. */
  onStatus?: (status: MassgenStatus) => void
  /**
   * Asked of each fresh status.json: true stops MassGen exactly as the
   * deadline does (the `max-cost` cap).
   */
  stopWhen?: (status: MassgenStatus) => boolean
  pollMs?: number
  /** Told the child's pid (its process group id) once it is started. */
  onStart?: (pid: number) => void
  interruptGraceMs?: number
  /** Says in the job log why and how MassGen is being stopped. */
  log?: (message: string) => void
}

export interface MassgenRunOutcome extends Exit {
  timedOut: boolean
  cancelled: boolean
  /** stopWhen said stop (before the deadline or a cancel did). */
  stoppedByStatus: boolean
  hints: OutputHints
  /** The last stderr lines (bounded), for MassGen's validation errors. */
  stderrTail: string[]
  wallSeconds: number
  /** When MassGen's process group was gone (ms since the epoch). */
  endedAtMs?: number
  /** True when a process of MassGen's group outlived SIGKILL (should never be). */
  survivors: boolean
}

const STDERR_TAIL_LINES = 200

/**
 * Our deadline, counted from MassGen's start: its own orchestrator timeout
 * starts only after a start-up of 7 to 25 s (imports, MCP servers), so the
 * grace is the full 60 s. MASSGEN_ACTION_DEADLINE_GRACE_SECONDS shortens it
 * for tests of a hung MassGen.
 */
export function deadlineSeconds(
  maxDuration: number,
  env: NodeJS.ProcessEnv = process.env
): number {
  // Unset or empty means no override (Number('') would be a grace of 0).
  const text = env.MASSGEN_ACTION_DEADLINE_GRACE_SECONDS?.trim()
  const override = text ? Number(text) : NaN
  const grace =
    Number.isFinite(override) && override >= 0
      ? Math.min(override, DeadlineGraceSeconds)
      : DeadlineGraceSeconds
  return maxDuration + grace
}

export async function runMassgen(
  runner: ProcessRunner,
  request: MassgenRunRequest
): Promise<MassgenRunOutcome> {
  const started = Date.now()
  let hints: OutputHints = {}
  const stderrTail: string[] = []
  const where = { cwd: request.cwd, logBase: request.logBase }
  const child = runner.start(request.command, request.args, {
    cwd: request.cwd,
    env: request.env,
    sink: request.sink ?? process.stdout,
    onLine(stream, raw) {
      const line = stripAnsi(raw)
      request.onLine?.(line)
      if (stream === 'stdout') hints = foldOutputLine(hints, line, where)
      else {
        stderrTail.push(line)
        if (stderrTail.length > STDERR_TAIL_LINES) stderrTail.shift()
      }
    }
  })

  request.onStart?.(child.pid)
  let timedOut = false
  let cancelled = false
  let stoppedByStatus = false
  const stopper = startStopper(
    child,
    request.interruptGraceMs ?? InterruptGraceMs,
    request.log
  )
  const stop = stopper.stop
  const limit = deadlineSeconds(request.maxDurationSeconds)
  const deadline = setTimeout(() => {
    timedOut = true
    stop(
      `MassGen ran past its deadline of ${limit} s (max-duration ` +
        `${request.maxDurationSeconds} s + ${limit - request.maxDurationSeconds} s grace)`
    )
  }, limit * 1000)
  const onAbort = () => {
    cancelled = true
    stop('The job was cancelled')
  }
  request.abort?.addEventListener('abort', onAbort)
  if (request.abort?.aborted) onAbort()

  const poller =
    request.onStatus || request.stopWhen
      ? setInterval(() => {
          const { logDir, statusFile } = hints
          if (!logDir || !statusFile) return
          const status = readStatusFile(logDir, statusFile)
          if (!status) return
          request.onStatus?.(status)
          if (!stopper.stopping() && request.stopWhen?.(status)) {
            stoppedByStatus = true
            stop("MassGen's status met the stop condition (max-cost)")
          }
        }, request.pollMs ?? 3000)
      : undefined

  const exit = await child.exited
  clearTimeout(deadline)
  if (poller) clearInterval(poller)
  request.abort?.removeEventListener('abort', onAbort)
  const survivors = await reapGroup(child)
  await stopper.stopping()
  return {
    ...exit,
    timedOut,
    cancelled,
    stoppedByStatus,
    hints,
    stderrTail,
    wallSeconds: (Date.now() - started) / 1000,
    endedAtMs: Date.now(),
    survivors
  }
}

/**
 * Stops MassGen once, however many reasons arrive: SIGINT lets it write its
 * final status.json; SIGKILL after the grace makes sure.
 */
function startStopper(
  child: RunningProcess,
  graceMs: number,
  log: ((message: string) => void) | undefined
): { stop: (why: string) => void; stopping: () => Promise<void> | undefined } {
  let stopping: Promise<void> | undefined
  const stop = (why: string) => {
    stopping ??= (async () => {
      log?.(`${why}: stopping MassGen (SIGINT to its process group)`)
      child.signalGroup('SIGINT')
      const ended = await Promise.race([
        child.exited.then(() => true),
        sleep(graceMs).then(() => false)
      ])
      if (!ended)
        log?.(
          `MassGen still ran ${graceMs / 1000} s after SIGINT: SIGKILL to its process group`
        )
      child.signalGroup('SIGKILL')
    })()
  }
  return { stop, stopping: () => stopping }
}

/**
 * The leader is gone; its children (MCP servers, docker clients) must go
 * too. True when one outlived SIGKILL.
 */
async function reapGroup(child: RunningProcess): Promise<boolean> {
  if (!child.groupAlive()) return false
  child.signalGroup('SIGKILL')
  // Kept alive: with the child's pipes closed and the timers cleared,
  // an unref'd wait would let Node exit here with the run unreported.
  await new Promise((resolve) => setTimeout(resolve, 200))
  return child.groupAlive()
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref())
}
