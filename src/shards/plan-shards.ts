// The shards of one review, pure: the changed files grouped by folder (or
// first by the named globs of shard-paths), balanced by diff size, crossed
// with the named questions, capped at max-shards. The matrix job and the aggregate both call it on the same
// pull request, so the aggregate knows which shards it asked for without
// trusting anything a shard says.
import { Inputs } from '../core/constants.js'
import { globMatcher } from '../inputs/globs.js'
import type {
  NamedQuestion,
  PathRule,
  ShardEntry,
  ShardRef
} from '../inputs/shard-inputs.js'
import { MAX_SHARD_FILES, REST_GROUP } from '../inputs/shard-inputs.js'

/** What the plan needs of a changed file. */
export interface PlannedFile {
  filename: string
  additions: number
  deletions: number
}

export interface ShardPlan {
  /** One per path group and question, in order. */
  shards: ShardEntry[]
  /** How many path groups the files were split into. */
  pathGroups: number
}

/** A file's share of the work: its changed lines, at least 1. */
export function weightOf(file: PlannedFile): number {
  return Math.max(1, file.additions + file.deletions)
}

interface Unit {
  files: PlannedFile[]
  weight: number
}

function unitOf(files: PlannedFile[]): Unit {
  return { files, weight: files.reduce((sum, f) => sum + weightOf(f), 0) }
}

function folderOf(file: string): string {
  const slash = file.lastIndexOf('/')
  return slash < 0 ? '' : file.slice(0, slash)
}

