// A team's first run, as it usually goes wrong: the workflow is added, the
// secrets are not. The bundled action under Node 24 with the loopback GitHub;
// nothing runs, and the pull request says which key is missing and where to
// add it, once; a key input passed a secret that is not set is named as
// passed but empty.
import { describe, expect, it, jest } from '@jest/globals'
import { runAction } from '../../test-support/run-action.js'
import type { GitHubServer } from '../../test-support/github-server.js'
import { commentsOn, githubForEachTest } from '../../test-support/loopback.js'
import { event } from '../../test-support/fixtures.js'

jest.setTimeout(120_000)

let server: GitHubServer
githubForEachTest({ 'alice-maintainer': 'maintain' }, (s) => (server = s))
const github = () => server

describe('a first run without the secrets', () => {
  it.each([
    ['the defaults', {}, 'Set at least one of the inputs'],
    [
      'named models',
      { models: 'openai/gpt-5.4 gemini/gemini-3.1-pro-preview' },
      "Set 'openai-api-key', 'gemini-api-key'"
    ],
    [
      // `openai-api-key: ${{ secrets.MISSING }}`: GitHub passes ''.
      'a key input passed a secret that is not set',
      { models: 'openai/gpt-5.4', 'openai-api-key': '' },
      "input 'openai-api-key' is empty. If the workflow passes it (e.g. 'openai-api-key: ${{ secrets.NAME }}'), it was passed but empty: is the secret set"
    ]
  ])(
    'with %s: the comment and the summary say which key and where to add it; one error annotation',
    async (_name, inputs, which) => {
      const run = await runAction({
        eventName: 'pull_request',
        payload: event('pull_request.opened'),
        githubApiUrl: github().url,
        inputs: { query: 'Review this pull request.', ...inputs }
      })
      expect(run.exitCode).not.toBe(0)
      expect(run.outputs.status).toBe('config-error')
      const comment = commentsOn(github(), 42).at(-1) ?? ''
      for (const report of [comment, run.summary]) {
        expect(report).toContain(
          '### ⚙️ MassGen did not run: a setting needs fixing'
        )
        expect(report).toContain(which)
        expect(report).toContain(
          'Settings → Secrets and variables → Actions → New repository secret'
        )
      }
      const errors = run.stdout
        .split('\n')
        .filter((line) => line.startsWith('::error'))
      expect(errors).toHaveLength(1)
      expect(errors[0]).toContain(which)
    }
  )
})
