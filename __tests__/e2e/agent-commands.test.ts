// Agents that run shell commands through MassGen's own command tool
// (mcp__command_line__execute_command), driven by the scripted LLM server, with
// the REAL MassGen and the bundled action: what a command sees shows where it
// ran. Local mode here (`docker: false`, the default local-sandbox), with
// `agent-commands: true` (its default, `auto`, leaves them out there).
import * as os from 'node:os'
import * as path from 'node:path'
import { describe, expect, it, jest } from '@jest/globals'
import { commandResultsOf } from '../../test-support/llm-server.js'
import { runAction } from '../../test-support/run-action.js'
import { commentsOn, event, loopbackServers, massgenBinary } from './helpers.js'

// MassGen starts its MCP servers each round; on a busy 2-core machine a run
// takes minutes.
jest.setTimeout(600_000)

const loopback = loopbackServers()

const WHERE = 'echo hello-from-$(whoami); pwd; id -u'
const FAILING = 'echo to-stderr >&2; exit 3'

describe('agents run commands through MassGen (local mode)', () => {
  it("a scripted agent runs commands on the host, as the sandbox's user, in its own workspace, and its answer carries the output", async () => {
    const server = await loopback.llm({
      agentIds: ['agent_a', 'agent_b'],
      agents: {
        'model-a': {
          answer: 'A looked around.',
          commands: [WHERE, FAILING],
          voteFor: 'agent_a'
        },
        'model-b': { answer: 'B ran nothing.', voteFor: 'agent_a' }
      }
    })
    const run = await runAction({
      eventName: 'pull_request',
      payload: event('pull_request.opened'),
      githubApiUrl: loopback.github().url,
      inputs: {
        query: 'Where do your commands run?',
        models: 'vllm/model-a vllm/model-b',
        'base-url': server.url,
        'massgen-command': massgenBinary(),
        'comment-tag': 'agent-commands-local',
        'max-duration': '900',
        docker: 'false',
        // A read-only local-mode review has no command tool by default.
        'agent-commands': 'true'
      }
    })
    // MassGen drops an MCP server that starts later than 30 s for that round;
    // a failure here lists the tools it did offer.
    const offered = [...new Set(server.requests.flatMap((r) => r.toolNames))]
    expect(offered).toContain('mcp__command_line__execute_command')
    expect(run.outputs.status).toBe('success')

    const results = commandResultsOf(server.requests, 'model-a')
    expect(results.map((r) => r.command)).toEqual([WHERE, FAILING])
    const [where, failing] = results
    // The sandbox runs the agents as nobody (65534) when the action is root.
    const uid = process.getuid?.() ?? 0
    const [user, agentUid] =
      uid === 0 ? ['nobody', 65534] : [os.userInfo().username, uid]
    // One object, so a failure shows what MassGen sent back.
    expect(where).toMatchObject({
      exitCode: 0,
      stdout: `hello-from-${user}\n${where?.workDir}\n${agentUid}\n`
    })
    // The agent's own workspace, under the action's runner-temp folder.
    expect(where?.workDir?.startsWith(path.join(run.dir, 'runner-temp'))).toBe(
      true
    )
    expect(path.basename(where?.workDir ?? '')).toMatch(/^agent_a/)
    expect(failing).toMatchObject({
      exitCode: 3,
      stdout: '',
      stderr: 'to-stderr\n'
    })
    expect(commandResultsOf(server.requests, 'model-b')).toEqual([])

    // The evidence is in the winner's answer and in the posted comment.
    expect(run.outputs.winner).toBe('agent_a')
    expect(run.outputs.answer).toContain(`$ ${WHERE}`)
    expect(run.outputs.answer).toContain(`hello-from-${user}`)
    expect(run.outputs.answer).toContain('exit_code: 3')
    const comment = commentsOn(loopback.github(), 42).find((b) =>
      b.includes('tag=agent-commands-local')
    )
    expect(comment).toContain(`hello-from-${user}`)
  })
})
