// A pull request worth reviewing (#42, the number the pull_request fixtures
// name), and three agents' scripted answers whose findings differ AND
// overlap: the review tests (unit and end to end) share them.
import type { ServerPull } from './github-state.ts'
import { FIXTURE_HEAD_SHA } from './sample-pull.ts'

const parserHunk = [
  '@@ -10,7 +10,14 @@ export function parse(text: string): Node {',
  '   const tokens = tokenize(text)',
  '-  return parseFlat(tokens)',
  '+  // Nested brackets are parsed recursively.',
  '+  return parseNested(tokens, 0)',
  ' }',
  ' ',
  '+function parseNested(tokens: Token[], at: number): Node {',
  '+  const node: Node = { children: [] }',
  '+  while (at < tokens.length) {',
  '+    if (tokens[at] === "[") node.children.push(parseNested(tokens, at + 1))',
  '+    at++',
  '+  }',
  ' export function parseFlat(tokens: Token[]): Node {',
  '   return { children: tokens.map(leaf) }',
  ' }'
]

/** Padding so the diff is over 1,000 bytes before src/cache.ts starts. */
const docsHunk = [
  '@@ -1,4 +1,4 @@',
  ' # Parser',
  '-Run with --legacy-parser to keep the old behaviour.',
  '+Run with --fast to use the nested parser.',
  ' ',
  ' The parser reads brackets, words and numbers.',
  ...Array.from(
    { length: 12 },
    (_, i) =>
      ` Line ${i + 5} of the documentation, unchanged, shown as context.`
  )
]

const cacheFile = [
  'new file mode 100644',
  '--- /dev/null',
  '+++ b/src/cache.ts',
  '@@ -0,0 +1,8 @@',
  '+const entries = new Map<string, Node>()',
  '+',
  '+export function cached(key: string, make: () => Node): Node {',
  '+  if (!entries.has(key)) entries.set(key, make())',
  '+  return entries.get(key) as Node',
  '+}',
  '+',
  '+export const size = () => entries.size'
]

function fixDocsCount(lines: string[]): string[] {
  // The hunk header counts the lines it shows: 4 + the 12 context lines.
  const shown = lines.length - 1
  const old = shown - 1
  lines[0] = `@@ -1,${old} +1,${old} @@`
  return lines
}

export const REVIEW_DIFF = [
  'diff --git a/src/parser.ts b/src/parser.ts',
  'index 1111111..2222222 100644',
  '--- a/src/parser.ts',
  '+++ b/src/parser.ts',
  ...parserHunk,
  'diff --git a/README.md b/README.md',
  'index 3333333..4444444 100644',
  '--- a/README.md',
  '+++ b/README.md',
  ...fixDocsCount(docsHunk),
  'diff --git a/src/cache.ts b/src/cache.ts',
  ...cacheFile,
  ''
].join('\n')

/** Bytes of the diff before src/cache.ts: a cut there leaves it unknown. */
export const BYTES_BEFORE_CACHE = Buffer.byteLength(
  REVIEW_DIFF.slice(0, REVIEW_DIFF.indexOf('diff --git a/src/cache.ts')),
  'utf8'
)

export function reviewPull(): ServerPull {
  return {
    title: 'Nested parser and a cache',
    body: 'Parses nested brackets; caches parsed nodes.',
    author: { login: 'alice-maintainer', id: 5550001, type: 'User' },
    base: { ref: 'main', sha: 'a'.repeat(40), repo: 'octo-org/octo-repo' },
    head: { ref: 'fast', sha: FIXTURE_HEAD_SHA, repo: 'octo-org/octo-repo' },
    files: [
      {
        filename: 'src/parser.ts',
        status: 'modified',
        additions: 9,
        deletions: 1
      },
      { filename: 'README.md', status: 'modified', additions: 1, deletions: 1 },
      { filename: 'src/cache.ts', status: 'added', additions: 8, deletions: 0 }
    ],
    diff: REVIEW_DIFF
  }
}

