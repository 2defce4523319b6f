// Docker mode's effects: the daemon must answer, the image must be there.
import { Inputs } from './constants.js'
import type { ProcessDoor } from './process.js'

export class DockerError extends Error {}

export async function prepareDocker(
  door: ProcessDoor,
  image: string,
  log: { info(message: string): void }
): Promise<void> {
  const info = await door.exec(
    'docker',
    ['info', '--format', '{{.ServerVersion}}'],
    {
      timeoutMs: 30_000
    }
  )
  if (info.exitCode !== 0) {
    throw new DockerError(
      `Docker mode needs a reachable Docker daemon, but 'docker info' failed` +
        `${firstLine(info.stderr)}. Start Docker on the runner, or set ` +
        `'${Inputs.Docker}: false' to run the agents' commands on the runner itself.`
    )
  }
  log.info(`Docker daemon ${info.stdout.trim()} is reachable`)
  const inspect = await door.exec(
    'docker',
    ['image', 'inspect', '--format', '{{.Id}}', image],
    {
      timeoutMs: 30_000
    }
  )
  if (inspect.exitCode === 0) {
    log.info(`Docker image ${image} is present`)
    return
  }
  log.info(`Pulling Docker image ${image}`)
  const pull = await door.exec('docker', ['pull', '--quiet', image], {
    timeoutMs: 15 * 60_000
  })
  if (pull.exitCode !== 0) {
    throw new DockerError(
      `Could not pull the Docker image '${image}'${firstLine(pull.stderr)}. ` +
        `Check '${Inputs.DockerImage}', or set '${Inputs.Docker}: false'.`
    )
  }
}

/**
 * MassGen names its containers `massgen-<agent>-<hex>`; a killed run leaves
 * them behind. Only containers that mount this run's work folder are removed,
 * so parallel jobs on a shared self-hosted runner keep theirs.
 */
export async function removeLeftoverContainers(
  door: ProcessDoor,
  workDir: string,
  log: { info(message: string): void; warning(message: string): void }
): Promise<number> {
  const list = await door.exec(
    'docker',
    ['ps', '--all', '--quiet', '--filter', 'name=^massgen-'],
    { timeoutMs: 30_000 }
  )
  if (list.exitCode !== 0) return 0
  const candidates = list.stdout
    .split(/\s+/)
    .filter((id) => /^[0-9a-f]{6,64}$/.test(id))
  if (candidates.length === 0) return 0
  const inspect = await door.exec(
    'docker',
    [
      'inspect',
      '--format',
      '{{.Id}}{{range .Mounts}} {{.Source}}{{end}}',
      ...candidates
    ],
    { timeoutMs: 30_000 }
  )
  const ours = inspect.stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, ...mounts]) =>
      mounts.some((m) => m === workDir || m.startsWith(`${workDir}/`))
    )
    .map(([id]) => id ?? '')
    .filter((id) => id.length > 0)
  if (ours.length === 0) return 0
  const removed = await door.exec('docker', ['rm', '--force', ...ours], {
    timeoutMs: 60_000
  })
  if (removed.exitCode === 0)
    log.info(`Removed ${ours.length} leftover MassGen container(s)`)
  else
    log.warning(
      `Could not remove leftover MassGen containers${firstLine(removed.stderr)}`
    )
  return ours.length
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0]?.trim()
  return line ? `: ${line.slice(0, 300)}` : ''
}
