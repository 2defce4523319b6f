// Groups the same finding raised by several agents, and turns the groups
// into a verdict. Pure.
//
// Two findings are the same when they are on the same file, their line
// ranges overlap once each is widened by LINE_SLACK lines, and their words
// are similar: the token Jaccard index (shared distinct words over all
// distinct words, after lower-casing, dropping short and stop words and
// stripping -s/-es/-e/-ed/-ing) of
// the titles, or of title and explanation together, is at least
// SIMILARITY_THRESHOLD.
//
// Why these numbers: models point at the same statement a line or two
// apart (the `if` or the line inside it), hence the slack of 2. Two models
// describing one problem in one place share its key words ("null", "index",
// "timeout", the identifier) but word the rest differently; their titles
// typically score 0.3 to 0.6. Two different problems at the same place
// share almost no content words once stop words are gone (scores under
// 0.15 in the tests). A third of the words in common sits between both
// (__tests__/unit/review.test.ts plays both cases).
//
// A record's findings are hostile (a matrix review's aggregate groups every
// shard's): each finding's words are read once, a finding is compared only
// with the groups of its own file, and the comparisons are charged to the
// raiser of the finding being placed: at most MAX_CHECKS_PER_AGENT_ON_FILE
// for one agent on one file; past that, that agent's findings there stand
// alone. So a flood spends only its own agents' budgets, and honest agents
// after it still group. An agent raises at most MAX_FINDINGS_PER_AGENT
// findings (findings.ts), so an honest agent never comes near it: its 25
// findings against 200 groups each take 5,000; and the work on one file is
// at most its raisers' count times the budget.
import { createHash } from 'node:crypto'
import type { Finding, FindingGroup, Severity } from '../core/review.js'
import { MAX_FINDINGS_PER_AGENT } from '../core/findings-fence.js'

export const LINE_SLACK = 2
export const SIMILARITY_THRESHOLD = 1 / 3
/** The word comparisons one agent's findings on one file make, at most. */
export const MAX_CHECKS_PER_AGENT_ON_FILE = MAX_FINDINGS_PER_AGENT * 200

const STOP_WORDS = new Set(
  (
    'the and for are but not you all any can had her was one our out has ' +
    'have this that with from they will would there their what when which ' +
    'who whom into than then them these those its also should could may ' +
    'might must does did doing done been being here only just more most ' +
    'some such very too use used uses using line lines file code value ' +
    'values function method call calls called because while where how why'
  ).split(' ')
)

/** A crude stem: `limited`, `limits` and `limit` are one word (`limit`). */
function stem(word: string): string {
  for (const suffix of ['ing', 'ed', 'es', 'e', 's'])
    if (word.endsWith(suffix) && word.length - suffix.length >= 4)
      return word.slice(0, -suffix.length)
  return word
}

/** Distinct lower-case stems of three or more letters, stop words out. */
export function tokens(text: string): Set<string> {
  const out = new Set<string>()
  for (const word of text.toLowerCase().split(/[^a-z0-9_]+/))
    if (word.length >= 3 && !STOP_WORDS.has(word)) out.add(stem(word))
  return out
}

export function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 0
  const [small, large] = a.size <= b.size ? [a, b] : [b, a]
  let shared = 0
  for (const word of small) if (large.has(word)) shared++
  return shared / (a.size + b.size - shared)
}

/** A finding's words, as similarity compares them. */
interface Words {
  title: Set<string>
  all: Set<string>
}

function wordsOf(f: Finding): Words {
  return {
    title: tokens(f.title),
    all: tokens(`${f.title} ${f.explanation}`)
  }
}

function similarWords(a: Words, b: Words): number {
  return Math.max(jaccard(a.title, b.title), jaccard(a.all, b.all))
}

export function similarity(a: Finding, b: Finding): number {
  return similarWords(wordsOf(a), wordsOf(b))
}

function rangeOf(f: Finding): [number, number] {
  return [f.startLine ?? f.line, f.line]
}

function overlaps(a: Finding, b: Finding): boolean {
  const [a1, a2] = rangeOf(a)
  const [b1, b2] = rangeOf(b)
  return a1 - LINE_SLACK <= b2 && b1 - LINE_SLACK <= a2
}

export function sameFinding(a: Finding, b: Finding): boolean {
  return (
    a.file === b.file &&
    overlaps(a, b) &&
    similarity(a, b) >= SIMILARITY_THRESHOLD
  )
}

export const RANK: Record<Severity, number> = { blocker: 3, concern: 2, nit: 1 }

