// Docker mode's image: pulled with retries when absent, and named by the
// digest that ran (a moving tag says nothing about what ran).
import { describe, expect, it } from '@jest/globals'
import {
  DockerError,
  PULL_RETRY_SECONDS,
  prepareDocker
} from '../../src/prepare/docker.js'
import type { ExecResult, ProcessRunner } from '../../src/core/process.js'

const IMAGE = 'ghcr.io/massgen/mcp-runtime-sudo:latest'
const DIGEST = `ghcr.io/massgen/mcp-runtime-sudo@sha256:${'ab'.repeat(32)}`
const ID = `sha256:${'cd'.repeat(32)}`

/** A docker CLI whose pulls fail `failures` times; the image exists after a pull. */
function docker(failures: number, digests: string[] = [DIGEST]) {
  const calls: string[][] = []
  let present = false
  let failed = 0
  const result = (exitCode: number, stdout = '', stderr = ''): ExecResult => ({
    exitCode,
    signal: null,
    stdout,
    stderr
  })
  const runner: ProcessRunner = {
    start() {
      throw new Error('not used')
    },
    exec(_command, args) {
      calls.push(args)
      if (args[0] === 'info') return Promise.resolve(result(0, '27.5.1\n'))
      if (args[0] === 'image')
        return Promise.resolve(
          present
            ? result(0, [...digests, ID].join('\n') + '\n')
            : result(1, '', 'No such image')
        )
      if (failed < failures) {
        failed++
        return Promise.resolve(result(1, '', 'net/http: TLS handshake timeout'))
      }
      present = true
      return Promise.resolve(result(0))
    }
  }
  const log = { lines: [] as string[] }
  const logger = {
    info: (m: string) => log.lines.push(`info ${m}`),
    warning: (m: string) => log.lines.push(`warning ${m}`)
  }
  const waits: number[] = []
  const wait = (s: number) => {
    waits.push(s)
    return Promise.resolve()
  }
  const prepare = () => prepareDocker(runner, IMAGE, logger, () => false, wait)
  return { calls, log, waits, prepare }
}

describe('prepareDocker', () => {
  it('pulls an absent image and names it by its registry digest, in the log too', async () => {
    const d = docker(0)
    await expect(d.prepare()).resolves.toBe(DIGEST)
    expect(d.calls.filter((a) => a[0] === 'pull')).toHaveLength(1)
    expect(d.log.lines).toContain(`info Docker image ${IMAGE} is ${DIGEST}`)
  })

  it('retries a failed pull after waiting, and warns each time', async () => {
    const d = docker(2)
    await expect(d.prepare()).resolves.toBe(DIGEST)
    expect(d.waits).toEqual([...PULL_RETRY_SECONDS])
    expect(d.log.lines.filter((l) => l.startsWith('warning'))).toEqual([
      `warning Pulling the Docker image '${IMAGE}' failed: net/http: TLS handshake timeout; trying again in 5 s`,
      `warning Pulling the Docker image '${IMAGE}' failed: net/http: TLS handshake timeout; trying again in 20 s`
    ])
  })

  it('gives up after the last attempt, naming the input', async () => {
    const d = docker(3)
    const error = await d.prepare().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(DockerError)
    expect((error as Error).message).toContain(
      `Could not pull the Docker image '${IMAGE}' (3 attempts)`
    )
    expect((error as Error).message).toContain("Check 'docker-image'")
  })

  it('an image built on the runner has no digest: named by its id', async () => {
    const d = docker(0, [])
    await expect(d.prepare()).resolves.toBe(`${IMAGE} (${ID})`)
  })
})
