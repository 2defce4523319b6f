// Every repository path named in the comments of src/, the test kit
// (test-support/, __tests__/) and scripts/, in README.md, CONTRIBUTING.md
// and docs/ exists: a file that moves takes the texts that name it along.
// A path is a word with a slash and a file ending (src/core/text.ts,
// docs/setup-speed.md, or github/sticky.ts, read from src/); a bare source
// name (base-setup.ts) must be some file of the repository. Run alone:
// `node scripts/run-tests.mjs __tests__/unit/named-paths.test.ts`.
import * as fs from 'node:fs'
import * as path from 'node:path'

const ROOT = path.resolve('.')
const ENDINGS = 'ts|mts|mjs|js|md|sh|yml|yaml|json'
const WITH_SLASH = new RegExp(
  String.raw`(?<![\w./:@$-])((?:\.{1,2}/)?[\w.-]+(?:/[\w.-]+)+\.(?:${ENDINGS}))\b`,
  'g'
)
const BARE_SOURCE = /(?<![\w./:@-])([a-z][\w-]*\.(?:ts|mjs))\b(?![\w/])/g

/**
 * Paths that are not this repository's: MassGen's own files, examples of a
 * user's paths, GitHub's. Each is named where it is written.
 */
const NOT_OURS = new Set([
  'src/x.ts', // src/review/findings.ts: an example finding's file
  'b/src/x.ts', // the same, as a diff names it
  'path/changed/in/the/pull/request.ts', // src/context/review-prompt.ts: the prompt's example
  '.github/workflows/massgen.yml', // README.md: the user's workflow
  '.github/massgen.yaml', // docs/configuration.md: the user's config
  '.github/massgen-agents.yaml',
  '.github/copilot-instructions.md', // docs/events.md: a steering file of the user's
  'src/cache.ts', // docs/review-example.md: the reviewed project's files
  'src/parser.ts',
  'src/limits.ts', // docs/review.md, docs/review-pushes.md: the reviewed project's files
  'src/retry.ts',
  'src/ports.ts', // test-support/pushes-pull.ts: src/limits.ts renamed
  './x.js', // docs/setup-speed.md: a measured import
  './x.ts',
  'HOME/.massgen/sessions.json', // docs/massgen-0.1.97.md: MassGen's own file
  'src/a.ts', // test-support/eval-script.ts: the scripted eval cases' files
  'src/c.ts',
  'src/other.ts'
])

/** Bare names that are not this repository's files, as NOT_OURS. */
const NOT_OURS_BARE = new Set([
  'limits.ts', // test-support/pushes-pull.ts: the reviewed project's file
  'x.mjs', // test-support/run-action.ts: an example Node flag's module
  'ment.ts' // `pay ment.ts`, a file name with a space (unread-code tests)
])

/** The bundle: built by `npm run package`, and CI checks it is committed. */
const BUILT = /^dist\//

function files(dir: string, keep: (file: string) => boolean): string[] {
  if (!fs.existsSync(dir)) return []
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name)
    if (entry.isDirectory())
      return entry.name === 'node_modules' ? [] : files(file, keep)
    return keep(file) ? [file] : []
  })
}

/**
 * The comments of a source file: what a reader takes as prose. Strings are
 * read past, so a glob (`'src/**' + '/*.ts'`) or a URL opens no comment.
 */
function comments(file: string, text: string): string {
  if (file.endsWith('.sh'))
    return (text.match(/(?<=^|\s)#(?!!)[^\n]*/g) ?? []).join('\n')
  const tokens =
    /'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`|\/\/[^\n]*|\/\*[\s\S]*?\*\//g
  return (text.match(tokens) ?? []).filter((t) => t.startsWith('/')).join('\n')
}

const SOURCE = /\.(ts|mts|mjs|cjs|js|sh)$/
/** This file names paths that do not exist, as its examples. */
const THIS_FILE = path.join(ROOT, '__tests__', 'unit', 'named-paths.test.ts')

const texts: Array<{ file: string; text: string }> = [
  ...['src', 'test-support', '__tests__', 'scripts']
    .flatMap((dir) =>
      files(path.join(ROOT, dir), (f) => SOURCE.test(f) && f !== THIS_FILE)
    )
    .map((file) => ({
      file,
      text: comments(file, fs.readFileSync(file, 'utf8'))
    })),
  ...[
    'README.md',
    'CONTRIBUTING.md',
    ...files(path.join(ROOT, 'docs'), (f) => f.endsWith('.md')).map((f) =>
      path.relative(ROOT, f)
    )
  ].map((name) => ({
    file: path.join(ROOT, name),
    text: fs.readFileSync(path.join(ROOT, name), 'utf8')
  }))
]

const allNames = new Set(
  files(ROOT, (f) => !f.includes(`${path.sep}.git${path.sep}`)).map((f) =>
    path.basename(f)
  )
)

function exists(named: string, from: string): boolean {
  if (BUILT.test(named)) return true
  const bases = [
    ROOT,
    path.join(ROOT, 'src'),
    path.join(ROOT, '__tests__'),
    path.dirname(from)
  ]
  return bases.some((base) => fs.existsSync(path.resolve(base, named)))
}

describe('paths named in comments and docs', () => {
  it('names only paths that exist', () => {
    const missing = texts.flatMap(({ file, text }) =>
      [...text.matchAll(WITH_SLASH)]
        .map((m) => m[1] ?? '')
        .filter((named) => !NOT_OURS.has(named) && !exists(named, file))
        .map((named) => `${path.relative(ROOT, file)}: ${named}`)
    )
    expect([...new Set(missing)]).toEqual([])
  })

  it('names only source files that exist', () => {
    const missing = texts.flatMap(({ file, text }) =>
      [...text.matchAll(BARE_SOURCE)]
        .map((m) => m[1] ?? '')
        .filter((named) => !allNames.has(named) && !NOT_OURS_BARE.has(named))
        .map((named) => `${path.relative(ROOT, file)}: ${named}`)
    )
    expect([...new Set(missing)]).toEqual([])
  })

  it('finds the paths it checks', () => {
    const named = texts.reduce(
      (n, { text }) => n + [...text.matchAll(WITH_SLASH)].length,
      0
    )
    expect(named).toBeGreaterThan(50)
  })
})
