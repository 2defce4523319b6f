// Which changed files, and which parts of the diff, the agents get as the
// pull request's context (`include` / `exclude`). Lockfiles, build output,
// vendored folders and files the base branch's .gitattributes marks
// `linguist-generated` or `-diff` are left out by default; whatever is left
// out is listed with the reason, so nothing disappears silently.
//
// Glob semantics: globs.ts.
import {
  FILES_LIST_MAX,
  type ChangedFile,
  type PullRequestContext
} from '../github/pull.js'
import { attributesFor, type GitAttributes } from './gitattributes.js'
import { globMatcher } from '../inputs/globs.js'
import { fitDiff, parseDiff } from '../core/unified-diff.js'
import type { Coverage } from '../core/review.js'

export interface LeftOut {
  file: string
  reason: string
  /** The file is still listed as changed; only its diff was left out. */
  diffOnly?: boolean
  /** Not one file: this many changed files GitHub's files list never named. */
  unnamed?: number
}

interface Rule {
  glob: string
  test: (file: string) => boolean
  /** Why a file this rule matches is left out; undefined gives it back (`!glob`). */
  reason: string | undefined
}

const LOCKFILES = [
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lock',
  'bun.lockb',
  'deno.lock',
  'Cargo.lock',
  'poetry.lock',
  'Pipfile.lock',
  'uv.lock',
  'pdm.lock',
  'go.sum',
  'go.work.sum',
  'composer.lock',
  'Gemfile.lock',
  'mix.lock',
  'pubspec.lock',
  'Podfile.lock',
  'Package.resolved',
  'packages.lock.json',
  'gradle.lockfile',
  'flake.lock',
  'conda-lock.yml'
]

/** The built-in rules, in order, as `[glob, reason]`. */
const DEFAULT_EXCLUDES: ReadonlyArray<readonly [string, string]> = [
  ...LOCKFILES.map((f) => [f, 'lockfile'] as const),
  ['dist/', 'build output'],
  ['build/', 'build output'],
  ['*.min.js', 'build output'],
  ['*.min.css', 'build output'],
  ['vendor/', 'vendored'],
  ['node_modules/', 'vendored'],
  ['third_party/', 'vendored'],
  ['third-party/', 'vendored']
]

const GENERATED_REASON =
  "generated (linguist-generated in the base branch's .gitattributes)"
const NO_DIFF_REASON =
  "no diff (-diff or binary in the base branch's .gitattributes)"
const NOT_INCLUDED_REASON = 'not matched by include'

interface FilterOptions {
  include: string[]
  exclude: string[]
  /** The base branch's .gitattributes, parsed; undefined when it has none. */
  attributes?: GitAttributes
}

interface PathFilter {
  /** Undefined when the file is given, else why it is left out. */
  reasonFor(file: string): string | undefined
}

export function pathFilter(options: FilterOptions): PathFilter {
  const includes = options.include.map(globMatcher)
  const rules: Rule[] = [
    ...DEFAULT_EXCLUDES.map(([glob, reason]) => ({
      glob,
      test: globMatcher(glob),
      reason
    })),
    ...options.exclude.map((glob) => {
      const given = glob.startsWith('!')
      const body = given ? glob.slice(1) : glob
      return {
        glob,
        test: globMatcher(body),
        reason: given ? undefined : `exclude '${body}'`
      }
    })
  ]
  const userStart = DEFAULT_EXCLUDES.length
  return {
    reasonFor(file) {
      if (includes.length && !includes.some((m) => m(file)))
        return NOT_INCLUDED_REASON
      // The .gitattributes marks rank with the defaults: after them, before
      // the user's own rules, which can give such files back.
      let reason: string | undefined
      for (const rule of rules.slice(0, userStart))
        if (rule.test(file)) reason = rule.reason
      const attrs = options.attributes
        ? attributesFor(options.attributes, file)
        : undefined
      if (attrs?.generated) reason = GENERATED_REASON
      if (attrs?.noDiff) reason = NO_DIFF_REASON
      for (const rule of rules.slice(userStart))
        if (rule.test(file)) reason = rule.reason
      return reason
    }
  }
}

