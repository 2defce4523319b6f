// Docker mode's read-only review (the default: no command asked for): the
// agents read through the bundled read server, which runs in a container of
// the agents' image (src/plan/contained-read-server.ts), never on the
// runner; MassGen's command server is not started. The bundled action, the
// real MassGen with its [docker] extra, the real engine and image.
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { randomUUID } from 'node:crypto'
import { describe, expect, it, jest } from '@jest/globals'
import { parse } from 'yaml'
import { massgenBinary } from '../../test-support/massgen-binary.js'
import { openTempDir, runAction } from '../../test-support/run-action.js'
import { event, KEYS, TEST_IMAGE } from '../../test-support/fixtures.js'
import { commentsOn, loopbackServers } from '../../test-support/loopback.js'
import { expectNoKeyLeak } from '../../test-support/leaks.js'
import { docker } from '../../test-support/processes.js'

jest.setTimeout(900_000)

const loopback = loopbackServers()
const QUOTE = 'The parser keeps a 4 KiB window; see docs/parser.md.'
const SECRET = `runner-only-${randomUUID()}`

/** Every process whose command line names the read server, as seen from the runner, until stopped. */
function watchReadServers() {
  const seen = new Map<number, { cmdline: string; environ: string }>()
  const timer = setInterval(() => {
    for (const pid of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue
      try {
        const cmdline = fs
          .readFileSync(`/proc/${pid}/cmdline`, 'latin1')
          .split('\0')
          .join(' ')
        if (!cmdline.includes('fs-server')) continue
        const environ = fs.readFileSync(`/proc/${pid}/environ`, 'latin1')
        seen.set(Number(pid), { cmdline, environ })
      } catch {
        // Gone meanwhile.
      }
    }
  }, 100)
  return {
    stop: () => {
      clearInterval(timer)
      return [...seen.values()]
    }
  }
}

