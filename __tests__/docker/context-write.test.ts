// Docker mode with 'context-permission: write' for real: the bundled action,
// the real MassGen with its [docker] extra, a real engine and the runtime
// image, and a checkout that belongs to the runner's uid (1001 on GitHub)
// with modes 0755/0644, as actions/checkout leaves it. The agents' commands
// run as the image's user (uid 1000); MassGen mounts the repository
// read-write for the winner's final presentation only, so the scripted
// winner writes there (finalCommands). While the agents compete it is
// read-only (the agent's `commands` try), and `docker-network: bridge` gives
// the container a network. The dying run starts first; the writing run
// starts once the other has died.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals'
import { execFileSync, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { commandResultsOf } from '../../test-support/llm-server.js'
import { inLiveSlot } from '../../test-support/live-slot.js'
import { massgenBinary } from '../../test-support/massgen-binary.js'
import { runAction, type ActionRun } from '../../test-support/run-action.js'
import {
  containersUnder,
  processesUnder
} from '../../test-support/processes.js'
import { event, KEYS, TEST_IMAGE } from '../../test-support/fixtures.js'
import { loopbackServers } from '../../test-support/loopback.js'

// Each run starts containers and MassGen's MCP servers: minutes when busy.
jest.setTimeout(900_000)

const IMAGE = TEST_IMAGE
/** The image's user: MassGen's images and the test image both use 1000. */
const IMAGE_UID = 1000
/** The runner's uid on GitHub: it owns the checkout, the image's user does not. */
const RUNNER_UID = 1001
/** A uid that is neither: its ACL entries exist before the run. */
const OTHER_UID = 4242
const loopback = loopbackServers()

const made: string[] = []
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true })
})

function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  made.push(dir)
  return dir
}

/**
 * A checkout as actions/checkout leaves it: owned by the runner's uid, modes
 * 0755/0644, plus a folder and a file that already carry ACL entries.
 */
function runnerCheckout(): string {
  const dir = tempDir('runner-checkout-')
  fs.chmodSync(dir, 0o755)
  fs.writeFileSync(path.join(dir, 'README.md'), 'the repository\n')
  fs.writeFileSync(path.join(dir, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 })
  fs.mkdirSync(path.join(dir, 'src'), { mode: 0o755 })
  fs.writeFileSync(path.join(dir, 'src', 'main.c'), 'int main;\n')
  fs.mkdirSync(path.join(dir, 'shared'), { mode: 0o755 })
  fs.writeFileSync(path.join(dir, 'shared', 'notes.txt'), 'notes\n')
  fs.writeFileSync(path.join(dir, 'keep.txt'), 'keep\n')
  execFileSync('chown', ['-R', `${RUNNER_UID}:${RUNNER_UID}`, dir])
  const acl = (...args: string[]) => execFileSync('setfacl', args)
  acl('-m', `u:${OTHER_UID}:rx,d:u:${OTHER_UID}:rx`, path.join(dir, 'shared'))
  acl('-m', `u:${OTHER_UID}:r`, path.join(dir, 'shared', 'notes.txt'))
  acl('-m', `u:${OTHER_UID}:r`, path.join(dir, 'keep.txt'))
  return dir
}

/** The runner's own files, elsewhere on the machine. */
function runnerFiles(): { secret: string; folder: string } {
  const dir = tempDir('runner-private-')
  const secret = path.join(dir, 'secret')
  const folder = path.join(dir, 'folder')
  fs.writeFileSync(secret, 'runner secret\n', { mode: 0o600 })
  fs.mkdirSync(folder, { mode: 0o700 })
  fs.writeFileSync(path.join(folder, 'inside'), 'x\n', { mode: 0o600 })
  execFileSync('chown', ['-R', `${RUNNER_UID}:${RUNNER_UID}`, dir])
  return { secret, folder }
}

/** Every file's ACL under `root` (links not followed), by path. */
function aclsUnder(root: string): Map<string, string> {
  return aclBlocks(['-R', '-P', root])
}

function aclsOf(...paths: string[]): Map<string, string> {
  return aclBlocks(paths)
}

function aclBlocks(args: string[]): Map<string, string> {
  const dump = execFileSync('getfacl', ['-n', '--absolute-names', ...args], {
    encoding: 'utf8'
  })
  return new Map(
    dump
      .split('\n\n')
      .filter((block) => block.trim())
      .map((block) => {
        const [first = '', ...rest] = block.trim().split('\n')
        return [first.replace('# file: ', ''), rest.join('\n')]
      })
  )
}

