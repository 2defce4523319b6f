// Docker mode for real: the bundled action under Node 24, the real MassGen
// (with its [docker] extra), a real Docker engine and a locally built
// runtime image (scripts/docker-engine.sh, scripts/build-runtime-image.sh).
// Scripted agents run commands through MassGen's command tool, so what the
// commands print proves where they ran and what they could touch.
//
// Each real run costs MassGen's start and containers, so the runs are few,
// made in beforeAll: three refused before any agent starts, three of one
// agent that end early (they take the live slot together, only to start,
// live-slot.ts), and one busy run whose script proves many facts; each fact
// is its own test. docs/test-contracts.md lists which test proves which fact.
import { containersUnder, docker } from './helpers.js'
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals'
import { randomUUID } from 'node:crypto'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import {
  commandResultsOf,
  type CommandResult,
  type LlmScript,
  type LlmServer
} from '../../test-support/llm-server.js'
import { inLiveSlot, releaseWhen } from '../../test-support/live-slot.js'
import { massgenBinary } from '../../test-support/massgen-binary.js'
import {
  runAction,
  type ActionRun,
  type RunOptions
} from '../../test-support/run-action.js'
import {
  commentsOn,
  event,
  expectNoKeyLeak,
  KEYS,
  loopbackServers,
  TEST_IMAGE
} from '../e2e/helpers.js'

// Each run starts containers and MassGen's MCP servers: minutes when busy.
jest.setTimeout(900_000)

const IMAGE = TEST_IMAGE
const TOKEN = 'ghs_e2eTokenValue00000000000000000000000'
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

/**
 * One run of the action in Docker mode. With `slot`, the run holds the live
 * slot (live-slot.ts) until `slot.busy(server)` is over: its first request,
 * or its commands.
 */
async function dockerRun(
  script: LlmScript,
  inputs: Record<string, string>,
  extra: Partial<RunOptions> = {},
  slot?: { release: () => void; done: (server: LlmServer) => boolean }
) {
  const server = await loopback.llm(script)
  const workspace = extra.workspace ?? checkout()
  const running = runAction({
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
      // The question asks for commands (a read-only review has none by
      // default: contained-read.test.ts).
      'agent-commands': 'true',
      'max-duration': '600',
      'upload-logs': 'false',
      ...inputs
    }
  })
  if (slot) void releaseWhen(() => slot.done(server), slot.release, running)
  return { run: await running, server, workspace }
}

/** Where a command ran: user, folder, uid, container, distribution. */
const WHO =
  'echo hello-from-$(whoami); pwd; id -u; test -f /.dockerenv && echo in-a-container; . /etc/os-release && echo "$ID-$VERSION_CODENAME"'
const FAILING = 'echo to-stderr >&2; exit 3'
const PID1 = `cat /proc/1/cmdline | tr '\\0' ' '; echo; test -e ${hostOnly} && echo ON-THE-RUNNER || echo not-on-the-runner`
const CONTEXT_WRITE = (dir: string) =>
  `touch ${dir}/agent-was-here 2>&1; echo context-write-exit=$?`
const WORKSPACE_WRITE =
  'touch workspace-probe && echo workspace-write-ok; id -u'
const ENVIRONMENT = 'env'
const NETWORK = 'ls /sys/class/net | tr "\\n" " "; echo'

type DockerRun = Awaited<ReturnType<typeof dockerRun>>

/**
 * The busy run: one agent, A (chatcompletion, so MassGen is given the OpenAI
 * key), runs every probe in its container and votes for itself. One agent
 * proves every fact here at half the start of two (MassGen starts each
 * agent's servers every round): the container, mounts and clean-up are per
 * agent, and consensus itself is the local run's (e2e/real-massgen).
 */
async function probeRun(release: () => void): Promise<DockerRun> {
  const workspace = checkout()
  const probes = 7
  return dockerRun(
    {
      agentIds: ['agent_a'],
      agents: {
        'model-a': {
          answer: 'A looked around.',
          commands: [
            WHO,
            FAILING,
            PID1,
            CONTEXT_WRITE(workspace),
            WORKSPACE_WRITE,
            ENVIRONMENT,
            NETWORK
          ],
          voteFor: 'agent_a'
        }
      }
    },
    { models: 'chatcompletion/model-a', 'comment-tag': 'docker-read' },
    { workspace },
    {
      release,
      done: (server) =>
        commandResultsOf(server.requests, 'model-a').length >= probes
    }
  )
}

