// Agents that run shell commands through MassGen's command tool in DOCKER mode
// (`docker: true`), with the REAL MassGen (the `[docker]` install) and the
// bundled action: the output shows the commands ran in a container of the
// runtime image, as its user, with the agent's workspace mounted at the host's
// path.
//
// The action runs where /.dockerenv does not show (runAction's hideDockerenv:
// this machine is a container, and MassGen would leave Docker mode). Needs a
// Docker daemon and the image MASSGEN_ACTION_TEST_IMAGE (default
// massgen-action-runtime:test, scripts/build-runtime-image.sh), so the action
// pulls nothing; else the test is skipped with the reason. MassGen with its
// `docker` extra comes from scripts/setup-massgen.sh (MASSGEN_EXTRAS=docker).
import { spawnSync } from 'node:child_process'
import * as path from 'node:path'
import { describe, expect, it, jest } from '@jest/globals'
import { commandResultsOf } from '../../test-support/llm-server.js'
import { runAction } from '../../test-support/run-action.js'
import {
  commentsOn,
  event,
  loopbackServers,
  massgenBinary,
  TEST_IMAGE
} from './helpers.js'

jest.setTimeout(900_000)

const IMAGE = TEST_IMAGE
const dockerMassgen = () => massgenBinary('docker')

/** Why a Docker-mode run cannot happen here, or '' when it can. */
function missing(): string {
  const inspect = spawnSync('docker', ['image', 'inspect', IMAGE], {
    stdio: 'ignore',
    timeout: 30_000
  })
  return inspect.status === 0 ? '' : `no Docker daemon or no image ${IMAGE}`
}

const reason = missing()
const maybe = reason ? it.skip : it

const loopback = loopbackServers()

const WHERE =
  'echo hello-from-$(whoami); pwd; id -u; test -f /.dockerenv && echo in-a-container; . /etc/os-release && echo "$ID-$VERSION_CODENAME"'
const FAILING = 'echo to-stderr >&2; exit 3'

describe('agents run commands through MassGen (docker mode)', () => {
  maybe(
    `a scripted agent runs commands in its container, as the image's user, in its workspace${reason ? ` (skipped: ${reason})` : ''}`,
    async () => {
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
          'massgen-command': dockerMassgen(),
          'comment-tag': 'agent-commands-docker',
          'max-duration': '900',
          docker: 'true',
          'docker-image': IMAGE
        },
        hideDockerenv: true
      })
      // MassGen drops an MCP server that starts later than 30 s for that round;
      // a failure here lists the tools it did offer.
      const offered = [...new Set(server.requests.flatMap((r) => r.toolNames))]
      expect(offered).toContain('mcp__command_line__execute_command')
      expect(run.outputs.status).toBe('success')

      const results = commandResultsOf(server.requests, 'model-a')
      expect(results.map((r) => r.command)).toEqual([WHERE, FAILING])
      const [where, failing] = results
      // The image's user (uid 1000), in the agent's workspace, which the
      // container mounts at the host's path; Debian bookworm is the image's.
      expect(where).toMatchObject({
        exitCode: 0,
        stdout: `hello-from-massgen\n${where?.workDir}\n1000\nin-a-container\ndebian-bookworm\n`
      })
      expect(
        where?.workDir?.startsWith(path.join(run.dir, 'runner-temp'))
      ).toBe(true)
      expect(path.basename(where?.workDir ?? '')).toMatch(/^agent_a/)
      // docker exec hands MassGen one stream: stderr arrives in stdout.
      expect(failing).toMatchObject({
        exitCode: 3,
        stdout: 'to-stderr\n',
        stderr: ''
      })

      expect(run.outputs.winner).toBe('agent_a')
      expect(run.outputs.answer).toContain('hello-from-massgen')
      expect(run.outputs.answer).toContain('in-a-container')
      const comment = commentsOn(loopback.github(), 42).find((b) =>
        b.includes('tag=agent-commands-docker')
      )
      expect(comment).toContain('hello-from-massgen')
    }
  )
})
