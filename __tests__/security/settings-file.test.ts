// The repository config file (.github/massgen-action.yml, docs/configuration.md)
// through the bundle under Node 24 with the loopback GitHub: on a pull
// request it comes from the base commit, so a pull request that edits it
// does not set up its own review; a link there is refused; a bad key stops
// the run with an error naming the file and the key, on the pull request
// too; an old input still works, wins over the file, and warns once.
import { describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as path from 'node:path'
import type { ServerTreeEntry } from '../../test-support/github-state.js'
import {
  FAKE_MASSGEN,
  checkoutWith,
  openTempDir,
  runAction,
  type ActionRun
} from '../../test-support/run-action.js'
import { servePullAtBase } from '../../test-support/sample-pull.js'
import { event, KEYS } from '../../test-support/fixtures.js'
import { findKeyLeaks } from '../../test-support/leaks.js'
import { loopbackServers } from '../../test-support/loopback.js'

const loopback = loopbackServers()
const github = () => loopback.github()
const TOKEN = 'ghs_e2eTokenValue00000000000000000000000'
const FILE = '.github/massgen-action.yml'
/** The base commit the pull_request.opened fixture names. */
const EVENT_BASE = '5c3f0d8e2b1a4c6d7e8f9a0b1c2d3e4f5a6b7c8d'

/** A checkout (the pull request's head) holding these files and links. */
function checkout(files: Record<string, string | { link: string }>): string {
  return checkoutWith('settings-file-ws-', files)
}

/** PR #42 changing these files; the base commit's tree. */
function serve(changed: string[], base: Record<string, ServerTreeEntry>) {
  servePullAtBase(github().state, EVENT_BASE, changed, base)
}

/** A fake-MassGen run; the MassGen config it was handed ('' when none). */
async function run(
  workspace: string,
  inputs: Record<string, string>,
  eventName = 'pull_request'
): Promise<{ run: ActionRun; config: string }> {
  const record = path.join(openTempDir('settings-file-rec-'), 'record.json')
  const result = await runAction({
    eventName,
    payload:
      eventName === 'pull_request'
        ? event('pull_request.opened')
        : { inputs: {} },
    githubApiUrl: github().url,
    workspace,
    inputs: {
      query: 'Review this pull request',
      models: 'openai/gpt-5.4 claude/claude-opus-4-6',
      'openai-api-key': KEYS.openai,
      'anthropic-api-key': KEYS.anthropic,
      'massgen-command': `node ${FAKE_MASSGEN}`,
      ...inputs
    },
    env: { FAKE_MASSGEN_SCENARIO: 'success', FAKE_MASSGEN_RECORD: record }
  })
  if (!fs.existsSync(record)) return { run: result, config: '' }
  const { args } = JSON.parse(fs.readFileSync(record, 'utf8')) as {
    args: string[]
  }
  const file = args[args.indexOf('--config') + 1] ?? ''
  return {
    run: result,
    config: fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : ''
  }
}

const timeout = (config: string) =>
  /orchestrator_timeout_seconds: (\d+)/.exec(config)?.[1]
const deprecations = (r: ActionRun, input: string) =>
  r.stdout
    .split('\n')
    .filter((l) => l.startsWith(`::warning::Input '${input}' is deprecated`))

describe('the repository config file', () => {
  it("attack: the pull request rewrites .github/massgen-action.yml — the base commit's file sets up the review, the planted one is never read", async () => {
    serve([FILE, 'src/parser.ts'], {
      [FILE]: 'max-duration: 240\nproject-instructions: none\n'
    })
    const { run: r, config } = await run(
      checkout({
        // An unknown key would stop the run, were this file read.
        [FILE]: 'max-duration: 21600\nplanted-key: PLANTED\n'
      }),
      { 'comment-tag': 'settings-file-1' }
    )
    expect(r.outputs.status).toBe('success')
    expect(timeout(config)).toBe('240')
    expect(r.stdout).not.toContain('PLANTED')
    expect(r.stdout).not.toContain('planted-key')
    expect(findKeyLeaks(r, github(), [...Object.values(KEYS), TOKEN])).toEqual(
      []
    )
  })

  it('attack: the pull request adds .github/massgen-action.yml where the base has none — the defaults apply, the planted file is never read', async () => {
    serve([FILE], {})
    const { run: r, config } = await run(
      checkout({ [FILE]: 'max-duration: 21600\nplanted-key: PLANTED\n' }),
      { 'comment-tag': 'settings-file-2' }
    )
    expect(r.outputs.status).toBe('success')
    expect(timeout(config)).toBe('1800')
    expect(r.stdout).not.toContain('PLANTED')
  })

  it("the base commit's file is a link (to a file in the repository, or elsewhere) or a submodule — refused naming the file, nothing runs", async () => {
    const bases: Record<string, ServerTreeEntry>[] = [
      {
        [FILE]: { symlink: 'real.yml' },
        '.github/real.yml': 'max-duration: 240\n'
      },
      { [FILE]: { symlink: '../../../etc/passwd' } },
      { [FILE]: { submodule: 'https://github.com/someone/tools.git' } }
    ]
    for (const base of bases) {
      serve(['src/parser.ts'], base)
      const { run: r, config } = await run(checkout({}), {
        'comment-tag': 'settings-file-3'
      })
      expect(r.outputs.status).toBe('config-error')
      expect(r.exitCode).not.toBe(0)
      expect(config).toBe('')
      expect(r.stdout).toMatch(
        /\.github\/massgen-action\.yml is (a link|a submodule) in the base commit .*a pull request cannot set up its own review/
      )
    }
  })

  it("a bad key in the base commit's file stops the run with an error naming the file, the key and the form, in the summary and on the pull request", async () => {
    serve(['src/parser.ts'], {
      [FILE]: 'fail-on: sometimes\nmin-severity: low\n'
    })
    const { run: r, config } = await run(checkout({}), {
      'comment-tag': 'settings-file-4'
    })
    expect(r.outputs.status).toBe('config-error')
    expect(config).toBe('')
    const said = [
      ".github/massgen-action.yml at base 5c3f0d8e2b1a: key 'fail-on': got 'sometimes', expected 'blocker', 'concern' or 'never'",
      ".github/massgen-action.yml at base 5c3f0d8e2b1a: key 'min-severity': got 'low', expected 'blocker', 'concern' or 'nit'"
    ]
    const comment = github()
      .state.comments.filter((c) => c.body.includes('settings-file-4'))
      .at(-1)?.body
    for (const text of said) {
      expect(r.summary).toContain(text)
      expect(comment).toContain(text)
    }
  })

  it('an old input still works and wins over the file, with one warning naming the config key', async () => {
    serve(['src/parser.ts'], { [FILE]: 'max-duration: 240\n' })
    const { run: r, config } = await run(checkout({}), {
      'comment-tag': 'settings-file-5',
      'max-duration': '300'
    })
    expect(r.outputs.status).toBe('success')
    expect(timeout(config)).toBe('300')
    expect(deprecations(r, 'max-duration')).toEqual([
      expect.stringMatching(
        /set the key 'max-duration' in \.github\/massgen-action\.yml .*It wins over the 'max-duration' \.github\/massgen-action\.yml at base 5c3f0d8e2b1a sets\./
      )
    ])
  })

  it("on workflow_dispatch (the repository's own checkout) the workspace file is read, and a link there is refused", async () => {
    const own = await run(
      checkout({ [FILE]: 'max-duration: 240\n' }),
      { 'comment-tag': 'settings-file-6' },
      'workflow_dispatch'
    )
    expect(own.run.outputs.status).toBe('success')
    expect(timeout(own.config)).toBe('240')
    const linked = await run(
      checkout({
        'elsewhere.yml': 'max-duration: 240\n',
        [FILE]: { link: '../elsewhere.yml' }
      }),
      { 'comment-tag': 'settings-file-7' },
      'workflow_dispatch'
    )
    expect(linked.run.outputs.status).toBe('config-error')
    expect(linked.config).toBe('')
    expect(linked.run.stdout).toContain(
      '.github/massgen-action.yml in the workspace goes through a link'
    )
  })

  it('attack: a matrix job on an edited comment (an event the action ignores) with the pull request checked out — the planted file is never read', async () => {
    const planted = await runAction({
      eventName: 'issue_comment',
      payload: event('issue_comment.edited'),
      githubApiUrl: github().url,
      workspace: checkout({ [FILE]: 'max-shards: [planted]\n' }),
      inputs: {
        role: 'matrix',
        'github-token': TOKEN,
        'comment-tag': 'settings-file-8'
      }
    })
    // Read, its bad value would stop the job naming the key; unread, the
    // job stops anyway: its gate would otherwise be the defaults.
    expect(planted.stdout).not.toMatch(/max-shards|planted/)
    expect(planted.stdout).toContain(
      "Role 'matrix' on a 'issue_comment' event the action does not run on"
    )
    expect(planted.outputs.status).toBe('config-error')
  })
})
