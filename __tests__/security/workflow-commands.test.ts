// Workflow commands from readers: MassGen prints the whole question, which
// on a review-thread command carries the thread's earlier comments, and the
// action copies MassGen's output to the step's stdout, where the runner
// parses workflow commands. A reader's comment holding `::error`,
// `::add-mask::`, `::save-state`, `::set-output` or a legacy `##[...]` line
// must stay text. Played through the bundle with the REAL MassGen against
// the scripted LLM server; the step's stdout is read as the runner reads it
// (test-support/workflow-commands.ts).
import { describe, expect, it, jest } from '@jest/globals'
import {
  addReviewComment,
  type ServerUser
} from '../../test-support/github-server.js'
import { runAction } from '../../test-support/run-action.js'
import { massgenBinary } from '../../test-support/massgen-binary.js'
import { workflowCommands } from '../../test-support/workflow-commands.js'
import { event, KEYS } from '../../test-support/fixtures.js'
import { loopbackServers } from '../../test-support/loopback.js'

// Real MassGen on a loaded 2-core machine: minutes, not seconds.
jest.setTimeout(600_000)

const loopback = loopbackServers()

/** The reader's comment: each line a command the runner would obey. */
const HOSTILE = [
  'Looks fine to me.',
  '::error file=src/evil.ts,line=1::EVIL forged annotation',
  '::add-mask::Thread',
  '::save-state name=work-dir::/EVIL',
  '::set-output name=status::EVIL',
  '::warning::EVIL warning',
  '::stop-commands::EVIL',
  'prefix ##[set-output name=verdict;]EVIL legacy',
  '##[error]EVIL legacy error'
].join('\n')

describe('workflow commands in readers text', () => {
  it('attack: a reader comment with ::error, ::add-mask::, ::save-state, ::set-output and ##[..] lines, echoed by MassGen, gives the runner no command', async () => {
    const github = loopback.github()
    github.state.permissions = {
      'alice-maintainer': 'maintain',
      'bob-reader': 'read'
    }
    const alice: ServerUser = {
      login: 'alice-maintainer',
      id: 5550001,
      type: 'User'
    }
    const root = addReviewComment(github.state, 42, {
      body: HOSTILE,
      user: { login: 'bob-reader', id: 5550002, type: 'User' },
      path: 'src/parser.ts',
      line: 13,
      diffHunk: '@@ -10,6 +10,9 @@\n   const tokens = lex(input)'
    })
    const body = '/massgen is this change safe?'
    const command = addReviewComment(github.state, 42, {
      body,
      user: alice,
      inReplyToId: root.id,
      createdAt: '2025-11-28T10:05:00Z'
    })
    const payload = event('pull_request_review_comment.created') as {
      comment: Record<string, unknown>
    }
    Object.assign(payload.comment, {
      id: command.id,
      in_reply_to_id: root.id,
      body
    })
    const server = await loopback.llm({
      agentIds: ['agent_a', 'agent_b'],
      agents: {
        'model-a': {
          answer: 'Thread answer A: safe.\n::error::EVIL from the answer',
          voteFor: 'agent_a',
          voteReason: 'Fine.'
        },
        'model-b': {
          answer: 'Thread answer B: safe.\n##[warning]EVIL from the answer',
          voteFor: 'agent_a',
          voteReason: 'A is fine.'
        }
      }
    })
    const run = await runAction({
      eventName: 'pull_request_review_comment',
      payload,
      githubApiUrl: github.url,
      inputs: {
        models: 'vllm/model-a vllm/model-b',
        'base-url': server.url,
        'openai-api-key': KEYS.openai,
        'massgen-command': massgenBinary(),
        'comment-tag': 'commands',
        'max-duration': '600'
      }
    })
    expect(run.outputs.status).toBe('success')
    // MassGen did echo the reader's lines into the step's output...
    expect(run.stdout).toContain('EVIL forged annotation')
    // ...yet the runner finds only the action's own commands.
    const commands = workflowCommands(run.stdout)
    expect(commands.length).toBeGreaterThan(0)
    expect(commands.filter((c) => c.rest.includes('EVIL'))).toEqual([])
    expect(
      commands.filter((c) => c.name === 'stop-commands' || c.name === 'EVIL')
    ).toEqual([])
    const masks = commands
      .filter((c) => c.name === 'add-mask')
      .map((c) => c.rest.replace(/^::/, ''))
    expect(masks).not.toContain('Thread')
    expect(run.state['work-dir']).not.toBe('/EVIL')
  })
})
