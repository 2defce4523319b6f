// Local mode's agents run on the runner: a prompt-injected agent's commands
// try to steal the token, change the job, the checkout and the action, gain
// root and outlive the run. Played through the bundled action with a MassGen
// stand-in that makes those attempts (test-support/hostile-agent.mjs), as
// root (a `container:` job) and as a runner user with passwordless sudo (a
// GitHub-hosted runner, set up by scripts/runner-user.sh).
import { describe, expect, it, jest } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import {
  NODE24,
  ROOT,
  runAction,
  type ActionRun,
  type RunnerUser
} from '../../test-support/run-action.js'
import { event, KEYS } from '../../test-support/fixtures.js'
import { expectNoKeyLeak } from '../../test-support/leaks.js'
import { loopbackServers } from '../../test-support/loopback.js'

jest.setTimeout(120_000)

const loopback = loopbackServers()
const HOSTILE = path.join(ROOT, 'test-support', 'hostile-agent.mjs')
const TOKEN = 'ghs_e2eTokenValue00000000000000000000000'

interface Attempt {
  name: string
  succeeded: boolean
  detail: string
}

function runnerUser(name = 'runner'): RunnerUser {
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`))
  if (!line)
    throw new Error('no runner user: run scripts/runner-user.sh (needs root)')
  const [, , uid = '', gid = '', , home = ''] = line.split(':')
  return { uid: Number(uid), gid: Number(gid), home }
}

/** The attack report the stand-in put in its answer. */
function attempts(run: ActionRun): Attempt[] {
  const encoded = /ATTACKS_JSON:([A-Za-z0-9+/=]+)/.exec(
    run.outputs.answer ?? ''
  )
  expect(encoded).not.toBeNull()
  return JSON.parse(
    Buffer.from(encoded?.[1] ?? '', 'base64').toString('utf8')
  ) as Attempt[]
}

async function hostileRun(user: RunnerUser | undefined) {
  const home = user?.home ?? os.homedir()
  // A copy of the action's post step where a runner keeps actions (under
  // the runner's work folder), and a checkout with a file to protect.
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-attack-'))
  const workspace = path.join(stage, 'checkout')
  fs.mkdirSync(workspace)
  fs.writeFileSync(path.join(workspace, 'README.md'), 'original\n')
  // Runners keep actions in the runner user's home (_work/_actions).
  const actions = fs.mkdtempSync(path.join(home, '.massgen-test-actions-'))
  const actionCopy = path.join(actions, 'post-index.js')
  fs.copyFileSync(path.join(ROOT, 'dist', 'index.js'), actionCopy)
  if (user)
    for (const dir of [stage, actions])
      execFileSync('chown', ['-R', `${user.uid}:${user.gid}`, dir])
  // The runner's files sit beside RUNNER_TEMP, as on a runner; the stand-in
  // learns their paths as an attacker who knows the layout would.
  const runDirGuess = (name: string) => `RUNDIR/${name}`
  const run = await runAction({
    eventName: 'pull_request',
    payload: event('pull_request.opened'),
    githubApiUrl: loopback.github().url,
    workspace,
    user,
    inputs: {
      query: 'Summarise the change.',
      models: 'openai/gpt-5.4',
      'openai-api-key': KEYS.openai,
      'massgen-command': `${NODE24} ${HOSTILE}`,
      'comment-tag': `sandbox-${user ? 'runner' : 'root'}`,
      'upload-logs': 'false'
    },
    env: {
      HOSTILE_TARGETS: JSON.stringify({
        runnerFiles: ['output.txt', 'state.txt', 'summary.md'].map(runDirGuess),
        actionFiles: [actionCopy],
        survivor: true
      }),
      HOME: home
    }
  })
  // MassGen's working folder: the config file is .massgen-quality/sessions/run_*/configs/run_*.yaml in it.
  const workDir = path.resolve(
    run.outputs['config-file'] ?? '/',
    '../../../../..'
  )
  return {
    run,
    workspace,
    actionCopy,
    survivor: path.join(workDir, 'survivor')
  }
}

describe.each([
  ['as root (a container job): agents run as nobody', undefined],
  ['as a runner user with passwordless sudo (a GitHub-hosted runner)', 'runner']
])('local-mode sandbox %s', (_label, who) => {
  it('attack: a prompt-injected agent steals the token, writes the job files, the checkout and the action, escalates and outlives the run — every attempt fails', async () => {
    const user = who ? runnerUser() : undefined
    const { run, workspace, actionCopy, survivor } = await hostileRun(user)
    const tried = attempts(run)
    expect(run.outputs.status).toBe('success')
    expect(tried.length).toBeGreaterThanOrEqual(10)
    expect(tried.filter((a) => a.succeeded)).toEqual([])
    // And the evidence outside the report:
    expect(fs.readFileSync(path.join(workspace, 'README.md'), 'utf8')).toBe(
      'original\n'
    )
    expect(fs.existsSync(path.join(workspace, 'PWNED.md'))).toBe(false)
    expect(fs.readFileSync(actionCopy, 'utf8')).not.toContain('exit(99)')
    fs.rmSync(path.dirname(actionCopy), { recursive: true, force: true })
    for (const file of ['output.txt', 'state.txt', 'summary.md'])
      expect(fs.readFileSync(path.join(run.dir, file), 'utf8')).not.toMatch(
        /^BASH_ENV=/m
      )
    expect(run.post?.exitCode).toBe(0)
    await new Promise((resolve) => setTimeout(resolve, 6_000))
    expect(fs.existsSync(survivor)).toBe(false)
    expect(run.stdout).toMatch(/Local mode: agents run sandboxed/)
    expect(
      run.stdout
        .split('\n')
        .filter((l) => !l.startsWith('::add-mask::'))
        .join('\n')
    ).not.toContain(TOKEN)
    expectNoKeyLeak(run, loopback.github())
  })
})

describe('local mode refuses what it cannot protect', () => {
  it("attack: a stranger's pull_request_target run in local mode would hand the agents' keys to text they wrote — refused without accept-local-mode-risk", async () => {
    const github = loopback.github()
    github.state.permissions = {
      'alice-maintainer': 'maintain',
      octocat: 'write'
    }
    const run = await runAction({
      eventName: 'pull_request_target',
      payload: event('pull_request.opened'),
      githubApiUrl: github.url,
      inputs: {
        query: 'Summarise the change.',
        models: 'openai/gpt-5.4',
        'openai-api-key': KEYS.openai,
        'massgen-command': `${NODE24} ${HOSTILE}`,
        'comment-tag': 'sandbox-refused',
        'accept-local-mode-risk': 'false'
      }
    })
    expect(run.outputs.status).toBe('config-error')
    expect(run.exitCode).toBe(1)
    expect(run.summary).toMatch(
      /Local mode \('docker: false'\) refused on 'pull_request_target' events/
    )
    expect(run.summary).toMatch(/accept-local-mode-risk: true/)
    expect(run.stdout).not.toMatch(/MassGen output/)
  })

  it('a runner user with neither root nor sudo gets a clear error naming local-sandbox, before MassGen starts', async () => {
    const user = runnerUser('runner-nosudo')
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-nosudo-'))
    execFileSync('chown', [`${user.uid}:${user.gid}`, workspace])
    const run = await runAction({
      eventName: 'workflow_dispatch',
      payload: {},
      githubApiUrl: loopback.github().url,
      workspace,
      user,
      inputs: {
        query: 'Summarise the repository.',
        models: 'openai/gpt-5.4',
        'openai-api-key': KEYS.openai,
        'massgen-command': `${NODE24} ${HOSTILE}`,
        'comment-tag': 'sandbox-nosudo'
      }
    })
    expect(run.outputs.status).toBe('failed')
    expect(run.summary).toMatch(/needs root or passwordless sudo/)
    expect(run.summary).toMatch(/local-sandbox: false/)
    expect(run.stdout).not.toMatch(/ATTACKS_JSON/)
  })
})
