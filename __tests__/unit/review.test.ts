// review: inline, the pure parts: findings parsed from hostile answers,
// grouped by agreement, placed on the diff, the verdict and the gate, the
// texts, and the review posted through a fake poster (422 bisection, dedupe).
import { describe, expect, it } from '@jest/globals'
import { ReviewRefused, type ReviewDraft } from '../../src/github/review.js'
import { parseDiffLines, placeOnDiff } from '../../src/review/diff.js'
import {
  findingsBlock,
  MAX_BLOCK_CHARS,
  normalisePath,
  parseFindings
} from '../../src/review/findings.js'
import { MAX_FINDINGS_PER_AGENT } from '../../src/core/findings-fence.js'
import { type Finding } from '../../src/core/review.js'
import {
  groupFindings,
  jaccard,
  MAX_CHECKS_PER_AGENT_ON_FILE,
  sameFinding,
  similarity,
  SIMILARITY_THRESHOLD,
  tokens
} from '../../src/review/group.js'
import { gateFails, verdictOf } from '../../src/review/counted.js'
import { tallied } from '../../src/review/tally.js'
import {
  answerFor,
  postedFingerprints,
  runReview,
  type ReviewPoster,
  type ReviewInput
} from '../../src/review/post.js'
import {
  bodyMarkers,
  commentMarker,
  inlineCommentBody
} from '../../src/review/render.js'
import {
  AGENT_FINDINGS,
  answerOf,
  BYTES_BEFORE_CACHE,
  HOSTILE_TITLE,
  REVIEW_DIFF,
  findingsBlock as block
} from '../../test-support/review-pull.js'
import { indexDiff } from '../../test-support/github-reviews.js'

const CHANGED = new Set(['src/parser.ts', 'README.md', 'src/cache.ts'])

function finding(over: Partial<Finding>): Finding {
  return {
    agent: 'agent_a',
    file: 'src/parser.ts',
    line: 10,
    severity: 'concern',
    title: 'Title',
    explanation: '',
    ...over
  }
}

