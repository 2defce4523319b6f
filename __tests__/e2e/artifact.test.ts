// The logs artifact end to end: the bundled action (dist/index.js under Node
// 24) uploads through the real @actions/artifact client to a loopback
// stand-in of the Actions artifact service (Twirp CreateArtifact, Azure block
// blob upload, FinalizeArtifact), and the report links what was uploaded.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import {
  fakeRuntimeToken,
  readZip,
  startArtifactServer,
  type ArtifactFault,
  type ArtifactServer
} from '../../test-support/artifact-server.js'
import type { GitHubServer } from '../../test-support/github-server.js'
import { FAKE_MASSGEN } from '../../test-support/run-action.js'
import { commentsOn, githubWithPull } from '../../test-support/loopback.js'
import { KEYS } from '../../test-support/fixtures.js'
import { prRun } from '../../test-support/pr-run.js'

const LOG = 'log_20261130_120000_000001'
const ANSWER = `Ship it. (The config had ${KEYS.openai} in it; rotate it.)`
const RUN_URL = 'https://github.com/octo-org/octo-repo/actions/runs/4242'

let github: GitHubServer
let wrapper: string
beforeAll(async () => {
  github = await githubWithPull()
  // fake-massgen's success scenario, with agent workspaces and a snapshot in
  // its log folder first (as MassGen keeps them): they must not be uploaded.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'artifact-e2e-'))
  // Readable by local mode's sandbox, which runs MassGen as nobody under root.
  fs.chmodSync(dir, 0o755)
  wrapper = path.join(dir, 'massgen-with-workspaces.mjs')
  fs.writeFileSync(
    wrapper,
    [
      "import * as fs from 'node:fs'",
      `const attempt = '.massgen/massgen_logs/${LOG}/turn_1/attempt_1'`,
      'for (const f of [',
      "  'agent_a/20261130_120000_000000/workspace/notes.txt',",
      "  'final/agent_a/workspace/result.txt',",
      "  'snapshots/agent_a/copy.txt',",
      "  'workspace_agent_b/scratch.md'",
      ']) {',
      '  const file = `${attempt}/${f}`',
      "  fs.mkdirSync(file.slice(0, file.lastIndexOf('/')), { recursive: true })",
      "  fs.writeFileSync(file, 'WORKSPACE-FILE\\n')",
      '}',
      `await import(${JSON.stringify(FAKE_MASSGEN)})`,
      ''
    ].join('\n')
  )
})
afterAll(async () => {
  await github.close()
})

async function uploadRun(
  tag: string,
  inputs: Record<string, string> = {},
  faults: Record<string, ArtifactFault> = {}
) {
  const artifacts: ArtifactServer = await startArtifactServer({ faults })
  const token = fakeRuntimeToken()
  try {
    const run = await prRun(github, {
      inputs: {
        'massgen-command': `node ${wrapper}`,
        'comment-tag': tag,
        'max-duration': '5',
        ...inputs
      },
      env: {
        FAKE_MASSGEN_SCENARIO: 'success',
        FAKE_MASSGEN_ANSWER: ANSWER,
        ACTIONS_RESULTS_URL: `${artifacts.url}/`,
        ACTIONS_RUNTIME_TOKEN: token
      },
      post: false
    })
    const comments = commentsOn(github, 42).filter((b) =>
      b.includes(`tag=${tag}`)
    )
    return { run, artifacts, comments, token }
  } finally {
    await artifacts.close()
  }
}

