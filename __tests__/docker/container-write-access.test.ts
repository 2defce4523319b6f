// The ACL grant of Docker mode's 'context-permission: write' against the real
// setfacl/getfacl and the real runtime image, without MassGen: the agent is
// played by a process running as the image's uid. The whole action is in
// docker-mode.test.ts.
import { afterEach, describe, expect, it } from '@jest/globals'
import { execFileSync, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import {
  ContainerWriteError,
  grantContainerWrite,
  revokeContainerWrite
} from '../../src/prepare/container-write-access.js'
import { createProcessRunner } from '../../src/process/process.js'
import { type ProcessRunner } from '../../src/core/process.js'

const IMAGE =
  process.env.MASSGEN_ACTION_TEST_IMAGE ?? 'massgen-action-runtime:test'
const IMAGE_UID = 1000
const RUNNER_UID = 1001

const made: string[] = []
afterEach(() => {
  for (const dir of made.splice(0))
    fs.rmSync(dir, { recursive: true, force: true })
})

function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  made.push(dir)
  return dir
}

function checkout(): string {
  const dir = tempDir('acl-checkout-')
  fs.chmodSync(dir, 0o755)
  fs.writeFileSync(path.join(dir, 'README.md'), 'readme\n')
  fs.mkdirSync(path.join(dir, 'src'))
  fs.writeFileSync(path.join(dir, 'src', 'a.c'), 'a\n')
  fs.writeFileSync(path.join(dir, 'tool.sh'), '#!/bin/sh\n', { mode: 0o755 })
  fs.writeFileSync(path.join(dir, 'acl.txt'), 'acl\n')
  execFileSync('chown', ['-R', `${RUNNER_UID}:${RUNNER_UID}`, dir])
  execFileSync('setfacl', ['-m', 'u:4242:r', path.join(dir, 'acl.txt')])
  return dir
}

function acls(root: string): string {
  return execFileSync('getfacl', ['-R', '-P', '-n', '--absolute-names', root], {
    encoding: 'utf8'
  })
}

function as(uid: number, command: string) {
  const done = spawnSync('/bin/sh', ['-c', command], {
    uid,
    gid: uid,
    encoding: 'utf8'
  })
  return { status: done.status, out: `${done.stdout}${done.stderr}` }
}

const logged: string[] = []
const log = {
  info: (m: string) => void logged.push(`info: ${m}`),
  warning: (m: string) => void logged.push(`warning: ${m}`)
}

describe('grantContainerWrite with the real setfacl and image', () => {
  it("the image's uid writes the checkout during the grant and not after; the ACLs are then exactly as before", async () => {
    const repo = checkout()
    const recordDir = tempDir('acl-run-')
    const before = acls(repo)
    const write = `echo agent > ${repo}/new.txt && echo more >> ${repo}/src/a.c && mkdir ${repo}/src/made && echo ok`
    expect(as(IMAGE_UID, write).status).not.toBe(0)

    const access = await grantContainerWrite(
      createProcessRunner(),
      IMAGE,
      [repo],
      log,
      recordDir
    )
    expect(as(IMAGE_UID, write)).toEqual({ status: 0, out: 'ok\n' })
    expect(
      as(
        IMAGE_UID,
        `test -x ${repo}/tool.sh && ! test -x ${repo}/README.md && echo ok`
      ).out
    ).toBe('ok\n')
    await access.revoke()

    const after = acls(repo)
    // The agent's own files keep their inherited entries; the rest is as before.
    const withoutAgentFiles = after
      .split('\n\n')
      .filter((b) => !/# file: .*\/(new\.txt|src\/made)\n/.test(`${b}\n`))
      .join('\n\n')
    expect(withoutAgentFiles).toBe(before)
    expect(as(IMAGE_UID, `touch ${repo}/again`).status).not.toBe(0)
    expect(
      as(
        RUNNER_UID,
        `echo r >> ${repo}/new.txt && rm -r ${repo}/src/made && echo ok`
      )
    ).toEqual({ status: 0, out: 'ok\n' })
    expect(fs.readdirSync(recordDir)).toEqual([])
    // A second revoke (the post step after the main step's) does nothing.
    const settled = acls(repo)
    await revokeContainerWrite(createProcessRunner(), recordDir, log)
    expect(acls(repo)).toBe(settled)
  })

  it("without setfacl: a clear error naming 'context-permission', and nothing is changed", async () => {
    const repo = checkout()
    const recordDir = tempDir('acl-run-')
    const before = acls(repo)
    const real = createProcessRunner()
    const noAcl: ProcessRunner = {
      ...real,
      exec: (command, args, options) =>
        command === 'setfacl' || command === 'getfacl'
          ? Promise.resolve({
              exitCode: 127,
              signal: null,
              stdout: '',
              stderr: `spawn ${command} ENOENT`
            })
          : real.exec(command, args, options)
    }
    const error = await grantContainerWrite(
      noAcl,
      IMAGE,
      [repo],
      log,
      recordDir
    ).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ContainerWriteError)
    expect(String(error)).toMatch(
      /'context-permission: write' in Docker mode needs setfacl/
    )
    expect(String(error)).toMatch(/apt-get install -y acl/)
    expect(String(error)).toMatch(/uid 1000/)
    expect(String(error)).toMatch(/'context-permission: read'/)
    expect(acls(repo)).toBe(before)
    expect(fs.readdirSync(recordDir)).toEqual([])
  })
})
