// actions/checkout keeps the job's token in .git/config by default
// (persist-credentials: true): `http.https://github.com/.extraheader` with
// `AUTHORIZATION: basic base64(x-access-token:TOKEN)`, inside the context
// path the agents read. The action takes it out for the run and puts it
// back, byte for byte, after: in the main step, or in the post step when the
// main step died. Played through the bundle with a MassGen stand-in that
// reads the config as an agent would (FAKE_MASSGEN_READ).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import type { GitHubServer } from '../../test-support/github-server.js'
import { FAKE_MASSGEN } from '../../test-support/run-action.js'
import { ONE_MODEL, prRun, type PrInputs } from '../../test-support/pr-run.js'
import { githubWithPull } from '../../test-support/loopback.js'

/** The github-token run-action gives the action (checkout's default token). */
const TOKEN = 'ghs_e2eTokenValue00000000000000000000000'
const CREDENTIAL = Buffer.from(`x-access-token:${TOKEN}`).toString('base64')

let github: GitHubServer
beforeAll(async () => {
  github = await githubWithPull()
})
afterAll(async () => {
  await github.close()
})

/** A checkout as actions/checkout@v5 leaves it, with a linked worktree. */
function checkout() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'security-git-'))
  // Local mode's sandbox runs the stand-in as nobody when the tests are root:
  // it reads the checkout and writes what it saw here.
  fs.chmodSync(dir, 0o777)
  const workspace = path.join(dir, 'repo')
  const gitDir = path.join(workspace, '.git')
  fs.mkdirSync(path.join(gitDir, 'worktrees', 'side'), { recursive: true })
  fs.mkdirSync(path.join(gitDir, 'objects'))
  fs.writeFileSync(path.join(workspace, 'README.md'), 'hello\n')
  const config = [
    '[core]',
    '\trepositoryformatversion = 0',
    '\tfilemode = true',
    '[remote "origin"]',
    '\turl = https://github.com/octo-org/octo-repo',
    '\tfetch = +refs/heads/*:refs/remotes/origin/*',
    '[gc]',
    '\tauto = 0',
    '[http "https://github.com/"]',
    `\textraheader = AUTHORIZATION: basic ${CREDENTIAL}`,
    ''
  ].join('\n')
  const worktreeConfig = `[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${CREDENTIAL}\n`
  fs.writeFileSync(path.join(gitDir, 'config'), config)
  fs.writeFileSync(
    path.join(gitDir, 'worktrees', 'side', 'config.worktree'),
    worktreeConfig
  )
  return {
    dir,
    workspace,
    seen: path.join(dir, 'agent-saw-config.txt'),
    seenWorktree: path.join(dir, 'agent-saw-worktree.txt'),
    expectRestored() {
      expect(fs.readFileSync(path.join(gitDir, 'config'), 'utf8')).toBe(config)
      expect(
        fs.readFileSync(
          path.join(gitDir, 'worktrees', 'side', 'config.worktree'),
          'utf8'
        )
      ).toBe(worktreeConfig)
    },
    gitDir
  }
}

/** Over the suite's pull-request run (pr-run.ts): one model, a tag. */
function inputs(tag: string): PrInputs {
  return { ...ONE_MODEL, 'comment-tag': tag, 'max-duration': '60' }
}

