// The shards of a matrix review (src/shards/): the plan, the inputs that
// shape it, and the zip reader that reads a shard's hostile artifact.
import { describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { parse } from 'yaml'
import { Defaults, Inputs } from '../../src/core/constants.js'
import { readShardInputs } from '../../src/inputs/shard-inputs.js'
import {
  matrixOf,
  planShards,
  weightOf,
  type PlannedFile
} from '../../src/shards/plan-shards.js'
import { latestAttempt, readOnlyFile } from '../../src/shards/download.js'
import { costText } from '../../src/shards/aggregate-report.js'
import {
  checkRecord,
  MAX_RECORD_BYTES,
  recordOf
} from '../../src/shards/record.js'
import { plannedEntry, tokenInReach } from '../../src/shards/shard-job.js'
import { expectedAgents } from '../../src/shards/expected-agents.js'
import { parseModels, possibleAgentIds } from '../../src/inputs/models.js'
import { makeZip } from '../../test-support/zip.js'

const file = (filename: string, changed = 10): PlannedFile => ({
  filename,
  additions: changed,
  deletions: 0
})
const weight = (files: string[], all: PlannedFile[]) =>
  files.reduce(
    (sum, f) =>
      sum + weightOf(all.find((a) => a.filename === f) as PlannedFile),
    0
  )

describe('planShards', () => {
  it('keeps a folder together when the folders balance', () => {
    const files = [
      file('api/a.ts'),
      file('api/b.ts'),
      file('web/a.ts'),
      file('web/b.ts')
    ]
    const plan = planShards(files, [], 2)
    expect(plan.shards.map((s) => s.files)).toEqual([
      ['api/a.ts', 'api/b.ts'],
      ['web/a.ts', 'web/b.ts']
    ])
    expect(plan.shards.map((s) => s.id)).toEqual(['s1', 's2'])
  })

  it('splits one huge folder (1,000 files) into max-shards balanced groups', () => {
    const files = Array.from({ length: 1000 }, (_, i) =>
      file(`src/gen/f${String(i).padStart(4, '0')}.ts`, 1 + (i % 7))
    )
    const plan = planShards(files, [], 4)
    expect(plan.shards).toHaveLength(4)
    const all = plan.shards.flatMap((s) => s.files)
    expect(new Set(all).size).toBe(1000)
    const weights = plan.shards.map((s) => weight(s.files, files))
    const total = weights.reduce((a, b) => a + b, 0)
    for (const w of weights)
      expect(Math.abs(w - total / 4)).toBeLessThan(total * 0.05)
  })

  it('cuts one folder into three equal shares, not halves of halves', () => {
    const files = Array.from({ length: 1000 }, (_, i) =>
      file(`g/f${String(i).padStart(4, '0')}.ts`, 2)
    )
    expect(
      planShards(files, [], 3)
        .shards.map((s) => s.files.length)
        .sort()
    ).toEqual([333, 333, 334])
  })

  it('balances by diff size: a heavy folder is split, light ones kept whole', () => {
    const files = [
      ...Array.from({ length: 6 }, (_, i) => file(`core/f${i}.ts`, 100)),
      file('docs/a.md', 5),
      file('docs/b.md', 5)
    ]
    const plan = planShards(files, [], 3)
    const weights = plan.shards.map((s) => weight(s.files, files))
    expect(Math.max(...weights)).toBeLessThanOrEqual(210)
    expect(
      plan.shards.some(
        (s) =>
          s.files.join() === 'docs/a.md,docs/b.md' ||
          (s.files.includes('docs/a.md') && s.files.includes('docs/b.md'))
      )
    ).toBe(true)
  })

  it('crosses the path groups with the questions, within max-shards', () => {
    const files = Array.from({ length: 10 }, (_, i) => file(`d${i}/x.ts`))
    const questions = [
      { name: 'security', text: 'Find injection bugs.' },
      { name: 'tests', text: 'Is it tested?' }
    ]
    const plan = planShards(files, questions, 5)
    expect(plan.pathGroups).toBe(2)
    expect(plan.shards.map((s) => s.id)).toEqual([
      's1-security',
      's1-tests',
      's2-security',
      's2-tests'
    ])
    expect(plan.shards[1]).toMatchObject({
      question: 'tests',
      ask: 'Is it tested?'
    })
  })

  it('never makes more shards than files, and none for no files', () => {
    expect(planShards([file('a.ts')], [], 8).shards).toHaveLength(1)
    expect(planShards([], [], 8).shards).toEqual([])
  })

  it('refuses more questions than max-shards instead of dropping some', () => {
    const qs = ['a', 'b', 'c'].map((name) => ({ name, text: 'q' }))
    expect(() => planShards([file('a.ts')], qs, 2)).toThrow(/max-shards is 2/)
  })

  it('gives the same plan for the same files in any order (the aggregate re-plans)', () => {
    const files = Array.from({ length: 50 }, (_, i) =>
      file(`p${i % 5}/f${i}.ts`, i + 1)
    )
    const shuffled = [...files].reverse()
    expect(planShards(shuffled, [], 4)).toEqual(planShards(files, [], 4))
  })
})

describe('planShards by the globs of shard-paths', () => {
  const rules = [
    { name: 'web', globs: ['web/**', '*.css'] },
    { name: 'api', globs: ['api/', 'lib/**'] }
  ]
  const ids = (plan: ReturnType<typeof planShards>) =>
    plan.shards.map((s) => s.id)

  it('groups by the first matching group, the unmatched files in rest', () => {
    const files = [
      file('web/app.ts'),
      file('api/styles/x.css'), // '*.css' of web comes first
      file('api/server.ts'),
      file('lib/util.ts'),
      file('README.md'),
      file('docs/a.md')
    ]
    const plan = planShards(files, [], 3, rules)
    expect(ids(plan)).toEqual(['web', 'api', 'rest'])
    expect(plan.shards.map((s) => s.files)).toEqual([
      ['api/styles/x.css', 'web/app.ts'],
      ['api/server.ts', 'lib/util.ts'],
      ['README.md', 'docs/a.md']
    ])
    expect(plan.pathGroups).toBe(3)
  })

  it('makes no shard for a group no file falls into, nor an empty rest', () => {
    const plan = planShards([file('web/a.ts'), file('lib/b.ts')], [], 4, rules)
    expect(ids(plan)).toEqual(['web', 'api'])
  })

  it('gives the path groups left to the heaviest group, cut by folder, balanced by changed lines', () => {
    const files = [
      ...Array.from({ length: 40 }, (_, i) =>
        file(`web/p${i % 4}/f${String(i).padStart(2, '0')}.ts`, 15)
      ),
      file('api/a.ts', 30),
      file('api/b.ts', 30)
    ]
    const plan = planShards(files, [], 5, rules)
    expect(ids(plan)).toEqual(['web-1', 'web-2', 'web-3', 'web-4', 'api'])
    const webWeights = plan.shards
      .filter((s) => s.id.startsWith('web'))
      .map((s) => weight(s.files, files))
    expect(webWeights.reduce((a, b) => a + b, 0)).toBe(600)
    expect(webWeights).toEqual([150, 150, 150, 150])
    expect(new Set(plan.shards.flatMap((s) => s.files)).size).toBe(42)
  })

  it('crosses the groups with the questions', () => {
    const plan = planShards(
      [file('web/a.ts'), file('x.ts')],
      [{ name: 'security', text: 'Find injection bugs.' }],
      4,
      rules
    )
    expect(ids(plan)).toEqual(['web-security', 'rest-security'])
  })

  it('refuses more groups with files than max-shards leaves, naming both inputs', () => {
    expect(() =>
      planShards(
        [file('web/a.ts'), file('api/b.ts'), file('x.ts')],
        [],
        2,
        rules
      )
    ).toThrow(
      /the changed files fall into 3 groups of 'shard-paths' \(web, api, rest\), but 'max-shards' leaves 2 path group\(s\)/
    )
  })

  it('refuses two shards of one name', () => {
    const clash = [
      { name: 'web', globs: ['web/**'] },
      { name: 'web-1', globs: ['other/**'] }
    ]
    const files = [file('web/a/x.ts'), file('web/b/y.ts'), file('other/z.ts')]
    expect(() => planShards(files, [], 3, clash)).toThrow(
      /two shards would be named 'web-1': rename a group of 'shard-paths'/
    )
  })

  it('gives the same plan for the same files in any order', () => {
    const files = Array.from({ length: 40 }, (_, i) =>
      file(`${['web', 'api', 'lib', 'misc'][i % 4]}/f${i}.ts`, i + 1)
    )
    expect(planShards([...files].reverse(), [], 6, rules)).toEqual(
      planShards(files, [], 6, rules)
    )
  })
})

describe('the matrix and a shard entry of the plan', () => {
  const questions = [{ name: 'security', text: 'Find injection bugs.' }]
  const files = Array.from({ length: 3000 }, (_, i) =>
    file(`src/gen/f${String(i).padStart(4, '0')}.ts`)
  )
  const plan = planShards(files, questions, 4)

  it("carries ids, question names and the plan's sha256 only, at most 140 bytes a shard", () => {
    const sha = 'c'.repeat(64)
    expect(matrixOf(plan, sha).include).toEqual(
      plan.shards.map((s) => ({
        id: s.id,
        question: 'security',
        planSha256: sha
      }))
    )
    expect(JSON.stringify(matrixOf(plan, sha)).length).toBeLessThan(
      140 * plan.shards.length
    )
  })

  it("finds a shard's files and question text in the plan by its id", () => {
    const entry = plannedEntry(plan.shards, {
      id: 's2-security',
      question: 'security'
    })
    expect(entry).toBe(plan.shards[1])
    expect(entry.ask).toBe('Find injection bugs.')
    expect(plannedEntry(plan.shards, { id: 's1-security', question: '' })).toBe(
      plan.shards[0]
    )
  })

  it('refuses an id the plan does not have, or another question, naming the input', () => {
    expect(() =>
      plannedEntry(plan.shards, { id: 's9-security', question: '' })
    ).toThrow(
      /Input 'shard': shard 's9-security' is not in the matrix job's plan \(its shards: s1-security, s2-security, s3-security, s4-security\).*toJSON\(matrix\)/
    )
    expect(() =>
      plannedEntry(plan.shards, { id: 's1-security', question: 'tests' })
    ).toThrow(
      /Input 'shard': shard 's1-security' asks question 'security' in the matrix job's plan, not 'tests'/
    )
  })
})

describe('the shard inputs', () => {
  const action = parse(fs.readFileSync('action.yml', 'utf8')) as {
    inputs: Record<string, { default?: string }>
  }
  const read = (inputs: Record<string, string>) =>
    readShardInputs((name) => inputs[name] ?? '')

  it("read empty as action.yml's defaults", () => {
    const names = [
      Inputs.Role,
      Inputs.Shard,
      Inputs.ShardQuestions,
      Inputs.ShardPaths,
      Inputs.MaxShards,
      Inputs.ShardResults,
      Inputs.ShardsResult
    ]
    const defaults = Object.fromEntries(
      names.map((n) => [n, String(action.inputs[n]?.default ?? '')])
    )
    expect(read({})).toEqual(read(defaults))
    expect(read({})).toEqual({
      role: 'run',
      questions: [],
      paths: [],
      maxShards: Defaults.MaxShards,
      resultsPrefix: 'massgen-shard-massgen-'
    })
    expect(read({ 'comment-tag': 'perf' }).resultsPrefix).toBe(
      'massgen-shard-perf-'
    )
  })

  it("read the shard jobs' result for role aggregate", () => {
    expect(
      read({ role: 'aggregate', 'shards-result': 'failure' }).shardsResult
    ).toBe('failure')
  })

  it('read shard-paths, one named group of globs a line', () => {
    expect(
      read({
        'shard-paths':
          'Web: web/**, *.{css,scss}\r\n# comment\n\napi: api/\nlib-2: lib/**'
      }).paths
    ).toEqual([
      { name: 'web', globs: ['web/**', '*.{css,scss}'] },
      { name: 'api', globs: ['api/'] },
      { name: 'lib-2', globs: ['lib/**'] }
    ])
  })

  it.each([
    ['web/**', /got 'web\/\*\*', expected 'name: glob\[, glob\.\.\.\]'/],
    ['web:', /got 'web:', expected 'name: glob\[, glob\.\.\.\]'/],
    ['a b: x/**', /got 'a b: x\/\*\*', expected 'name: glob/],
    [`${'n'.repeat(25)}: x`, /expected 'name: glob.*at most 24 letters/],
    ['rest: x/**', /the name 'rest' is the group of the files no glob matches/],
    ['a: x\nA: y', /the name 'a' is given twice/],
    [
      'a: src/**, !src/gen/**',
      /group 'a': '!src\/gen\/\*\*' cannot take files back/
    ],
    [
      `a: ${'x'.repeat(501)}`,
      /group 'a': the glob 'x+.*' is longer than 500 characters/
    ],
    ['a: src/\u0001', /group 'a': the glob .* is a control character/]
  ])(
    'refuse shard-paths %j naming the input and the form',
    (value, message) => {
      expect(() => read({ 'shard-paths': value })).toThrow(
        new RegExp(`Input 'shard-paths': .*${message.source}`)
      )
    }
  )

  it('read named questions, one a line', () => {
    expect(
      read({
        'shard-questions':
          'Security: Find injection bugs.\n# none\n\ntests: Is it tested: really?'
      }).questions
    ).toEqual([
      { name: 'security', text: 'Find injection bugs.' },
      { name: 'tests', text: 'Is it tested: really?' }
    ])
  })

  it("read a matrix entry for role shard: its id, question name and the plan's sha256", () => {
    const planSha256 = 'a'.repeat(64)
    const shard = { id: 's1-security', question: 'security', planSha256 }
    expect(read({ role: 'shard', shard: JSON.stringify(shard) }).shard).toEqual(
      shard
    )
    expect(
      read({ role: 'shard', shard: JSON.stringify({ id: 's2', planSha256 }) })
        .shard
    ).toEqual({ id: 's2', question: '', planSha256 })
    expect(() => read({ role: 'shard', shard: '{"id":"s2"}' })).toThrow(
      /Input 'shard': planSha256 is not valid/
    )
  })

  it.each([
    [
      { role: 'fan-out' },
      /Input 'role': got 'fan-out', expected 'run', 'matrix', 'shard' or 'aggregate'/
    ],
    [
      { 'max-shards': '0' },
      /Input 'max-shards': got '0', expected a whole number from 1 to 64/
    ],
    [{ 'max-shards': '65' }, /Input 'max-shards'.*1 to 64/],
    [{ 'max-shards': 'four' }, /Input 'max-shards'/],
    [
      { 'shard-questions': 'no colon here' },
      /Input 'shard-questions': got 'no colon here', expected 'name: question'/
    ],
    [{ 'shard-questions': 'a: x\nA: y' }, /the name 'a' is given twice/],
    [
      { 'shard-results': 'massgen-shard' },
      /Input 'shard-results': .*ending in '\*'/
    ],
    [{ 'shard-results': '../x*' }, /Input 'shard-results'/],
    [{ role: 'shard' }, /Input 'shard' is empty, but role 'shard' needs/],
    [
      { role: 'aggregate' },
      /Input 'shards-result': got '', but role 'aggregate' needs the shard jobs' result/
    ],
    [
      { role: 'aggregate', 'shards-result': 'passed' },
      /Input 'shards-result': got 'passed'/
    ],
    [{ role: 'shard', shard: '{' }, /Input 'shard': got '\{', not JSON/],
    [
      { role: 'shard', shard: '{"id":"../x","question":""}' },
      /Input 'shard': id is not valid; expected this job's matrix entry as JSON .*\{"id": "s1", "question": "", "planSha256"/
    ],
    [
      { role: 'shard', shard: '{"id":"s1","question":"Not A Name"}' },
      /Input 'shard': question is not valid/
    ],
    [
      { role: 'shard', shard: '{"id":"s1","files":["a.ts"],"question":""}' },
      /Input 'shard': 'files' is not part of a matrix entry \(the shard reads its files from the plan\)/
    ]
  ])('refuse %j naming the input and the form', (inputs, message) => {
    expect(() => read(inputs)).toThrow(message)
  })
})

describe('readOnlyFile (a shard artifact, hostile)', () => {
  const json = Buffer.from('{"ok":true}')
  it('reads the one file', () => {
    expect(
      readOnlyFile(
        makeZip([{ name: 'record.json', data: json }]),
        'record.json',
        100
      )
    ).toBe('{"ok":true}')
  })
  it('refuses a zip bomb that claims a small size', () => {
    const bomb = makeZip([
      { name: 'record.json', data: Buffer.alloc(50_000_000), claimedSize: 10 }
    ])
    expect(bomb.length).toBeLessThan(100_000)
    expect(() => readOnlyFile(bomb, 'record.json', 2_000_000)).toThrow(
      /inflates past the 2000000-byte cap/
    )
  })
  it('refuses a file over the cap by its header', () => {
    const big = makeZip([
      { name: 'record.json', data: Buffer.alloc(3_000_000) }
    ])
    expect(() => readOnlyFile(big, 'record.json', 2_000_000)).toThrow(
      /over the 2000000-byte cap/
    )
  })
  it('refuses links, FIFOs, second files and other names', () => {
    expect(() =>
      readOnlyFile(
        makeZip([
          {
            name: 'record.json',
            data: Buffer.from('/etc/passwd'),
            mode: 0o120777
          }
        ]),
        'record.json',
        100
      )
    ).toThrow(/not a regular file/)
    expect(() =>
      readOnlyFile(
        makeZip([
          { name: 'record.json', data: Buffer.alloc(0), mode: 0o010644 }
        ]),
        'record.json',
        100
      )
    ).toThrow(/not a regular file/)
    expect(() =>
      readOnlyFile(
        makeZip([
          { name: 'record.json', data: json },
          { name: 'x', data: json }
        ]),
        'record.json',
        100
      )
    ).toThrow(/found 2 file/)
    expect(() =>
      readOnlyFile(
        makeZip([{ name: '../record.json', data: json }]),
        'record.json',
        100
      )
    ).toThrow(/expected the one file/)
  })
  it('refuses what is not a zip', () => {
    expect(() =>
      readOnlyFile(
        Buffer.from('not a zip at all, nothing here'),
        'record.json',
        100
      )
    ).toThrow(/not a readable zip/)
  })
})

describe('checkRecord (a shard record, hostile)', () => {
  const entry = { id: 's1', files: ['a.ts'], question: '', ask: '' }
  const head = 'b'.repeat(40)
  const pullFiles = new Set(['a.ts', 'b.ts'])
  const block = (items: unknown[]) =>
    `Prose <ORIGINAL MESSAGE>\n\`\`\`massgen-findings\n${JSON.stringify(items)}\n\`\`\``
  const record = (
    answers: Array<{ agent: string; text: string }>,
    extra = {}
  ) =>
    JSON.stringify({
      version: 1,
      shard: 's1',
      status: 'success',
      headSha: head,
      answers,
      votes: [],
      ...extra
    })
  const agents = expectedAgents({
    models: parseModels('openai/gpt-5.4 gemini/gemini-3.1-pro-preview'),
    userConfig: undefined,
    baseSetup: []
  })
  const check = (text: string) =>
    checkRecord(text, { entry, headSha: head, pullFiles, agents })

  it('takes a shard that failed before reading the plan (no head) as failed, not refused', () => {
    const got = check(
      JSON.stringify({
        version: 1,
        shard: 's1',
        status: 'failed',
        reason: 'No artifact massgen-shards-plan-massgen-a1',
        answers: [],
        votes: []
      })
    )
    expect(got.ok).toBe(true)
    if (got.ok) expect(got.accepted.record.status).toBe('failed')
  })
  it('refuses a success that names no head', () => {
    const got = check(
      JSON.stringify({
        version: 1,
        shard: 's1',
        status: 'success',
        answers: [],
        votes: []
      })
    )
    expect(got.ok).toBe(false)
    if (!got.ok) expect(got.reason).toMatch(/names no head/)
  })

  it("keeps only findings on the shard's own files, rebuilt with markers inert", () => {
    const got = check(
      record([
        {
          agent: 'agent_a',
          text: block([
            {
              file: 'a.ts',
              line: 1,
              severity: 'blocker',
              title: 'Bad <agent1.1> thing'
            },
            {
              file: 'b.ts',
              line: 1,
              severity: 'blocker',
              title: 'Other shard'
            },
            {
              file: '/etc/passwd',
              line: 1,
              severity: 'blocker',
              title: 'Escape'
            }
          ])
        }
      ])
    )
    if (!got.ok) throw new Error(got.reason)
    expect(got.accepted.dropped).toBe(2)
    expect(got.accepted.outside).toBe(1)
    const [answer] = got.accepted.answers
    expect(answer?.agent).toBe('s1/agent_a')
    expect(answer?.text).not.toMatch(
      /<agent1\.1>|ORIGINAL MESSAGE|Other shard|passwd/
    )
    expect(answer?.text).toContain('Bad ‹agent1.1› thing')
  })

  it.each([
    ['not JSON', '{', /not JSON/],
    ['an unknown field', record([], { extra: 1 }), /wrong shape/],
    [
      'a bad agent id',
      record([{ agent: '../x', text: '' }]),
      /wrong shape \(at answers\.0\.agent\)/
    ],
    [
      'an agent twice',
      record([
        { agent: 'agent_a', text: '' },
        { agent: 'agent_a', text: '' }
      ]),
      /agent 'agent_a' twice/
    ],
    [
      'an agent the models do not name',
      record([{ agent: 'agent_a', text: '' }], { winner: 'reviewer' }),
      /names agent 'reviewer', not one the shard runs \('models' names 2 pairs\)/
    ],
    [
      'a vote by an agent the models do not name',
      record([], { votes: [{ agent: 'agent_c', votedFor: 'agent_a' }] }),
      /names agent 'agent_c'/
    ],
    [
      'more agents than the models',
      record([
        { agent: 'agent_a', text: '' },
        { agent: 'agent_b', text: '' },
        { agent: 'agent_c', text: '' }
      ]),
      /names 3 agents, more than the 2 the shard runs/
    ],
    [
      'another shard',
      record([], { shard: 's2' }),
      /names shard 's2', not 's1'/
    ],
    ['over the cap', ' '.repeat(MAX_RECORD_BYTES + 1), /over 2097152 bytes/]
  ])('refuses %s', (_what, text, reason) => {
    const got = check(text)
    expect(got.ok).toBe(false)
    if (!got.ok) expect(got.reason).toMatch(reason)
  })
})

describe('recordOf (the vote round in a shard record)', () => {
  const entry = { id: 's1', files: ['a.ts'], question: '', ask: '' }
  const key = 'sk-test-0123456789abcdefghijklmnop'
  const ballotBlock =
    '```massgen-finding-votes\n[{"finding":"F1","vote":"confirm"}]\n```'
  const result = {
    outcome: 'success' as const,
    question: 'q',
    exitCode: 0,
    agents: [
      { id: 'agent_a', status: 'voted', votesReceived: 1, answerCount: 1 }
    ],
    votes: {},
    findingVote: {
      ran: true,
      findings: 99,
      answers: {
        agent_b: `leaked ${key}`,
        agent_a: `${'x'.repeat(200 * 1024)}\n${ballotBlock}`
      },
      cost: 0.5
    }
  }

  it('carries each ballot redacted, its last 64 KiB (the block read is the last), the count capped at 30', () => {
    const record = recordOf(entry, 'b'.repeat(40), result, [key])
    expect(record.vote?.findings).toBe(30)
    expect(record.vote?.ballots.map((b) => b.agent)).toEqual([
      'agent_a',
      'agent_b'
    ])
    expect(record.vote?.ballots[0]?.text.length).toBe(64 * 1024)
    expect(record.vote?.ballots[0]?.text.endsWith(ballotBlock)).toBe(true)
    expect(JSON.stringify(record)).not.toContain(key)
    // The aggregate takes it back whole.
    const got = checkRecord(JSON.stringify(record), {
      entry,
      headSha: 'b'.repeat(40),
      pullFiles: new Set(['a.ts']),
      agents: expectedAgents({
        models: parseModels('openai/a gemini/b'),
        userConfig: undefined,
        baseSetup: []
      })
    })
    expect(got.ok).toBe(true)
  })
})

describe('expectedAgents (what a shard may name, known without a key)', () => {
  it('gives the ids the models may run, the defaults at most four, a config its own', () => {
    expect([...possibleAgentIds(parseModels('openai/a gemini/b')).ids]).toEqual(
      ['agent_a', 'agent_b']
    )
    expect(possibleAgentIds([])).toEqual({
      ids: new Set(['agent_a', 'agent_b', 'agent_c', 'agent_d']),
      most: 4
    })
    const config = expectedAgents({
      models: [],
      userConfig: {
        config: { agents: [{ id: 'sec' }, { id: 'perf' }] },
        origin: 'inline'
      },
      baseSetup: []
    })
    expect([...config.ids]).toEqual(['sec', 'perf'])
    expect(config.most).toBe(2)
  })
  it('refuses a config file, which the shards cannot have', () => {
    expect(() =>
      expectedAgents({
        models: [],
        userConfig: undefined,
        baseSetup: [{ input: 'config', path: 'massgen.yaml', maxBytes: 1 }]
      })
    ).toThrow(/Input 'config' names a file/)
  })
})

describe('latestAttempt (re-runs upload under their own attempt)', () => {
  const named = (...names: string[]) => names.map((name) => ({ name }))
  it('takes the highest attempt not later than its own', () => {
    const all = named('p-s1-a1', 'p-s1-a3', 'p-s1-a2', 'p-s1-x1', 'p-s1-a1-a4')
    expect(latestAttempt(all, 'p-s1', 2)).toEqual(named('p-s1-a2'))
    expect(latestAttempt(all, 'p-s1', 9)).toEqual(named('p-s1-a3'))
    expect(latestAttempt(all, 'p-s1-a1', 9)).toEqual(named('p-s1-a1-a4'))
    expect(latestAttempt(all, 'p-s2', 9)).toEqual([])
  })
  it('gives every artifact of that attempt, for the caller to refuse two', () => {
    expect(latestAttempt(named('p-a1', 'p-a1'), 'p', 1)).toHaveLength(2)
  })
})

describe('tokenInReach (a shard job holds no GitHub token)', () => {
  const checkout = fs.mkdtempSync(path.join(os.tmpdir(), 'shard-checkout-'))
  const at = { workspace: checkout, contextPath: checkout }
  it('passes with none, the runtime token allowed', async () => {
    expect(
      await tokenInReach(
        '',
        { ACTIONS_RUNTIME_TOKEN: 'eyJ.x.y', PATH: '/bin' },
        at
      )
    ).toBeUndefined()
  })
  it.each([
    [['ghs_x', {}], /input 'github-token' is set/],
    [['', { GITHUB_TOKEN: 'x' }], /holds GITHUB_TOKEN/],
    [['', { GH_TOKEN: 'x' }], /holds GH_TOKEN/],
    [
      ['', { MY_SECRET: `ghp_${'a'.repeat(36)}` }],
      /MY_SECRET holds a GitHub token/
    ],
    [
      [
        '',
        {
          ACTIONS_RUNTIME_TOKEN: `ghs_${'a'.repeat(36)}`,
          OTHER: `github_pat_${'b'.repeat(60)}`
        }
      ],
      /OTHER holds/
    ]
  ] as const)('refuses %j', async ([token, env], reason) => {
    expect(await tokenInReach(token, env, at)).toMatch(reason)
  })
  const header =
    '[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic abc\n'
  it('refuses a checkout whose .git/config persists the token', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shard-checkout-'))
    fs.mkdirSync(path.join(dir, '.git'), { recursive: true })
    fs.writeFileSync(path.join(dir, '.git', 'config'), header)
    expect(
      await tokenInReach('', {}, { workspace: dir, contextPath: dir })
    ).toMatch(/\.git\/config holds a token.*persist-credentials: false/)
  })
  it("refuses checkout v6+'s credentials file in RUNNER_TEMP, included from .git/config", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shard-checkout-'))
    const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'shard-temp-'))
    const creds = path.join(
      temp,
      'git-credentials-0b5c8f1e-1111-4222-8333-444455556666.config'
    )
    fs.writeFileSync(creds, header)
    fs.mkdirSync(path.join(dir, '.git'))
    fs.writeFileSync(
      path.join(dir, '.git', 'config'),
      `[includeIf "gitdir:${dir}/.git"]\n\tpath = ${creds}\n`
    )
    expect(
      await tokenInReach(
        '',
        { RUNNER_TEMP: temp },
        { workspace: dir, contextPath: dir }
      )
    ).toMatch(/git-credentials-0b5c8f1e.*holds a token/)
  })
  it('refuses a checkout at `path: sub` whose .git is a file pointing to its gitdir', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shard-checkout-'))
    const gitdir = fs.mkdtempSync(path.join(os.tmpdir(), 'shard-gitdir-'))
    fs.writeFileSync(path.join(gitdir, 'config'), header)
    fs.mkdirSync(path.join(dir, 'sub', 'deeper'), { recursive: true })
    fs.writeFileSync(
      path.join(dir, 'sub', 'deeper', '.git'),
      `gitdir: ${gitdir}\n`
    )
    expect(
      await tokenInReach('', {}, { workspace: dir, contextPath: dir })
    ).toMatch(/shard-gitdir-.*config holds a token/)
  })
})

describe("the aggregate's cost line (max-cost is per shard)", () => {
  it('sums the shards, against max-cost times the shards when the aggregate has it', () => {
    expect(costText(5.12, undefined, 4)).toBe(
      "cost $5.12 (summed, MassGen's estimate)"
    )
    expect(costText(5.12, 2, 4)).toBe(
      "cost $5.12 (summed, MassGen's estimate) of at most $8.00 (max-cost $2.00 a shard x 4 shards)"
    )
    expect(costText(0.25, 0.5, 1)).toBe(
      "cost $0.2500 (summed, MassGen's estimate) of at most $0.5000 (max-cost $0.5000 a shard x 1 shard)"
    )
  })
})