describe("Docker mode, a read-only review: the read server in the agents' image", () => {
  it('attack: the repository links to a runner-only file and the agent reads it and /proc/self/environ — both refused, nothing of the runner shows; the server runs only in the container, offers no command, and no container is left', async () => {
    const workspace = openTempDir('contained-read-repo-')
    fs.writeFileSync(path.join(workspace, 'NOTES.md'), `${QUOTE}\n`)
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'contained-out-'))
    fs.chmodSync(outside, 0o755)
    fs.writeFileSync(path.join(outside, 'secret.txt'), `${SECRET}\n`)
    fs.chmodSync(path.join(outside, 'secret.txt'), 0o644)
    fs.symlinkSync(
      path.join(outside, 'secret.txt'),
      path.join(workspace, 'leak.md')
    )
    const server = await loopback.llm({
      agentIds: ['agent_a', 'agent_b'],
      agents: {
        'model-a': {
          answer: 'A read the notes.',
          reads: [
            path.join(workspace, 'NOTES.md'),
            path.join(workspace, 'leak.md'),
            '/proc/self/environ'
          ],
          voteFor: 'agent_a',
          // Its read server is up while it waits: time to look at it.
          delayMs: 1_000
        },
        'model-b': { answer: 'B read nothing.', voteFor: 'agent_a' }
      }
    })
    const servers = watchReadServers()
    const run = await runAction({
      eventName: 'pull_request',
      payload: event('pull_request.opened'),
      githubApiUrl: loopback.github().url,
      workspace,
      hideDockerenv: true,
      inputs: {
        query: 'What does the parser keep?',
        // chatcompletion: MassGen itself is given the OpenAI key.
        models: 'chatcompletion/model-a vllm/model-b',
        'base-url': server.url,
        'openai-api-key': KEYS.openai,
        'massgen-command': massgenBinary('docker'),
        docker: 'true',
        'docker-image': TEST_IMAGE,
        'comment-tag': 'contained-read',
        'max-duration': '600',
        'upload-logs': 'false'
      }
    })
    // This run's servers: they serve its checkout (other jobs may run theirs).
    const seen = servers.stop().filter((p) => p.cmdline.includes(workspace))
    expect(run.outputs.status).toBe('success')
    expect(run.outputs.winner).toBe('agent_a')

    // On the runner only the docker client names the server (the action's
    // `docker run` of the read container, MassGen's `docker exec` at each
    // turn); the server's Node is the container's (its mount point), and
    // holds no key.
    const [clients, nodes] = [
      seen.filter((p) => /^\S*docker (exec|run) /.test(p.cmdline)),
      seen.filter((p) => p.cmdline.startsWith('/opt/massgen-action/node '))
    ]
    expect(clients.length).toBeGreaterThan(0)
    expect(nodes.length).toBeGreaterThan(0)
    expect(seen.length).toBe(clients.length + nodes.length)
    for (const { environ } of seen) {
      expect(environ).not.toContain(KEYS.openai)
      expect(environ).not.toMatch(/(^|\0)(OPENAI_API_KEY|GITHUB_TOKEN|INPUT_)/)
    }

    const offered = [...new Set(server.requests.flatMap((r) => r.toolNames))]
    expect(offered).toContain('mcp__filesystem__read_text_file')
    expect(offered.some((n) => n.includes('execute_command'))).toBe(false)

    const reads = server.requests
      .filter((r) => r.model === 'model-a')
      .flatMap((r) => r.readResults)
    const find = (end: string) => reads.find((r) => r.path.endsWith(end))
    expect(find('NOTES.md')?.content).toContain(QUOTE)
    // Refused either way: outside the allowed folders, or (no agent folder
    // since a read-only run has no cwd) a target the container has no trace of.
    expect(find('leak.md')?.content).toMatch(
      /denied|outside allowed|Parent directory does not exist/i
    )
    expect(find('/proc/self/environ')?.content).toMatch(
      /denied|outside allowed/i
    )
    for (const r of reads) {
      expect(r.content).not.toContain(SECRET)
      expect(r.content).not.toContain(KEYS.openai)
    }

    const comment = commentsOn(loopback.github(), 42).find((b) =>
      b.includes('tag=contained-read')
    )
    expect(comment).toContain(QUOTE)
    expect(comment).not.toContain(SECRET)
    expectNoKeyLeak(run, loopback.github())

    // The config: the server through `docker exec` into the run's read
    // container; no command tool; and that container is gone.
    const config = parse(
      fs.readFileSync(run.outputs['config-file'] ?? '', 'utf8')
    ) as {
      agents: {
        backend: {
          enable_mcp_command_line: boolean
          mcp_servers: { command: string; args: string[] }[]
        }
      }[]
    }
    const entry = config.agents[0]?.backend.mcp_servers[0]
    expect(config.agents[0]?.backend.enable_mcp_command_line).toBe(false)
    expect(entry?.command).toMatch(/\/docker$/)
    expect(entry?.args.slice(0, 2)).toEqual(['exec', '--interactive'])
    const name = entry?.args[2] ?? ''
    expect(name).toMatch(/^massgen-read-[0-9a-f]{8}$/)
    expect(docker('ps', '--all', '--filter', `name=^${name}$`, '--quiet')).toBe(
      ''
    )
    expect(run.exitCode).toBe(0)
  })

  it("an image that cannot run the runner's Node: a clear error naming the image and agent-commands, before any agent starts", async () => {
    // The test image without libstdc++, which the runner's Node needs.
    const image = `massgen-action-no-node:${randomUUID().slice(0, 8)}`
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'no-node-image-'))
    fs.writeFileSync(
      path.join(dir, 'Dockerfile'),
      `FROM ${TEST_IMAGE}\nUSER root\nRUN rm -f /usr/lib/x86_64-linux-gnu/libstdc++.so.6*\n`
    )
    try {
      docker('build', '--quiet', '--tag', image, dir)
      const run = await runAction({
        eventName: 'pull_request',
        payload: event('pull_request.opened'),
        githubApiUrl: loopback.github().url,
        workspace: openTempDir('contained-no-node-'),
        hideDockerenv: true,
        inputs: {
          query: 'What does the parser keep?',
          models: 'vllm/model-a',
          'base-url': 'http://127.0.0.1:9/v1',
          'openai-api-key': KEYS.openai,
          'massgen-command': massgenBinary('docker'),
          docker: 'true',
          'docker-image': image,
          'comment-tag': 'contained-no-node',
          'upload-logs': 'false'
        }
      })
      expect(run.exitCode).not.toBe(0)
      expect(run.summary).toMatch(
        new RegExp(`read tools could not start in the image '${image}'`)
      )
      expect(run.summary).toMatch(/agent-commands: true/)
      expect(
        docker('ps', '--all', '--filter', `ancestor=${image}`, '--quiet')
      ).toBe('')
    } finally {
      docker('rmi', '--force', image)
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
