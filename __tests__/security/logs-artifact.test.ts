// The logs artifact holds what the agents' commands printed (massgen.log,
// event streams, agent outputs). `upload-logs: answers-only` keeps the
// artifact to the status, answers and votes. Played through the bundle and
// the real @actions/artifact client against the loopback artifact service.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import {
  fakeRuntimeToken,
  readZip,
  startArtifactServer
} from '../../test-support/artifact-server.js'
import type { GitHubServer } from '../../test-support/github-server.js'
import { FAKE_MASSGEN } from '../../test-support/run-action.js'
import { prRun } from '../../test-support/pr-run.js'
import { githubWithPull } from '../../test-support/loopback.js'

const LOG = 'log_20261130_120000_000001'
let github: GitHubServer
let wrapper: string
beforeAll(async () => {
  github = await githubWithPull()
  // MassGen's command-output logs, beside what the stand-in writes.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logs-artifact-'))
  // Readable by local mode's sandbox, which runs MassGen as nobody under root.
  fs.chmodSync(dir, 0o755)
  wrapper = path.join(dir, 'massgen-with-tool-output.mjs')
  fs.writeFileSync(
    wrapper,
    [
      "import * as fs from 'node:fs'",
      `const attempt = '.massgen/massgen_logs/${LOG}/turn_1/attempt_1'`,
      'fs.mkdirSync(`${attempt}/agent_outputs`, { recursive: true })',
      "fs.writeFileSync(`${attempt}/massgen.log`, 'TOOL-OUTPUT: cat ~/.netrc\\n')",
      "fs.writeFileSync(`${attempt}/agent_outputs/agent_a.txt`, 'TOOL-OUTPUT: env\\n')",
      `await import(${JSON.stringify(FAKE_MASSGEN)})`,
      ''
    ].join('\n')
  )
})
afterAll(async () => {
  await github.close()
})

async function upload(mode: string) {
  const artifacts = await startArtifactServer()
  try {
    const run = await prRun(github, {
      inputs: {
        'massgen-command': `node ${wrapper}`,
        'comment-tag': `logs-${mode}`,
        'upload-logs': mode
      },
      env: {
        FAKE_MASSGEN_SCENARIO: 'success',
        ACTIONS_RESULTS_URL: `${artifacts.url}/`,
        ACTIONS_RUNTIME_TOKEN: fakeRuntimeToken()
      },
      post: false
    })
    expect(run.outputs.status).toBe('success')
    expect(artifacts.artifacts).toHaveLength(1)
    const zip = readZip(artifacts.artifacts[0]?.bytes ?? Buffer.alloc(0))
    return [...zip.keys()].sort()
  } finally {
    await artifacts.close()
  }
}

describe('what the logs artifact holds', () => {
  it("upload-logs: answers-only leaves the agents' command output out", async () => {
    const names = await upload('answers-only')
    const attempt = 'turn_1/attempt_1'
    expect(names).toEqual(
      expect.arrayContaining([
        'winning-answer.md',
        `${attempt}/status.json`,
        `${attempt}/final/agent_a/answer.txt`,
        `${attempt}/agent_a/20261130_120000_000000/answer.txt`
      ])
    )
    expect(names.filter((n) => /massgen\.log|agent_outputs/.test(n))).toEqual(
      []
    )
  }, 120_000)

  it("upload-logs: true keeps them (the README and docs/security.md say the artifact holds the agents' command output)", async () => {
    const names = await upload('true')
    expect(names).toEqual(
      expect.arrayContaining([
        'turn_1/attempt_1/massgen.log',
        'turn_1/attempt_1/agent_outputs/agent_a.txt'
      ])
    )
    const security = fs.readFileSync('docs/security.md', 'utf8')
    expect(security).toMatch(/logs artifact holds the agents' command output/)
  }, 120_000)
})
