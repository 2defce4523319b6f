// Who a saved pid is. The post step may run long after the main step saved
// MassGen's pid; by then MassGen may be gone and the pid (and the process
// group id) reused by an unrelated process. A pid plus the process's start
// time (field 22 of /proc/<pid>/stat, in clock ticks since boot) names one
// process for the life of the machine; the command line is checked too.
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'

/** `<start time>:<sha256 of the command line>`; undefined without /proc. */
export function processIdentity(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the parenthesised command (which may hold spaces and
    // parentheses) start at field 3, so field 22 is the 20th of them.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const start = fields[19]
    if (!start || !/^\d+$/.test(start)) return undefined
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`)
    const hash = createHash('sha256').update(cmdline).digest('hex')
    return `${start}:${hash}`
  } catch {
    return undefined
  }
}

/**
 * True only when `pid` is alive and is the very process whose identity was
 * saved. A missing or unreadable identity is never a match: better to leave
 * a process running (the runner ends the job's processes anyway) than to
 * signal someone else's.
 */
export function isSameProcess(pid: number, saved: string): boolean {
  if (!Number.isInteger(pid) || pid <= 1 || !saved) return false
  return processIdentity(pid) === saved
}
