// The shards of one review, pure: the changed files grouped by folder,
// balanced by diff size, crossed with the named questions, capped at
// max-shards. The matrix job and the aggregate both call it on the same
// pull request, so the aggregate knows which shards it asked for without
// trusting anything a shard says.
import type {
  NamedQuestion,
  ShardEntry,
  ShardRef
} from '../inputs/shard-inputs.js'
import { MAX_SHARD_FILES } from '../inputs/shard-inputs.js'

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

export class ShardPlanError extends Error {}

/**
 * The shards: at most maxShards, each path group once per question. With
 * more questions than maxShards the plan is refused, never cut silently.
 */
export function planShards(
  files: PlannedFile[],
  questions: NamedQuestion[],
  maxShards: number
): ShardPlan {
  const asks = questions.length > 0 ? questions : [{ name: '', text: '' }]
  if (asks.length > maxShards)
    throw new ShardPlanError(
      `${asks.length} questions need at least ${asks.length} shards, but max-shards is ${maxShards}`
    )
  if (files.length === 0) return { shards: [], pathGroups: 0 }
  const wanted = Math.max(1, Math.floor(maxShards / asks.length))
  const groups = pathGroups(files, wanted)
  const shards = groups.flatMap((group, g) =>
    asks.map((q): ShardEntry => ({
      id: q.name ? `s${g + 1}-${q.name}` : `s${g + 1}`,
      files: group.map((f) => f.filename).slice(0, MAX_SHARD_FILES),
      question: q.name,
      ask: q.text
    }))
  )
  return { shards, pathGroups: groups.length }
}

/**
 * The matrix job's output, for `strategy.matrix: ${{ fromJSON(...) }}`: the
 * shards' ids and question names only, a few dozen bytes a shard; the files
 * and question texts are in the plan artifact.
 */
export function matrixOf(plan: ShardPlan): { include: ShardRef[] } {
  return { include: plan.shards.map(({ id, question }) => ({ id, question })) }
}
