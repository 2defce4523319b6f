// The process door: what every stage may ask of child processes. The one
// implementation, process/process.ts, spawns them; tests pass fakes.

type StreamName = 'stdout' | 'stderr'

export interface Exit {
  exitCode: number | null
  signal: NodeJS.Signals | null
}

export interface RunningProcess {
  pid: number
  exited: Promise<Exit>
  /** Sends a signal to the child's whole process group. */
  signalGroup(signal: NodeJS.Signals): void
  /** True while any process of the child's group is alive. */
  groupAlive(): boolean
  /**
   * Writes `text` to the child's stdin and closes it; only for a child
   * started with `input: true` (its stdin otherwise is /dev/null).
   */
  send?(text: string): void
}

export interface StartOptions {
  cwd: string
  env: NodeJS.ProcessEnv
  onLine?: (stream: StreamName, line: string) => void
  /**
   * Where onLine's lines end up (the job log: process.stdout). Reading the
   * child pauses while more than MAX_PENDING_OUTPUT waits in it, so a child
   * that prints faster than the log is read cannot fill our memory.
   */
  sink?: NodeJS.WritableStream & { writableLength?: number }
  /**
   * stdin a pipe that RunningProcess.send writes once (the warm ballot
   * run's arguments, vote/warm-ballot.ts); /dev/null otherwise.
   */
  input?: boolean
}

export interface ExecResult extends Exit {
  stdout: string
  stderr: string
}

export interface ProcessRunner {
  start(command: string, args: string[], options: StartOptions): RunningProcess
  /** Runs a short command to completion and collects its (bounded) output. */
  exec(
    command: string,
    args: string[],
    options?: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }
  ): Promise<ExecResult>
}
