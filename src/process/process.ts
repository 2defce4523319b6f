// The process runner: every child process the action starts goes through here.
import { spawn } from 'node:child_process'
import * as fs from 'node:fs'
import { allowedEnv } from '../safety/child-env.js'
import type {
  Exit,
  ExecResult,
  ProcessRunner,
  RunningProcess,
  StartOptions
} from '../core/process.js'

/** Longest line kept; the rest of a longer line is dropped so memory stays flat. */
const MAX_LINE = 64 * 1024
/** Bytes waiting in the sink before reading the child pauses. */
const MAX_PENDING_OUTPUT = 1024 * 1024
/** Output `exec` keeps of a short command. */
const MAX_EXEC_OUTPUT = 1024 * 1024

export function createProcessRunner(): ProcessRunner {
  return { start, exec }
}

function start(
  command: string,
  args: string[],
  options: StartOptions
): RunningProcess {
  // detached: the child leads a new process group, so one signal reaches every
  // process MassGen starts (MCP servers, docker clients) and none survives.
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: [options.input ? 'pipe' : 'ignore', 'pipe', 'pipe']
  })
  // A child gone before it was sent its input: nothing to tell it.
  child.stdin?.on('error', () => undefined)
  const exited = new Promise<Exit>((resolve) => {
    let settled = false
    child.on('error', () => {
      if (!settled) resolve({ exitCode: 127, signal: null })
      settled = true
    })
    child.on('close', (exitCode, signal) => {
      if (!settled) resolve({ exitCode, signal })
      settled = true
    })
  })
  const sink = options.sink
  for (const name of ['stdout', 'stderr'] as const) {
    const splitter = lineSplitter((line) => options.onLine?.(name, line))
    const stream = child[name]
    // Always piped (stdio above); typed nullable since stdin's mode varies.
    if (!stream) continue
    stream.setEncoding('utf8')
    stream.on('data', (chunk: string) => {
      splitter.push(chunk)
      if (sink && (sink.writableLength ?? 0) > MAX_PENDING_OUTPUT) {
        stream.pause()
        sink.once('drain', () => stream.resume())
      }
    })
    stream.on('end', () => splitter.end())
  }
  const pid = child.pid ?? -1
  return {
    pid,
    exited,
    signalGroup(signal) {
      if (pid <= 0) return
      try {
        process.kill(-pid, signal)
      } catch {
        // The group is already gone.
      }
    },
    groupAlive() {
      return pid > 0 && livingGroupMembers(pid).length > 0
    },
    send(text) {
      child.stdin?.end(text)
    }
  }
}

/**
 * Pids of the group's processes that still run. Zombies do not count: a
 * killed orphan stays a zombie until PID 1 reaps it, which some containers
 * never do. Without /proc, a signal-0 probe answers.
 */
export function livingGroupMembers(pgid: number): number[] {
  let entries: string[]
  try {
    entries = fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e))
  } catch {
    try {
      process.kill(-pgid, 0)
      return [pgid]
    } catch {
      return []
    }
  }
  const living: number[] = []
  for (const entry of entries) {
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8')
      // Fields after the parenthesised command: state, ppid, pgrp, ...
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(fields[2]) === pgid && fields[0] !== 'Z')
        living.push(Number(entry))
    } catch {
      // The process ended while we looked.
    }
  }
  return living
}

/** Splits a text stream into lines without holding more than one line. */
export function lineSplitter(onLine: (line: string) => void) {
  let pending = ''
  let dropping = false
  return {
    push(chunk: string) {
      let start = 0
      for (
        let i = chunk.indexOf('\n');
        i !== -1;
        i = chunk.indexOf('\n', start)
      ) {
        const piece = chunk.slice(start, i)
        if (!dropping) onLine(stripCr(pending + piece))
        pending = ''
        dropping = false
        start = i + 1
      }
      if (!dropping) {
        pending += chunk.slice(start)
        if (pending.length > MAX_LINE) {
          onLine(pending.slice(0, MAX_LINE))
          pending = ''
          dropping = true
        }
      }
    },
    end() {
      if (pending && !dropping) onLine(stripCr(pending))
      pending = ''
    }
  }
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line
}

function exec(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}
): Promise<ExecResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      // Unless told otherwise, a short command (docker, setfacl) gets the
      // allow-list only: no key, no token, no job secret.
      env: options.env ?? allowedEnv(process.env),
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: options.timeoutMs,
      killSignal: 'SIGKILL'
    })
    const out = { stdout: '', stderr: '' }
    for (const name of ['stdout', 'stderr'] as const) {
      child[name].setEncoding('utf8')
      child[name].on('data', (chunk: string) => {
        if (out[name].length < MAX_EXEC_OUTPUT) out[name] += chunk
      })
    }
    child.on('error', (error) =>
      resolve({
        exitCode: 127,
        signal: null,
        stdout: out.stdout,
        stderr: error.message
      })
    )
    child.on('close', (exitCode, signal) =>
      resolve({ exitCode, signal, ...out })
    )
  })
}
