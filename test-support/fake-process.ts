// An in-memory process door: the action's ProcessRunner (src/core/process.ts)
// with scripted answers, for unit tests that must not spawn. Typed as the
// real interfaces in object literals, so a change there fails to compile
// here. What a real child does (process groups, pipes, backpressure) stays
// with __tests__/unit/process*.test.ts, which spawn.
import type {
  ExecResult,
  Exit,
  ProcessRunner,
  RunningProcess,
  StartOptions
} from '../src/core/process.ts'

/** One `exec` call, as the code under test made it. */
export interface ExecCall {
  command: string
  args: string[]
  cwd: string | undefined
  env: NodeJS.ProcessEnv | undefined
  timeoutMs: number | undefined
}

/** One `start` call; `child` is the stand-in it got back. */
export interface StartCall {
  command: string
  args: string[]
  options: StartOptions
  child: FakeChild
}

/** What `exec` answers: fields left out are a clean exit with no output. */
export type ExecScript = (
  call: ExecCall
) => Partial<ExecResult> | Promise<Partial<ExecResult>>

/** How a started stand-in answers signals to its group. */
export interface ChildBehaviour {
  pid?: number
  /** Ignores SIGINT and SIGTERM; only SIGKILL stops it. */
  ignoresSigint?: boolean
}

/** A started process that exits when the test says, or on a signal. */
export interface FakeChild extends RunningProcess {
  /** The signals its group received, in order. */
  signals: NodeJS.Signals[]
  /** What was written to its stdin (RunningProcess.send). */
  sent: string[]
  /** Prints a line as the child would (to the start call's onLine). */
  print(stream: 'stdout' | 'stderr', line: string): void
  /** Exits on its own. */
  finish(exit?: Partial<Exit>): void
  /** Where print's lines go: the onLine of the start call that got it. */
  attach(onLine: StartOptions['onLine']): void
}

export function fakeChild(behaviour: ChildBehaviour = {}): FakeChild {
  let onLine: StartOptions['onLine']
  const signals: NodeJS.Signals[] = []
  const sent: string[] = []
  let alive = true
  let exit: (e: Exit) => void = () => {}
  const exited = new Promise<Exit>((resolve) => (exit = resolve))
  const end = (e: Exit) => {
    if (!alive) return
    alive = false
    exit(e)
  }
  return {
    pid: behaviour.pid ?? 4242,
    exited,
    signals,
    sent,
    send: (text) => void sent.push(text),
    signalGroup(signal) {
      signals.push(signal)
      if (signal === 'SIGKILL' || !behaviour.ignoresSigint)
        end({ exitCode: null, signal })
    },
    groupAlive: () => alive,
    print: (stream, line) => onLine?.(stream, line),
    finish: (e = {}) => end({ exitCode: 0, signal: null, ...e }),
    attach(sink) {
      onLine = sink
    }
  }
}

export interface FakeProcesses {
  runner: ProcessRunner
  execs: ExecCall[]
  starts: StartCall[]
}

/**
 * A ProcessRunner whose `exec` answers from `exec` (default: a clean exit)
 * and whose `start` hands back `child` (a fakeChild, or one made with that
 * behaviour for each start). `only` names the one method the code under
 * test may use: the other then fails, as a test's "not used" stub did.
 */
export function fakeProcesses(
  options: {
    exec?: ExecScript
    child?: ChildBehaviour | FakeChild
    only?: 'exec' | 'start'
  } = {}
): FakeProcesses {
  const execs: ExecCall[] = []
  const starts: StartCall[] = []
  const runner: ProcessRunner = {
    start(command, args, startOptions) {
      if (options.only === 'exec')
        throw new Error(`start is not used: ${command}`)
      const given = options.child
      const child = given && 'signalGroup' in given ? given : fakeChild(given)
      child.attach(startOptions.onLine)
      starts.push({ command, args, options: startOptions, child })
      return child
    },
    async exec(command, args, execOptions = {}) {
      const call: ExecCall = {
        command,
        args,
        cwd: execOptions.cwd,
        env: execOptions.env,
        timeoutMs: execOptions.timeoutMs
      }
      execs.push(call)
      if (options.only === 'start')
        throw new Error(`exec is not used: ${command}`)
      const answer = options.exec ? await options.exec(call) : {}
      return { exitCode: 0, signal: null, stdout: '', stderr: '', ...answer }
    }
  }
  return { runner, execs, starts }
}
