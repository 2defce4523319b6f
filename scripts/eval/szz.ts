// `npm run eval -- corpus-from-git`: cases from a repository's own history
// by the SZZ method (Śliwerski, Zimmermann, Zeller, 2005). A fix commit is
// one whose message says it fixes something; the lines it deletes or
// changes are blamed, at its parent, back to the commits that wrote them;
// each such commit becomes a case: its diff, its files, and as known
// problems the lines a later fix changed. What the method gets wrong is in
// docs/evaluation.md ("Cases from your history").
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import type { KnownProblem } from './score.ts'

/** Git's empty tree: the parent side of a root commit. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904'

/** Words of a fix commit's message (a team may pass its own). */
export const FIX_PATTERN =
  /\b(fix(es|ed)?|bug|bugfix|repair(s|ed)?|regression|crash(es)?|broken)\b/i

export interface FromGitOptions {
  repo: string
  out: string
  /** At most this many cases, the most recent introducing commits first. */
  maxCases: number
  fixPattern?: RegExp
  say?: (line: string) => void
}

function gitIn(repo: string) {
  return (args: string[]): string =>
    execFileSync('git', ['-C', repo, ...args], {
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'pipe']
    })
}

/** Old-side line numbers a commit deleted or changed, by old path. */
export function changedOldLines(diff: string): Map<string, number[]> {
  const out = new Map<string, number[]>()
  let file: string | undefined
  let old = 0
  for (const line of diff.split('\n')) {
    const from = /^--- (?:a\/(.*)|\/dev\/null)$/.exec(line)
    if (from) {
      file = from[1]
      continue
    }
    // A file the fix deletes: the fix did not change those lines, it
    // dropped the file.
    if (line === '+++ /dev/null' && file) {
      out.delete(file)
      file = undefined
    }
    if (line.startsWith('+++ ')) continue
    const hunk = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/.exec(line)
    if (hunk) {
      old = Number(hunk[1])
      continue
    }
    if (!file) continue
    if (line.startsWith('-')) {
      // A blank line carries no bug to blame.
      if (line.slice(1).trim() !== '')
        out.set(file, [...(out.get(file) ?? []), old])
      old++
    } else if (line.startsWith(' ')) old++
  }
  return out
}

/** Runs of consecutive line numbers as ranges. */
export function rangesOf(lines: number[]): Array<[number, number]> {
  const sorted = [...new Set(lines)].sort((a, b) => a - b)
  const ranges: Array<[number, number]> = []
  for (const n of sorted) {
    const last = ranges.at(-1)
    if (last && n === last[1] + 1) last[1] = n
    else ranges.push([n, n])
  }
  return ranges
}

/**
 * `git blame --porcelain` of some lines: for each, the commit that wrote it,
 * the path and line number it had in that commit.
 */
export function parseBlame(
  porcelain: string
): Array<{ commit: string; file: string; line: number }> {
  const out: Array<{ commit: string; file: string; line: number }> = []
  const fileOf = new Map<string, string>()
  let current: { commit: string; line: number } | undefined
  for (const line of porcelain.split('\n')) {
    const head = /^([0-9a-f]{40}) (\d+) \d+/.exec(line)
    if (head) {
      current = { commit: head[1] ?? '', line: Number(head[2]) }
      continue
    }
    if (current && line.startsWith('filename '))
      fileOf.set(current.commit, line.slice('filename '.length))
    if (current && line.startsWith('\t')) {
      const file = fileOf.get(current.commit)
      if (file) out.push({ ...current, file })
      current = undefined
    }
  }
  return out
}

interface Blamed {
  /** introducing commit -> file -> its lines (in that commit) a fix changed */
  lines: Map<string, Map<string, number[]>>
  /** introducing commit -> the fixes that changed its lines */
  fixes: Map<string, Set<string>>
}

function blameFixes(
  git: (args: string[]) => string,
  fixPattern: RegExp
): Blamed {
  const blamed: Blamed = { lines: new Map(), fixes: new Map() }
  const log = git(['log', '--no-merges', '--format=%H%x00%P%x00%s%x00%b%x1e'])
  for (const record of log.split('\x1e')) {
    const [sha = '', parents = '', subject = '', body = ''] = record
      .trim()
      .split('\x00')
    const parent = parents.split(' ')[0]
    if (!sha || !parent || !fixPattern.test(`${subject}\n${body}`)) continue
    const diff = git(['diff', '-U0', '--no-color', parent, sha])
    for (const [file, lines] of changedOldLines(diff)) {
      const args = ['blame', '--porcelain', parent]
      for (const [a, b] of rangesOf(lines)) args.push('-L', `${a},${b}`)
      for (const hit of parseBlame(git([...args, '--', file]))) {
        const byFile =
          blamed.lines.get(hit.commit) ?? new Map<string, number[]>()
        byFile.set(hit.file, [...(byFile.get(hit.file) ?? []), hit.line])
        blamed.lines.set(hit.commit, byFile)
        blamed.fixes.set(
          hit.commit,
          (blamed.fixes.get(hit.commit) ?? new Set()).add(sha)
        )
      }
    }
  }
  return blamed
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40)
}

/** Writes one case per commit a fix blamed; returns the case folders. */
export function corpusFromGit(options: FromGitOptions): string[] {
  const git = gitIn(options.repo)
  const say = options.say ?? (() => undefined)
  const blamed = blameFixes(git, options.fixPattern ?? FIX_PATTERN)
  // Most recent first: git log's order.
  const order = git(['log', '--no-merges', '--format=%H'])
    .split('\n')
    .filter((sha) => blamed.lines.has(sha))
    .slice(0, options.maxCases)
  const written: string[] = []
  for (const sha of order) {
    const parent =
      git(['rev-list', '--parents', '-n', '1', sha]).trim().split(' ')[1] ??
      EMPTY_TREE
    const diff = git(['diff', '--no-renames', '--no-color', parent, sha])
    const touched = git([
      'diff',
      '--no-renames',
      '--name-only',
      '--diff-filter=d',
      parent,
      sha
    ])
      .split('\n')
      .filter(Boolean)
    const expected: KnownProblem[] = []
    for (const [file, lines] of blamed.lines.get(sha) ?? [])
      for (const [start, end] of rangesOf(lines))
        expected.push({ file, start_line: start, end_line: end })
    const subject = git(['log', '-1', '--format=%s', sha]).trim()
    const body = git(['log', '-1', '--format=%b', sha]).trim()
    const dir = path.join(
      options.out,
      `${sha.slice(0, 10)}-${slug(subject) || 'change'}`
    )
    fs.mkdirSync(path.join(dir, 'files'), { recursive: true })
    for (const file of touched) {
      const target = path.join(dir, 'files', file)
      fs.mkdirSync(path.dirname(target), { recursive: true })
      fs.writeFileSync(
        target,
        execFileSync('git', ['-C', options.repo, 'show', `${sha}:${file}`], {
          maxBuffer: 256 * 1024 * 1024
        })
      )
    }
    fs.writeFileSync(path.join(dir, 'diff.patch'), diff)
    fs.writeFileSync(
      path.join(dir, 'pr.json'),
      `${JSON.stringify({ title: subject, body, commit: sha, fixed_by: [...(blamed.fixes.get(sha) ?? [])] }, null, 2)}\n`
    )
    fs.writeFileSync(
      path.join(dir, 'expected.json'),
      `${JSON.stringify(expected, null, 2)}\n`
    )
    say(`${path.basename(dir)}: ${expected.length} known problem(s)`)
    written.push(dir)
  }
  return written
}
