// The bench's table rows, from what the sections measured.
import type { Measured } from './measure.ts'
import type { DockerVsLocal, FakeRuns } from './sections.ts'
import { heap, med, mib, ms, ratio, s, spread, type Row } from './format.ts'

type Key = keyof Measured

const medOf = (runs: Measured[], key: Key) =>
  med(runs.map((r) => r[key] as number | undefined))
const each = (runs: Measured[], key: Key) =>
  runs.map((r) => r[key] as number | undefined)

export function startupRow(bare: number[], bundle: number[]): Row {
  return [
    'Node start-up: `node -e 0` / `node dist/index.js` (median of 5)',
    `${ms(med(bare))} / ${ms(med(bundle))}`,
    '',
    ''
  ]
}

/** Overhead and report latency of the real-MassGen runs. */
export function realRows(real: Measured[], runs: number): Row[] {
  const m = (key: Key) => medOf(real, key)
  const overheads = real.map((r) =>
    r.massgenMs === undefined ? undefined : r.wallMs - r.massgenMs
  )
  return [
    [
      `real MassGen, 2 agents: action wall (median of ${runs})`,
      s(m('wallMs')),
      spread(each(real, 'wallMs'), ms),
      ''
    ],
    [
      '  MassGen process wall (wrapper)',
      s(m('massgenMs')),
      spread(each(real, 'massgenMs'), ms),
      ''
    ],
    [
      '  **overhead** = action − MassGen',
      ms(med(overheads)),
      `ratio ${ratio(m('wallMs'), m('massgenMs'), 3)}`,
      '< 300 ms'
    ],
    [
      '  before MassGen starts (spawn → wrapper start)',
      ms(m('beforeMs')),
      `spawn → 1st GitHub request ${ms(m('firstRequestMs'))}; ${real[0]?.requestsBefore ?? '?'} requests over ${ms(m('githubBeforeMs'))} (PR context, progress comment)`,
      ''
    ],
    [
      '  after MassGen exits (wrapper end → action exit)',
      ms(m('afterMs')),
      spread(each(real, 'afterMs'), ms),
      ''
    ],
    [
      '  **report latency** (MassGen exit → last comment write on the server)',
      ms(m('reportMs')),
      spread(each(real, 'reportMs'), ms),
      '< 150 ms'
    ],
    [
      '  peak RSS of the action',
      mib(m('maxRssMiB')),
      `${real[0]?.commentWrites ?? '?'} comment writes, ${real[0]?.requests ?? '?'} requests`,
      ''
    ]
  ]
}

/** Scale and memory with the fake MassGen; n/a for parts not run. */
export function fakeRows(fake: Partial<FakeRuns>): Row[] {
  const { small, scale, quiet, loud, capped } = fake
  return [
    [
      'fake MassGen, small (2 agents): action wall / report latency / peak RSS',
      `${ms(small?.wallMs)} / ${ms(small?.reportMs)} / ${mib(small?.maxRssMiB)}`,
      '',
      ''
    ],
    [
      '**scale**: 16 agents × 1 MiB answers, 100 MiB logs: time to report',
      ms(scale?.reportMs),
      `action wall ${ms(scale?.wallMs)}, after exit ${ms(scale?.afterMs)}`,
      '< 1 s'
    ],
    [
      '  peak RSS of the action',
      mib(scale?.maxRssMiB),
      `${heap(scale ?? {})}; small run ${mib(small?.maxRssMiB)}`,
      '< 150 MB'
    ],
    [
      '  comment size / job summary size',
      `${scale?.commentChars ?? 'n/a'} chars / ${scale?.summaryBytes} bytes`,
      'limits 65,536 / 1,048,576',
      ''
    ],
    [
      `2 agents, small answers, ${process.env.BENCH_STDOUT_MB ?? 200} MiB of MassGen stdout: time to report / peak RSS`,
      `${ms(quiet?.reportMs)} / ${mib(quiet?.maxRssMiB)}`,
      `${heap(quiet ?? {})}; printed ${((quiet?.stdoutBytes ?? 0) / 2 ** 20).toFixed(0)} MiB in ${ms(quiet?.massgenMs)}`,
      '< 150 MB'
    ],
    [
      'scale + 200 MiB of MassGen stdout: time to report / peak RSS',
      `${ms(loud?.reportMs)} / ${mib(loud?.maxRssMiB)}`,
      `${heap(loud ?? {})}; MassGen ran ${ms(loud?.massgenMs)}`,
      '< 150 MB'
    ],
    [
      '  same, V8 heap capped (`--max-old-space-size=48 --max-semi-space-size=2`)',
      `${capped?.status ?? 'n/a'}, ${ms(capped?.reportMs)} / ${mib(capped?.maxRssMiB)}`,
      `${heap(capped ?? {})}: live memory is bounded; the rest is uncollected garbage`,
      ''
    ]
  ]
}

