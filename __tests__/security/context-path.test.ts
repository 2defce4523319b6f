// `context-path` names what the agents read (and with `context-permission:
// write`, change): the read server's folders, the sandbox's binds, Docker's
// mounts and the ACL grant all take it. The checkout under it is the pull
// request's to shape, so a fork can turn `src` into a link to `/`, or to the
// runner's `_temp` folder (the job's command files, checkout's credentials).
// The action confines the path to the workspace, component by component,
// before anything uses it, and refuses the run otherwise: the step fails and
// says why in the job summary and on the pull request. Played through the
// bundle in the runner's layout (_work/<repo>/<repo> beside _work/_temp) with
// a MassGen stand-in that records whether it was started at all; one
// Docker-mode run uses the real engine and the real setfacl.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { parse } from 'yaml'
import type { GitHubServer } from '../../test-support/github-server.js'
import {
  FAKE_MASSGEN,
  runAction,
  type ActionRun
} from '../../test-support/run-action.js'
import { commentsOn, githubWithPull } from '../../test-support/loopback.js'
import { KEYS } from '../../test-support/fixtures.js'
import { prRun } from '../../test-support/pr-run.js'

const IMAGE =
  process.env.MASSGEN_ACTION_TEST_IMAGE ?? 'massgen-action-runtime:test'

let github: GitHubServer
beforeAll(async () => {
  github = await githubWithPull()
})
afterAll(async () => {
  await github.close()
})

/** A runner's folders: the checkout, RUNNER_TEMP with the step's command files. */
function runnerLayout() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'security-ctx-'))
  // Local mode's sandbox runs the stand-in as nobody when the tests are root:
  // it writes its record here.
  fs.chmodSync(root, 0o777)
  const work = path.join(root, '_work')
  const workspace = path.join(work, 'octo-repo', 'octo-repo')
  const temp = path.join(work, '_temp')
  const commands = path.join(temp, '_runner_file_commands')
  fs.mkdirSync(path.join(workspace, 'src'), { recursive: true })
  fs.mkdirSync(commands, { recursive: true })
  fs.writeFileSync(path.join(workspace, 'src', 'parser.ts'), 'export {}\n')
  const githubEnv = path.join(commands, 'set_env_0f1e2d3c')
  fs.writeFileSync(githubEnv, '')
  const record = path.join(root, 'massgen-started.json')
  return { root, work, workspace, temp, commands, githubEnv, record }
}

type Layout = ReturnType<typeof runnerLayout>

function contextRun(
  layout: Layout,
  tag: string,
  inputs: Record<string, string>,
  options: { hideDockerenv?: boolean } = {}
): Promise<ActionRun> {
  return prRun(github, {
    workspace: layout.workspace,
    hideDockerenv: options.hideDockerenv,
    inputs: {
      'comment-tag': tag,
      'max-duration': '60',
      'upload-logs': 'false',
      ...inputs
    },
    env: {
      FAKE_MASSGEN_SCENARIO: 'success',
      FAKE_MASSGEN_RECORD: layout.record,
      RUNNER_TEMP: layout.temp,
      GITHUB_ENV: layout.githubEnv
    }
  })
}

/** The run was refused before MassGen started, and says why where people look. */
function expectRefused(
  run: ActionRun,
  layout: Layout,
  tag: string,
  why: RegExp
) {
  expect(fs.existsSync(layout.record)).toBe(false)
  expect(run.exitCode).toBe(1)
  expect(run.outputs.status).toBe('config-error')
  expect(run.stdout).toMatch(/::error::.*context-path/)
  expect(run.summary).toContain('context-path')
  expect(run.summary).toMatch(why)
  const comment = commentsOn(github, 42).find((b) => b.includes(`tag=${tag}`))
  expect(comment).toContain('context-path')
  expect(comment).toMatch(why)
  expect(fs.readFileSync(layout.githubEnv, 'utf8')).toBe('')
}

/** The context paths MassGen was given: the config's and the read server's. */
function pathsGiven(configFile: string): string[] {
  const config = parse(fs.readFileSync(configFile, 'utf8')) as {
    orchestrator: { context_paths: { path: string }[] }
    agents: { backend: { mcp_servers?: { args: string[] }[] } }[]
  }
  return [
    ...config.orchestrator.context_paths.map((c) => c.path),
    ...config.agents.flatMap((a) =>
      (a.backend.mcp_servers ?? []).flatMap((m) => m.args.slice(1))
    )
  ]
}

const LINK = /symbolic link/