function asRunner(command: string): { status: number | null; out: string } {
  const done = spawnSync('/bin/sh', ['-c', command], {
    uid: RUNNER_UID,
    gid: RUNNER_UID,
    encoding: 'utf8'
  })
  return { status: done.status, out: `${done.stdout}${done.stderr}` }
}

function writeRun(
  script: Parameters<typeof loopback.llm>[0],
  checkoutDir: string,
  extra: {
    killOn?: (server: { requests: unknown[] }) => Promise<void>
    inputs?: Record<string, string>
  } = {}
) {
  return loopback.llm(script).then(async (server) => {
    const run = await runAction({
      eventName: 'pull_request',
      payload: event('pull_request.opened'),
      githubApiUrl: loopback.github().url,
      workspace: checkoutDir,
      hideDockerenv: true,
      ...(extra.killOn ? { killOn: extra.killOn(server) } : {}),
      inputs: {
        query: 'Change the repository.',
        models: 'vllm/model-a vllm/model-b',
        'base-url': server.url,
        'openai-api-key': KEYS.openai,
        'massgen-command': massgenBinary('docker'),
        docker: 'true',
        'docker-image': IMAGE,
        'context-permission': 'write',
        'comment-tag': 'docker-context-write',
        'max-duration': '600',
        'upload-logs': 'false',
        ...extra.inputs
      }
    })
    return { run, server }
  })
}

// The writing run: its checkout, the runner's own files the attack aims at,
// and the ACLs of both before the run.
const checkoutDir = runnerCheckout()
const runner = runnerFiles()
const runnerPaths = [
  runner.secret,
  runner.folder,
  path.join(runner.folder, 'inside')
]
const before = aclsUnder(checkoutDir)
const runnerBefore = aclsOf(...runnerPaths)
const WRITE = [
  `echo from-the-agent > ${checkoutDir}/agent-wrote.txt`,
  `echo more >> ${checkoutDir}/README.md`,
  `mkdir ${checkoutDir}/src/new`,
  `echo x > ${checkoutDir}/src/new/file.c`
].join(' && ')
// The folder and the file that had ACLs become links to the runner's
// files: restoring their ACLs by path would change those instead.
const SWAP = [
  `rm -r ${checkoutDir}/shared`,
  `ln -s ${runner.folder} ${checkoutDir}/shared`,
  `rm ${checkoutDir}/keep.txt`,
  `ln -s ${runner.secret} ${checkoutDir}/keep.txt`
].join(' && ')
const FINAL_WRITE = `${WRITE}; echo write-exit=$?; id -u`
const FINAL_SWAP = `${SWAP}; echo swap-exit=$?`
// While the agents compete: a write to the checkout, and the networks seen.
const COMPETING_WRITE = `touch ${checkoutDir}/agent-was-here 2>&1; echo context-write-exit=$?`
const NETWORK = 'ls /sys/class/net | tr "\\n" " "; echo'

/** The winner writes and swaps in its final presentation; bridge network. */
async function writingRun() {
  expect(fs.statSync(checkoutDir).uid).toBe(RUNNER_UID)
  const { run, server } = await writeRun(
    {
      agentIds: ['agent_a'],
      agents: {
        'model-a': {
          answer: 'A will write.',
          commands: [COMPETING_WRITE, NETWORK],
          finalCommands: [FINAL_WRITE, FINAL_SWAP],
          voteFor: 'agent_a'
        }
      }
    },
    checkoutDir,
    { inputs: { models: 'vllm/model-a', 'docker-network': 'bridge' } }
  )
  const results = commandResultsOf(server.requests, 'model-a')
  const outputOf = (command: string) => {
    const result = results.find((r) => r.command === command)
    return `${result?.stdout ?? ''}${result?.stderr ?? ''}`
  }
  return { run, outputOf }
}

// The dying run: its own checkout, and its ACLs before the run.
const dyingCheckout = runnerCheckout()
const dyingBefore = aclsUnder(dyingCheckout)

/** Killed while the agents wait on their model: the grant is in force. */
async function dyingRun(release: () => void): Promise<ActionRun> {
  const { run } = await writeRun(
    { default: { delayMs: 600_000 } },
    dyingCheckout,
    {
      killOn: (server) =>
        new Promise<void>((resolve) => {
          const polling = setInterval(() => {
            if (server.requests.length === 0) return
            clearInterval(polling)
            release()
            resolve()
          }, 200)
        }),
      inputs: {
        models: 'vllm/model-a',
        'comment-tag': 'docker-context-write-dies'
      }
    }
  )
  return run
}