export function setupRows(
  local: Measured | undefined,
  script: number[]
): Row[] {
  return [
    [
      '**setup, warm**: prepareMassgen `local` (the action, its own log line)',
      local?.prepare ?? 'n/a',
      `that run: action wall ${ms(local?.wallMs)}`,
      '< 5 s'
    ],
    [
      '  `scripts/setup-massgen.sh`, venv present (median of 3)',
      ms(med(script)),
      spread(script, ms),
      '< 5 s'
    ]
  ]
}

export function dockerVsLocalRows(results: DockerVsLocal): Row[] {
  if ('skipped' in results)
    return [['Docker mode vs local mode', 'skipped', results.skipped, '']]
  const { docker, local, dockerNoKill } = results
  const failed = [...docker, ...local, ...dockerNoKill].filter(
    (r) => r.status !== 'success'
  ).length
  const cleanup = (runs: Measured[]) =>
    `${ms(medOf(runs, 'completedToExitMs'))} ${spread(each(runs, 'completedToExitMs'), ms)}`
  const rows: Row[] = [
    [
      `**Docker mode vs local mode**, real MassGen, 2 agents, 1 command, image present: action wall (median of ${docker.length} each, alternated)`,
      `${s(medOf(docker, 'wallMs'))} / ${s(medOf(local, 'wallMs'))}`,
      `ratio ${ratio(medOf(docker, 'wallMs'), medOf(local, 'wallMs'))}; Docker ${spread(each(docker, 'wallMs'), ms)}, local ${spread(each(local, 'wallMs'), ms)}${failed ? `; ${failed} run(s) did not succeed` : ''}`,
      ''
    ],
    [
      '  MassGen process wall (wrapper), Docker / local',
      `${s(medOf(docker, 'massgenMs'))} / ${s(medOf(local, 'massgenMs'))}`,
      `ratio ${ratio(medOf(docker, 'massgenMs'), medOf(local, 'massgenMs'))}`,
      ''
    ],
    [
      '  MassGen result line (`COMPLETED:`) → MassGen exit, Docker / local',
      `${ms(medOf(docker, 'completedToExitMs'))} / ${ms(medOf(local, 'completedToExitMs'))}`,
      `Docker: containers killed at that line, then MassGen's stop + remove ${spread(each(docker, 'completedToExitMs'), ms)}`,
      ''
    ]
  ]
  if (dockerNoKill.length > 0)
    rows.push([
      '  Docker, bundle patched not to kill the containers at `COMPLETED:`: action wall / result line → exit',
      `${s(medOf(dockerNoKill, 'wallMs'))} / ${cleanup(dockerNoKill)}`,
      `with the kill: ${s(medOf(docker, 'wallMs'))} / ${cleanup(docker)}`,
      ''
    ])
  return rows
}

/** The cold installs measured now, or the figures recorded earlier. */
export function coldRows(measured: Row[] | undefined): Row[] {
  if (measured) return measured
  return [
    [
      'setup, cold uv, locked, bytecode (`setup-massgen.sh`) — recorded',
      '35.8 s, 47.2 s',
      'docs/setup-speed.md; `--cold` re-measures',
      ''
    ],
    [
      'setup, cold pip, locked — recorded',
      '128.6 s',
      'docs/setup-speed.md',
      ''
    ],
    [
      'setup, cold uv, `[docker]`, `prepareMassgen` — recorded',
      '59.6 s',
      'docs/setup-speed.md',
      ''
    ]
  ]
}
