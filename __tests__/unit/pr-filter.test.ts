// include / exclude: the glob semantics, the defaults, the base branch's
// .gitattributes marks, and how the diff is narrowed and fitted.
import { describe, expect, it } from '@jest/globals'
import { parseGitAttributes } from '../../src/context/gitattributes.js'
import {
  globProblem,
  parseGlobList,
  toPicomatch
} from '../../src/inputs/globs.js'
import { filterContext, pathFilter } from '../../src/context/pr-filter.js'
import { parseDiff } from '../../src/core/unified-diff.js'
import { readSettings } from '../../src/inputs/settings.js'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'

const reason = (
  file: string,
  include: string[] = [],
  exclude: string[] = [],
  attributes?: string
) =>
  pathFilter({
    include,
    exclude,
    attributes:
      attributes === undefined ? undefined : parseGitAttributes(attributes)
  }).reasonFor(file)

describe('glob lists', () => {
  it('split on newlines and commas, keeping commas inside braces', () => {
    expect(
      parseGlobList('src/**, docs/*.md\n*.{js,ts}\n# note\n\n  lib/ ')
    ).toEqual(['src/**', 'docs/*.md', '*.{js,ts}', 'lib/'])
  })
  it('read like .gitignore', () => {
    expect(toPicomatch('*.lock')).toBe('**/*.lock')
    expect(toPicomatch('docs/*.md')).toBe('docs/*.md')
    expect(toPicomatch('/README.md')).toBe('README.md')
    expect(toPicomatch('vendor/')).toBe('**/vendor/**')
    expect(toPicomatch('src/gen/')).toBe('src/gen/**')
  })
  it('name what is wrong with a bad glob', () => {
    expect(globProblem('src/**')).toBeUndefined()
    expect(globProblem('!')).toBe('an empty pattern')
    expect(globProblem('a\u0000b')).toBe('a control character')
    expect(globProblem('x'.repeat(501))).toBe('longer than 500 characters')
  })
})

describe('the defaults', () => {
  it.each([
    ['package-lock.json', 'lockfile'],
    ['web/yarn.lock', 'lockfile'],
    ['pnpm-lock.yaml', 'lockfile'],
    ['crates/x/Cargo.lock', 'lockfile'],
    ['poetry.lock', 'lockfile'],
    ['go.sum', 'lockfile'],
    ['composer.lock', 'lockfile'],
    ['Gemfile.lock', 'lockfile'],
    ['dist/index.js', 'build output'],
    ['packages/a/build/out.js', 'build output'],
    ['assets/app.min.js', 'build output'],
    ['vendor/lib/a.go', 'vendored'],
    ['web/node_modules/x/index.js', 'vendored'],
    ['third_party/zlib/zlib.h', 'vendored']
  ])('leave out %s (%s)', (file, why) => {
    expect(reason(file)).toBe(why)
  })
  it.each([
    'src/parser.ts',
    'docs/build.md',
    'lockfile.ts',
    '.github/workflows/ci.yml',
    'src/distance.ts'
  ])('keep %s', (file) => expect(reason(file)).toBeUndefined())
})

describe('include and exclude', () => {
  it('include keeps only what it matches', () => {
    expect(reason('src/a.ts', ['src/**'])).toBeUndefined()
    expect(reason('docs/a.md', ['src/**'])).toBe('not matched by include')
    expect(reason('src/package-lock.json', ['src/**'])).toBe('lockfile')
  })
  it('exclude adds to the defaults and names the glob', () => {
    expect(reason('src/a.snap', [], ['*.snap'])).toBe("exclude '*.snap'")
    expect(reason('yarn.lock', [], ['*.snap'])).toBe('lockfile')
  })
  it("'!glob' gives a file back; the last matching rule wins", () => {
    expect(
      reason('package-lock.json', [], ['!package-lock.json'])
    ).toBeUndefined()
    expect(
      reason('gen/a.ts', [], ['!gen/'], 'gen/** linguist-generated')
    ).toBeUndefined()
    expect(reason('a.snap', [], ['!*.snap', '*.snap'])).toBe("exclude '*.snap'")
  })
})