describe('parsing findings', () => {
  it('reads the last massgen-findings block and keeps valid findings only', () => {
    const parsed = parseFindings('agent_c', answerOf('c'), CHANGED)
    expect(parsed.block).toBe('found')
    // critical severity, an unchanged file and a path that climbs out are dropped
    expect(parsed.dropped).toBe(3)
    expect(parsed.findings.map((f) => [f.file, f.line, f.severity])).toEqual([
      ['src/parser.ts', 17, 'concern'],
      ['README.md', 2, 'concern'],
      ['src/cache.ts', 30, 'nit']
    ])
  })

  it('normalises ./ and b/ prefixes and refuses paths that leave the tree', () => {
    expect(normalisePath('./src/parser.ts', CHANGED)).toBe('src/parser.ts')
    expect(normalisePath('b/src/cache.ts', CHANGED)).toBe('src/cache.ts')
    expect(normalisePath('/src/parser.ts', CHANGED)).toBeUndefined()
    expect(normalisePath('src/../src/parser.ts', CHANGED)).toBeUndefined()
    expect(normalisePath('src\\parser.ts', CHANGED)).toBeUndefined()
    expect(normalisePath('src/parser.ts\u0000', CHANGED)).toBeUndefined()
  })

  it('attack: an agent hides code in a suggestion with bidi and zero-width characters — it is not offered', () => {
    const block = (suggestion: string) =>
      '```massgen-findings\n' +
      JSON.stringify([
        {
          file: 'src/parser.ts',
          line: 3,
          severity: 'concern',
          title: 'Check the bound',
          explanation: 'Off by one.',
          suggestion
        }
      ]) +
      '\n```'
    const plain = parseFindings('a', block('if (i < n) {'), CHANGED)
    expect(plain.findings[0]?.suggestion).toBe('if (i < n) {')
    const hidden = parseFindings(
      'a',
      block('if (i < n) {\u202e } //\u200b'),
      CHANGED
    )
    expect(hidden.findings).toHaveLength(1)
    expect(hidden.findings[0]?.suggestion).toBeUndefined()
  })

  it("the instructions' example copied verbatim on a changed file (what a real 135M model wrote, issue 44) is no finding", () => {
    const copied = {
      file: 'README.md',
      start_line: 10,
      line: 12,
      severity: 'concern',
      title: 'Short title',
      explanation: 'Why it is a problem and what to do.',
      suggestion: 'replacement text for lines 10 to 12'
    }
    const parsed = parseFindings('a', block([copied]), CHANGED)
    expect(parsed.findings).toEqual([])
    expect(parsed.dropped).toBe(1)
    // one placeholder field is enough
    const titleOnly = {
      file: 'README.md',
      line: 4,
      severity: 'nit',
      title: ' Short title '
    }
    expect(parseFindings('a', block([titleOnly]), CHANGED).findings).toEqual([])
    // a real finding with its own words stays
    const own = { ...titleOnly, title: 'Docs name the wrong flag' }
    expect(parseFindings('a', block([own]), CHANGED).findings).toHaveLength(1)
  })

  it('lines a real 135M model wrote (negative, ten digits) drop that finding, counted, never the block (docs/local-model.md, the study)', () => {
    // from `npm run eval` on the injected corpus, temperature 0.2: the
    // local server's schema leaves the line a free integer
    const real = (line: number) => ({
      file: 'src/parser.ts',
      line,
      severity: 'concern',
      title: 'The code is not designed to be edited.',
      explanation:
        'The code is not designed to be edited and does contain bugs.'
    })
    const parsed = parseFindings(
      'agent_b',
      'The code is not designed to be edited.\n\n' +
        block([
          real(-1079482365),
          real(1039462857),
          real(-1),
          real(0),
          real(10387695),
          real(13)
        ]),
      CHANGED
    )
    expect(parsed.block).toBe('found')
    expect(parsed.dropped).toBe(5)
    expect(parsed.findings.map((f) => f.line)).toEqual([13])
  })

  it('missing, invalid and oversized blocks give no findings', () => {
    expect(parseFindings('a', 'no block here', CHANGED).block).toBe('missing')
    expect(
      parseFindings('a', '```massgen-findings\n{not json\n```', CHANGED).block
    ).toBe('invalid')
    expect(
      parseFindings('a', '```massgen-findings\n{"file": 1}\n```', CHANGED).block
    ).toBe('invalid')
    const huge =
      '```massgen-findings\n[' + ' '.repeat(MAX_BLOCK_CHARS) + ']\n```'
    expect(findingsBlock(huge).state).toBe('too-large')
  })

  it('an agent quoting another block before its own: the last block counts', () => {
    const text = `${block([{ file: 'README.md', line: 2, severity: 'nit', title: 'quoted' }])}\n\nMine:\n${block([])}`
    expect(parseFindings('a', text, CHANGED).findings).toEqual([])
  })

  it('caps the count per agent and cuts long titles to one line', () => {
    const many = Array.from({ length: 40 }, (_, i) => ({
      file: 'src/parser.ts',
      line: i + 1,
      severity: 'NIT',
      title: `Line\n${i}\u200b ` + 'x'.repeat(500)
    }))
    const parsed = parseFindings('a', block(many), CHANGED)
    expect(parsed.findings).toHaveLength(MAX_FINDINGS_PER_AGENT)
    expect(parsed.dropped).toBe(40 - MAX_FINDINGS_PER_AGENT)
    expect(parsed.findings[0]?.title).not.toMatch(/[\n\u200b]/)
    expect(parsed.findings[0]?.title.length).toBeLessThanOrEqual(200)
    expect(parsed.findings[0]?.severity).toBe('nit')
  })

  it('a backwards or huge range keeps only its last line', () => {
    const parsed = parseFindings(
      'a',
      block([
        {
          file: 'README.md',
          start_line: 5,
          line: 2,
          severity: 'nit',
          title: 'x'
        },
        {
          file: 'README.md',
          start_line: 1,
          line: 500,
          severity: 'nit',
          title: 'y'
        }
      ]),
      CHANGED
    )
    expect(parsed.findings.map((f) => f.startLine)).toEqual([
      undefined,
      undefined
    ])
  })

  it('stays linear on a megabyte of unclosed fence openers', () => {
    const text = '```massgen-findings\n'.repeat(50_000)
    expect(findingsBlock(text).state).toBe('too-large')
  })
})

