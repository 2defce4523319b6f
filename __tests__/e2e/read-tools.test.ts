// The agents read the repository through the read tools the action gives
// them (src/plan/read-tools.ts: the bundled filesystem server, read tools only),
// with the REAL MassGen and the bundled action, in the default local mode
// (`agent-commands: auto` leaves MassGen's command server out there).
import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, it, jest } from '@jest/globals'
import { parse } from 'yaml'
import { openTempDir, runAction } from '../../test-support/run-action.js'
import { massgenBinary } from '../../test-support/massgen-binary.js'
import { commentsOn, loopbackServers } from '../../test-support/loopback.js'
import { event, KEYS } from '../../test-support/fixtures.js'
import { READ_TOOL_DESCRIPTIONS } from '../../src/plan/read-tools.js'

jest.setTimeout(240_000)

const loopback = loopbackServers()

/**
 * Samples, every 100 ms until stopped, the environment of each process whose
 * command line contains `marker`: what that process could read of ours.
 */
function watchEnvironments(marker: string) {
  const seen = new Map<number, string>()
  const sample = () => {
    for (const pid of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue
      try {
        const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1')
        if (!cmdline.includes(marker)) continue
        seen.set(
          Number(pid),
          fs
            .readFileSync(`/proc/${pid}/environ`, 'latin1')
            .split('\0')
            .join('\n')
        )
      } catch {
        // Gone meanwhile.
      }
    }
  }
  const timer = setInterval(sample, 100)
  return {
    stop: () => {
      clearInterval(timer)
      return seen
    }
  }
}

interface ToolSchema {
  function: { name: string; description?: string }
}

const QUOTE = 'The parser keeps a 4 KiB window; see docs/parser.md.'
const SECRET = 'outside-the-repository-7f3a9c'

describe('agents read the repository through their tools (local mode, default config)', () => {
  it('a scripted agent reads a repository file and its answer, posted, quotes it; attack: a repository symlink points at a file outside the context paths — fails; the read server holds no key', async () => {
    const workspace = openTempDir('read-tools-repo-')
    fs.writeFileSync(path.join(workspace, 'NOTES.md'), `${QUOTE}\n`)
    // A file the runner can read but the agents must not: outside every
    // context path, reached through a link in the repository.
    const outside = openTempDir('read-tools-outside-')
    fs.writeFileSync(path.join(outside, 'secret.txt'), `${SECRET}\n`)
    fs.chmodSync(path.join(outside, 'secret.txt'), 0o644)
    fs.symlinkSync(
      path.join(outside, 'secret.txt'),
      path.join(workspace, 'leak.md')
    )
    const server = await loopback.llm(
      {
        agentIds: ['agent_a', 'agent_b'],
        agents: {
          'model-a': {
            answer: 'A read the notes.',
            reads: [
              path.join(workspace, 'NOTES.md'),
              path.join(workspace, 'leak.md')
            ],
            voteFor: 'agent_a',
            // Its read server is up while it waits: time to look at it.
            delayMs: 1_000
          },
          'model-b': { answer: 'B read nothing.', voteFor: 'agent_a' }
        }
      },
      { keepBodies: true }
    )
    const readServers = watchEnvironments(path.join('fs-server', 'index.js'))
    const run = await runAction({
      eventName: 'pull_request',
      payload: event('pull_request.opened'),
      githubApiUrl: loopback.github().url,
      workspace,
      inputs: {
        query: 'What does the parser keep?',
        // chatcompletion: MassGen itself is given the OpenAI key.
        models: 'chatcompletion/model-a vllm/model-b',
        'base-url': server.url,
        'openai-api-key': KEYS.openai,
        'massgen-command': massgenBinary(),
        'comment-tag': 'read-tools',
        'max-duration': '600',
        docker: 'false'
      }
    })
    // MassGen starts stdio MCP servers with HOME, LOGNAME, PATH, SHELL,
    // TERM and USER of its own environment only (docs/test-contracts.md).
    const environments = [...readServers.stop().values()]
    expect(environments.length).toBeGreaterThan(0)
    for (const environment of environments) {
      expect(environment).not.toContain(KEYS.openai)
      expect(environment).not.toMatch(
        /^(OPENAI_API_KEY|GITHUB_TOKEN|INPUT_|ACTIONS_)/m
      )
    }
    const offered = [...new Set(server.requests.flatMap((r) => r.toolNames))]
    expect(offered).toContain('mcp__filesystem__read_text_file')
    // Read tools only; no command server in a read-only local-mode review.
    expect(offered.filter((n) => n.startsWith('mcp__')).sort()).toEqual(
      [
        'list_directory',
        'read_multiple_files',
        'read_text_file',
        'search_files'
      ].map((t) => `mcp__filesystem__${t}`)
    )
    // Described in a line each (src/plan/read-tools.ts READ_TOOL_DESCRIPTIONS): the
    // schemas go with every request.
    for (const r of server.requests) {
      const tools = (
        (r.body as { tools?: ToolSchema[] } | undefined)?.tools ?? []
      ).filter((t) => t.function.name.startsWith('mcp__'))
      expect(
        Object.fromEntries(
          tools.map((t) => [
            t.function.name.replace('mcp__filesystem__', ''),
            t.function.description
          ])
        )
      ).toEqual(READ_TOOL_DESCRIPTIONS)
    }
    expect(run.outputs.status).toBe('success')
    expect(run.outputs.winner).toBe('agent_a')

    const reads = server.requests
      .filter((r) => r.model === 'model-a')
      .flatMap((r) => r.readResults)
    const [notes, leak] = [
      reads.find((r) => r.path.endsWith('NOTES.md')),
      reads.find((r) => r.path.endsWith('leak.md'))
    ]
    expect(notes?.content).toContain(QUOTE)
    // The server resolves the link and refuses a target outside its folders.
    expect(leak?.content).toMatch(/denied|outside allowed/i)
    expect(leak?.content).not.toContain(SECRET)

    const comment = commentsOn(loopback.github(), 42).find((b) =>
      b.includes('tag=read-tools')
    )
    expect(comment).toContain(QUOTE)
    expect(comment).not.toContain(SECRET)
    expect(run.outputs.answer).toContain(QUOTE)

    // The pull request's context folder is readable too: it is one of the
    // read server's folders in the config MassGen ran with.
    const config = parse(
      fs.readFileSync(run.outputs['config-file'] ?? '', 'utf8')
    ) as {
      agents: { backend: { mcp_servers: { args: string[] }[] } }[]
    }
    const folders = config.agents[0]?.backend.mcp_servers[0]?.args.slice(1)
    expect(folders?.[0]).toBe(workspace)
    expect(folders?.some((f) => path.basename(f) === 'pr-context')).toBe(true)
    expect(run.exitCode).toBe(0)
  })
})
