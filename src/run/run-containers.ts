// The containers of one run: MassGen's `massgen-*` containers that mount
// this run's work folder, killed once MassGen has printed its result and
// removed when a run is cleaned up; parallel jobs on a shared self-hosted
// runner keep theirs.
import type { StageLog } from '../core/log.js'
import { isInside } from '../core/paths.js'
import type { ProcessRunner } from '../core/process.js'
import { stderrDetail } from '../core/text.js'
import { READ_CONTAINER_PREFIX } from '../plan/contained-read-server.js'

/**
 * MassGen names its containers `massgen-<agent>-<hex>`; a killed run leaves
 * them behind. Only containers that mount this run's work folder are removed,
 * so parallel jobs on a shared self-hosted runner keep theirs.
 */
export async function removeLeftoverContainers(
  runner: ProcessRunner,
  workDir: string,
  log: StageLog
): Promise<number> {
  const ours = await findRunContainers(runner, workDir)
  if (ours.length === 0) return 0
  const removed = await runner.exec('docker', ['rm', '--force', ...ours], {
    timeoutMs: 60_000
  })
  if (removed.exitCode === 0)
    log.info(`Removed ${ours.length} MassGen container(s) of this run`)
  else
    log.warning(
      `Could not remove leftover MassGen containers${stderrDetail(removed.stderr)}`
    )
  return ours.length
}

/**
 * Once MassGen has printed its result, its containers have nothing left to
 * do; but MassGen stops each one with a 10 s timeout, and the `tail` that
 * keeps a container alive ignores SIGTERM as PID 1, so every container costs
 * those 10 s. Killed first, each stop returns at once.
 */
export async function killRunContainers(
  runner: ProcessRunner,
  workDir: string,
  /**
   * Leave the read container running: a vote round on the findings (a
   * second MassGen) may still read through it.
   */
  { keepReadContainer = false }: { keepReadContainer?: boolean } = {}
): Promise<number> {
  const ours = await findRunContainers(
    runner,
    workDir,
    keepReadContainer ? { except: READ_CONTAINER_PREFIX } : {}
  )
  if (ours.length === 0) return 0
  await runner.exec('docker', ['kill', ...ours], { timeoutMs: 30_000 })
  return ours.length
}

/** Containers named `massgen-*` that mount this run's work folder (ids). */
async function findRunContainers(
  runner: ProcessRunner,
  workDir: string,
  /** Leaves out the containers whose name starts so. */
  { except }: { except?: string } = {}
): Promise<string[]> {
  const list = await runner.exec(
    'docker',
    ['ps', '--all', '--quiet', '--filter', 'name=^massgen-'],
    { timeoutMs: 30_000 }
  )
  if (list.exitCode !== 0) return []
  const candidates = list.stdout
    .split(/\s+/)
    .filter((id) => /^[0-9a-f]{6,64}$/.test(id))
  if (candidates.length === 0) return []
  const inspect = await runner.exec(
    'docker',
    [
      'inspect',
      '--format',
      '{{.Id}} {{.Name}}{{range .Mounts}} {{.Source}}{{end}}',
      ...candidates
    ],
    { timeoutMs: 30_000 }
  )
  return inspect.stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, name = '']) => !except || !name.startsWith(`/${except}`))
    .filter(([, , ...mounts]) => mounts.some((m) => isInside(m, workDir)))
    .map(([id]) => id ?? '')
    .filter((id) => id.length > 0)
}
