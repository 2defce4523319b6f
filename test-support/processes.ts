// What a test asks the machine after a run: the processes and containers
// still alive that belong to it, and runs started a few at a time.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import { livingGroupMembers } from '../src/process/process.ts'

/** Processes (other than zombies) whose environment holds the marker. */
export function processesWithMarker(marker: string): number[] {
  const pids: number[] = []
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
      if (/^\d+ \(.*\) Z/.test(stat)) continue
      if (
        fs
          .readFileSync(`/proc/${pid}/environ`, 'latin1')
          .includes(`RELIABILITY_MARKER=${marker}`)
      )
        pids.push(Number(pid))
    } catch {
      // Gone, or not ours to read.
    }
  }
  return pids
}

/** Live processes whose command line names anything under `dir` (a run's folder). */
export function processesUnder(dir: string): string[] {
  const found: string[] = []
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue
    try {
      const cmdline = fs
        .readFileSync(`/proc/${pid}/cmdline`, 'utf8')
        .split('\0')
        .join(' ')
      if (cmdline.includes(dir)) found.push(`${pid} ${cmdline.slice(0, 120)}`)
    } catch {
      // Gone meanwhile.
    }
  }
  return found
}

/** The real Docker engine's answer to one CLI call. */
export function docker(...args: string[]): string {
  return execFileSync('docker', args, { encoding: 'utf8' }).trim()
}

/** Names of the containers that mount anything under `dir` (a run's folder). */
export function containersUnder(dir: string): string[] {
  const ids = docker('ps', '--all', '--quiet').split('\n').filter(Boolean)
  if (ids.length === 0) return []
  return docker(
    'inspect',
    '--format',
    '{{.Name}}{{range .Mounts}} {{.Source}}{{end}}',
    ...ids
  )
    .split('\n')
    .filter((line) =>
      line
        .split(' ')
        .slice(1)
        .some((m) => m.startsWith(dir))
    )
    .map((line) => line.split(' ')[0] ?? '')
}

/** Runs `task` over `items`, `size` at a time. */
export async function inBatches<T, R>(
  items: T[],
  size: number,
  task: (item: T) => Promise<R>
): Promise<R[]> {
  const out: R[] = []
  for (let i = 0; i < items.length; i += size) {
    out.push(...(await Promise.all(items.slice(i, i + size).map(task))))
  }
  return out
}

/** Live processes (not zombies) of the process group `pgid`. */
export function processesInGroup(pgid: number): number[] {
  return livingGroupMembers(pgid)
}

/**
 * The group's live processes once a SIGKILL sent to it has had its effect:
 * the kernel ends a killed process when it next runs it, later on a loaded
 * machine. Polls until none is left, for at most 10 s.
 */
export async function groupAfterKill(pgid: number): Promise<number[]> {
  const until = Date.now() + 10_000
  let living = livingGroupMembers(pgid)
  while (living.length > 0 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    living = livingGroupMembers(pgid)
  }
  return living
}
