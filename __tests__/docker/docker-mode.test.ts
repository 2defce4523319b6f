// Docker mode for real: the bundled action under Node 24, the real MassGen
// (with its [docker] extra), a real Docker engine and a locally built
// runtime image (scripts/docker-engine.sh, scripts/build-runtime-image.sh).
// Scripted agents run commands through MassGen's command tool, so what the
// commands print proves where they ran and what they could touch.
import { containersUnder, docker } from './helpers.js'
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals'
import { randomUUID } from 'node:crypto'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import {
  commandResultsOf,
  type LlmScript
} from '../../test-support/llm-server.js'
import { runAction, type RunOptions } from '../../test-support/run-action.js'
import {
  event,
  expectNoKeyLeak,
  KEYS,
  loopbackServers,
  massgenBinary,
  TEST_IMAGE
} from '../e2e/helpers.js'

// Each run starts containers and MassGen's MCP servers: minutes when busy.
jest.setTimeout(600_000)

const IMAGE = TEST_IMAGE
const TOKEN = 'ghs_e2eTokenValue0000000000000000000000'
const loopback = loopbackServers()

const dockerMassgen = () => massgenBinary('docker')

/** No container of the run is left, and the other job's is still there. */
function expectCleanedUp(runDir: string): void {
  expect(containersUnder(runDir)).toEqual([])
  expect(
    docker(
      'ps',
      '--all',
      '--filter',
      `name=^${otherJob}$`,
      '--format',
      '{{.Names}}'
    )
  ).toBe(otherJob)
}

// Another job's container on the same runner: it must survive our runs.
const otherJob = `massgen-otherjob-${randomUUID().slice(0, 8)}`
const otherJobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-other-job-'))
// A file only the runner has: a command that sees it ran on the runner.
const hostOnly = path.join(os.tmpdir(), `host-only-${randomUUID()}`)

beforeAll(() => {
  fs.writeFileSync(hostOnly, 'runner\n')
  docker(
    'create',
    '--name',
    otherJob,
    '-v',
    `${otherJobDir}:/work`,
    IMAGE,
    'true'
  )
})
afterAll(() => {
  docker('rm', '--force', otherJob)
  fs.rmSync(hostOnly, { force: true })
  fs.rmSync(otherJobDir, { recursive: true, force: true })
})

/**
 * A checkout open to every user, so that only the mount decides whether the
 * image's user (uid 1000, not the runner's) may write it.
 */
function checkout(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docker-checkout-'))
  fs.writeFileSync(path.join(dir, 'README.md'), 'the repository\n')
  fs.chmodSync(dir, 0o777)
  return dir
}

async function dockerRun(
  script: LlmScript,
  inputs: Record<string, string>,
  extra: Partial<RunOptions> = {}
) {
  const server = await loopback.llm(script)
  const workspace = extra.workspace ?? checkout()
  const run = await runAction({
    eventName: 'pull_request',
    payload: event('pull_request.opened'),
    githubApiUrl: loopback.github().url,
    workspace,
    hideDockerenv: true,
    ...extra,
    inputs: {
      query: 'Where do your commands run?',
      models: 'chatcompletion/model-a vllm/model-b',
      'base-url': server.url,
      'openai-api-key': KEYS.openai,
      'massgen-command': dockerMassgen(),
      docker: 'true',
      'docker-image': IMAGE,
      'max-duration': '600',
      'upload-logs': 'false',
      ...inputs
    }
  })
  return { run, server, workspace }
}

const WHERE = `cat /proc/1/cmdline | tr '\\0' ' '; echo; test -e ${hostOnly} && echo ON-THE-RUNNER || echo not-on-the-runner`
const CONTEXT_WRITE = (dir: string) =>
  `touch ${dir}/agent-was-here 2>&1; echo context-write-exit=$?`
const WORKSPACE_WRITE =
  'touch workspace-probe && echo workspace-write-ok; id -u'
const ENVIRONMENT = 'env'
const NETWORK = 'ls /sys/class/net | tr "\\n" " "; echo'