describe("the base branch's .gitattributes", () => {
  const attrs = [
    '# generated code',
    'api/*.pb.go linguist-generated=true',
    'api/keep.pb.go -linguist-generated',
    '*.svg -diff',
    '*.bin binary',
    'docs/ linguist-generated', // a folder pattern marks no file, as in git
    '!*.ts linguist-generated', // negative patterns are not allowed in git
    '[attr]gen linguist-generated'
  ].join('\n')
  it('leaves out linguist-generated and -diff (binary) files', () => {
    expect(reason('api/user.pb.go', [], [], attrs)).toBe(
      "generated (linguist-generated in the base branch's .gitattributes)"
    )
    expect(reason('img/logo.svg', [], [], attrs)).toMatch(/^no diff \(-diff/)
    expect(reason('data/x.bin', [], [], attrs)).toMatch(/^no diff/)
  })
  it('lets a later line unset the mark, and ignores lines git ignores', () => {
    expect(reason('api/keep.pb.go', [], [], attrs)).toBeUndefined()
    expect(reason('docs/a.md', [], [], attrs)).toBeUndefined()
    expect(reason('src/a.ts', [], [], attrs)).toBeUndefined()
  })
})

const file = (filename: string) => ({
  filename,
  status: 'modified',
  additions: 1,
  deletions: 0
})
const section = (name: string, body = '+x\n') =>
  `diff --git a/${name} b/${name}\nindex 1..2 100644\n--- a/${name}\n+++ b/${name}\n@@ -0,0 +1 @@\n${body}`

describe('the diff', () => {
  it('is cut into one section per file, even with a header-like line inside a hunk', () => {
    const diff = section('a.ts', '+diff --git a/x b/x\n') + section('b.ts')
    const { files } = parseDiff(diff, new Set(['a.ts', 'b.ts']))
    expect(files.map((f) => f.path)).toEqual(['a.ts', 'b.ts'])
    expect(files.map((f) => f.text).join('')).toBe(diff)
  })
  it('names files with spaces and quoted names right', () => {
    const headerFile = (header: string, known: ReadonlySet<string>) =>
      parseDiff(`${header}\n`, known).files[0]?.path
    const known = new Set(['x b/package-lock.json', 'café.ts'])
    expect(
      headerFile(
        'diff --git a/x b/package-lock.json b/x b/package-lock.json',
        known
      )
    ).toBe('x b/package-lock.json')
    expect(
      headerFile('diff --git "a/caf\\303\\251.ts" "b/caf\\303\\251.ts"', known)
    ).toBe('café.ts')
    expect(headerFile('diff --git a/old.ts b/new.ts', new Set())).toBe('new.ts')
  })
  it('drops left-out files and lists them with the reason', () => {
    const files = ['src/a.ts', 'package-lock.json', 'gen/x.ts'].map(file)
    const diff = files.map((f) => section(f.filename)).join('')
    const out = filterContext(
      files,
      diff,
      pathFilter({ include: [], exclude: ['gen/'] }),
      1e6
    )
    expect(out.files.map((f) => f.filename)).toEqual(['src/a.ts'])
    expect(out.diff).toBe(section('src/a.ts'))
    expect(out.leftOut).toEqual([
      { file: 'package-lock.json', reason: 'lockfile' },
      { file: 'gen/x.ts', reason: "exclude 'gen/'" }
    ])
  })
  it('fits whole files into the budget instead of cutting one in the middle', () => {
    const big = section('big.ts', '+' + 'y'.repeat(500) + '\n')
    const diff = section('a.ts') + big + section('c.ts')
    const files = ['a.ts', 'big.ts', 'c.ts'].map(file)
    const budget = Buffer.byteLength(section('a.ts') + section('c.ts'))
    const out = filterContext(
      files,
      diff,
      pathFilter({ include: [], exclude: [] }),
      budget
    )
    expect(out.diff).toBe(section('a.ts') + section('c.ts'))
    expect(out.files).toHaveLength(3)
    expect(out.leftOut).toEqual([
      expect.objectContaining({ file: 'big.ts', diffOnly: true })
    ])
    expect(out.leftOut[0]?.reason).toMatch(
      /does not fit in what is left of pr-diff-max-bytes/
    )
  })
})

describe('include / exclude inputs', () => {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'settings-globs-'))
  const read = (inputs: Record<string, string>) =>
    readSettings({ getInput: (n) => inputs[n] ?? '', env: {}, workspace })
  it('are read as glob lists', () => {
    const s = read({
      include: 'src/**\ndocs/**',
      exclude: '*.snap, !yarn.lock'
    })
    expect(s.include).toEqual(['src/**', 'docs/**'])
    expect(s.exclude).toEqual(['*.snap', '!yarn.lock'])
    expect(read({}).include).toEqual([])
  })
  it('refuse bad globs, naming the input and the expected form', () => {
    expect(() => read({ include: '!src/**' })).toThrow(
      /Input 'include': '!src\/\*\*' is a negation.*expected globs separated by newlines or commas/
    )
    expect(() => read({ exclude: 'ok, !' })).toThrow(
      /Input 'exclude': '!' is an empty pattern \(expected globs separated by newlines or commas/
    )
    expect(() => read({ exclude: Array(201).fill('a').join(',') })).toThrow(
      /Input 'exclude': 201 globs, expected at most 200/
    )
  })
})