describe('grouping', () => {
  const all = (['a', 'b', 'c'] as const).flatMap(
    (x) => parseFindings(`agent_${x}`, answerOf(x), CHANGED).findings
  )

  it('groups the same finding across agents and counts each agent once', () => {
    const groups = groupFindings(all, 'agent_b')
    const summary = groups.map((g) => [
      g.lead.file,
      g.agents.join(','),
      g.severity
    ])
    expect(summary).toEqual([
      ['src/parser.ts', 'agent_a,agent_b,agent_c', 'blocker'],
      ['src/cache.ts', 'agent_a,agent_b', 'concern'],
      ['README.md', 'agent_c', 'concern'],
      ['src/cache.ts', 'agent_c', 'nit'],
      ['src/parser.ts', 'agent_b', 'nit'],
      ['src/parser.ts', 'agent_a', 'nit']
    ])
    // the winner's wording leads; a replacement written for other lines
    // than the lead's is shown as text, attributed (review/tally.ts)
    expect(groups[0]?.lead.agent).toBe('agent_b')
    const cache = groups[1] && tallied(groups[1], 1)
    expect(cache?.suggestion?.text).toContain('entries.clear()')
    expect(cache?.suggestion?.agent).toMatch(/^agent_[abc]$/)
    expect(cache?.suggestion?.notOffered).toBe(
      'written for other lines than the comment is on'
    )
  })

  it('the similarity threshold: same problem in other words passes, a different problem at the same place does not', () => {
    const same = [
      [
        'Unbounded recursion in parseNested',
        'parseNested recursion has no depth limit'
      ],
      [
        'Cache never evicts entries',
        'Unbounded cache growth: entries never evicted'
      ],
      [
        'Possible null dereference of user',
        'user may be null here, dereferenced without check'
      ]
    ]
    for (const [a, b] of same)
      expect(
        similarity(finding({ title: a }), finding({ title: b }))
      ).toBeGreaterThanOrEqual(SIMILARITY_THRESHOLD)
    const different = [
      [
        'Unbounded recursion in parseNested',
        'Off-by-one: the loop skips the last token'
      ],
      ['SQL injection through the name parameter', 'Typo in the log message'],
      ['Missing await on the write', 'Variable name shadows the import']
    ]
    for (const [a, b] of different)
      expect(
        similarity(finding({ title: a }), finding({ title: b }))
      ).toBeLessThan(0.15)
  })

  it('same words on another file or far lines are another finding', () => {
    const a = finding({ title: 'Unbounded recursion in parseNested', line: 17 })
    expect(sameFinding(a, { ...a, agent: 'b', line: 19 })).toBe(true)
    expect(sameFinding(a, { ...a, agent: 'b', line: 30 })).toBe(false)
    expect(sameFinding(a, { ...a, agent: 'b', file: 'README.md' })).toBe(false)
  })

  it('tokens drop stop words and short words, and stem', () => {
    expect([
      ...tokens('The cache is never evicted; it evicts NOTHING')
    ]).toEqual(['cach', 'never', 'evict', 'noth'])
    expect(jaccard(new Set(), new Set())).toBe(0)
  })

  it('a severity tie goes to the more severe one', () => {
    const groups = groupFindings(
      [
        finding({ agent: 'a', title: 'Race on the counter', severity: 'nit' }),
        finding({
          agent: 'b',
          title: 'Race on the counter',
          severity: 'blocker'
        })
      ],
      undefined
    )
    expect(groups[0]?.severity).toBe('blocker')
  })
})