describe('Docker mode with a real engine', () => {
  it('commands run in a container, the repository is read-only, the workspace writable, no key or token inside, no network for a non-coding agent', async () => {
    const workspace = checkout()
    const { run, server } = await dockerRun(
      {
        agentIds: ['agent_a', 'agent_b'],
        agents: {
          'model-a': {
            answer: 'A looked around.',
            commands: [
              WHERE,
              CONTEXT_WRITE(workspace),
              WORKSPACE_WRITE,
              ENVIRONMENT,
              NETWORK
            ],
            voteFor: 'agent_a'
          },
          'model-b': { answer: 'B ran nothing.', voteFor: 'agent_a' }
        }
      },
      { 'comment-tag': 'docker-read' },
      { workspace }
    )
    expect(run.outputs.status).toBe('success')
    expect(run.stdout).toContain(`Docker image ${IMAGE} is present`)
    expect(run.stdout).not.toMatch(/Pulling Docker image/)
    const results = commandResultsOf(server.requests, 'model-a')
    const [where, contextWrite, workspaceWrite, environment, network] =
      results.map((r) => `${r.stdout ?? ''}${r.stderr ?? ''}`)
    // (a) in MassGen's container (its keep-alive is PID 1), not on the runner
    expect(where).toContain('tail -f /dev/null')
    expect(where).toContain('not-on-the-runner')
    // (b) the repository is mounted read-only
    expect(contextWrite).toMatch(/Read-only file system/)
    expect(contextWrite).not.toContain('context-write-exit=0')
    expect(fs.existsSync(path.join(workspace, 'agent-was-here'))).toBe(false)
    // (c) the agent's own workspace is writable by the image's user
    expect(workspaceWrite).toContain('workspace-write-ok')
    // (d) no API key, no token, no runner variables in a non-coding agent's container
    for (const secret of [...Object.values(KEYS), TOKEN])
      expect(environment).not.toContain(secret)
    expect(environment).not.toMatch(
      /^(INPUT_|ACTIONS_|GITHUB_TOKEN|OPENAI_API_KEY)/m
    )
    // (e) network 'none' (the default for agents whose model client is MassGen's)
    expect(network?.trim()).toBe('lo')
    // Nothing of this run is left; the other job's container stays.
    expectCleanedUp(run.dir)
    expectNoKeyLeak(run, loopback.github())
  })

  it("context-permission 'write': MassGen still mounts the repository read-only while agents compete (write access is for its final presentation); docker-network 'bridge' gives the container a network", async () => {
    const workspace = checkout()
    const { run, server } = await dockerRun(
      {
        agentIds: ['agent_a', 'agent_b'],
        agents: {
          'model-a': {
            answer: 'A wrote.',
            commands: [CONTEXT_WRITE(workspace), NETWORK],
            voteFor: 'agent_a'
          },
          'model-b': { answer: 'B ran nothing.', voteFor: 'agent_a' }
        }
      },
      {
        'comment-tag': 'docker-write',
        'context-permission': 'write',
        'docker-network': 'bridge'
      },
      { workspace }
    )
    expect(run.outputs.status).toBe('success')
    const [contextWrite, network] = commandResultsOf(
      server.requests,
      'model-a'
    ).map((r) => `${r.stdout ?? ''}${r.stderr ?? ''}`)
    expect(contextWrite).toMatch(/Read-only file system/)
    expect(network).toMatch(/\beth0\b/)
    expectCleanedUp(run.dir)
  })

  it('after a failure, a timeout and a cancel, no container of the run is left, and the other job keeps its own', async () => {
    const failing = dockerRun(
      { default: { fail: 'http500' } },
      { 'comment-tag': 'docker-fail' }
    )
    const timedOut = dockerRun(
      { default: { delayMs: 120_000 } },
      { 'comment-tag': 'docker-timeout', 'max-duration': '20' },
      { env: { MASSGEN_ACTION_DEADLINE_GRACE_SECONDS: '5' } }
    )
    const cancelled = dockerRun(
      { default: { delayMs: 120_000 } },
      { 'comment-tag': 'docker-cancel' },
      { cancelAfterMs: 25_000 }
    )
    const [fail, timeout, cancel] = await Promise.all([
      failing,
      timedOut,
      cancelled
    ])
    expect(fail.run.outputs.status).toBe('failed')
    expect(timeout.run.outputs.status).toBe('timeout')
    expect(cancel.run.outputs.status).toBe('cancelled')
    for (const { run } of [fail, timeout, cancel]) expectCleanedUp(run.dir)
  })
})

describe('Docker mode refuses clearly before any agent starts', () => {
  it('an image that does not exist', async () => {
    const { run, server } = await dockerRun(
      { default: {} },
      {
        'comment-tag': 'docker-no-image',
        'docker-image': 'massgen-action-missing:nope'
      }
    )
    expect(run.outputs.status).toBe('failed')
    expect(run.summary).toMatch(
      /Could not pull the Docker image 'massgen-action-missing:nope'/
    )
    expect(server.requests).toEqual([])
  })

  it('a daemon that does not answer: the error suggests docker: false and says what it costs', async () => {
    const { run, server } = await dockerRun(
      { default: {} },
      { 'comment-tag': 'docker-no-daemon' },
      { env: { DOCKER_HOST: 'unix:///nonexistent/docker.sock' } }
    )
    expect(run.outputs.status).toBe('failed')
    expect(run.summary).toMatch(/needs a reachable Docker daemon/)
    expect(run.summary).toMatch(/set 'docker: false'/)
    expect(run.summary).toMatch(/read their own API keys/)
    expect(server.requests).toEqual([])
  })

  it('a job that runs inside a container (/.dockerenv), where MassGen would leave Docker mode', async () => {
    const { run, server } = await dockerRun(
      { default: {} },
      { 'comment-tag': 'docker-in-container' },
      // This machine is a container: the file is there unless hidden.
      { hideDockerenv: false }
    )
    expect(fs.existsSync('/.dockerenv')).toBe(true)
    expect(run.outputs.status).toBe('failed')
    expect(run.summary).toMatch(
      /runs inside a container \(\/\.dockerenv exists\)/
    )
    expect(server.requests).toEqual([])
  })
})
