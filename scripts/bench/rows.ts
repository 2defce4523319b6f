// The bench's table rows, from what the sections measured.
import type { Measured } from './measure.ts'
import type {
  ConfigComparison,
  ConfigKind,
  DockerVsLocal,
  FakeRuns
} from './sections.ts'
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

/** Each round's a / b (the runs of round i of two kinds). */
function paired(
  a: Measured[],
  b: Measured[],
  key: Key
): (number | undefined)[] {
  return a.map((run, i) => {
    const x = run[key]
    const y = b[i]?.[key]
    return typeof x === 'number' && typeof y === 'number' && y > 0
      ? x / y
      : undefined
  })
}

export function dockerVsLocalRows(results: DockerVsLocal): Row[] {
  if ('skipped' in results)
    return [['Docker mode vs local mode', 'skipped', results.skipped, '']]
  const { docker, local, dockerHostRead, dockerCommands, dockerNoKill } =
    results
  const all = [docker, local, dockerHostRead, dockerCommands, dockerNoKill]
  const failed = all.flat().filter((r) => r.status !== 'success').length
  const wall = (runs: Measured[]) => medOf(runs, 'massgenMs')
  const vsLocal = (runs: Measured[]) =>
    `ratio to local ${ratio(wall(runs), wall(local))}; ${spread(each(runs, 'massgenMs'), ms)}`
  const offered = (kind: keyof typeof results.commandsOffered) => {
    const seen = results.commandsOffered[kind] ?? []
    return seen.length === 0
      ? ''
      : seen.every(Boolean)
        ? 'yes'
        : seen.some(Boolean)
          ? 'some runs'
          : 'no'
  }
  const cleanup = (runs: Measured[]) =>
    `${ms(medOf(runs, 'completedToExitMs'))} ${spread(each(runs, 'completedToExitMs'), ms)}`
  const rows: Row[] = [
    [
      `**Docker mode vs local mode, a review that runs no command**, real MassGen, 2 agents, image present: MassGen wall (median of ${docker.length} each, alternated), Docker / local`,
      `${s(wall(docker))} / ${s(wall(local))}`,
      `**ratio ${ratio(wall(docker), wall(local))}**; Docker ${spread(each(docker, 'massgenMs'), ms)}, local ${spread(each(local, 'massgenMs'), ms)}; command tool offered: ${offered('docker')} / ${offered('local')}${failed ? `; ${failed} run(s) did not succeed` : ''}`,
      '<= 1.3'
    ],
    [
      '  action wall, Docker / local',
      `${s(medOf(docker, 'wallMs'))} / ${s(medOf(local, 'wallMs'))}`,
      `**ratio ${ratio(medOf(docker, 'wallMs'), medOf(local, 'wallMs'))}**; Docker ${spread(each(docker, 'wallMs'), ms)}, local ${spread(each(local, 'wallMs'), ms)}`,
      '<= 1.3'
    ],
    [
      "  paired: the median of each round's Docker / local ratio (the runs of a round are back to back, so the load drifts less between them), MassGen wall; action wall",
      `${ratio(med(paired(docker, local, 'massgenMs')), 1)}; ${ratio(med(paired(docker, local, 'wallMs')), 1)}`,
      `MassGen wall ${spread(paired(docker, local, 'massgenMs'), (x) => ratio(x, 1))}; action wall ${spread(paired(docker, local, 'wallMs'), (x) => ratio(x, 1))}`,
      '<= 1.3'
    ],
    [
      '  the action outside MassGen, Docker / local: spawn -> MassGen start; MassGen exit -> action exit',
      `${ms(medOf(docker, 'beforeMs'))} / ${ms(medOf(local, 'beforeMs'))}; ${ms(medOf(docker, 'afterMs'))} / ${ms(medOf(local, 'afterMs'))}`,
      `Docker before ${spread(each(docker, 'beforeMs'), ms)}, after ${spread(each(docker, 'afterMs'), ms)}; local before ${spread(each(local, 'beforeMs'), ms)}, after ${spread(each(local, 'afterMs'), ms)}`,
      ''
    ],
    [
      "  of which the bench's scripts/without-dockerenv.sh (Docker runs only; no runner needs it): its start, median of 5",
      ms(med(results.hidingMs)),
      spread(results.hidingMs, ms),
      ''
    ],
    ...(dockerHostRead.length > 0
      ? [
          [
            '  candidate not taken: Docker mode, the read server on the runner (no container): MassGen wall',
            s(wall(dockerHostRead)),
            vsLocal(dockerHostRead),
            ''
          ] as Row
        ]
      : []),
    ...(dockerCommands.length > 0
      ? [
          [
            `  Docker mode with \`agent-commands: true\` (MassGen's command server, the default before; no command run): MassGen wall`,
            s(wall(dockerCommands)),
            `${vsLocal(dockerCommands)}; command tool offered: ${offered('dockerCommands')}`,
            ''
          ] as Row
        ]
      : [])
  ]
  if (dockerNoKill.length > 0)
    rows.push([
      '  Docker with commands, one command run, bundle patched not to kill the containers at `COMPLETED:`: action wall / result line → exit',
      `${s(medOf(dockerNoKill, 'wallMs'))} / ${cleanup(dockerNoKill)}`,
      `with the kill (no command run): ${s(medOf(dockerCommands, 'wallMs'))} / ${cleanup(dockerCommands)}`,
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

const LABELS: Record<ConfigKind, string> = {
  default: '**default config** (read server, no commands in local mode)',
  previous:
    '  previous default (MassGen file servers via npx + Python command server)',
  floor: '  MassGen floor (no tools, no `cwd`)'
}

/** Time to consensus per config, as a ratio to MassGen's floor; install size. */
export function configRows(results: ConfigComparison): Row[] {
  const floor = medOf(results.floor, 'massgenMs')
  const row = (kind: ConfigKind): Row => {
    const runs = results[kind]
    const median = medOf(runs, 'massgenMs')
    const tools = runs[0]?.mcpTools ?? []
    const commands = tools.some((t) => t.endsWith('execute_command'))
    const failed = runs.filter((r) => r.status !== 'success').length
    const label =
      kind === 'default'
        ? `**time to consensus**, 2 scripted agents, MassGen wall (median of ${runs.length}, interleaved): ${LABELS.default}`
        : LABELS[kind]
    return [
      label,
      `${s(median)} (×${ratio(median, floor)} floor)`,
      `${spread(each(runs, 'massgenMs'), s)}; load ${runs.map((r) => r.load.toFixed(1)).join(', ')}; ` +
        `${tools.length} MCP tools${commands ? ' incl. commands' : ''}` +
        (failed ? `; ${failed} run(s) did not succeed` : ''),
      kind === 'default' ? '≤ 15 s quiet' : ''
    ]
  }
  const gb = (bytes: number) => `${(bytes / 1e9).toFixed(2)} GB`
  const { size } = results
  return [
    row('default'),
    row('previous'),
    row('floor'),
    [
      'install size: the MassGen virtualenv in use / after the install removes unused packages',
      `${gb(size.bytes)} / ${gb(size.bytes - size.prunable)}`,
      `${size.names} distributions, ${gb(size.prunable)} (src/prepare/install/prune.ts); ${size.venv}`,
      ''
    ]
  ]
}
