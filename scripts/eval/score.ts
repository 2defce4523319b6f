// How a review's findings score against a case's known problems, and how
// per-case scores add up (docs/evaluation.md, "Scoring"). Pure: no files, no
// processes, so the rules are tested on their own
// (__tests__/unit/eval-score.test.ts).
//
// A finding matches a known problem when the file is the same and the line
// ranges overlap once the known one is widened by `tolerance` lines on each
// side. Each known problem is matched at most once and each finding matches
// at most one: the pairing is a maximum matching (Kuhn's augmenting paths),
// so the order findings arrive in cannot lower the count. What is left:
// a finding matched to nothing is a false positive (counted apart when it
// lands on a `tp: false` entry, or on a known problem another finding
// already took); a real known problem nobody matched is a miss; a `tp: false`
// entry nobody reports is nothing.

/** One entry of a case's expected.json. */
export interface KnownProblem {
  file: string
  start_line: number
  end_line: number
  severity?: string
  /** false: a known false alarm; a finding there is a false positive. */
  tp?: boolean
}

/** One finding as a configuration reported it (the action's findings output). */
export interface ReportedFinding {
  file: string
  line: number
  start_line?: number | null
  severity?: string
}

export const DEFAULT_TOLERANCE = 3

export interface Counts {
  tp: number
  fp: number
  fn: number
  /** False positives on a `tp: false` entry (also counted in fp). */
  false_alarm_hits: number
  /** False positives on a known problem another finding matched (also in fp). */
  duplicates: number
}

export interface Ratios {
  /** tp / (tp + fp); null when nothing was reported. */
  precision: number | null
  /** tp / (tp + fn); null when the case has no known problem. */
  recall: number | null
  /** Their harmonic mean; null when either is null. */
  f1: number | null
}

export type Score = Counts & Ratios

export interface Scored extends Score {
  /** finding index -> known-problem index (expected.json's order). */
  matches: Array<{ finding: number; known: number }>
}

function rangeOf(f: ReportedFinding): [number, number] {
  const start = f.start_line ?? f.line
  return start <= f.line ? [start, f.line] : [f.line, start]
}

/** Whether a finding falls on a known problem, within the tolerance. */
export function overlaps(
  finding: ReportedFinding,
  known: KnownProblem,
  tolerance: number = DEFAULT_TOLERANCE
): boolean {
  if (finding.file !== known.file) return false
  const [start, end] = rangeOf(finding)
  const low = Math.min(known.start_line, known.end_line) - tolerance
  const high = Math.max(known.start_line, known.end_line) + tolerance
  return start <= high && end >= low
}

export function ratios(c: Pick<Counts, 'tp' | 'fp' | 'fn'>): Ratios {
  const precision = c.tp + c.fp > 0 ? c.tp / (c.tp + c.fp) : null
  const recall = c.tp + c.fn > 0 ? c.tp / (c.tp + c.fn) : null
  const f1 =
    precision === null || recall === null
      ? null
      : precision + recall > 0
        ? (2 * precision * recall) / (precision + recall)
        : 0
  return { precision, recall, f1 }
}

/** Maximum matching of findings to real known problems (augmenting paths). */
function maximumMatching(edges: number[][], knownCount: number): number[] {
  const ownerOf: number[] = new Array<number>(knownCount).fill(-1)
  const augment = (finding: number, seen: boolean[]): boolean => {
    for (const known of edges[finding] ?? []) {
      if (seen[known]) continue
      seen[known] = true
      const owner = ownerOf[known] ?? -1
      if (owner < 0 || augment(owner, seen)) {
        ownerOf[known] = finding
        return true
      }
    }
    return false
  }
  edges.forEach((_, finding) =>
    augment(finding, new Array<boolean>(knownCount).fill(false))
  )
  return ownerOf
}

export function scoreCase(
  findings: readonly ReportedFinding[],
  expected: readonly KnownProblem[],
  tolerance: number = DEFAULT_TOLERANCE
): Scored {
  const real = expected.flatMap((k, i) => (k.tp === false ? [] : [i]))
  const alarms = expected.filter((k) => k.tp === false)
  const edges = findings.map((f) =>
    real.flatMap((k, slot) =>
      overlaps(f, expected[k] as KnownProblem, tolerance) ? [slot] : []
    )
  )
  const ownerOf = maximumMatching(edges, real.length)
  const matches = ownerOf.flatMap((finding, slot) =>
    finding < 0 ? [] : [{ finding, known: real[slot] as number }]
  )
  const matched = new Set(matches.map((m) => m.finding))
  let falseAlarmHits = 0
  let duplicates = 0
  findings.forEach((f, i) => {
    if (matched.has(i)) return
    if ((edges[i] ?? []).length > 0) duplicates++
    else if (alarms.some((k) => overlaps(f, k, tolerance))) falseAlarmHits++
  })
  const tp = matches.length
  const counts: Counts = {
    tp,
    fp: findings.length - tp,
    fn: real.length - tp,
    false_alarm_hits: falseAlarmHits,
    duplicates
  }
  return {
    ...counts,
    ...ratios(counts),
    matches: matches.sort((a, b) => a.finding - b.finding)
  }
}

/** Counts summed over cases, the ratios taken of the sums (micro average). */
export function sumScores(scores: readonly Counts[]): Score {
  const sum: Counts = {
    tp: 0,
    fp: 0,
    fn: 0,
    false_alarm_hits: 0,
    duplicates: 0
  }
  for (const s of scores) {
    sum.tp += s.tp
    sum.fp += s.fp
    sum.fn += s.fn
    sum.false_alarm_hits += s.false_alarm_hits
    sum.duplicates += s.duplicates
  }
  return { ...sum, ...ratios(sum) }
}
