// Where an answer's `massgen-findings` blocks are: read by the review
// (src/review/findings.ts) and left out of the answers the report shows,
// where the findings table already says what they hold. A line scan, so
// linear in the answer's length; an opener with no closer runs to the end,
// as in Markdown.

/** The info string of the fenced block the agents write their findings in. */
export const FINDINGS_FENCE = 'massgen-findings'

/** The info string of the block each agent sums up the change in, a line a file. */
export const WALKTHROUGH_FENCE = 'massgen-walkthrough'

/** The info string of the block each agent writes its votes on findings in. */
export const FINDING_VOTES_FENCE = 'massgen-finding-votes'

function openerFor(info: string): RegExp {
  return new RegExp(`^ {0,3}(\`{3,}|~{3,})[ \\t]*${info}[ \\t]*$`)
}
const OPENER = openerFor(FINDINGS_FENCE)
const VOTES_OPENER = openerFor(FINDING_VOTES_FENCE)
const WALKTHROUGH_OPENER = openerFor(WALKTHROUGH_FENCE)

/** One block: its lines, opener and closer included, as [first, end). */
interface FencedBlock {
  first: number
  /** The line after the closer (or after the last line). */
  end: number
  /** The lines between opener and closer. */
  body: string[]
}

export function answerLines(answer: string): string[] {
  return answer.replace(/\r\n?/g, '\n').split('\n')
}

export function findingsFences(lines: readonly string[]): FencedBlock[] {
  return fencedBlocks(lines, OPENER)
}

/** The `massgen-finding-votes` blocks of an answer (review/vote.ts). */
export function voteFences(lines: readonly string[]): FencedBlock[] {
  return fencedBlocks(lines, VOTES_OPENER)
}

/** The `massgen-walkthrough` blocks of an answer (review/walkthrough.ts). */
export function walkthroughFences(lines: readonly string[]): FencedBlock[] {
  return fencedBlocks(lines, WALKTHROUGH_OPENER)
}

function fencedBlocks(lines: readonly string[], opener: RegExp): FencedBlock[] {
  const blocks: FencedBlock[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = opener.exec(lines[i] ?? '')
    if (!open) continue
    const fence = open[1] as string
    const closer = new RegExp(
      `^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}[ \\t]*$`
    )
    let j = i + 1
    while (j < lines.length && !closer.test(lines[j] ?? '')) j++
    blocks.push({
      first: i,
      end: Math.min(j + 1, lines.length),
      body: lines.slice(i + 1, j)
    })
    i = j
  }
  return blocks
}

/**
 * The answer as readers see it: every findings, votes and walkthrough block
 * left out (the findings table and the walkthrough above it show them; the
 * findings file and outputs keep the findings).
 */
export function withoutFindingsBlocks(answer: string): string {
  const lines = answerLines(answer)
  const blocks = [
    ...findingsFences(lines),
    ...voteFences(lines),
    ...walkthroughFences(lines)
  ].sort((a, b) => a.first - b.first)
  if (blocks.length === 0) return answer
  const kept: string[] = []
  let next = 0
  for (const block of blocks) {
    kept.push(...lines.slice(next, block.first))
    next = Math.max(next, block.end)
  }
  kept.push(...lines.slice(next))
  return kept
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
}

/** Findings kept per agent; the rest are counted as dropped. */
export const MAX_FINDINGS_PER_AGENT = 25
