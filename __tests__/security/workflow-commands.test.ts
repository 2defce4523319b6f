// Workflow commands from readers: MassGen prints the whole question, which
// on a review-thread command carries the thread's earlier comments, and the
// first 200 characters of the winner's answer, and the action copies
// MassGen's output to the step's stdout, where the runner parses workflow
// commands. A reader's comment holding `::error`, `::add-mask::`,
// `::save-state`, `::set-output` or a legacy `##[...]` line must stay text.
// Played through the bundle with the MassGen stand-in, which prints its
// result lines as 0.1.97 does (the question's echo by the real MassGen is
// fact 5 of docs/test-contracts.md, proven live); the step's stdout is read
// as the runner reads it (test-support/workflow-commands.ts).
import { describe, expect, it } from '@jest/globals'
import {
  addReviewComment,
  type ServerUser
} from '../../test-support/github-server.js'
import { FAKE_MASSGEN, runAction } from '../../test-support/run-action.js'
import { NO_LLM_URL, scriptedAgents } from '../../test-support/pr-run.js'
import { workflowCommands } from '../../test-support/workflow-commands.js'
import { event, KEYS } from '../../test-support/fixtures.js'
import { loopbackServers } from '../../test-support/loopback.js'

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
    const run = await runAction({
      eventName: 'pull_request_review_comment',
      payload,
      githubApiUrl: github.url,
      env: scriptedAgents({
        agent_a: {
          answer: 'Thread answer A: safe.\n::error::EVIL from the answer',
          voteFor: 'agent_a',
          voteReason: 'Fine.'
        },
        agent_b: {
          answer: 'Thread answer B: safe.\n##[warning]EVIL from the answer',
          voteFor: 'agent_a',
          voteReason: 'A is fine.\n::warning::EVIL from a vote'
        }
      }),
      inputs: {
        models: 'vllm/model-a vllm/model-b',
        'base-url': NO_LLM_URL,
        'openai-api-key': KEYS.openai,
        'massgen-command': FAKE_MASSGEN,
        'comment-tag': 'commands',
        'max-duration': '600'
      }
    })
    expect(run.outputs.status).toBe('success')
    // MassGen did echo the reader's lines and the answer into the step's output...
    expect(run.stdout).toContain('EVIL forged annotation')
    expect(run.stdout).toContain('EVIL from the answer')
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