export const HOSTILE_TITLE =
  'Ping @octocat <!-- massgen-action:finding tag=review fp=0123456789abcdef --> ' +
  '[click](https://evil.example/x) `code` | pipe #1 </details>'

export function findingsBlock(items: unknown[]): string {
  return ['```massgen-findings', JSON.stringify(items, null, 1), '```'].join(
    '\n'
  )
}

/** What an agent says the change does, a line a file (`path: text`). */
export function walkthroughBlock(lines: string[]): string {
  return ['```massgen-walkthrough', ...lines, '```'].join('\n')
}

/** The recursion problem, raised by all three agents in their own words. */
const recursion = {
  a: {
    file: 'src/parser.ts',
    line: 17,
    severity: 'blocker',
    title: 'Unbounded recursion in parseNested',
    explanation:
      'parseNested recurses on every bracket with no depth limit: deeply nested input overflows the stack.'
  },
  b: {
    file: 'src/parser.ts',
    line: 18,
    severity: 'blocker',
    title: 'parseNested recursion has no depth limit',
    explanation:
      'Nested brackets recurse without bound; hostile input gives a stack overflow.'
  },
  c: {
    file: './src/parser.ts',
    line: 17,
    severity: 'concern',
    title: 'Stack overflow: recursion depth not limited in parseNested',
    explanation: 'Add a maximum depth to parseNested.'
  }
}

/** The cache problem, raised by two agents; one gives a replacement. */
const cache = {
  a: {
    file: 'src/cache.ts',
    start_line: 3,
    line: 4,
    severity: 'concern',
    title: 'Cache never evicts entries',
    explanation: 'entries grows without bound for distinct keys.',
    suggestion:
      'export function cached(key: string, make: () => Node): Node {\n' +
      '  if (!entries.has(key)) {\n' +
      '    if (entries.size >= 1000) entries.clear()\n' +
      '    entries.set(key, make())\n' +
      '  }'
  },
  b: {
    file: 'b/src/cache.ts',
    line: 4,
    severity: 'concern',
    title: 'Unbounded cache growth: entries never evicted',
    explanation: 'A long-running process leaks memory through the cache.'
  }
}

export const AGENT_FINDINGS = {
  a: [
    recursion.a,
    cache.a,
    {
      file: 'src/parser.ts',
      line: 200,
      severity: 'nit',
      title: 'Outdated comment about the tokenizer',
      explanation: 'The comment at the end of the file still names parseFlat.'
    }
  ],
  b: [
    recursion.b,
    cache.b,
    {
      file: 'src/parser.ts',
      line: 11,
      severity: 'nit',
      title: HOSTILE_TITLE,
      explanation: 'Hi @octocat, see #1 and <img src=x onerror=alert(1)>.'
    }
  ],
  c: [
    recursion.c,
    {
      file: 'README.md',
      line: 2,
      severity: 'concern',
      title: 'README documents a flag that does not exist',
      explanation:
        'The diff adds --fast to the README but no such flag is parsed.'
    },
    {
      file: 'src/cache.ts',
      line: 30,
      severity: 'nit',
      title: 'Export the cache size type',
      explanation: 'size() could say what it counts.'
    },
    // Dropped: a severity outside the schema, a file the pull request does
    // not change, a path that climbs out.
    { file: 'src/parser.ts', line: 12, severity: 'critical', title: 'x' },
    { file: 'src/other.ts', line: 1, severity: 'nit', title: 'Not changed' },
    { file: '../etc/passwd', line: 1, severity: 'nit', title: 'Escape' }
  ]
}

export function answerOf(
  agent: 'a' | 'b' | 'c',
  extra: unknown[] = []
): string {
  return [
    `Review by agent ${agent}: the nested parser needs a depth limit.`,
    '',
    findingsBlock([...AGENT_FINDINGS[agent], ...extra])
  ].join('\n')
}
