// Who a saved pid is. The post step may run long after the main step saved
// MassGen's pid; by then MassGen may be gone and the pid (and the process
// group id) reused by an unrelated process. A pid plus the process's start
// time (field 22 of /proc/<pid>/stat, in clock ticks since boot) names one
// process for the life of the machine: a pid comes back only after the pid
// space wrapped around, never within the same tick.
//
// The command line is not part of it: the process started may `exec` (Docker
// mode starts MassGen through `sh -c 'umask 000 && exec …'`), which keeps the
// pid and start time but changes the command line, and a post step that
// compared it would leave a MassGen running after its main step died.
import * as fs from 'node:fs'

/** The process's start time in clock ticks since boot; undefined without /proc. */
export function processIdentity(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the parenthesised command (which may hold spaces and
    // parentheses) start at field 3, so field 22 is the 20th of them.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const start = fields[19]
    return start && /^\d+$/.test(start) ? start : undefined
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
