// Job-level secrets: a workflow puts NPM_TOKEN, a cloud key, a webhook and
// the GitHub token under a name of its own in the job's `env:`, next to the
// action's step. None of them may reach MassGen or an agent command: the
// action hands on an allow-list of its environment (src/safety/child-env.ts).
// Played through the bundled action with a stand-in that prints everything
// it was given (its variables, /proc/self/environ, a child shell's environ)
// into its answer, so anything it saw would be posted.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as path from 'node:path'
import type { GitHubServer } from '../../test-support/github-server.js'
import { listFiles, ROOT, runAction } from '../../test-support/run-action.js'
import { commentsOn, githubWithPull } from '../../test-support/loopback.js'
import { KEYS } from '../../test-support/fixtures.js'
import { ONE_MODEL, prRun } from '../../test-support/pr-run.js'

const ENV_AGENT = path.join(ROOT, 'test-support', 'env-agent.mjs')
/** The github-token run-action gives the action. */
const TOKEN = 'ghs_e2eTokenValue00000000000000000000000'

const JOB_SECRETS = {
  NPM_TOKEN: 'npm_JobSecretNpmToken0123456789abcdefABCD',
  AWS_SECRET_ACCESS_KEY: 'wJalrXUtnJobSecretAwsKey0123456789EXAMPLE',
  SLACK_WEBHOOK_URL:
    'https://hooks.slack.com/services/T000JOB/B000JOB/JobSecretSlackHook0123',
  MY_GH: TOKEN
}
const NAMES = Object.keys(JOB_SECRETS)
const VALUES = Object.values(JOB_SECRETS).filter((v) => v !== TOKEN)

let github: GitHubServer
beforeAll(async () => {
  github = await githubWithPull()
})
afterAll(async () => {
  await github.close()
})

/** The job secrets a text carries, by value, and the names an agent saw. */
function leaks(text: string): string[] {
  const byValue = VALUES.filter((v) => text.includes(v))
  const seen = [...text.matchAll(/^NAMES\([a-z]+\): (.*)$/gm)].flatMap((m) =>
    (m[1] ?? '').split(',').filter((name) => NAMES.includes(name))
  )
  return [...byValue, ...seen]
}

describe('job-level secrets', () => {
  it('attack: secrets in the job env (NPM_TOKEN, AWS key, Slack webhook, the token as MY_GH) reach neither MassGen nor an agent command — nowhere in reach', async () => {
    const run = await prRun(github, {
      inputs: {
        ...ONE_MODEL,
        'massgen-command': ENV_AGENT,
        'comment-tag': 'job-env',
        'max-duration': '60'
      },
      env: { ...JOB_SECRETS, FAKE_MASSGEN_SCENARIO: 'success' }
    })
    expect(run.outputs.status).toBe('success')
    const comment =
      commentsOn(github, 42).find((b) => b.includes('tag=job-env')) ?? ''
    // The stand-in ran and reported what it saw (PATH is on the allow-list).
    expect(comment).toMatch(/NAMES\(proc\): [^\n]*PATH/)
    expect(comment).toMatch(/NAMES\(child\): [^\n]*PATH/)
    expect(leaks(comment)).toEqual([])
    expect(leaks(run.summary)).toEqual([])
    expect(leaks(run.outputs.answer ?? '')).toEqual([])
    expect(leaks(run.stdout)).toEqual([])
    expect(leaks(run.stderr)).toEqual([])
    // Every file left in the run's folder (answers, logs, answer.md).
    const files = listFiles(run.state['work-dir'] ?? '')
    expect(files.length).toBeGreaterThan(2)
    for (const file of files) {
      const text = fs.readFileSync(file, 'latin1').slice(0, 4 * 1024 * 1024)
      expect({ file, leaks: leaks(text) }).toEqual({ file, leaks: [] })
    }
  }, 120_000)

  it("refuses pass-env names that carry the runner's token or a key, naming the input", async () => {
    const run = await runAction({
      eventName: 'workflow_dispatch',
      githubApiUrl: github.url,
      inputs: {
        query: 'Hello',
        models: 'openai/gpt-5.4',
        'openai-api-key': KEYS.openai,
        'massgen-command': ENV_AGENT,
        'pass-env': 'GITHUB_TOKEN, ACTIONS_RUNTIME_TOKEN'
      },
      env: { FAKE_MASSGEN_SCENARIO: 'success' }
    })
    expect(run.exitCode).not.toBe(0)
    expect(run.stdout + run.summary).toMatch(
      /Input 'pass-env': 'GITHUB_TOKEN' belongs to the runner/
    )
  }, 120_000)

  it("attack: pass-env names a variable of the workflow's own that holds the token or a key: refused, naming the input and the variable; control: a plain variable is handed on", async () => {
    for (const [name, value] of [
      ['MY_GH', TOKEN],
      ['MY_LLM', `Bearer ${KEYS.openai}`]
    ] as const) {
      const run = await runAction({
        eventName: 'workflow_dispatch',
        githubApiUrl: github.url,
        inputs: {
          query: 'Hello',
          models: 'openai/gpt-5.4',
          'openai-api-key': KEYS.openai,
          'massgen-command': ENV_AGENT,
          'pass-env': `JAVA_HOME, ${name}`
        },
        env: { [name]: value, FAKE_MASSGEN_SCENARIO: 'success' }
      })
      expect(run.exitCode).not.toBe(0)
      expect(run.stdout + run.summary).toContain(
        `Input 'pass-env': the variable '${name}' holds the GitHub token or an API key given to the action`
      )
      expect(run.outputs.answer ?? '').not.toContain(value)
      // The runner masks what ::add-mask:: names; nothing else says it.
      const said = (run.stdout + run.stderr + run.summary)
        .split('\n')
        .filter((l) => !l.startsWith('::add-mask::'))
        .join('\n')
      expect(said).not.toContain(value)
    }
    const control = await prRun(github, {
      inputs: {
        ...ONE_MODEL,
        'massgen-command': ENV_AGENT,
        'comment-tag': 'pass-env-control',
        'max-duration': '60',
        'pass-env': 'MY_TOOL_HOME'
      },
      env: { MY_TOOL_HOME: '/opt/my-tool', FAKE_MASSGEN_SCENARIO: 'success' }
    })
    expect(control.outputs.status).toBe('success')
    const comment =
      commentsOn(github, 42).find((b) => b.includes('tag=pass-env-control')) ??
      ''
    expect(comment).toMatch(/NAMES\(proc\): [^\n]*MY_TOOL_HOME/)
  }, 240_000)
})
