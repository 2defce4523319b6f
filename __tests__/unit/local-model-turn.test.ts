// What the local model server asks the model for each MassGen request, and
// that the tool calls it builds from the model's JSON are what the action
// reads back (its own parsers), without the native runtime.
import { describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import {
  planTurn,
  PROMPT_BUDGET,
  toolArgs,
  type Turn
} from '../../test-support/local-model-turn.js'
import type { ChatMessage } from '../../test-support/llm-protocol.js'
import { parseFindings } from '../../src/review/findings.js'
import { parseVotes } from '../../src/review/vote.js'
import { walkthroughOf } from '../../src/review/walkthrough.js'
import { reviewInstructions } from '../../src/context/review-prompt.js'

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'pr-context-'))
const DIFF = [
  'diff --git a/src/parser.ts b/src/parser.ts',
  '--- a/src/parser.ts',
  '+++ b/src/parser.ts',
  '@@ -1 +1 @@',
  '-old',
  '+new'
].join('\n')
fs.writeFileSync(path.join(folder, 'diff.patch'), DIFF)

const QUESTION = `Review this pull request.${reviewInstructions()}\nThe pull request is in the read-only folder ${folder} (diff.patch).`
const tool = (name: string, parameters: unknown = {}) => ({
  type: 'function',
  function: { name, parameters }
})
const READ = 'mcp__filesystem__read_text_file'
const VOTE = tool('vote', {
  properties: { agent_id: { enum: ['agent1', 'agent2'] } }
})

function request(
  user: string,
  extra: ChatMessage[] = [],
  tools = [tool('new_answer'), VOTE, tool(READ)]
) {
  const messages: ChatMessage[] = [
    { role: 'system', content: 'MassGen system prompt with `<agent1.2>`' },
    { role: 'user', content: user },
    ...extra
  ]
  const body = { messages, tools }
  return { body, raw: JSON.stringify(body) }
}

const original = (q: string, answers = '') =>
  `<ORIGINAL MESSAGE> ${q} <END OF ORIGINAL MESSAGE>\n<CURRENT ANSWERS from the agents>\n${answers}<END OF CURRENT ANSWERS>`

const readDone: ChatMessage[] = [
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: 'c1',
        type: 'function',
        function: {
          name: READ,
          arguments: JSON.stringify({ path: `${folder}/diff.patch` })
        }
      }
    ]
  },
  { role: 'tool', tool_call_id: 'c1', content: DIFF }
]

const modelTurn = (turn: Turn) => {
  if (turn.kind !== 'model')
    throw new Error(`expected a model turn, got ${turn.kind}`)
  return turn
}

describe('the local model server plans each turn', () => {
  it("a first turn offering the read tool reads the pull request's diff.patch, without the model", () => {
    const turn = planTurn({ ...request(original(QUESTION)), answered: false })
    expect(turn).toEqual({
      kind: 'forced',
      tool: READ,
      args: { path: path.join(folder, 'diff.patch') }
    })
  })

  it('once read, the model reviews: a short prompt with the diff, no example from the instructions, files from the diff only', () => {
    const turn = modelTurn(
      planTurn({ ...request(original(QUESTION), readDone), answered: false })
    )
    expect(turn.role).toBe('review')
    expect(turn.prompt).toContain('+new')
    expect(turn.prompt).not.toContain('path/changed/in/the/pull/request.ts')
    const budget = Object.values(PROMPT_BUDGET).reduce((a, b) => a + b, 0)
    expect(turn.prompt.length).toBeLessThan(budget + 500)
    const findings = turn.schema.properties as Record<
      string,
      { items: { properties: { file: unknown } } }
    >
    expect(findings.findings?.items.properties.file).toEqual({
      enum: ['src/parser.ts']
    })
  })

  it('the review JSON becomes an answer whose findings block the action parses', () => {
    const turn = modelTurn(
      planTurn({ ...request(original(QUESTION), readDone), answered: false })
    )
    const finding = {
      file: 'src/parser.ts',
      line: 1,
      severity: 'concern',
      title: 'A title',
      explanation: 'An explanation'
    }
    const args = toolArgs(turn, { summary: 'A summary', findings: [finding] })
    const parsed = parseFindings(
      'agent_a',
      args.content ?? '',
      new Set(['src/parser.ts'])
    )
    expect(parsed.block).toBe('found')
    expect(parsed.findings).toHaveLength(1)
  })

  it('the review JSON may carry a walkthrough: a block the report reads, files from the diff only', () => {
    const turn = modelTurn(
      planTurn({ ...request(original(QUESTION), readDone), answered: false })
    )
    const props = turn.schema.properties as Record<
      string,
      { items: { properties: { file: unknown } } }
    >
    expect(props.walkthrough?.items.properties.file).toEqual({
      enum: ['src/parser.ts']
    })
    // Optional for the action; the local model writes at least one line.
    expect(turn.schema.required).not.toContain('walkthrough')
    expect(props.walkthrough).toMatchObject({ minItems: 1, maxItems: 3 })
    const args = toolArgs(turn, {
      summary: 'A summary',
      walkthrough: [{ file: 'src/parser.ts', change: 'Parses faster.' }],
      findings: []
    })
    expect(
      walkthroughOf('agent_a', args.content ?? '', ['src/parser.ts'])
    ).toEqual({
      agent: 'agent_a',
      files: [{ file: 'src/parser.ts', text: 'Parses faster.' }]
    })
    expect(
      parseFindings('agent_a', args.content ?? '', new Set(['src/parser.ts']))
        .block
    ).toBe('found')
  })

  it('an agent that has answered votes, only for agents whose answer it was shown', () => {
    const user = original('Review it.', '<agent2.1> B says <end of agent2.1>\n')
    const turn = modelTurn(
      planTurn({ ...request(user, readDone), answered: true })
    )
    expect(turn.tool).toBe('vote')
    expect(turn.schema.properties).toEqual(
      expect.objectContaining({ agent_id: { enum: ['agent2'] } })
    )
    expect(
      toolArgs(turn, { agent_id: 'agent2', reason: 'because so' })
    ).toEqual({
      agent_id: 'agent2',
      reason: 'because so'
    })
  })

  it('the final presentation (no vote tool) answers again', () => {
    const turn = modelTurn(
      planTurn({
        ...request(original('A question.'), [], [tool('new_answer')]),
        answered: true
      })
    )
    expect(turn.tool).toBe('new_answer')
    expect(toolArgs(turn, { answer: 'The answer.' })).toEqual({
      content: 'The answer.'
    })
  })

  it("the vote round's ballot: no read, finding ids from the question, a votes block the action parses", () => {
    const ballot =
      'Reviewers raised the findings below (massgen-finding-votes)\n# The findings\n\n## F1\ntext\n## F2\ntext'
    const turn = modelTurn(
      planTurn({ ...request(original(ballot)), answered: false })
    )
    expect(turn.role).toBe('ballot')
    const items = turn.schema.items as { properties: { finding: unknown } }
    expect(items.properties.finding).toEqual({ enum: ['F1', 'F2'] })
    const args = toolArgs(turn, [
      { finding: 'F1', vote: 'confirm', line: 1, quote: 'new', reason: 'real' },
      { finding: 'F2', vote: 'reject', line: 1, quote: 'old', reason: 'fine' }
    ])
    const votes = parseVotes(
      'agent_a',
      args.content ?? '',
      new Set(['F1', 'F2'])
    )
    expect(votes.block).toBe('found')
    expect(votes.votes.size).toBe(2)
  })
})
