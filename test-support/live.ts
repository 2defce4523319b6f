// What the tests started and must not leave behind: the bundled action's
// processes (with everything they started, MassGen included) and the
// loopback servers. A test that times out stops waiting, but its child goes
// on running and posting to a shared stand-in unless someone ends it:
// __tests__/teardown.ts calls endAll() after each test and each file.
// Erasable TypeScript with no jest import: the stand-in servers run under
// plain Node 24 too.
import type { ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import * as fs from 'node:fs'

/** Set in each tracked child's environment; every process it starts inherits it. */
export const LIVE_MARKER_VARIABLE = 'MASSGEN_ACTION_TEST_RUN'

interface LiveChild {
  child: ChildProcess
  marker: string
}

const children = new Set<LiveChild>()
const servers = new Set<{ close(): Promise<void> }>()

/**
 * A marker for a child about to be spawned: put `env` into its environment
 * (spawn it `detached`, so it leads a process group of its own), then pass
 * the child to `track`.
 */
export function liveMarker(): {
  env: Record<string, string>
  track(child: ChildProcess): void
} {
  const marker = randomUUID()
  return {
    env: { [LIVE_MARKER_VARIABLE]: marker },
    track(child) {
      const entry = { child, marker }
      children.add(entry)
      child.once('close', () => children.delete(entry))
    }
  }
}

/** Registers a started server; its close() takes it off the list. */
export function trackServer<T extends { close(): Promise<void> }>(
  server: T
): T {
  const close = server.close.bind(server)
  servers.add(server)
  server.close = () => {
    servers.delete(server)
    return close()
  }
  return server
}

/** The children still running. */
export function liveChildren(): number {
  return children.size
}

/**
 * SIGKILLs every tracked child's process group, then every process that
 * carries a tracked child's marker (MassGen runs in a group of its own, and
 * its MCP servers in theirs). Returns how many children were still running.
 */
export function killLiveChildren(): number {
  const live = [...children]
  const markers = new Set(live.map((c) => c.marker))
  for (const { child } of live) {
    if (child.pid === undefined) continue
    try {
      process.kill(-child.pid, 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
  for (const pid of pidsWithMarkers(markers)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // Gone, or not ours.
    }
  }
  return live.length
}

/** Closes every server not closed yet. */
export async function closeOpenServers(): Promise<number> {
  const open = [...servers]
  await Promise.all(open.map((s) => s.close().catch(() => undefined)))
  return open.length
}

function pidsWithMarkers(markers: Set<string>): number[] {
  if (markers.size === 0) return []
  const found: number[] = []
  let entries: string[]
  try {
    entries = fs.readdirSync('/proc')
  } catch {
    return found
  }
  for (const pid of entries) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue
    try {
      const environ = fs.readFileSync(`/proc/${pid}/environ`, 'latin1')
      for (const variable of environ.split('\0')) {
        if (
          variable.startsWith(`${LIVE_MARKER_VARIABLE}=`) &&
          markers.has(variable.slice(LIVE_MARKER_VARIABLE.length + 1))
        )
          found.push(Number(pid))
      }
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found
}