describe('grouping a hostile record in bounded work', () => {
  /** The grouping as it was, every finding against every group: the reference. */
  function naiveGroups(findings: Finding[], winner: string | undefined) {
    const ordered = [...findings].sort(
      (a, b) =>
        Number(b.agent === winner) - Number(a.agent === winner) ||
        a.agent.localeCompare(b.agent) ||
        a.file.localeCompare(b.file) ||
        a.line - b.line
    )
    const groups: Finding[][] = []
    for (const f of ordered) {
      const home = groups.find((g) => g.some((m) => sameFinding(m, f)))
      if (home) home.push(f)
      else groups.push([f])
    }
    return groups
  }
  const WORDS = [
    'null pointer dereference of user',
    'unbounded recursion in parseNested',
    'cache never evicts entries',
    'missing await on the write',
    'race on the shared counter',
    'sql injection through the name parameter'
  ]
  /** 16 agents' findings on 4 files, words and lines overlapping in many ways. */
  const normal = Array.from({ length: 16 * 25 }, (_, i) =>
    finding({
      agent: `agent_${String.fromCharCode(97 + (i % 16))}`,
      file: `src/f${i % 4}.ts`,
      line: 1 + ((i * 7) % 40),
      ...(i % 5 === 0 ? { startLine: (i * 7) % 40 } : {}),
      title: `${WORDS[i % 6]} ${i % 3 === 0 ? 'here' : `case${i % 11}`}`,
      explanation: i % 2 ? `${WORDS[(i + 1) % 6]} again` : ''
    })
  )
  /** n findings on one line of one file, no two alike in any word. */
  const flood = (n: number, file = 'src/parser.ts') =>
    Array.from({ length: n }, (_, i) =>
      finding({
        agent: `agent_${i % 16}`,
        file,
        line: 10,
        title: `alpha${i} beta${i} gamma${i}`,
        explanation: `delta${i} epsilon${i} `.repeat(50)
      })
    )

  it('gives the groups every-finding-against-every-group gives, for 16 agents of 25 findings', () => {
    const work = { checks: 0, unchecked: 0 }
    const groups = groupFindings(normal, 'agent_c', work)
    const reference = naiveGroups(normal, 'agent_c')
    expect(groups.length).toBe(reference.length)
    const key = (members: Finding[]) =>
      members
        .map((m) => `${m.agent}:${m.file}:${m.line}:${m.title}`)
        .sort()
        .join('|')
    const distinct = (fs: Finding[]) =>
      fs.filter((m, i) => fs.findIndex((x) => x.agent === m.agent) === i)
    expect(groups.map((g) => key(g.members)).sort()).toEqual(
      reference.map((g) => key(distinct(g))).sort()
    )
    expect(groups.some((g) => g.agents.length > 1)).toBe(true)
    expect(work.unchecked).toBe(0)
  })

  it('makes at most MAX_CHECKS_PER_AGENT_ON_FILE word comparisons an agent on one file of 3,000 findings', () => {
    const work = { checks: 0, unchecked: 0 }
    const groups = groupFindings(flood(3000), undefined, work)
    // Every finding against every earlier one would be 4,498,500; the
    // flood's 16 agents spend their own budgets only.
    expect(work.checks).toBe(16 * MAX_CHECKS_PER_AGENT_ON_FILE)
    expect(groups).toHaveLength(3000)
    expect(work.unchecked).toBeGreaterThan(1500)
  })

  it("spends one file's checks only: the same finding on another file is still grouped", () => {
    const honest = [
      finding({
        agent: 'z1',
        file: 'src/cache.ts',
        title: 'Cache never evicts entries'
      }),
      finding({
        agent: 'z2',
        file: 'src/cache.ts',
        title: 'Cache entries never evicted'
      })
    ]
    const work = { checks: 0, unchecked: 0 }
    const groups = groupFindings([...flood(400), ...honest], undefined, work)
    expect(groups[0]?.agents).toEqual(['z1', 'z2'])
    expect(work.checks).toBeLessThanOrEqual(
      16 * MAX_CHECKS_PER_AGENT_ON_FILE + 1
    )
  })

  it("spends the flooders' checks only: honest agents after a flood on the same line still group", () => {
    // 16 hostile agents of 25 findings each, sorted before the honest ones,
    // on the honest finding's own line: this once spent the whole file's
    // budget and left each honest agent a group of its own.
    const junk = Array.from({ length: 16 * 25 }, (_, i) =>
      finding({
        agent: `a-junk/agent_${String(i % 16).padStart(2, '0')}`,
        file: 'src/parser.ts',
        line: 10,
        title: `alpha${i} beta${i} gamma${i}`,
        explanation: `delta${i} epsilon${i}`
      })
    )
    const honest = ['agent_a', 'agent_b', 'agent_c'].map((a) =>
      finding({
        agent: `b-ok/${a}`,
        file: 'src/parser.ts',
        line: 10,
        title: 'Unbounded recursion in parseNested'
      })
    )
    const work = { checks: 0, unchecked: 0 }
    const groups = groupFindings([...junk, ...honest], undefined, work)
    expect(work.unchecked).toBeGreaterThan(0)
    expect(groups[0]?.agents).toEqual([
      'b-ok/agent_a',
      'b-ok/agent_b',
      'b-ok/agent_c'
    ])
    expect(groups).toHaveLength(junk.length + 1)
    expect(work.checks).toBeLessThanOrEqual(19 * MAX_CHECKS_PER_AGENT_ON_FILE)
  })

  it('makes at most 50 comparisons a finding, on average, when the flood is spread over many files', () => {
    const spread = Array.from({ length: 30 }, (_, f) =>
      flood(100, `src/f${f}.ts`)
    ).flat()
    const work = { checks: 0, unchecked: 0 }
    groupFindings(spread, undefined, work)
    expect(work.checks).toBeLessThanOrEqual(spread.length * 50)
  })
})

