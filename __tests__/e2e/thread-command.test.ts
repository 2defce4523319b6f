// A command in a review-comment thread, end to end: the bundled action under
// Node 24, two agents played by the MassGen stand-in: the thread's file,
// lines, hunk and earlier comments reach the question MassGen is given (that
// MassGen hands the question to the agents verbatim is fact 5 of
// docs/test-contracts.md, proven live), and the consensus is a reply in the
// thread.
import { describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as path from 'node:path'
import {
  addReviewComment,
  type ServerUser
} from '../../test-support/github-server.js'
import {
  FAKE_MASSGEN,
  openTempDir,
  runAction
} from '../../test-support/run-action.js'
import { NO_LLM_URL, scriptedAgents } from '../../test-support/pr-run.js'
import { event, KEYS } from '../../test-support/fixtures.js'
import { expectNoKeyLeak } from '../../test-support/leaks.js'
import { loopbackServers } from '../../test-support/loopback.js'

const loopback = loopbackServers()

describe('a command in a review-comment thread', () => {
  it('the agents get the thread as context and the answer is a reply in it', async () => {
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
      body: 'Is the magic number 1000 measured anywhere?',
      user: { login: 'bob-reader', id: 5550002, type: 'User' },
      path: 'src/parser.ts',
      line: 13,
      startLine: 11,
      diffHunk:
        '@@ -10,6 +10,9 @@\n   const tokens = lex(input)\n+  if (tokens.length > 1000) {\n+    return fastParse(tokens)'
    })
    const body = '/massgen why is this threshold needed?'
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
    const record = path.join(openTempDir('thread-'), 'record.json')
    const run = await runAction({
      eventName: 'pull_request_review_comment',
      payload,
      githubApiUrl: github.url,
      env: {
        ...scriptedAgents({
          agent_a: {
            answer:
              'Thread answer A: below 1000 tokens the slow parser is fine.',
            voteFor: 'agent_a',
            voteReason: 'It explains the threshold.'
          },
          agent_b: {
            answer: 'Thread answer B: it is arbitrary.',
            voteFor: 'agent_a',
            voteReason: 'A is specific.'
          }
        }),
        FAKE_MASSGEN_RECORD: record
      },
      inputs: {
        models: 'vllm/model-a vllm/model-b',
        'base-url': NO_LLM_URL,
        'openai-api-key': KEYS.openai,
        'massgen-command': FAKE_MASSGEN,
        'comment-tag': 'real-thread',
        'max-duration': '600'
      }
    })
    expect(run.outputs.status).toBe('success')
    expect(run.outputs.winner).toBe('agent_a')
    // What the agents are given: the question, then the thread as data.
    const given = JSON.parse(fs.readFileSync(record, 'utf8')) as {
      args: string[]
    }
    const question = given.args[given.args.length - 1] ?? ''
    const seen = (text: string) => question.includes(text)
    expect(seen('why is this threshold needed?')).toBe(true)
    expect(seen('review-comment thread of pull request #42')).toBe(true)
    expect(seen('lines 11-13')).toBe(true)
    expect(seen('src/parser.ts')).toBe(true)
    expect(seen('+  if (tokens.length > 1000) {')).toBe(true)
    expect(seen('@bob-reader')).toBe(true)
    expect(seen('Is the magic number 1000 measured anywhere?')).toBe(true)
    // The consensus is a reply in the thread, to its first comment.
    const replies = github.state.reviewComments.filter(
      (c) => c.inReplyToId === root.id && c.id !== command.id
    )
    expect(replies).toHaveLength(1)
    expect(replies[0]?.body).toContain(
      'Thread answer A: below 1000 tokens the slow parser is fine.'
    )
    expect(run.summary).toContain('Thread answer A')
    // The PR's sticky comment is not touched by a thread command.
    expect(github.state.comments).toHaveLength(0)
    expectNoKeyLeak(run, github)
  })
})
