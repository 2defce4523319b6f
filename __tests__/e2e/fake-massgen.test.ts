// The action end to end (dist/index.js under Node 24, as a runner runs it)
// with a fake `massgen` for outcomes the real one cannot produce on demand.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { parse } from 'yaml'
import type { GitHubServer } from '../../test-support/github-server.js'
import {
  FAKE_MASSGEN,
  openTempDir,
  runAction
} from '../../test-support/run-action.js'
import { commentsOn, githubWithPull } from '../../test-support/loopback.js'
import { KEYS } from '../../test-support/fixtures.js'
import { expectNoKeyLeak } from '../../test-support/leaks.js'
import { prRun } from '../../test-support/pr-run.js'

let github: GitHubServer
beforeAll(async () => {
  github = await githubWithPull()
})
afterAll(async () => {
  await github.close()
})

/** The suite's pull-request run of one stand-in scenario, tagged with it. */
function scenarioRun(
  scenario: string,
  extra: Record<string, string> = {},
  env: Record<string, string> = {}
) {
  return prRun(github, {
    inputs: {
      'massgen-command': `node ${FAKE_MASSGEN}`,
      'comment-tag': `fake-${scenario}`,
      'max-duration': '5',
      ...extra
    },
    env: { FAKE_MASSGEN_SCENARIO: scenario, ...env }
  })
}