describe('verdict and gate', () => {
  const g = (severity: Finding['severity'], agents: number) => ({
    fingerprint: '0'.repeat(16),
    fingerprints: ['0'.repeat(16)],
    lead: finding({ severity }),
    anchor: finding({ severity }),
    members: [],
    agents: Array.from({ length: agents }, (_, i) => `agent_${i}`),
    severity
  })

  it('blockers > concerns > pass, counting only groups at min-agreement', () => {
    expect(verdictOf({ groups: [], minAgreement: 1 })).toBe('pass')
    expect(verdictOf({ groups: [g('nit', 3)], minAgreement: 1 })).toBe('pass')
    expect(
      verdictOf({ groups: [g('concern', 1), g('nit', 2)], minAgreement: 1 })
    ).toBe('concerns')
    expect(
      verdictOf({ groups: [g('blocker', 1), g('concern', 2)], minAgreement: 1 })
    ).toBe('blockers')
    expect(
      verdictOf({ groups: [g('blocker', 1), g('concern', 2)], minAgreement: 2 })
    ).toBe('concerns')
    expect(verdictOf({ groups: [g('blocker', 1)], minAgreement: 2 })).toBe(
      'pass'
    )
  })

  it('fail-on', () => {
    expect(gateFails('blockers', 'blocker')).toBe(true)
    expect(gateFails('concerns', 'blocker')).toBe(false)
    expect(gateFails('concerns', 'concern')).toBe(true)
    expect(gateFails('blockers', 'concern')).toBe(true)
    expect(gateFails('pass', 'concern')).toBe(false)
    expect(gateFails('blockers', 'never')).toBe(false)
  })
})

describe('diff lines', () => {
  const diff = parseDiffLines(REVIEW_DIFF)

  it('knows the new-side lines of each hunk', () => {
    expect([...(diff.files.get('src/parser.ts')?.right.keys() ?? [])]).toEqual([
      10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23
    ])
    expect(diff.files.get('src/cache.ts')?.right.size).toBe(8)
    expect(diff.files.get('src/cache.ts')?.left.size).toBe(0)
  })

  it('agrees with the loopback GitHub, which parses the diff on its own', () => {
    const server = indexDiff(REVIEW_DIFF)
    for (const [file, lines] of diff.files) {
      expect([...lines.right.keys()]).toEqual([
        ...(server.get(file)?.RIGHT.keys() ?? [])
      ])
      expect([...lines.left.keys()]).toEqual([
        ...(server.get(file)?.LEFT.keys() ?? [])
      ])
    }
  })

  it('places findings: a diff line inline, others in the body, a cut file unknown', () => {
    expect(placeOnDiff(diff, 'src/parser.ts', 17, 15)).toEqual({
      where: 'inline',
      line: 17,
      startLine: 15
    })
    expect(placeOnDiff(diff, 'src/parser.ts', 200, undefined).where).toBe(
      'body'
    )
    // a range reaching outside the hunk keeps its last line only
    expect(placeOnDiff(diff, 'src/parser.ts', 12, 5)).toEqual({
      where: 'inline',
      line: 12
    })
    const cut = parseDiffLines(REVIEW_DIFF.slice(0, BYTES_BEFORE_CACHE), true)
    expect(placeOnDiff(cut, 'src/cache.ts', 30, undefined).where).toBe(
      'unknown'
    )
  })
})

