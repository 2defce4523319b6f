// Bad inputs through the real bundled action: the refusal of each reader
// reaches the runner as one clear `::error::` naming the input and the
// expected form, with status config-error and exit 1; MassGen never started,
// nothing posted to GitHub, no stack trace, no key anywhere. Which inputs are
// refused, and with which words, is decided by pure readers and tested in
// __tests__/unit/input-errors.test.ts (every case, no bundle).
import { beforeAll, describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { startGitHubServer } from '../../test-support/github-server.js'
import type { ActionRun } from '../../test-support/run-action.js'
import { expectNoLeak } from '../../test-support/tallies.js'
import { inBatches } from '../../test-support/processes.js'
import { KEYS } from '../../test-support/fixtures.js'
import { EVERY_KEY_QUICK, prRun } from '../../test-support/pr-run.js'
import { stackTraces } from '../../test-support/leaks.js'
import { openTempDir } from '../../test-support/run-action.js'
import { writes } from '../../test-support/loopback.js'

interface BadInput {
  name: string
  inputs: Record<string, string>
  /** Each input the message must name, with its expected form. */
  expect: [input: string, form: RegExp][]
  /** The error is said on the pull request too (a setup the base commit cannot give). */
  saidOnPull?: true
}

/**
 * One case per reader that can refuse, and one with several refusals at
 * once (one `::error::` line holds them all). Every refusal is listed, with
 * its message, in __tests__/unit/input-errors.test.ts.
 */
const CASES: BadInput[] = [
  {
    name: 'the settings reader: max-duration not a number',
    inputs: { 'max-duration': 'abc' },
    expect: [['max-duration', /expected whole seconds from 1 to 21600/]]
  },
  {
    name: 'the settings reader: two bad inputs at once',
    inputs: { docker: 'yes', 'comment-tag': '--><script>' },
    expect: [
      ['docker', /expected 'true' or 'false'/],
      [
        'comment-tag',
        /expected letters, digits, dot, dash or underscore \(at most 64\)/
      ]
    ]
  },
  {
    // On a pull request the file comes from the base commit, never the
    // checkout (where link.md links out); this server cannot give it.
    name: 'the base-commit reader: query-file on a pull request whose base cannot be read',
    inputs: { query: '', 'query-file': 'link.md' },
    expect: [
      [
        'query-file',
        /must be read from the base commit through the API, never from the checkout/
      ]
    ],
    saidOnPull: true
  },
  {
    name: 'the event intake: no question on a pull request',
    inputs: { query: '' },
    expect: [
      ['query', /is required on 'pull_request' events \(expected the question/]
    ]
  },
  {
    name: 'the models against the keys: codex without docker',
    inputs: { models: 'codex/gpt-5-codex', docker: 'false' },
    expect: [['models', /needs Docker mode; remove it or set 'docker: true'/]]
  }
]

let workspace: string
const results = new Map<
  string,
  { run: ActionRun; record: string; writes: string[] }
>()

beforeAll(async () => {
  workspace = openTempDir('massgen-rel-ws-')
  fs.symlinkSync('/etc/hostname', path.join(workspace, 'link.md'))
  const records = openTempDir('massgen-rel-records-')
  // Each run gets its own GitHub server, so its requests are its own.
  await inBatches(CASES, 8, async (c) => {
    const server = await startGitHubServer({ issues: [42] })
    const record = path.join(records, `${CASES.indexOf(c)}.json`)
    try {
      const run = await prRun(server, {
        inputs: { ...EVERY_KEY_QUICK, ...c.inputs },
        env: { FAKE_MASSGEN_RECORD: record },
        workspace,
        post: false
      })
      results.set(c.name, { run, record, writes: writes(server) })
    } finally {
      await server.close()
    }
  })
}, 120_000)

/** The runner's workflow-command escaping, undone. */
function unescapeCommand(text: string): string {
  return text.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%')
}

describe('bad inputs through the bundled action', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const result = results.get(c.name)
    expect(result).toBeDefined()
    const { run, record } = result!
    const errors = run.stdout.split('\n').filter((l) => l.startsWith('::error'))
    // One clear message naming the input and the expected form.
    expect(errors).toHaveLength(1)
    const message = unescapeCommand(
      (errors[0] ?? '').replace(/^::error[^:]*::/, '')
    )
    for (const [input, form] of c.expect) {
      expect(message).toContain(`'${input}'`)
      expect(message).toMatch(form)
    }
    expect(message).not.toMatch(/Unexpected error|undefined|\[object/)
    expect(run.exitCode).toBe(1)
    expect(run.outputs.status).toBe('config-error')
    // MassGen never started: no argv recorded, no config written, no run state.
    expect(fs.existsSync(record)).toBe(false)
    expect(run.outputs['config-file']).toBeUndefined()
    expect(run.state.started).toBeUndefined()
    // Nothing posted or changed on GitHub, but the error on the pull
    // request when the base commit's setup is what failed.
    expect(result!.writes).toEqual(
      c.saidOnPull ? ['POST /repos/octo-org/octo-repo/issues/42/comments'] : []
    )
    // No stack trace anywhere.
    expect(stackTraces(run.stdout + '\n' + run.stderr)).toEqual([])
    expect(run.stderr.trim()).toBe('')
    expectNoLeak(run, undefined, Object.values(KEYS))
  })
})