describe('fake massgen, pull_request event', () => {
  it('a relative massgen-command is found in the workspace and run from there', async () => {
    // Checked against the workspace, then once spawned from the run's own
    // folder: it must be resolved once, not looked up again (ENOENT).
    const workspace = openTempDir('relative-command-')
    fs.mkdirSync(path.join(workspace, 'tools'))
    const script = path.join(workspace, 'tools', 'massgen')
    fs.writeFileSync(script, `#!/bin/sh\nexec node ${FAKE_MASSGEN} "$@"\n`)
    fs.chmodSync(script, 0o755)
    const run = await runAction({
      eventName: 'workflow_dispatch',
      workspace,
      inputs: {
        query: 'Is the parser change safe?',
        models: 'openai/gpt-5.4 gemini/gemini-3.1-pro-preview',
        'openai-api-key': KEYS.openai,
        'gemini-api-key': KEYS.google,
        'massgen-command': './tools/massgen',
        'max-duration': '5',
        comment: 'false'
      },
      env: { FAKE_MASSGEN_SCENARIO: 'success' }
    })
    expect(run.outputs.status).toBe('success')
    expect(run.stdout).toContain(`using massgen-command "${script}"`)
  })

  it('success: comment, summary and outputs carry the winner', async () => {
    const record = path.join(openTempDir('rec-'), 'record.json')
    const run = await scenarioRun(
      'success',
      {},
      { FAKE_MASSGEN_RECORD: record }
    )
    expect(run.exitCode).toBe(0)
    expect(run.outputs.status).toBe('success')
    expect(run.outputs.winner).toBe('agent_a')
    expect(run.outputs.answer).toBe('Answer from agent_a.')
    expect(JSON.parse(run.outputs.votes ?? '[]')).toHaveLength(2)
    expect(run.outputs['comment-url']).toMatch(/#issuecomment-\d+$/)
    expect(fs.readFileSync(run.outputs['answer-file'] ?? '', 'utf8')).toBe(
      'Answer from agent_a.'
    )
    expect(run.summary).toContain('Answer from agent_a.')
    const comments = commentsOn(github, 42).filter((b) =>
      b.includes('tag=fake-success')
    )
    expect(comments).toHaveLength(1)
    expect(comments[0]).toContain('Answer from agent_a.')
    // The argument array, exactly; the keys reach the child by name only.
    const recorded = JSON.parse(fs.readFileSync(record, 'utf8')) as {
      args: string[]
      keys: string[]
    }
    expect(recorded.args.slice(0, 5)).toEqual([
      '--automation',
      '--no-parse-at-references',
      '--no-session-registry',
      '--config',
      run.outputs['config-file']
    ])
    expect(recorded.args.slice(5)).toEqual([
      '--',
      expect.stringContaining('Is the parser change safe?')
    ])
    expect(recorded.keys).toEqual([
      'OPENAI_API_KEY',
      'GOOGLE_API_KEY',
      'GEMINI_API_KEY'
    ])
    expect(run.outputs['config-file']).toMatch(
      /runner-temp\/massgen-4242-\w+\/\.massgen-quality\/sessions\/run_\d{8}_\d{6}\/configs\/run_\d{8}_\d{6}\.yaml$/
    )
    expect(run.post?.exitCode).toBe(0)
    // The pull request's context: read-only files outside the repository, in the config.
    const config = parse(
      fs.readFileSync(run.outputs['config-file'] ?? '', 'utf8')
    ) as { orchestrator: { context_paths: unknown } }
    const prDir = path.join(
      path.dirname(run.outputs['answer-file'] ?? ''),
      'pr-context'
    )
    expect(config.orchestrator.context_paths).toEqual([
      {
        path: fs.realpathSync(path.join(run.dir, 'workspace')),
        permission: 'read'
      },
      { path: prDir, permission: 'read' }
    ])
    expect(fs.readFileSync(path.join(prDir, 'diff.patch'), 'utf8')).toContain(
      '+fast'
    )
    expect(
      fs.readFileSync(path.join(prDir, 'pull-request.md'), 'utf8')
    ).toContain('Speed up the parser')
    expect(fs.statSync(path.join(prDir, 'diff.patch')).mode & 0o222).toBe(0)
    expect(recorded.args[6]).toContain(`read-only folder ${prDir}`)
    expectNoKeyLeak(run, github)
  })

  it('no winner (exit 0): failed, with the agents errors', async () => {
    const run = await scenarioRun('no-winner')
    expect(run.exitCode).toBe(1)
    expect(run.outputs.status).toBe('failed')
    expect(run.outputs['exit-code']).toBe('0')
    expect(run.summary).toMatch(/chose no winner/)
    expect(run.summary).toContain('Error code: 500')
    const comment = commentsOn(github, 42).find((b) =>
      b.includes('tag=fake-no-winner')
    )
    expect(comment).toMatch(/chose no winner/)
    expectNoKeyLeak(run, github)
  })

  it('crash (killed by a signal): failed with the reason', async () => {
    // The stand-in kills itself, which MassGen as the sandbox's init cannot.
    const run = await scenarioRun('crash', { 'local-sandbox': 'false' })
    expect(run.outputs.status).toBe('failed')
    expect(run.summary).toMatch(/SIGKILL/)
    expect(run.exitCode).toBe(1)
  })

  it('hang: timeout, no process left, partial answers reported', async () => {
    const run = await scenarioRun(
      'hang',
      { 'max-duration': '2' },
      { MASSGEN_ACTION_DEADLINE_GRACE_SECONDS: '2' }
    )
    expect(run.outputs.status).toBe('timeout')
    expect(run.summary).toMatch(/did not finish within max-duration/)
    expect(run.summary).toContain('Answer from agent_b.')
    expect(run.stdout).not.toMatch(/outlived SIGKILL/)
    const comment = commentsOn(github, 42).find((b) =>
      b.includes('tag=fake-hang')
    )
    expect(comment).toMatch(/ran out of time/i)
  }, 60_000)

  it('config error (exit 1): shows MassGen validation errors', async () => {
    const run = await scenarioRun('config-error')
    expect(run.outputs.status).toBe('config-error')
    expect(run.summary).toContain(
      "- ❌ \\[agents\\[0].backend.type] Unknown backend type: 'nope'"
    )
  })

  it('spoofed output lines are ignored', async () => {
    const run = await scenarioRun('spoof')
    expect(run.outputs.status).toBe('success')
    expect(run.outputs.winner).toBe('agent_a')
    expect(run.outputs['log-dir']).toContain(run.dir)
    expect(run.summary).not.toContain('root:x:0:0')
  })
})
