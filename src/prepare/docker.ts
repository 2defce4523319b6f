// Docker mode's effects before the run: the daemon must answer, the image must be there.
import type { StageLog } from '../core/log.js'
import * as fs from 'node:fs'
import { Inputs } from '../core/constants.js'
import type { ProcessRunner } from '../core/process.js'
import { stderrDetail } from '../core/text.js'

export class DockerError extends Error {}

/**
 * MassGen 0.1.97 quietly runs Docker mode's commands locally when this file
 * exists (filesystem_manager/_filesystem_manager.py): inside a container
 * job, the agents would share the job's container, token included.
 */
const CONTAINER_MARKER = '/.dockerenv'

function insideContainerError(): DockerError {
  return new DockerError(
    `This job runs inside a container (${CONTAINER_MARKER} exists), and MassGen then runs ` +
      "Docker mode's commands in the job's own container instead of one per agent, " +
      'where they could read the GitHub token. Run the job on the runner itself (no ' +
      "'container:'), or set 'docker: false' to use local mode's sandbox (it needs " +
      'root with the SYS_ADMIN capability in the job container).'
  )
}

const LOCAL_MODE_COST =
  `'${Inputs.Docker}: false' to run the agents' commands on the runner in local mode's sandbox instead: ` +
  "the agents can then read their own API keys, and local mode refuses events that carry other people's text " +
  "unless 'accept-local-mode-risk' is set."

/** Pulls of the image: a registry's hiccup is retried, after these waits. */
export const PULL_RETRY_SECONDS = [5, 20] as const
/** What no retry mends: a wrong name or tag, or no right to pull it. */
const PERMANENT_PULL_ERROR =
  /manifest unknown|not found|pull access denied|unauthorized|invalid reference format/i

/**
 * The daemon answers and the image is there (pulled, with retries, when it
 * is not). Returns the image as it ran, by digest when the registry gave
 * one: a moving tag such as `latest` says nothing about what ran.
 */
export async function prepareDocker(
  runner: ProcessRunner,
  image: string,
  log: StageLog,
  insideContainer: () => boolean = () => fs.existsSync(CONTAINER_MARKER),
  wait: (seconds: number) => Promise<void> = (seconds) =>
    new Promise((resolve) => setTimeout(resolve, seconds * 1000))
): Promise<string> {
  if (insideContainer()) throw insideContainerError()
  const info = await runner.exec(
    'docker',
    ['info', '--format', '{{.ServerVersion}}'],
    {
      timeoutMs: 30_000
    }
  )
  if (info.exitCode !== 0) {
    throw new DockerError(
      `Docker mode needs a reachable Docker daemon, but 'docker info' failed` +
        `${stderrDetail(info.stderr)}. Start Docker on the runner (DOCKER_HOST is honoured), ` +
        `or set ${LOCAL_MODE_COST}`
    )
  }
  log.info(`Docker daemon ${info.stdout.trim()} is reachable`)
  if (await imageDigest(runner, image))
    log.info(`Docker image ${image} is present`)
  else await pullImage(runner, image, log, wait)
  const ran = (await imageDigest(runner, image)) ?? image
  log.info(`Docker image ${image} is ${ran}`)
  return ran
}

async function pullImage(
  runner: ProcessRunner,
  image: string,
  log: StageLog,
  wait: (seconds: number) => Promise<void>
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    log.info(`Pulling Docker image ${image}`)
    const pull = await runner.exec('docker', ['pull', '--quiet', image], {
      timeoutMs: 15 * 60_000
    })
    if (pull.exitCode === 0) return
    const retryIn = PERMANENT_PULL_ERROR.test(pull.stderr)
      ? undefined
      : PULL_RETRY_SECONDS[attempt]
    if (retryIn === undefined)
      throw new DockerError(
        `Could not pull the Docker image '${image}'${attempt > 0 ? ` (${attempt + 1} attempts)` : ''}${stderrDetail(pull.stderr)}. ` +
          `Check '${Inputs.DockerImage}', or set '${Inputs.Docker}: false'.`
      )
    log.warning(
      `Pulling the Docker image '${image}' failed${stderrDetail(pull.stderr)}; trying again in ${retryIn} s`
    )
    await wait(retryIn)
  }
}

/**
 * The image by registry digest (`name@sha256:...`), else by local id (an
 * image built on the runner has no digest); undefined when it is absent.
 */
async function imageDigest(
  runner: ProcessRunner,
  image: string
): Promise<string | undefined> {
  const inspect = await runner.exec(
    'docker',
    [
      'image',
      'inspect',
      '--format',
      '{{range .RepoDigests}}{{println .}}{{end}}{{.Id}}',
      image
    ],
    { timeoutMs: 30_000 }
  )
  if (inspect.exitCode !== 0) return undefined
  const lines = inspect.stdout
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
  const id = lines.pop()
  return lines[0] ?? (id ? `${image} (${id})` : image)
}