describe('the token actions/checkout persisted', () => {
  it('attack: an agent reads the token actions/checkout left in .git/config — fails', async () => {
    const repo = checkout()
    const run = await prRun(github, {
      workspace: repo.workspace,
      inputs: inputs('git-creds'),
      env: {
        FAKE_MASSGEN_SCENARIO: 'success',
        FAKE_MASSGEN_READ: JSON.stringify({
          from: path.join(repo.gitDir, 'config'),
          to: repo.seen
        })
      }
    })
    expect(run.outputs.status).toBe('success')
    const seen = fs.readFileSync(repo.seen, 'utf8')
    // The agent saw the rest of the config, not the header.
    expect(seen).toContain('[remote "origin"]')
    expect(seen).not.toMatch(/extraheader/i)
    expect(seen).not.toContain(CREDENTIAL)
    expect(seen).not.toContain(TOKEN)
    expect(run.stdout).toMatch(
      /::warning::.*keeps a GitHub token.*persist-credentials: false/
    )
    repo.expectRestored()
    expect(run.state['git-credentials'] ?? '').toBe('')
    // Nothing the action saved holds the credential.
    expect(JSON.stringify(run.state)).not.toContain(CREDENTIAL)
  }, 120_000)

  it('the main step dies mid-run: the post step puts the credentials back exactly', async () => {
    const repo = checkout()
    const run = await prRun(github, {
      workspace: repo.workspace,
      inputs: inputs('git-creds-post'),
      env: {
        FAKE_MASSGEN_SCENARIO: 'hang',
        FAKE_MASSGEN_READ: JSON.stringify({
          from: path.join(repo.gitDir, 'worktrees', 'side', 'config.worktree'),
          to: repo.seenWorktree
        })
      },
      killAfterMs: 5000
    })
    expect(fs.readFileSync(repo.seenWorktree, 'utf8')).not.toContain(CREDENTIAL)
    expect(run.state['git-credentials']).toContain('config.worktree')
    expect(run.state['git-credentials']).not.toContain(CREDENTIAL)
    expect(run.post?.exitCode).toBe(0)
    expect(run.post?.stdout).toContain("Put the checkout's credentials back")
    repo.expectRestored()
  }, 120_000)

  it('an agent edits .git/config during the run: the token is not put back into it', async () => {
    const repo = checkout()
    const config = path.join(repo.gitDir, 'config')
    // The stand-in's wrapper rewrites the config as a hostile agent would.
    const wrapper = path.join(repo.dir, 'edit-config.mjs')
    fs.writeFileSync(
      wrapper,
      [
        "import * as fs from 'node:fs'",
        `fs.appendFileSync(${JSON.stringify(config)}, '[url "https://evil.example/"]\\n\\tinsteadOf = https://github.com/\\n')`,
        `await import(${JSON.stringify(FAKE_MASSGEN)})`,
        ''
      ].join('\n')
    )
    const run = await prRun(github, {
      workspace: repo.workspace,
      inputs: {
        ...inputs('git-creds-edit'),
        // Local mode's sandbox mounts the checkout read-only, which already
        // stops this agent; unsandboxed, it can write the checkout as an agent
        // with context-permission: write can, and the restore must still hold.
        'local-sandbox': 'false',
        'massgen-command': `node ${wrapper}`
      },
      env: { FAKE_MASSGEN_SCENARIO: 'success' }
    })
    expect(run.outputs.status).toBe('success')
    const after = fs.readFileSync(config, 'utf8')
    expect(after).toContain('evil.example')
    expect(after).not.toContain(CREDENTIAL)
    expect(run.stdout).toMatch(/::warning::.*changed during the run/)
  }, 120_000)

  it('attack: an agent swaps the .git folder for a link to a copy it controls, to get the token written there — fails', async () => {
    const repo = checkout()
    const copy = path.join(repo.dir, 'attacker-git')
    const wrapper = path.join(repo.dir, 'swap-git.mjs')
    fs.writeFileSync(
      wrapper,
      [
        "import * as fs from 'node:fs'",
        `fs.cpSync(${JSON.stringify(repo.gitDir)}, ${JSON.stringify(copy)}, { recursive: true })`,
        `fs.renameSync(${JSON.stringify(repo.gitDir)}, ${JSON.stringify(`${repo.gitDir}-moved`)})`,
        `fs.symlinkSync(${JSON.stringify(copy)}, ${JSON.stringify(repo.gitDir)})`,
        `await import(${JSON.stringify(FAKE_MASSGEN)})`,
        ''
      ].join('\n')
    )
    const run = await prRun(github, {
      workspace: repo.workspace,
      inputs: {
        ...inputs('git-creds-swap'),
        // Local mode's sandbox mounts the checkout read-only, which already
        // stops this agent; unsandboxed, it can write the checkout as an agent
        // with context-permission: write can, and the restore must still hold.
        'local-sandbox': 'false',
        'massgen-command': `node ${wrapper}`
      },
      env: { FAKE_MASSGEN_SCENARIO: 'success' }
    })
    expect(run.outputs.status).toBe('success')
    expect(fs.readFileSync(path.join(copy, 'config'), 'utf8')).not.toContain(
      CREDENTIAL
    )
    expect(run.stdout).toMatch(/::warning::.*was not put back/)
  }, 120_000)

  // actions/checkout v6: the header sits in $RUNNER_TEMP/git-credentials-<uuid>.config,
  // which .git/config includes (includeIf gitdir); git in the checkout still
  // sends the token, and an agent that can read RUNNER_TEMP reads it there.
  function checkoutV6() {
    const repo = checkout()
    const temp = path.join(repo.dir, 'runner-temp')
    fs.mkdirSync(temp)
    const credentials = path.join(
      temp,
      'git-credentials-6f1c2a9e-2b7d-4c1e-9a55-0d3e8f7b1c24.config'
    )
    const text = `[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${CREDENTIAL}\n`
    fs.writeFileSync(credentials, text)
    const config = [
      '[core]',
      '\trepositoryformatversion = 0',
      `[includeIf "gitdir:${repo.gitDir}"]`,
      `\tpath = ${credentials}`,
      `[includeIf "gitdir:${repo.gitDir}/worktrees/*"]`,
      `\tpath = ${credentials}`,
      '[includeIf "gitdir:/github/workspace/.git"]',
      `\tpath = /github/runner_temp/${path.basename(credentials)}`,
      ''
    ].join('\n')
    fs.writeFileSync(path.join(repo.gitDir, 'config'), config)
    fs.rmSync(path.join(repo.gitDir, 'worktrees'), { recursive: true })
    return {
      ...repo,
      temp,
      credentials,
      expectRestored() {
        expect(fs.readFileSync(credentials, 'utf8')).toBe(text)
        expect(fs.readFileSync(path.join(repo.gitDir, 'config'), 'utf8')).toBe(
          config
        )
      }
    }
  }

  it('attack: an agent reads the token actions/checkout v6 keeps in $RUNNER_TEMP/git-credentials-*.config, included from .git/config — fails', async () => {
    const repo = checkoutV6()
    const run = await prRun(github, {
      workspace: repo.workspace,
      // Without the sandbox an agent sees RUNNER_TEMP, as with its own tools.
      inputs: { ...inputs('git-creds-v6'), 'local-sandbox': 'false' },
      env: {
        RUNNER_TEMP: repo.temp,
        FAKE_MASSGEN_SCENARIO: 'success',
        FAKE_MASSGEN_READ: JSON.stringify({
          from: repo.credentials,
          to: repo.seen
        })
      }
    })
    expect(run.outputs.status).toBe('success')
    const seen = fs.readFileSync(repo.seen, 'utf8')
    expect(seen).toContain('[http "https://github.com/"]')
    expect(seen).not.toContain(CREDENTIAL)
    expect(seen).not.toContain(TOKEN)
    expect(run.stdout).toMatch(/::warning::.*git-credentials-6f1c2a9e/)
    repo.expectRestored()
    expect(JSON.stringify(run.state)).not.toContain(CREDENTIAL)
  }, 120_000)

  it("actions/checkout v6's credentials file: the main step dies, the post step puts it back exactly", async () => {
    const repo = checkoutV6()
    const run = await prRun(github, {
      workspace: repo.workspace,
      inputs: { ...inputs('git-creds-v6-post'), 'local-sandbox': 'false' },
      env: {
        RUNNER_TEMP: repo.temp,
        FAKE_MASSGEN_SCENARIO: 'hang',
        FAKE_MASSGEN_READ: JSON.stringify({
          from: repo.credentials,
          to: repo.seen
        })
      },
      killAfterMs: 5000
    })
    expect(fs.readFileSync(repo.seen, 'utf8')).not.toContain(CREDENTIAL)
    expect(run.state['git-credentials']).toContain('git-credentials-6f1c2a9e')
    expect(run.post?.exitCode).toBe(0)
    repo.expectRestored()
  }, 120_000)
})
