// One busy real-MassGen run at a time across jest's workers.
//
// A run whose agents use MassGen's command tool needs MassGen's MCP servers
// to start within MassGen's hard-coded 30 s each round (docs/massgen-0.1.97.md,
// "Command tool"); each server imports MassGen (~7 s of CPU). Two such runs at
// once on a 2-core machine can push a start past 30 s, and the tool is then
// missing from that round. So those runs take this slot, which test files
// share through a lock file; runs that mostly wait (a hanging model, a
// cancel, a refusal) do not, and overlap freely with them.
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { ROOT } from './run-action.ts'

/** One lock per checkout: another checkout's suite is not ours to wait on. */
const LOCK = path.join(
  os.tmpdir(),
  `massgen-action-live-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.lock`
)
const POLL_MS = 500

/** Runs `work` once no other busy real-MassGen run of this checkout runs. */
export async function inLiveSlot<T>(work: () => Promise<T>): Promise<T> {
  while (!tryTake()) {
    if (!holderAlive()) fs.rmSync(LOCK, { force: true })
    else await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
  try {
    return await work()
  } finally {
    fs.rmSync(LOCK, { force: true })
  }
}

/** Creates the lock holding our pid, atomically (a hard link fails if taken). */
function tryTake(): boolean {
  const mine = `${LOCK}.${process.pid}`
  fs.writeFileSync(mine, String(process.pid))
  try {
    fs.linkSync(mine, LOCK)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  } finally {
    fs.rmSync(mine, { force: true })
  }
}

/** Whether the lock's holder still runs (a killed worker leaves its lock). */
function holderAlive(): boolean {
  let pid: number
  try {
    pid = Number(fs.readFileSync(LOCK, 'utf8'))
  } catch {
    return false
  }
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