describe('context-path stays inside the workspace, link by link', () => {
  it('a plain folder inside the workspace runs, and MassGen gets exactly its real path', async () => {
    const layout = runnerLayout()
    const run = await contextRun(layout, 'ctx-plain', { 'context-path': 'src' })
    expect(run.outputs.status).toBe('success')
    const given = pathsGiven(run.outputs['config-file'] ?? '')
    expect(given).toContain(path.join(layout.workspace, 'src'))
    for (const p of given)
      expect(
        p.startsWith(layout.workspace) || p.includes(`${path.sep}pr-context`)
      ).toBe(true)
  }, 120_000)

  it("attack: the pull request turns `src` into a link to `/`, so the agents' read tools serve the whole runner (/proc/*/environ: the token and the keys) — fails", async () => {
    const layout = runnerLayout()
    fs.rmSync(path.join(layout.workspace, 'src'), { recursive: true })
    fs.symlinkSync('/', path.join(layout.workspace, 'src'))
    const run = await contextRun(layout, 'ctx-root', {
      'context-path': 'src',
      'agent-commands': 'false'
    })
    expectRefused(run, layout, 'ctx-root', LINK)
  }, 120_000)

  it("attack: `src` links to `../../_temp/_runner_file_commands` with `context-permission: write` (local mode), so an agent appends BASH_ENV= to the step's GITHUB_ENV — fails", async () => {
    const layout = runnerLayout()
    fs.rmSync(path.join(layout.workspace, 'src'), { recursive: true })
    fs.symlinkSync(
      '../../_temp/_runner_file_commands',
      path.join(layout.workspace, 'src')
    )
    const run = await contextRun(layout, 'ctx-commands', {
      'context-path': 'src',
      'context-permission': 'write'
    })
    expectRefused(run, layout, 'ctx-commands', LINK)
  }, 120_000)

  it('attack: a link in a middle component (`a/b` where `a` links out of the workspace) — fails', async () => {
    const layout = runnerLayout()
    const outside = path.join(layout.root, 'outside')
    fs.mkdirSync(path.join(outside, 'b'), { recursive: true })
    fs.writeFileSync(path.join(outside, 'b', 'secret.txt'), 'not yours\n')
    fs.symlinkSync(outside, path.join(layout.workspace, 'a'))
    const run = await contextRun(layout, 'ctx-middle', {
      'context-path': 'a/b'
    })
    expectRefused(run, layout, 'ctx-middle', /'a' is a symbolic link/)
  }, 120_000)

  it('attack: `..` climbs out of the workspace (`src/../../outside`) — fails', async () => {
    const layout = runnerLayout()
    fs.mkdirSync(path.join(layout.workspace, '..', 'outside'))
    const run = await contextRun(layout, 'ctx-dotdot', {
      'context-path': 'src/../../outside'
    })
    expectRefused(run, layout, 'ctx-dotdot', /outside the workspace/)
  }, 120_000)

  it('attack: a link to a folder inside the workspace (`docs` -> `.`) widens the context to the whole checkout: refused too, every link is — fails', async () => {
    const layout = runnerLayout()
    fs.symlinkSync('.', path.join(layout.workspace, 'docs'))
    const run = await contextRun(layout, 'ctx-inside', {
      'context-path': 'docs'
    })
    expectRefused(run, layout, 'ctx-inside', LINK)
  }, 120_000)

  it('attack: Docker mode, `src` links to the step command files with `context-permission: write`, so the action itself grants the image user write on them by ACL (real engine and setfacl) — fails', async () => {
    const layout = runnerLayout()
    fs.rmSync(path.join(layout.workspace, 'src'), { recursive: true })
    fs.symlinkSync(
      '../../_temp/_runner_file_commands',
      path.join(layout.workspace, 'src')
    )
    const aclsBefore = getfacl(layout.commands)
    const run = await contextRun(
      layout,
      'ctx-docker',
      {
        'context-path': 'src',
        'context-permission': 'write',
        docker: 'true',
        'docker-image': IMAGE,
        'agent-commands': 'false'
      },
      // Docker mode is refused where /.dockerenv shows (this machine is a container).
      { hideDockerenv: true }
    )
    expectRefused(run, layout, 'ctx-docker', LINK)
    expect(run.stdout).not.toMatch(/Gave uid \d+ .*write access/)
    expect(getfacl(layout.commands)).toBe(aclsBefore)
    expect(getfacl(layout.commands)).not.toMatch(/user:1000:/)
  }, 180_000)
})

describe('query-file is read without following links or waiting', () => {
  it('attack: the pull request puts a named pipe at `query-file`, so reading the question waits for ever — fails', async () => {
    const layout = runnerLayout()
    execFileSync('mkfifo', [path.join(layout.workspace, 'question.md')])
    const run = await runAction({
      eventName: 'push',
      payload: {},
      workspace: layout.workspace,
      inputs: {
        query: '',
        'query-file': 'question.md',
        models: 'openai/gpt-5.4',
        'openai-api-key': KEYS.openai,
        'massgen-command': FAKE_MASSGEN
      },
      env: { FAKE_MASSGEN_RECORD: layout.record },
      // Not a timing assertion: a step blocked on the pipe is killed here.
      killAfterMs: 60_000
    })
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toMatch(/::error::.*query-file.*not a regular file/)
    expect(fs.existsSync(layout.record)).toBe(false)
  }, 120_000)
})

function getfacl(target: string): string {
  return execFileSync(
    'getfacl',
    ['-R', '-P', '-n', '--absolute-names', target],
    { encoding: 'utf8' }
  )
}