describe('texts', () => {
  const [hostile] = groupFindings(
    parseFindings('agent_b', answerOf('b'), CHANGED).findings.filter(
      (f) => f.line === 11
    ),
    undefined
  )

  it('attack: an agent puts a mention, a link, a fake marker and HTML in a title — they render inert', () => {
    if (!hostile) throw new Error('no group')
    const body = inlineCommentBody(
      hostile,
      { tag: 'review', agentCount: 3, secrets: [] },
      true
    )
    const [first, ...rest] = body.split('\n')
    expect(commentMarker(body)?.fingerprint).toBe(hostile.fingerprint)
    expect(first).not.toContain('0123456789abcdef')
    const text = rest.join('\n')
    expect(text).not.toMatch(/(^|[^\u200b])@octocat/)
    expect(text).not.toContain('<!--')
    expect(text).not.toContain('<img')
    // the link's bracket is escaped: text, not a link
    expect(text).not.toMatch(/[^\\]\[click\]\(/)
    expect(text).toContain('\\[click](https://evil')
    expect(text).not.toContain('massgen-action:finding')
    expect(bodyMarkers(text)).toEqual([])
    expect(HOSTILE_TITLE).toContain('massgen-action:finding')
  })

  it('a suggestion goes in a suggestion fence nothing inside can close', () => {
    const grouped = groupFindings(
      [finding({ title: 'x', suggestion: 'a\n```\nb' })],
      undefined
    )[0]
    if (!grouped) throw new Error('no group')
    const g = tallied(grouped, 1)
    const body = inlineCommentBody(
      g,
      { tag: 'massgen', agentCount: 1, secrets: [] },
      true
    )
    expect(body).toContain('````suggestion\na\n```\nb\n````')
    expect(
      inlineCommentBody(
        g,
        { tag: 'massgen', agentCount: 1, secrets: [] },
        false
      )
    ).not.toContain('```suggestion')
  })

  it("only the action's own text names a posted finding", () => {
    const marker =
      '<!-- massgen-action:finding tag=massgen fp=0123456789abcdef -->'
    expect(
      postedFingerprints(
        [
          { body: `${marker}\nx`, ours: false },
          { body: `- quoted ${marker}`, ours: false }
        ],
        'massgen'
      ).size
    ).toBe(0)
    expect([
      ...postedFingerprints([{ body: `${marker}\nx`, ours: true }], 'massgen')
    ]).toEqual(['0123456789abcdef'])
    expect(
      postedFingerprints([{ body: `${marker}\nx`, ours: true }], 'other').size
    ).toBe(0)
  })

  it("the answer the agents voted on counts, not the winner's final presentation (a rewrite); the presentation only when the agent's own answer is unknown", () => {
    const agent = { id: 'agent_a', answer: 'coordination' }
    expect(answerFor(agent, 'agent_a', `final\n${block([])}`)).toBe(
      'coordination'
    )
    expect(answerFor(agent, 'agent_b', `final\n${block([])}`)).toBe(
      'coordination'
    )
    expect(
      answerFor({ id: 'agent_a' }, 'agent_a', `final\n${block([])}`)
    ).toContain('final')
    expect(
      answerFor({ id: 'agent_a' }, 'agent_a', 'final without block')
    ).toBeUndefined()
  })
})

/** A poster that refuses comments on the lines the loopback GitHub would. */
function fakePoster(existing: Array<{ body: string; ours: boolean }> = []) {
  const lines = indexDiff(REVIEW_DIFF)
  const calls: Array<{ kind: string; draft?: ReviewDraft }> = []
  let id = 1
  const poster: ReviewPoster = {
    listReviewTexts: () =>
      Promise.resolve(existing.map((e, i) => ({ id: i, ...e }))),
    createReview: (_n, draft) => {
      calls.push({ kind: draft.event ? 'review' : 'probe', draft })
      const bad = draft.comments.some(
        (c) => lines.get(c.path)?.RIGHT.get(c.line) === undefined
      )
      if (bad)
        return Promise.reject(
          new ReviewRefused(
            'Unprocessable Entity: Pull request review thread line must be part of the diff'
          )
        )
      return Promise.resolve({
        id: id++,
        url: `https://github.com/r/pull/42#pullrequestreview-${id}`
      })
    },
    deletePendingReview: () => {
      calls.push({ kind: 'delete' })
      return Promise.resolve()
    }
  }
  return { poster, calls }
}

function input(over: Partial<ReviewInput> = {}): ReviewInput {
  return {
    pullNumber: 42,
    headSha: 'b'.repeat(40),
    diff: REVIEW_DIFF.slice(0, BYTES_BEFORE_CACHE),
    diffTruncated: true,
    changedFiles: [...CHANGED],
    answers: (['a', 'b', 'c'] as const).map((x) => ({
      agent: `agent_${x}`,
      text: answerOf(x)
    })),
    winner: 'agent_b',
    tag: 'massgen',
    minAgreement: 1,
    // The noise limits off: these tests place every finding.
    minSeverity: 'nit',
    maxInlineComments: 50,
    prTexts: [],
    secrets: [],
    ...over
  }
}

const quiet = { info: () => undefined, warning: () => undefined }

describe('posting the review', () => {
  it('one COMMENT review; a refused line is found by pending probes and moves to the body', async () => {
    const { poster, calls } = fakePoster()
    const report = await runReview(input(), poster, quiet)
    const reviews = calls.filter((c) => c.kind === 'review')
    // the batch, refused; then the review without the refused comment
    expect(reviews).toHaveLength(2)
    expect(reviews.every((c) => c.draft?.event === 'COMMENT')).toBe(true)
    // every probe is deleted
    expect(calls.filter((c) => c.kind === 'probe').length).toBeGreaterThan(0)
    expect(calls.filter((c) => c.kind === 'delete').length).toBe(
      calls.filter((c) => c.kind === 'probe').length -
        // refused probes leave nothing to delete
        calls.filter(
          (c) =>
            c.kind === 'probe' &&
            c.draft?.comments.some(
              (x) => x.path === 'src/cache.ts' && x.line === 30
            )
        ).length
    )
    const last = reviews[1]?.draft
    expect(
      last?.comments
        .map((c) => `${c.path}:${c.start_line ?? ''}-${c.line}`)
        .sort()
    ).toEqual([
      'README.md:-2',
      // on the lead's line: another member's replacement for 3-4 is text
      'src/cache.ts:-4',
      'src/parser.ts:-11',
      'src/parser.ts:-18'
    ])
    expect(last?.body).toContain('src/parser.ts line 200')
    expect(last?.body).toContain('GitHub refused the line')
    expect(report.groups.find((g) => g.lead.line === 30)?.posted).toBe(
      'refused'
    )
    expect(report.verdict).toBe('blockers')
    expect(report.reviewUrl).toMatch(/pullrequestreview/)
    expect(report.dropped).toBe(3)
  })

  it('a re-run skips what the action already posted, and posts nothing when nothing is new', async () => {
    const first = fakePoster()
    await runReview(input(), first.poster, quiet)
    const posted = first.calls
      .filter((c) => c.kind === 'review')
      .slice(-1)
      .flatMap((c) => [
        ...(c.draft?.comments ?? []).map((x) => ({
          body: x.body,
          ours: true
        })),
        { body: c.draft?.body ?? '', ours: true }
      ])
    const again = fakePoster(posted)
    const report = await runReview(input(), again.poster, quiet)
    expect(again.calls).toEqual([])
    expect(report.groups.every((g) => g.posted === 'duplicate')).toBe(true)
    expect(report.notPosted).toMatch(/No new findings/)
  })

  it('says in the log when a flooded file left findings ungrouped', async () => {
    const flooded = Array.from({ length: 16 }, (_, a) => ({
      agent: `agent_${a}`,
      text: block(
        Array.from({ length: MAX_FINDINGS_PER_AGENT }, (_, i) => ({
          file: 'src/parser.ts',
          line: 10,
          severity: 'concern',
          title: `alpha${a}x${i} beta${a}x${i}`,
          explanation: `gamma${a}x${i} delta${a}x${i}`
        }))
      )
    }))
    const warnings: string[] = []
    const log = {
      info: () => undefined,
      warning: (m: string) => warnings.push(m)
    }
    await runReview(input({ answers: flooded }), undefined, log)
    expect(warnings.some((w) => /finding\(s\) stood alone/.test(w))).toBe(true)
    warnings.length = 0
    await runReview(input(), undefined, log)
    expect(warnings.some((w) => /stood alone/.test(w))).toBe(false)
  })

  it('min-agreement keeps findings fewer agents raised out of the review', async () => {
    const { poster, calls } = fakePoster()
    const report = await runReview(input({ minAgreement: 2 }), poster, quiet)
    const review = calls.find((c) => c.kind === 'review')?.draft
    expect(review?.comments.map((c) => c.path).sort()).toEqual([
      'src/cache.ts',
      'src/parser.ts'
    ])
    expect(review?.body).not.toContain('line 200')
    expect(report.groups.filter((g) => g.posted === 'hidden')).toHaveLength(4)
  })

  it('the agents raised nothing: no review, verdict pass', async () => {
    const { poster, calls } = fakePoster()
    const report = await runReview(
      input({ answers: [{ agent: 'agent_a', text: block([]) }] }),
      poster,
      quiet
    )
    expect(calls).toEqual([])
    expect(report.verdict).toBe('pass')
  })

  it('findings in the JSON the fixtures use are well formed', () => {
    expect(AGENT_FINDINGS.a).toHaveLength(3)
  })
})