/**
 * Runs that end in failure, at the deadline and by a cancel: one agent each
 * (the container and MassGen's servers of one agent prove the clean-up as
 * well as two, at half the start), started together. They hold the live
 * slot only until each has sent its first request (MassGen, its container
 * and its servers are up), and need no tool in time: MassGen runs a turn
 * whose server was late without it.
 */
function endingRuns(): Promise<DockerRun[]> {
  return inLiveSlot((release) => {
    let started = 0
    const untilStarted = {
      release: () => {
        if (++started === 3) release()
      },
      done: (server: LlmServer) => server.requests.length > 0
    }
    const oneAgent = { models: 'vllm/model-a' }
    return Promise.all([
      dockerRun(
        { default: { fail: 'http500' } },
        { ...oneAgent, 'comment-tag': 'docker-fail' },
        {},
        untilStarted
      ),
      dockerRun(
        { default: { delayMs: 120_000 } },
        { ...oneAgent, 'comment-tag': 'docker-timeout', 'max-duration': '20' },
        { env: { MASSGEN_ACTION_DEADLINE_GRACE_SECONDS: '5' } },
        untilStarted
      ),
      dockerRun(
        { default: { delayMs: 120_000 } },
        { ...oneAgent, 'comment-tag': 'docker-cancel' },
        { cancelAfterMs: 25_000 },
        untilStarted
      )
    ])
  })
}

/** Runs Docker mode must refuse before any agent starts. */
function refusedRuns(): Promise<DockerRun[]> {
  return Promise.all([
    dockerRun(
      { default: {} },
      {
        'comment-tag': 'docker-no-image',
        'docker-image': 'massgen-action-missing:nope'
      }
    ),
    dockerRun(
      { default: {} },
      { 'comment-tag': 'docker-no-daemon' },
      { env: { DOCKER_HOST: 'unix:///nonexistent/docker.sock' } }
    ),
    // This machine is a container: the file is there unless hidden.
    dockerRun(
      { default: {} },
      { 'comment-tag': 'docker-in-container' },
      { hideDockerenv: false }
    )
  ])
}

let probe: DockerRun & { byCommand: CommandResult[] }
let ending: DockerRun[]
let refused: DockerRun[]
beforeAll(async () => {
  // Refusals start no MassGen; the runs that end early take the slot only
  // to start, then the busy run holds it while its probes run.
  const [refusals, ended, probed] = await Promise.all([
    refusedRuns(),
    endingRuns(),
    inLiveSlot(probeRun)
  ])
  probe = {
    ...probed,
    byCommand: commandResultsOf(probed.server.requests, 'model-a')
  }
  ending = ended
  refused = refusals
}, 900_000)

/** stdout and stderr of one probe, by its command. */
function outputOf(command: string): string {
  const result = probe.byCommand.find((r) => r.command === command)
  return `${result?.stdout ?? ''}${result?.stderr ?? ''}`
}

