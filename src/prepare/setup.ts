// Everything before MassGen starts, at once: the pull request's reads (and
// the config written from them), the Docker image, and MassGen's restore or
// install. Each part is a phase with its start and end; the setup takes as
// long as its longest phase plus what little the others add (the critical
// path), where it once took their sum. The first failure fails the setup
// without waiting for the rest: what they leave is safe to abandon (an
// install is built beside its place and renamed in last).

import type { SetupPhase, SetupTimings } from '../core/types.js'

export type { SetupPhase, SetupTimings }

interface PhaseSpec<T> {
  name: string
  /** Undefined: nothing to do in this run (no phase, an undefined result). */
  run: (() => Promise<T>) | undefined
}

/**
 * Starts every phase at once; resolves with their results, by the same
 * names, and the timings; rejects with the first failure.
 */
export async function concurrently<R extends Record<string, unknown>>(
  phases: { [K in keyof R]: PhaseSpec<R[K]> },
  now: () => number = () => performance.now()
): Promise<{
  results: { [K in keyof R]: R[K] | undefined }
  timings: SetupTimings
}> {
  const origin = now()
  const seconds = () => Math.round(now() - origin) / 1000
  const timed: { key: keyof R; phase?: SetupPhase }[] = []
  const entries = Object.entries(phases) as [keyof R, PhaseSpec<unknown>][]
  const values = await Promise.all(
    entries.map(async ([key, spec]) => {
      const slot: { key: keyof R; phase?: SetupPhase } = { key }
      timed.push(slot)
      if (!spec.run) return undefined
      const start = seconds()
      const value = await spec.run()
      slot.phase = { name: spec.name, start, end: seconds() }
      return value
    })
  )
  const results = Object.fromEntries(
    entries.map(([key], index) => [key, values[index]])
  ) as { [K in keyof R]: R[K] | undefined }
  const done = timed.flatMap((t) => (t.phase ? [t.phase] : []))
  return {
    results,
    timings: {
      phases: done,
      criticalPath: Math.max(0, ...done.map((p) => p.end))
    }
  }
}

/** "critical path 41.2 s, x1.01 its longest phase (MassGen 40.8 s)". */
export function describeSetup(timings: SetupTimings): string {
  const longest = longestPhase(timings)
  const parts = timings.phases.map(
    (p) => `${p.name} ${(p.end - p.start).toFixed(1)} s`
  )
  if (!longest) return 'nothing to set up'
  const took = longest.end - longest.start
  const ratio = took > 0 ? timings.criticalPath / took : 1
  return (
    `${parts.join(', ')}; critical path ${timings.criticalPath.toFixed(1)} s, ` +
    `x${ratio.toFixed(2)} its longest phase (${longest.name})`
  )
}

export function longestPhase(timings: SetupTimings): SetupPhase | undefined {
  return [...timings.phases].sort(
    (a, b) => b.end - b.start - (a.end - a.start)
  )[0]
}
