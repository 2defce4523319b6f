// Where a run's time went, for the job summary: the setup's phases (they
// run at once, prepare/setup.ts) and its critical path, MassGen's start-up,
// its rounds, and the report. Every figure is measured by the action itself,
// so users see it for their own runners.
import type { RunTimings } from '../core/types.js'
import { longestPhase } from '../prepare/setup.js'

const s = (seconds: number) => `${seconds.toFixed(1)} s`

/** A collapsed table; '' when nothing was timed. */
export function timingsSection(timings: RunTimings | undefined): string {
  if (!timings) return ''
  const rows: string[] = []
  const setup = timings.setup
  if (setup) {
    for (const phase of setup.phases)
      rows.push(
        `| setup: ${phase.name} | ${s(phase.end - phase.start)} | from ${s(phase.start)} to ${s(phase.end)} |`
      )
    const longest = longestPhase(setup)
    const took = longest ? longest.end - longest.start : 0
    rows.push(
      `| **setup, critical path** | **${s(setup.criticalPath)}** | ` +
        (longest && took > 0
          ? `x${(setup.criticalPath / took).toFixed(2)} its longest phase (${longest.name}); the phases run at once |`
          : 'the phases run at once |')
    )
  }
  if (timings.massgenStart !== undefined)
    rows.push(
      `| MassGen start | ${s(timings.massgenStart)} | spawn to its first status |`
    )
  if (timings.rounds !== undefined)
    rows.push(`| MassGen rounds | ${s(timings.rounds)} | to its exit |`)
  if (timings.report !== undefined)
    rows.push(
      `| report | ${s(timings.report)} | clean-up, logs artifact, review |`
    )
  if (rows.length === 0) return ''
  return [
    '<details><summary>Where the time went</summary>',
    '',
    '| part | time | |',
    '| --- | --- | --- |',
    ...rows,
    '',
    '</details>'
  ].join('\n')
}
