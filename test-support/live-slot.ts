// One busy real-MassGen run at a time across jest's workers.
//
// A run whose agents use MassGen's command tool needs MassGen's MCP servers
// to start within MassGen's hard-coded 30 s each round (docs/massgen-0.1.97.md,
// "Command tool"); each server imports MassGen (~7 s of CPU). Two such runs at
// once on a 2-core machine can push a start past 30 s, and the tool is then
// missing from that round. So the real runs of all test files share this
// slot through a lock file: a run holds it while it starts MassGen or needs
// the command tool, and waits on a model or a deadline without it.
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { ROOT } from './run-action.ts'

/**
 * One lock per checkout in one temp folder: another checkout's suite is not
 * ours to wait on, and `npm test` gives each run a temp folder of its own.
 */
const LOCK = path.join(
  os.tmpdir(),
  `massgen-action-live-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.lock`
)
const POLL_MS = 500

/**
 * Runs `work` once no other run of this checkout holds the slot. `work` may
 * give the slot up early (`release`), once the part that needs the machine
 * is over: a run that only waits gives it up when its agents have sent their
 * first request (MassGen and its first MCP servers have started), a busy run
 * when its commands have run.
 */
export async function inLiveSlot<T>(
  work: (release: () => void) => Promise<T>
): Promise<T> {
  while (!tryTake()) {
    if (!holderAlive()) fs.rmSync(LOCK, { force: true })
    else await sleep(POLL_MS)
  }
  let held = true
  const release = () => {
    if (held) fs.rmSync(LOCK, { force: true })
    held = false
  }
  try {
    return await work(release)
  } finally {
    release()
  }
}

/**
 * Calls `release` once `done()` holds (checked every half second), or once
 * `run` has settled, whichever comes first.
 */
export async function releaseWhen(
  done: () => boolean,
  release: () => void,
  run: Promise<unknown>
): Promise<void> {
  let settled = false
  const end = () => {
    settled = true
  }
  run.then(end, end)
  while (!done() && !settled) await sleep(POLL_MS)
  release()
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

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
