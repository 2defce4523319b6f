// Docker mode with 'context-permission: write' for real: the bundled action,
// the real MassGen with its [docker] extra, a real engine and the runtime
// image, and a checkout that belongs to the runner's uid (1001 on GitHub)
// with modes 0755/0644, as actions/checkout leaves it. The agents' commands
// run as the image's user (uid 1000); MassGen mounts the repository
// read-write for the winner's final presentation only, so the scripted
// winner writes there (finalCommands).
import { containersUnder } from './helpers.js'
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals'
import { execFileSync, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { commandResultsOf } from '../../test-support/llm-server.js'
import { runAction, type ActionRun } from '../../test-support/run-action.js'
import {
  event,
  KEYS,
  loopbackServers,
  massgenBinary,
  TEST_IMAGE
} from '../e2e/helpers.js'

// Each run starts containers and MassGen's MCP servers: minutes when busy.
jest.setTimeout(600_000)

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
  extra: { killOn?: (server: { requests: unknown[] }) => Promise<void> } = {}
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
        'upload-logs': 'false'
      }
    })
    return { run, server }
  })
}

describe("Docker mode, 'context-permission: write', a checkout the image's user does not own", () => {
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
  let run: ActionRun
  let results: string[]

  beforeAll(async () => {
    expect(fs.statSync(checkoutDir).uid).toBe(RUNNER_UID)
    const done = await writeRun(
      {
        agentIds: ['agent_a', 'agent_b'],
        agents: {
          'model-a': {
            answer: 'A will write.',
            finalCommands: [
              `${WRITE}; echo write-exit=$?; id -u`,
              `${SWAP}; echo swap-exit=$?`
            ],
            voteFor: 'agent_a'
          },
          'model-b': { answer: 'B writes nothing.', voteFor: 'agent_a' }
        }
      },
      checkoutDir
    )
    run = done.run
    results = commandResultsOf(done.server.requests, 'model-a').map(
      (r) => `${r.stdout ?? ''}${r.stderr ?? ''}`
    )
  })

  it("the image's user (uid 1000) writes the checkout owned by uid 1001 (mode 0755); afterwards every file's ACL is as before, and the runner's user can change what the agent made", () => {
    expect(run.outputs.status).toBe('success')
    expect(results[0]).toContain('write-exit=0')
    expect(results[0]).toMatch(new RegExp(`^${IMAGE_UID}$`, 'm'))
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

  it("attack: the agent replaces a folder and a file that had ACLs with links to the runner's own files, so that restoring the ACLs would change those — fails", () => {
    expect(results[1]).toContain('swap-exit=0')
    expect(
      fs.lstatSync(path.join(checkoutDir, 'keep.txt')).isSymbolicLink()
    ).toBe(true)
    expect(aclsOf(...runnerPaths)).toEqual(runnerBefore)
    expect(fs.statSync(runner.secret).mode & 0o777).toBe(0o600)
  })
})

describe("Docker mode, 'context-permission: write', the main step dies", () => {
  it('the post step takes the ACLs back', async () => {
    const checkoutDir = runnerCheckout()
    const before = aclsUnder(checkoutDir)
    const { run } = await writeRun(
      { default: { delayMs: 600_000 } },
      checkoutDir,
      {
        // Killed while the agents wait on their model: the grant is in force.
        killOn: (server) =>
          new Promise<void>((resolve) => {
            const polling = setInterval(() => {
              if (server.requests.length === 0) return
              clearInterval(polling)
              resolve()
            }, 200)
          })
      }
    )
    expect(run.stdout).toContain(`Gave uid ${IMAGE_UID}`)
    expect(run.stdout).not.toContain('Took back')
    expect(run.post?.stdout).toContain(
      `Took back the write access of uid ${IMAGE_UID} to ${checkoutDir}`
    )
    expect(aclsUnder(checkoutDir)).toEqual(before)
    expect(containersUnder(run.dir)).toEqual([])
  })
})