/**
 * The severity most raisers gave; a tie goes to the more severe one, so a
 * split between `blocker` and `nit` is not quietly a nit.
 */
function groupSeverity(members: Finding[]): Severity {
  const counts = new Map<Severity, number>()
  for (const m of members)
    counts.set(m.severity, (counts.get(m.severity) ?? 0) + 1)
  return [...counts.entries()].sort(
    (a, b) => b[1] - a[1] || RANK[b[0]] - RANK[a[0]]
  )[0]?.[0] as Severity
}

export function fingerprintOf(f: Finding): string {
  const words = [...tokens(f.title)].sort().join(' ')
  return createHash('sha256')
    .update(`${f.file}\n${f.line}\n${words}`)
    .digest('hex')
    .slice(0, 16)
}

/** What a grouping cost: for tests and for the caller's log. */
interface GroupWork {
  /** Word comparisons (similarity of two findings) made. */
  checks: number
  /** Findings put in a group of their own, their raiser's checks spent. */
  unchecked: number
}

interface Member {
  finding: Finding
  words: Words
}

/**
 * One file's groups, in the order they were made, and the checks each
 * raiser on it has left.
 */
interface FileGroups {
  groups: Member[][]
  checksLeft: Map<string, number>
}

/**
 * The first group of the file (in the order made) with a member on an
 * overlapping line of similar words; undefined when none; 'spent' when the
 * raiser's checks on the file ran out first.
 */
function homeOf(
  file: FileGroups,
  f: Member,
  work: GroupWork
): Member[] | undefined | 'spent' {
  const agent = f.finding.agent
  for (const group of file.groups)
    for (const m of group) {
      if (!overlaps(m.finding, f.finding)) continue
      const left = file.checksLeft.get(agent) ?? MAX_CHECKS_PER_AGENT_ON_FILE
      if (left <= 0) return 'spent'
      file.checksLeft.set(agent, left - 1)
      work.checks++
      if (similarWords(m.words, f.words) >= SIMILARITY_THRESHOLD) return group
    }
  return undefined
}

/**
 * Greedy single-link grouping in a fixed order (agent, file, line), so the
 * same answers always give the same groups. An agent counts once per group,
 * however many of its findings land there. A finding joins the first group
 * (in the order made) that holds the same finding (sameFinding), as if every
 * group were searched; only groups of its own file can, so only those are.
 */
export function groupFindings(
  findings: Finding[],
  winner: string | undefined,
  work: GroupWork = { checks: 0, unchecked: 0 }
): FindingGroup[] {
  const ordered = [...findings].sort(
    (a, b) =>
      Number(b.agent === winner) - Number(a.agent === winner) ||
      a.agent.localeCompare(b.agent) ||
      a.file.localeCompare(b.file) ||
      a.line - b.line
  )
  const made: Member[][] = []
  const byFile = new Map<string, FileGroups>()
  for (const finding of ordered) {
    const member = { finding, words: wordsOf(finding) }
    let file = byFile.get(finding.file)
    if (!file) {
      file = { groups: [], checksLeft: new Map() }
      byFile.set(finding.file, file)
    }
    const home = homeOf(file, member, work)
    if (home === 'spent') work.unchecked++
    if (home && home !== 'spent') home.push(member)
    else {
      const group = [member]
      made.push(group)
      file.groups.push(group)
    }
  }
  const groups = made.map((g) => g.map((m) => m.finding))
  return groups
    .map((all) => {
      const lead = all[0] as Finding
      const members = all.filter(
        (m, i) => all.findIndex((x) => x.agent === m.agent) === i
      )
      const anchor =
        lead.suggestion !== undefined
          ? lead
          : (members.find((m) => m.suggestion !== undefined) ?? lead)
      const suggestion = anchor.suggestion
      return {
        fingerprint: fingerprintOf(lead),
        fingerprints: members.map(fingerprintOf),
        lead,
        anchor,
        members,
        agents: members.map((m) => m.agent).sort(),
        severity: groupSeverity(members),
        ...(suggestion !== undefined ? { suggestion } : {})
      }
    })
    .sort(byImportance)
}

/** Most agents first, then most severe, then by place. */
function byImportance(a: FindingGroup, b: FindingGroup): number {
  return (
    b.agents.length - a.agents.length ||
    RANK[b.severity] - RANK[a.severity] ||
    a.lead.file.localeCompare(b.lead.file) ||
    a.lead.line - b.lead.line
  )
}