describe('Docker mode with a real engine: one run of every probe', () => {
  it('MassGen offers its command tool in Docker mode and runs every command in order', () => {
    // MassGen drops an MCP server that starts later than 30 s for that round;
    // a failure here lists the tools it did offer.
    const offered = [
      ...new Set(probe.server.requests.flatMap((r) => r.toolNames))
    ]
    expect(offered).toContain('mcp__command_line__execute_command')
    expect(probe.run.outputs.status).toBe('success')
    expect(probe.byCommand.map((r) => r.command)).toEqual([
      WHO,
      FAILING,
      PID1,
      CONTEXT_WRITE(probe.workspace),
      WORKSPACE_WRITE,
      ENVIRONMENT,
      NETWORK
    ])
  })

  it("commands run in a container of the runtime image (no pull), as the image's user, in the agent's workspace mounted at the host's path", () => {
    const { run } = probe
    expect(run.stdout).toContain(`Docker image ${IMAGE} is present`)
    expect(run.stdout).not.toMatch(/Pulling Docker image/)
    const where = probe.byCommand.find((r) => r.command === WHO)
    // The image's user (uid 1000), in the agent's workspace, which the
    // container mounts at the host's path; Debian bookworm is the image's.
    expect(where).toMatchObject({
      exitCode: 0,
      stdout: `hello-from-massgen\n${where?.workDir}\n1000\nin-a-container\ndebian-bookworm\n`
    })
    expect(where?.workDir?.startsWith(path.join(run.dir, 'runner-temp'))).toBe(
      true
    )
    expect(path.basename(where?.workDir ?? '')).toMatch(/^agent_a/)
    // In MassGen's container (its keep-alive is PID 1), not on the runner.
    expect(outputOf(PID1)).toContain('tail -f /dev/null')
    expect(outputOf(PID1)).toContain('not-on-the-runner')
  })

  it('docker exec hands MassGen one stream: stderr arrives in stdout, with the exit code', () => {
    expect(probe.byCommand.find((r) => r.command === FAILING)).toMatchObject({
      exitCode: 3,
      stdout: 'to-stderr\n',
      stderr: ''
    })
  })

  it("the repository is read-only, the agent's workspace writable", () => {
    const contextWrite = outputOf(CONTEXT_WRITE(probe.workspace))
    expect(contextWrite).toMatch(/Read-only file system/)
    expect(contextWrite).not.toContain('context-write-exit=0')
    expect(fs.existsSync(path.join(probe.workspace, 'agent-was-here'))).toBe(
      false
    )
    expect(outputOf(WORKSPACE_WRITE)).toContain('workspace-write-ok')
  })

  it("no API key, no token, no runner variable in a non-coding agent's container, and no network (default 'none')", () => {
    const environment = outputOf(ENVIRONMENT)
    for (const secret of [...Object.values(KEYS), TOKEN])
      expect(environment).not.toContain(secret)
    expect(environment).not.toMatch(
      /^(INPUT_|ACTIONS_|GITHUB_TOKEN|OPENAI_API_KEY)/m
    )
    expect(outputOf(NETWORK).trim()).toBe('lo')
  })

  it("the winner's answer and the comment carry the evidence; nothing of the run is left, the other job's container stays; no key leaks", () => {
    const { run } = probe
    expect(run.outputs.winner).toBe('agent_a')
    expect(run.outputs.answer).toContain('hello-from-massgen')
    expect(run.outputs.answer).toContain('in-a-container')
    const comment = commentsOn(loopback.github(), 42).find((b) =>
      b.includes('tag=docker-read')
    )
    expect(comment).toContain('hello-from-massgen')
    expectCleanedUp(run.dir)
    expectNoKeyLeak(run, loopback.github())
  })
})

describe('Docker mode with a real engine: runs that do not finish', () => {
  it('after a failure, a timeout and a cancel, no container of the run is left, and the other job keeps its own', () => {
    const [fail, timeout, cancel] = ending.map((e) => e.run) as [
      ActionRun,
      ActionRun,
      ActionRun
    ]
    expect(fail.outputs.status).toBe('failed')
    expect(timeout.outputs.status).toBe('timeout')
    expect(cancel.outputs.status).toBe('cancelled')
    for (const run of [fail, timeout, cancel]) expectCleanedUp(run.dir)
  })
})

describe('Docker mode refuses clearly before any agent starts', () => {
  it('an image that does not exist', () => {
    const [{ run, server }] = refused as [DockerRun]
    expect(run.outputs.status).toBe('failed')
    expect(run.summary).toMatch(
      /Could not pull the Docker image 'massgen-action-missing:nope'/
    )
    expect(server.requests).toEqual([])
  })

  it('a daemon that does not answer: the error suggests docker: false and says what it costs', () => {
    const { run, server } = refused[1] as DockerRun
    expect(run.outputs.status).toBe('failed')
    expect(run.summary).toMatch(/needs a reachable Docker daemon/)
    expect(run.summary).toMatch(/set 'docker: false'/)
    expect(run.summary).toMatch(/read their own API keys/)
    expect(server.requests).toEqual([])
  })

  it('a job that runs inside a container (/.dockerenv), where MassGen would leave Docker mode', () => {
    const { run, server } = refused[2] as DockerRun
    expect(fs.existsSync('/.dockerenv')).toBe(true)
    expect(run.outputs.status).toBe('failed')
    expect(run.summary).toMatch(
      /runs inside a container \(\/\.dockerenv exists\)/
    )
    expect(server.requests).toEqual([])
  })
})
