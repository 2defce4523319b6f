// An evaluation corpus on disk (docs/evaluation.md, "The corpus format"):
// one folder per case with pr.json, diff.patch, files/ and expected.json.
// Read and checked here; a bad case is an error naming the case, the file
// and the expected form, never a case silently scored as clean.
import * as fs from 'node:fs'
import * as path from 'node:path'
import type { ServerFile } from '../../test-support/github-state.ts'
import type { KnownProblem } from './score.ts'

export interface EvalCase {
  name: string
  dir: string
  title: string
  body: string
  diff: string
  /** The head side of the changed files, laid out as the checkout. */
  filesDir: string
  expected: KnownProblem[]
}

const CASE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/

function fail(name: string, file: string, what: string): never {
  throw new Error(`corpus case '${name}', ${file}: ${what}`)
}

function readJson(name: string, file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch (error) {
    fail(name, path.basename(file), `not readable JSON (${String(error)})`)
  }
}

const isLine = (x: unknown): x is number =>
  typeof x === 'number' && Number.isInteger(x) && x >= 1

/** expected.json: an array of `{file, start_line, end_line, severity?, tp?}`. */
export function checkExpected(name: string, raw: unknown): KnownProblem[] {
  const form =
    'expected an array of {"file", "start_line", "end_line", "severity"?, "tp"?} (lines from 1, start_line <= end_line; [] for a clean change)'
  if (!Array.isArray(raw)) fail(name, 'expected.json', form)
  return raw.map((item: unknown, i): KnownProblem => {
    const k = (item ?? {}) as Record<string, unknown>
    if (
      typeof k.file !== 'string' ||
      k.file === '' ||
      !isLine(k.start_line) ||
      !isLine(k.end_line) ||
      k.start_line > k.end_line ||
      (k.severity !== undefined && typeof k.severity !== 'string') ||
      (k.tp !== undefined && typeof k.tp !== 'boolean')
    )
      fail(name, 'expected.json', `entry ${i}: ${form}`)
    return {
      file: k.file,
      start_line: k.start_line,
      end_line: k.end_line,
      ...(typeof k.severity === 'string' ? { severity: k.severity } : {}),
      ...(k.tp === false ? { tp: false } : {})
    }
  })
}

export function readCase(dir: string): EvalCase {
  const name = path.basename(dir)
  if (!CASE_NAME.test(name))
    fail(name, '.', 'the folder name must be letters, digits, . _ -')
  const pr = readJson(name, path.join(dir, 'pr.json')) as Record<
    string,
    unknown
  >
  if (typeof pr?.title !== 'string' || pr.title === '')
    fail(name, 'pr.json', 'expected {"title": "...", "body": "..."}')
  const diffFile = path.join(dir, 'diff.patch')
  if (!fs.existsSync(diffFile)) fail(name, 'diff.patch', 'missing')
  const diff = fs.readFileSync(diffFile, 'utf8')
  if (!/^diff --git a\/\S+ b\/\S+/m.test(diff))
    fail(name, 'diff.patch', "expected a unified diff with 'a/' 'b/' prefixes")
  const filesDir = path.join(dir, 'files')
  if (!fs.statSync(filesDir, { throwIfNoEntry: false })?.isDirectory())
    fail(name, 'files/', 'missing: the head side of every changed file')
  return {
    name,
    dir,
    title: pr.title,
    body: typeof pr.body === 'string' ? pr.body : '',
    diff,
    filesDir,
    expected: checkExpected(
      name,
      readJson(name, path.join(dir, 'expected.json'))
    )
  }
}

/** Every case folder of a corpus (those with a pr.json), by name; `only` picks some. */
export function readCorpus(root: string, only?: readonly string[]): EvalCase[] {
  if (!fs.statSync(root, { throwIfNoEntry: false })?.isDirectory())
    throw new Error(`--corpus: '${root}' is not a folder`)
  const names = fs
    .readdirSync(root)
    .filter((n) => fs.existsSync(path.join(root, n, 'pr.json')))
    .sort()
  if (only) {
    const unknown = only.filter((n) => !names.includes(n))
    if (unknown.length)
      throw new Error(
        `--cases: no such case in ${root}: ${unknown.join(', ')} (cases: ${names.join(', ')})`
      )
  }
  const picked = only ? names.filter((n) => only.includes(n)) : names
  if (picked.length === 0) throw new Error(`--corpus: no case in '${root}'`)
  return picked.map((n) => readCase(path.join(root, n)))
}

/** The changed files of a unified diff, as GitHub's files route lists them. */
export function diffFiles(diff: string): ServerFile[] {
  const files: ServerFile[] = []
  let current: ServerFile | undefined
  let inHunk = false
  for (const line of diff.split('\n')) {
    const header = /^diff --git a\/(\S+) b\/(\S+)$/.exec(line)
    if (header) {
      current = {
        filename: header[2] ?? '',
        status: 'modified',
        additions: 0,
        deletions: 0
      }
      files.push(current)
      inHunk = false
      continue
    }
    if (!current) continue
    if (line.startsWith('@@')) inHunk = true
    else if (!inHunk && line.startsWith('new file mode'))
      current.status = 'added'
    else if (!inHunk && line.startsWith('deleted file mode'))
      current.status = 'removed'
    else if (inHunk && line.startsWith('+')) current.additions++
    else if (inHunk && line.startsWith('-')) current.deletions++
  }
  return files
}