/** The files by folder, each folder's files in name order. */
function byFolder(files: PlannedFile[]): Unit[] {
  const folders = new Map<string, PlannedFile[]>()
  for (const f of [...files].sort((a, b) => cmp(a.filename, b.filename))) {
    const key = folderOf(f.filename)
    folders.set(key, [...(folders.get(key) ?? []), f])
  }
  return [...folders.values()].map(unitOf)
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** Cuts a unit into `parts` runs of about equal weight, files in order. */
function cut(unit: Unit, parts: number): Unit[] {
  const target = unit.weight / parts
  const pieces: PlannedFile[][] = [[]]
  let acc = 0
  for (const f of unit.files) {
    const piece = pieces[pieces.length - 1] as PlannedFile[]
    // A new piece once this one holds its share, while pieces are left.
    if (
      piece.length > 0 &&
      pieces.length < parts &&
      acc + weightOf(f) / 2 > target * pieces.length
    )
      pieces.push([f])
    else piece.push(f)
    acc += weightOf(f)
  }
  return pieces.filter((p) => p.length > 0).map(unitOf)
}

/**
 * Folders, a folder heavier than a group's fair share (a monorepo's one
 * huge folder) cut into shares, more cut while there are fewer units than
 * groups, then placed heaviest first into the lightest group.
 */
function pathGroups(files: PlannedFile[], wanted: number): PlannedFile[][] {
  let units = byFolder(files)
  const total = units.reduce((sum, u) => sum + u.weight, 0)
  const share = total / wanted
  // A folder heavier than a group's share is cut into shares.
  units = units.flatMap((u) =>
    u.files.length > 1 && u.weight > share * 1.000001
      ? cut(u, Math.ceil(u.weight / share - 1e-9))
      : [u]
  )
  // Fewer units than groups: the heaviest is halved until there are enough.
  for (;;) {
    const heaviest = units
      .filter((u) => u.files.length > 1)
      .sort((a, b) => b.weight - a.weight)[0]
    if (!heaviest || units.length >= wanted) break
    units = [...units.filter((u) => u !== heaviest), ...cut(heaviest, 2)]
  }
  const count = Math.min(wanted, units.length)
  const groups = Array.from({ length: count }, () => unitOf([]))
  const ordered = [...units].sort(
    (a, b) =>
      b.weight - a.weight ||
      cmp(a.files[0]?.filename ?? '', b.files[0]?.filename ?? '')
  )
  for (const unit of ordered) {
    const lightest = groups.reduce((best, g) =>
      g.weight < best.weight ||
      (g.weight === best.weight && g.files.length < best.files.length)
        ? g
        : best
    )
    lightest.files.push(...unit.files)
    lightest.weight += unit.weight
  }
  return groups
    .filter((g) => g.files.length > 0)
    .map((g) => [...g.files].sort((a, b) => cmp(a.filename, b.filename)))
    .sort((a, b) => cmp(a[0]?.filename ?? '', b[0]?.filename ?? ''))
}

class ShardPlanError extends Error {}

/** A path group and the name its shards' ids start with. */
interface NamedGroup {
  name: string
  files: PlannedFile[]
}

/**
 * The files by the first rule one of whose globs matches, in the rules'
 * order, then the rest; groups no file fell into are left out.
 */
function byRules(files: PlannedFile[], rules: PathRule[]): Unit[] {
  const matchers = rules.map((r) => r.globs.map(globMatcher))
  const groups: PlannedFile[][] = [...rules, REST_GROUP].map(() => [])
  for (const f of files) {
    const first = matchers.findIndex((globs) =>
      globs.some((m) => m(f.filename))
    )
    groups[first < 0 ? rules.length : first]?.push(f)
  }
  return groups.map(unitOf)
}

/**
 * How many path groups each named group is cut into: one each, then every
 * slot left to the group heaviest per slot (while it has files to spare).
 */
function slotsOf(units: Unit[], wanted: number): number[] {
  const slots = units.map(() => 1)
  for (let left = wanted - units.length; left > 0; left--) {
    let best = -1
    units.forEach((u, i) => {
      const perSlot = u.weight / (slots[i] ?? 1)
      if (
        (slots[i] ?? 1) < u.files.length &&
        (best < 0 || perSlot > (units[best]?.weight ?? 0) / (slots[best] ?? 1))
      )
        best = i
    })
    if (best < 0) break
    slots[best] = (slots[best] ?? 1) + 1
  }
  return slots
}

/** shard-paths' groups, each cut by folder into its share of the slots. */
function namedGroups(
  files: PlannedFile[],
  rules: PathRule[],
  wanted: number
): NamedGroup[] {
  const names = [...rules.map((r) => r.name), REST_GROUP]
  const found = byRules(files, rules)
    .map((unit, i) => ({ name: names[i] ?? REST_GROUP, unit }))
    .filter((g) => g.unit.files.length > 0)
  if (found.length > wanted)
    throw new ShardPlanError(
      `the changed files fall into ${found.length} groups of '${Inputs.ShardPaths}' ` +
        `(${found.map((g) => g.name).join(', ')}), but '${Inputs.MaxShards}' leaves ${wanted} ` +
        'path group(s) for each question: raise max-shards or join groups'
    )
  const slots = slotsOf(
    found.map((g) => g.unit),
    wanted
  )
  return found.flatMap(({ name, unit }, i) => {
    const pieces = pathGroups(unit.files, slots[i] ?? 1)
    return pieces.map((piece, k) => ({
      name: pieces.length > 1 ? `${name}-${k + 1}` : name,
      files: piece
    }))
  })
}

/**
 * The shards: at most maxShards, each path group once per question. With
 * more questions (or shard-paths groups that got files) than maxShards
 * allows the plan is refused, never cut silently.
 */
export function planShards(
  files: PlannedFile[],
  questions: NamedQuestion[],
  maxShards: number,
  paths: PathRule[] = []
): ShardPlan {
  const asks = questions.length > 0 ? questions : [{ name: '', text: '' }]
  if (asks.length > maxShards)
    throw new ShardPlanError(
      `${asks.length} questions need at least ${asks.length} shards, but max-shards is ${maxShards}`
    )
  if (files.length === 0) return { shards: [], pathGroups: 0 }
  const wanted = Math.max(1, Math.floor(maxShards / asks.length))
  const groups: NamedGroup[] =
    paths.length > 0
      ? namedGroups(files, paths, wanted)
      : pathGroups(files, wanted).map((group, g) => ({
          name: `s${g + 1}`,
          files: group
        }))
  const shards = groups.flatMap((group) =>
    asks.map((q): ShardEntry => ({
      id: q.name ? `${group.name}-${q.name}` : group.name,
      files: group.files.map((f) => f.filename).slice(0, MAX_SHARD_FILES),
      question: q.name,
      ask: q.text
    }))
  )
  const twice = shards.find(
    (s, i) => shards.findIndex((t) => t.id === s.id) < i
  )
  if (twice)
    throw new ShardPlanError(
      `two shards would be named '${twice.id}': rename a group of '${Inputs.ShardPaths}' or a question of '${Inputs.ShardQuestions}'`
    )
  return { shards, pathGroups: groups.length }
}

/**
 * The matrix job's output, for `strategy.matrix: ${{ fromJSON(...) }}`: the
 * shards' ids and question names only, a few dozen bytes a shard; the files
 * and question texts are in the plan artifact.
 */
export function matrixOf(
  plan: ShardPlan,
  planSha256: string
): { include: ShardRef[] } {
  return {
    include: plan.shards.map(({ id, question }) => ({
      id,
      question,
      planSha256
    }))
  }
}