let writing: Awaited<ReturnType<typeof writingRun>>
let died: ActionRun
beforeAll(async () => {
  // The dying run takes the live slot (live-slot.ts) only until it dies.
  ;[died, writing] = await Promise.all([
    inLiveSlot(dyingRun),
    inLiveSlot(writingRun)
  ])
}, 900_000)

describe("Docker mode, 'context-permission: write', a checkout the image's user does not own", () => {
  it("the image's user (uid 1000) writes the checkout owned by uid 1001 (mode 0755); afterwards every file's ACL is as before, and the runner's user can change what the agent made", () => {
    const { run, outputOf } = writing
    expect(run.outputs.status).toBe('success')
    expect(outputOf(FINAL_WRITE)).toContain('write-exit=0')
    expect(outputOf(FINAL_WRITE)).toMatch(new RegExp(`^${IMAGE_UID}$`, 'm'))
    expect(run.stdout).toContain(
      `Gave uid ${IMAGE_UID} (the user of ${IMAGE}) write access to ${checkoutDir} with POSIX ACLs`
    )
    expect(run.stdout).toContain(
      `Took back the write access of uid ${IMAGE_UID} to ${checkoutDir}`
    )
    expect(
      fs.readFileSync(path.join(checkoutDir, 'agent-wrote.txt'), 'utf8')
    ).toBe('from-the-agent\n')
    const after = aclsUnder(checkoutDir)
    const swapped = ['shared', 'shared/notes.txt', 'keep.txt'].map((p) =>
      path.join(checkoutDir, p)
    )
    for (const [file, acl] of before) {
      if (swapped.includes(file)) continue
      expect({ file, acl: after.get(file) }).toEqual({ file, acl })
    }
    // What the agent made is the image user's, with the runner's entry.
    expect(fs.statSync(path.join(checkoutDir, 'agent-wrote.txt')).uid).toBe(
      IMAGE_UID
    )
    expect(
      asRunner(
        `echo runner >> ${checkoutDir}/agent-wrote.txt && rm -r ${checkoutDir}/src/new && echo ok`
      )
    ).toEqual({ status: 0, out: 'ok\n' })
    // Nothing of the grant is left in the run's folder.
    const runnerTemp = path.join(run.dir, 'runner-temp')
    for (const d of fs.readdirSync(runnerTemp))
      expect(
        fs
          .readdirSync(path.join(runnerTemp, d))
          .filter((f) => f.startsWith('container-write-access'))
      ).toEqual([])
    expect(containersUnder(run.dir)).toEqual([])
  })

  it('while the agents compete, MassGen still mounts the repository read-only (write access is for the final presentation)', () => {
    const competing = writing.outputOf(COMPETING_WRITE)
    expect(competing).toMatch(/Read-only file system/)
    expect(competing).not.toContain('context-write-exit=0')
    expect(fs.existsSync(path.join(checkoutDir, 'agent-was-here'))).toBe(false)
  })

  it("docker-network 'bridge' gives the container a network", () => {
    expect(writing.outputOf(NETWORK)).toMatch(/\beth0\b/)
  })

  it("attack: the agent replaces a folder and a file that had ACLs with links to the runner's own files, so that restoring the ACLs would change those — fails", () => {
    expect(writing.outputOf(FINAL_SWAP)).toContain('swap-exit=0')
    expect(
      fs.lstatSync(path.join(checkoutDir, 'keep.txt')).isSymbolicLink()
    ).toBe(true)
    expect(aclsOf(...runnerPaths)).toEqual(runnerBefore)
    expect(fs.statSync(runner.secret).mode & 0o777).toBe(0o600)
  })
})

describe("Docker mode, 'context-permission: write', the main step dies", () => {
  it("the post step stops MassGen (started through Docker mode's umask shell) and takes the ACLs back", () => {
    // MassGen was started as `sh -c 'umask 000 && exec massgen …'`: the pid
    // the main step saved is MassGen's after the exec.
    expect(died.post?.stdout).toMatch(/Stopped MassGen's process group \d+/)
    expect(processesUnder(died.dir)).toEqual([])
    expect(died.stdout).toContain(`Gave uid ${IMAGE_UID}`)
    expect(died.stdout).not.toContain('Took back')
    expect(died.post?.stdout).toContain(
      `Took back the write access of uid ${IMAGE_UID} to ${dyingCheckout}`
    )
    expect(aclsUnder(dyingCheckout)).toEqual(dyingBefore)
    expect(containersUnder(died.dir)).toEqual([])
  })
})