describe('logs artifact through the real @actions/artifact client', () => {
  it('uploads the redacted logs, linked from the comment, summary and output', async () => {
    const { run, artifacts, comments, token } = await uploadRun('artifact-up')
    expect(run.exitCode).toBe(0)
    expect(run.outputs.status).toBe('success')

    // One artifact, created, uploaded as blocks, committed and finalized.
    expect(artifacts.artifacts).toHaveLength(1)
    const [artifact] = artifacts.artifacts
    if (!artifact) throw new Error('no artifact')
    expect(artifact.name).toBe(`massgen-logs-artifact-up-${LOG}`)
    expect(artifact.finalized).toBe(true)
    expect(artifact.contentType).toBe('application/zip')
    expect(artifact.size).toBe(artifact.bytes.length)
    expect(artifacts.requests.map((r) => `${r.kind} ${r.status}`)).toEqual([
      'CreateArtifact 200',
      'blob 201',
      'blob 201',
      'FinalizeArtifact 200'
    ])
    expect(artifacts.requests[1]?.query.comp).toBe('block')
    expect(artifacts.requests[2]?.query.comp).toBe('blocklist')
    // The runtime token goes to the service only, never to the blob store.
    expect(artifacts.requests.map((r) => r.token)).toEqual([
      token,
      undefined,
      undefined,
      token
    ])

    // The zip: the answers, votes and status, no workspace, no key.
    const files = readZip(artifact.bytes)
    const names = [...files.keys()].sort()
    const attempt = 'turn_1/attempt_1'
    expect(names).toEqual(
      expect.arrayContaining([
        'winning-answer.md',
        `${attempt}/status.json`,
        `${attempt}/final/agent_a/answer.txt`,
        `${attempt}/agent_a/20261130_120000_000000/answer.txt`,
        `${attempt}/agent_b/20261130_120001_000000/answer.txt`
      ])
    )
    expect(names.filter((n) => /workspace|snapshot/i.test(n))).toEqual([])
    // They were there to leave out.
    const logDir = run.outputs['log-dir'] ?? ''
    expect(path.basename(logDir)).toBe(LOG)
    expect(
      fs.existsSync(path.join(logDir, attempt, 'snapshots/agent_a/copy.txt'))
    ).toBe(true)
    for (const [name, content] of files) {
      const text = content.toString('latin1')
      for (const key of Object.values(KEYS))
        expect({ name, leaks: text.includes(key) }).toEqual({
          name,
          leaks: false
        })
      expect(text).not.toContain('WORKSPACE-FILE')
    }
    const winning = files.get('winning-answer.md')?.toString('utf8') ?? ''
    expect(winning).toBe('Ship it. (The config had *** in it; rotate it.)')
    expect(files.get(`${attempt}/final/agent_a/answer.txt`)?.toString()).toBe(
      winning
    )
    expect(
      (
        JSON.parse(files.get(`${attempt}/status.json`)?.toString() ?? '{}') as {
          results: { winner: string }
        }
      ).results.winner
    ).toBe('agent_a')

    // The link: https://github.com/<repo>/actions/runs/<run>/artifacts/<id>.
    const url = `${RUN_URL}/artifacts/${artifact.id}`
    expect(run.outputs['artifact-url']).toBe(url)
    expect(run.summary).toContain(url)
    expect(comments).toHaveLength(1)
    expect(comments[0]).toContain(url)
    expect(comments[0]).not.toContain(KEYS.openai)
    expect(run.stdout).toContain(
      `Uploaded the MassGen logs as artifact 'massgen-logs-artifact-up-${LOG}'`
    )
    expect(run.stdout).not.toMatch(/^::(warning|error)::.*artifact/im)
  })

  it("upload-logs: 'false' uploads nothing and links nothing", async () => {
    const { run, artifacts, comments } = await uploadRun('artifact-off', {
      'upload-logs': 'false'
    })
    expect(run.exitCode).toBe(0)
    expect(run.outputs.status).toBe('success')
    expect(artifacts.requests).toEqual([])
    expect(artifacts.artifacts).toEqual([])
    expect(run.outputs['artifact-url'] ?? '').toBe('')
    expect(run.summary).not.toContain('/artifacts/')
    expect(comments).toHaveLength(1)
    expect(comments[0]).toContain('Ship it.')
    expect(comments[0]).not.toContain('/artifacts/')
  })

  it('a failing artifact service (500 on CreateArtifact): a warning, the report without a link', async () => {
    const { run, artifacts, comments } = await uploadRun(
      'artifact-500',
      {},
      { CreateArtifact: { status: 500, msg: 'artifact service down' } }
    )
    // The client's own retries (5 attempts, 3 s back-off growing 1.5x: the
    // report waits about 25 to 35 s), then it gives up; nothing is stored.
    const creates = artifacts.requests.filter(
      (r) => r.kind === 'CreateArtifact'
    )
    expect(creates.length).toBeGreaterThan(1)
    expect(creates.every((r) => r.status === 500)).toBe(true)
    expect(artifacts.requests.some((r) => r.kind !== 'CreateArtifact')).toBe(
      false
    )
    expect(artifacts.artifacts).toEqual([])
    expect(run.stdout).toMatch(
      /^::warning::Could not upload the MassGen logs as an artifact: .*500.*artifact service down/m
    )
    // The step outcome is the run's, unchanged.
    expect(run.exitCode).toBe(0)
    expect(run.outputs.status).toBe('success')
    expect(run.outputs['artifact-url'] ?? '').toBe('')
    expect(run.summary).toContain('Ship it.')
    expect(run.summary).not.toContain('/artifacts/')
    expect(comments).toHaveLength(1)
    expect(comments[0]).toContain('Ship it.')
    expect(comments[0]).not.toContain('/artifacts/')
  }, 90_000)
})