/** Why a file's diff was left out for the budget. */
function budgetReason(bytes: number, maxBytes: number): string {
  return `diff of ${bytes} bytes does not fit in what is left of pr-diff-max-bytes (${maxBytes} bytes in all)`
}

interface FilteredContext {
  files: ChangedFile[]
  diff: string
  leftOut: LeftOut[]
}

/**
 * The changed files and diff the agents get: the filter's left-out files
 * dropped from both, then whole file sections kept in order while they fit
 * in maxDiffBytes (a section too large is left out, listed, and smaller ones
 * after it still get their turn) instead of a cut through the middle.
 */
export function filterContext(
  files: ChangedFile[],
  diff: string,
  filter: PathFilter,
  maxDiffBytes: number
): FilteredContext {
  const leftOut: LeftOut[] = []
  const reasons = new Map<string, string | undefined>()
  const reasonOf = (file: string) => {
    if (!reasons.has(file)) reasons.set(file, filter.reasonFor(file))
    return reasons.get(file)
  }
  const kept = files.filter((f) => {
    const reason = reasonOf(f.filename)
    if (reason) leftOut.push({ file: f.filename, reason })
    return !reason
  })
  const known = new Set(files.map((f) => f.filename))
  const parsed = parseDiff(diff, known)
  const given = parsed.files.filter((file) => {
    const reason = reasonOf(file.path)
    // Listed once: files the API listed are already in leftOut.
    if (reason && !known.has(file.path))
      leftOut.push({ file: file.path, reason })
    return !reason
  })
  const fitted = fitDiff(
    { preamble: parsed.preamble, files: given },
    maxDiffBytes
  )
  for (const cut of fitted.cut)
    leftOut.push({
      file: cut.path,
      reason: budgetReason(cut.bytes, maxDiffBytes),
      diffOnly: true
    })
  return { files: kept, diff: fitted.diff, leftOut }
}

/** The pull request narrowed by the filter, as pr-context.ts writes it. */
export function narrowPullRequest(
  pr: PullRequestContext,
  options: FilterOptions,
  maxDiffBytes: number
): PullRequestContext & { leftOut: LeftOut[] } {
  const given = filterContext(
    pr.files,
    pr.diff,
    pathFilter(options),
    maxDiffBytes
  )
  const named = new Set(given.leftOut.map((l) => l.file))
  // Files GitHub gave no hunks for (a rebuilt diff): still changed, listed.
  const noPatch: LeftOut[] = (pr.withoutPatch ?? [])
    .filter((w) => !named.has(w.file))
    .map((w) => ({ ...w, diffOnly: true }))
  // Files whose diff the read itself left out, whole (github/pull.ts cutDiff).
  const cutAtRead: LeftOut[] = (pr.diffCut ?? [])
    .filter((c) => !named.has(c.path))
    .map((c) => ({
      file: c.path,
      reason: `diff of ${c.bytes} bytes: over what the action reads of a diff`,
      diffOnly: true
    }))
  const unnamed = (pr.changedFiles ?? 0) - pr.files.length
  const unlisted: LeftOut[] =
    unnamed > 0
      ? [
          {
            file: `(${unnamed} more files, not named)`,
            reason:
              `GitHub's files list stops at ${FILES_LIST_MAX} files and this pull request ` +
              `changes ${pr.changedFiles}: the rest are in neither changed-files.tsv nor diff.patch`,
            unnamed
          }
        ]
      : []
  return {
    ...pr,
    files: given.files,
    diff: given.diff,
    leftOut: [...given.leftOut, ...noPatch, ...cutAtRead, ...unlisted]
  }
}

/**
 * What the review did not read, for its verdict (review/coverage.ts): every
 * file left out, each marked when `allow-unread` matches it. A count of
 * files GitHub never named is never allowed: no pattern can vouch for them.
 */
export function coverageOf(
  changed: number,
  leftOut: readonly LeftOut[],
  allowUnread: readonly string[]
): Coverage {
  const allowed = allowUnread.map(globMatcher)
  return {
    changed,
    unread: leftOut.map((l) => ({
      file: l.file,
      reason: l.reason,
      ...(l.unnamed ? { unnamed: l.unnamed } : {}),
      ...(!l.unnamed && allowed.some((m) => m(l.file)) ? { allowed: true } : {})
    }))
  }
}
