// One pure renderer for the job summary and the sticky comment. The GitHub
// sticky-comment writer (github/sticky.ts) adds the hidden marker; `maxChars` already leaves room for it.
//
// Every LLM-written string goes through safeMarkdown (redacted, no pings,
// code kept but unambiguous, raw HTML shown as text), so an answer holding
// `</details>` or an unclosed fence cannot break the page around it.
import { pullFactsSection } from './pull-facts.js'
import { safeMarkdown, truncateMarkdown } from '../safety/markdown.js'
import { redactSecrets } from '../safety/redact.js'
import {
  OUTCOME_EMOJI,
  OUTCOME_TITLE,
  backendModel,
  details,
  footer,
  formatCount,
  formatDuration,
  questionBlock,
  reasonBlock,
  contextOverflowLines,
  voteTable,
  votesLine
} from './render-parts.js'
import { cell, htmlText, link } from '../safety/markdown-parts.js'
import type { AgentResult, RunResult } from '../core/types.js'
import { defuseMarkers, findingsSection } from '../review/render.js'
import type { ProgressSnapshot } from '../run/progress.js'
import type { ReviewReport } from '../core/review.js'
import { withoutFindingsBlocks } from '../core/findings-fence.js'
import { timingsSection } from './timings.js'
import {
  notCountedLine,
  sincePushLine,
  verdictHeadline
} from '../review/headline.js'
import { readThePullRequest } from '../results/results.js'
import { MAX_WALKTHROUGH_FILES } from '../review/walkthrough.js'

export interface ReportContext {
  target: 'comment' | 'summary'
  /** The comment tag; named in the title when it is not the default. */
  tag: string
  runUrl?: string
  artifactUrl?: string
  /** Values to redact from everything shown. */
  secrets: readonly string[]
  /** Hard limit for the whole body (comments: GitHub's limit less the marker). */
  maxChars: number
  /** Where the full text is, for truncation notes (markdown, trusted). */
  fullTextHint?: string
  /** `review: inline`: the findings and where they went. */
  review?: ReviewReport
  /**
   * The providers whose default model ran because their key was given
   * (no `models`, no agents in the config).
   */
  modelsFromKeys?: readonly string[]
}

type ProgressContext = Pick<
  ReportContext,
  'tag' | 'runUrl' | 'secrets' | 'maxChars'
>

const CANCELLED_REASON =
  'The job was cancelled, or the step stopped before it could report.'

/** Answers shorter than this are dropped rather than cut. */
const MIN_SHARE = 400

/**
 * The first `max` characters, never half a surrogate pair, and never the
 * first part of a secret cut at the edge (redaction only knows whole ones).
 */
function clipRaw(
  text: string,
  max: number,
  secrets: readonly string[]
): string {
  if (text.length <= max) return text
  const code = text.charCodeAt(max - 1)
  let clipped = text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max)
  for (const secret of secrets) {
    for (let n = Math.min(secret.length - 1, clipped.length); n > 0; n--) {
      if (clipped.endsWith(secret.slice(0, n))) {
        clipped = clipped.slice(0, clipped.length - n)
        break
      }
    }
  }
  return clipped
}

export function renderReport(result: RunResult, ctx: ReportContext): string {
  const hint = ctx.fullTextHint ?? defaultHint(ctx)
  const secrets = ctx.secrets
  const winner = result.agents.find((a) => a.id === result.winner)
  const winnerText = result.winnerAnswer ?? winner?.answer
  const others = result.agents
    .filter((a) => a.answer !== undefined)
    .filter((a) => winnerText === undefined || a.id !== result.winner)
    .sort((a, b) => b.votesReceived - a.votesReceived)
  // Text past the budget can never be shown: cut it before the (costly)
  // sanitising, so a 1 MiB answer costs a comment 64 KiB of work.
  // The findings block is machine text: the findings table shows it.
  const visible = (text: string) =>
    safeMarkdown(
      clipRaw(withoutFindingsBlocks(text), ctx.maxChars, secrets),
      secrets
    )
  const winnerBody = winnerText === undefined ? undefined : visible(winnerText)
  const otherBodies = others.map((a) => visible(a.answer ?? ''))

  const head = header(result, ctx, hint)
  const tail = ['---', footer(result, ctx)].filter(Boolean).join('\n\n')
  const build = (w: string | undefined, o: string[] | null): string =>
    [
      head,
      w === undefined ? '' : winnerSection(result, winner, w, secrets),
      mechanicsSection(result, ctx, hint, [
        votesSection(result, secrets),
        o === null
          ? omittedLine(others.length, hint)
          : otherSection(result, others, o, secrets)
      ]),
      tail
    ]
      .filter(Boolean)
      .join('\n\n')
  const max = ctx.maxChars
  const fits = (s: string): boolean => s.length <= max
  const done = (s: string): string => finish(s, ctx)

  const full = build(winnerBody, otherBodies)
  if (fits(full)) return done(full)
  // 1. Shrink the other answers, evenly, then drop their text.
  if (others.length) {
    const base = build(
      winnerBody,
      others.map(() => '')
    ).length
    const share = Math.floor((max - base) / others.length)
    if (share >= MIN_SHARE) {
      const note = `_✂️ Cut to fit. ${hint}_`
      const shrunk = build(
        winnerBody,
        otherBodies.map((b) => truncateMarkdown(b, share, note))
      )
      if (fits(shrunk)) return done(shrunk)
    }
    const omitted = `_Not shown, to fit. ${hint}_`
    const dropped = build(
      winnerBody,
      others.map(() => omitted)
    )
    if (fits(dropped)) return done(dropped)
  }
  // 2. Cut the winning answer (or, without one, drop the other answers).
  const note =
    `_✂️ Answer cut to fit (${formatCount(winnerText?.length ?? 0)} ` +
    `characters in full). ${hint}_`
  for (const mode of [others.map(() => ''), null]) {
    if (winnerBody === undefined) {
      const bare = build(undefined, mode === null ? null : mode.map(() => ''))
      if (fits(bare)) return done(bare)
      continue
    }
    const budget = max - build('', mode).length
    if (budget < MIN_SHARE) continue
    const cut = build(truncateMarkdown(winnerBody, budget, note), mode)
    if (fits(cut)) return done(cut)
  }
  // 3. Whatever fits of the essentials.
  const minimal = [titleLine(result, ctx), reasonBlock(result, secrets), tail]
    .filter(Boolean)
    .join('\n\n')
  return done(truncateMarkdown(minimal, max, `_✂️ Cut to fit. ${hint}_`))
}

export function renderSkipped(reason: string, ctx: ReportContext): string {
  return renderReport(
    {
      outcome: 'skipped',
      reason,
      question: '',
      exitCode: null,
      agents: [],
      votes: {}
    },
    ctx
  )
}

/** For the post step: the run never reported; show what it left. */
export function renderCancelled(
  partial: Partial<RunResult>,
  ctx: ReportContext
): string {
  return renderReport(
    {
      question: '',
      exitCode: null,
      agents: [],
      votes: {},
      ...partial,
      outcome: 'cancelled',
      reason: partial.reason ?? CANCELLED_REASON
    },
    ctx
  )
}

export function renderProgress(
  snapshot: ProgressSnapshot,
  ctx: ProgressContext
): string {
  const secrets = ctx.secrets
  const pct = Math.max(
    0,
    Math.min(100, Math.round(snapshot.completionPercentage || 0))
  )
  const bar =
    '▓'.repeat(Math.round(pct / 10)) + '░'.repeat(10 - Math.round(pct / 10))
  const rows = snapshot.agents.map(
    (a) =>
      `| ${cell(a.id, secrets, 60)} | ${backendModel(a, secrets)} ` +
      `| ${cell(a.status, secrets, 40)} | ${a.answerCount} ` +
      `| ${cell(a.votedFor, secrets, 60)} |`
  )
  const votes = votesLine(snapshot.votes, secrets, snapshot.agents)
  const parts = [
    `### ⏳ MassGen is running${tagSuffix(ctx.tag)}`,
    `**Phase:** ${cell(snapshot.phase, secrets, 60)} · \`${bar}\` ${pct}% · ` +
      `⏱️ ${formatDuration(snapshot.elapsedSeconds)} elapsed`,
    rows.length
      ? [
          '| Agent | Backend / model | Status | Answers | Voted for |',
          '| --- | --- | --- | ---: | --- |',
          ...rows
        ].join('\n')
      : '',
    votes ? `**Votes so far:** ${votes}` : '',
    link('Follow the workflow run', ctx.runUrl),
    '<sub>This comment will be replaced by the final report when the run ends.</sub>'
  ]
  const body = parts.filter(Boolean).join('\n\n')
  return finish(truncateMarkdown(body, ctx.maxChars, '_✂️ Cut to fit._'), ctx)
}

/**
 * Last pass: redact once more (escaping can join text into a secret), break
 * any sticky-comment marker a generated text carries (only the sticky writer writes
 * the real one), and hold the limit. `***` before an address would turn it
 * into a mention.
 */
function finish(
  text: string,
  ctx: { secrets: readonly string[]; maxChars: number }
): string {
  // Sticky and finding markers alike: only the GitHub writers put real ones.
  let out = defuseMarkers(redactSecrets(text, ctx.secrets))
  if (out !== text) out = out.replace(/\*\*\*@(?!\u200B)/g, '***@\u200B')
  return out.length <= ctx.maxChars
    ? out
    : truncateMarkdown(out, ctx.maxChars, '')
}

function defaultHint(ctx: ReportContext): string {
  const artifact = link('logs artifact', ctx.artifactUrl)
  if (ctx.target === 'comment')
    return `The full text is in the job summary${artifact ? ` and the ${artifact}` : ''}.`
  return artifact
    ? `The full text is in the ${artifact}.`
    : 'The full text is in the run logs.'
}

function tagSuffix(tag: string): string {
  return tag && tag !== 'massgen' ? ` (${cell(tag, [], 40)})` : ''
}

/**
 * The first line: a review's verdict in words and counts, else the run's
 * outcome in words (the `status` output keeps the machine word).
 */
function titleLine(result: RunResult, ctx: ReportContext): string {
  if (ctx.review && result.outcome === 'success')
    return verdictHeadline(ctx.review, tagSuffix(ctx.tag))
  return `### ${OUTCOME_EMOJI[result.outcome]} ${OUTCOME_TITLE[result.outcome]}${tagSuffix(ctx.tag)}`
}

/** How the votes named the winner: a tie or no vote is never called a consensus. */
function decisionLine(result: RunResult, secrets: readonly string[]): string {
  const winner = `**${cell(result.winner ?? '', secrets, 60)}**`
  const decision = result.decision ?? { kind: 'consensus' }
  if (decision.kind === 'tie')
    return (
      `No consensus: a tie at ${decision.votes} vote${decision.votes === 1 ? '' : 's'} each ` +
      `(${decision.agents.map((a) => cell(a, secrets, 60)).join(', ')}); MassGen's tie-break named ${winner}.`
    )
  if (decision.kind === 'no-votes')
    return `No agent voted; MassGen named ${winner} without a vote.`
  const w = result.agents.find((a) => a.id === result.winner)
  const votes = w
    ? ` with ${w.votesReceived} of ${result.agents.length} votes`
    : ''
  return `Consensus on ${winner}${votes}.`
}

function header(result: RunResult, ctx: ReportContext, hint: string): string {
  const secrets = ctx.secrets
  const parts = [titleLine(result, ctx)]
  if (ctx.review)
    parts.push(
      sincePushLine(ctx.review),
      walkthroughSection(ctx.review, result, secrets),
      notCountedLine(ctx.review)
    )
  else if (result.outcome === 'success' && result.winner)
    parts.push(decisionLine(result, secrets))
  parts.push(reasonBlock(result, secrets))
  parts.push(contextOverflowLines(result, secrets))
  if (ctx.modelsFromKeys?.length)
    parts.push(
      `<sub>🔑 The models came from the API keys this step was given (${ctx.modelsFromKeys.map((b) => cell(b, secrets, 20)).join(', ')}): every key passed to it adds its default model. Set \`models\` to choose them.</sub>`
    )
  if (result.outcome === 'cost-limit')
    parts.push(
      "To let a run go further, raise the workflow's `max-cost` (5 US dollars a run unless set), or set it to `none` for no cap. The estimate is MassGen's, from its providers' list prices."
    )
  if (result.configErrors?.length) {
    // A list, not a code block: a long fix wraps instead of scrolling.
    const shown = result.configErrors
      .slice(0, 50)
      .map((e) => `- ${cell(e, secrets, 500)}`)
    const more = result.configErrors.length - shown.length
    parts.push(
      `**MassGen config validation errors:**\n\n${shown.join('\n')}` +
        (more > 0 ? `\n\n…and ${more} more.` : '')
    )
  }
  if (result.outcome !== 'success' && result.phase)
    parts.push(`**Phase reached:** ${cell(result.phase, secrets, 60)}`)
  parts.push(pullFactsSection(result.pullFacts, secrets))
  if (readThePullRequest(result) === false)
    parts.push(
      "⚠️ **The agents read none of the pull request's files**: no read of its diff or of a changed file shows in MassGen's log, so their answers do not rest on the code."
    )
  if (!ctx.review)
    parts.push(questionBlock(result.question, secrets, ctx.maxChars, hint))
  if (ctx.review)
    parts.push(
      findingsSection(ctx.review, {
        tag: ctx.tag,
        agentCount: ctx.review.agentCount,
        secrets,
        runUrl: ctx.runUrl
      })
    )
  return parts.filter(Boolean).join('\n\n')
}

/**
 * What the change does, a line a file, from the answer the agents voted for:
 * each line hostile text, placed as one escaped line (no mention, link,
 * HTML or markdown of its own) and clipped.
 */
function walkthroughSection(
  review: ReviewReport,
  result: RunResult,
  secrets: readonly string[]
): string {
  const w = review.walkthrough
  if (!w) return ''
  const agent = result.agents.find((a) => a.id === w.agent)
  const whose = agent
    ? agentName(agent, secrets)
    : `**${cell(w.agent, secrets, 60)}**`
  const lines = w.files.map(
    (f) => `- ${cell(f.file, secrets, 120)}: ${cell(f.text, secrets, 200)}`
  )
  const left = w.left
    ? `\n\n<sub>${w.left} more line${w.left === 1 ? '' : 's'} of it left out (on no file this pull request changes, a file named twice, or past ${MAX_WALKTHROUGH_FILES}).</sub>`
    : ''
  return (
    `**What the change does**, file by file, as ${whose} wrote it in the answer the models voted for:\n\n` +
    lines.join('\n') +
    left
  )
}

/**
 * How the run went, folded: the author reads the verdict and the findings;
 * the question, the mode, the vote on the answers, the other answers and the
 * timings are there for whoever wants them.
 */
function mechanicsSection(
  result: RunResult,
  ctx: ReportContext,
  hint: string,
  sections: string[]
): string {
  const [votes = '', others = ''] = sections
  // A question-and-answer run shows its question; a review's is the prompt.
  const question = ctx.review
    ? questionBlock(result.question, ctx.secrets, ctx.maxChars, hint)
    : ''
  const timings = ctx.target === 'summary' ? timingsSection(result.timings) : ''
  const named: [string, string][] = [
    [result.mode ? modeLine(result) : '', ''],
    [question, 'the question asked'],
    [votes, 'who voted for which answer'],
    [others, 'the other answers'],
    [timings, 'the timings']
  ]
  const body = named.map(([text]) => text).filter(Boolean)
  if (!body.length) return ''
  const n = result.agents.length
  const what = named
    .filter(([text, label]) => text && label)
    .map(([, label]) => label)
  return details(
    `How the run went${n ? ` with ${n} model${n === 1 ? '' : 's'}` : ''}` +
      (what.length ? `: ${what.join(', ')}` : ''),
    body.join('\n\n')
  )
}

/** Which of MassGen's modes ran (`mode`, `personas` inputs). */
function modeLine(result: RunResult): string {
  const personas = result.personas ? ` · personas: \`${result.personas}\`` : ''
  return `**Mode:** \`${result.mode}\`${personas}`
}

function agentName(a: AgentResult, secrets: readonly string[]): string {
  return `**${cell(a.id, secrets, 60)}** (${backendModel(a, secrets)})`
}

function winnerSection(
  result: RunResult,
  winner: AgentResult | undefined,
  body: string,
  secrets: readonly string[]
): string {
  const who = winner
    ? agentName(winner, secrets)
    : `**${cell(result.winner, secrets, 60)}**`
  const title = result.winner ? `#### 🏆 Winning answer: ${who}` : '#### Answer'
  return `${title}\n\n${body}`
}

function votesSection(result: RunResult, secrets: readonly string[]): string {
  const parts: string[] = []
  if (result.agents.length) parts.push(voteTable(result, secrets))
  const votes = votesLine(result.votes, secrets, result.agents)
  if (votes && (result.outcome !== 'success' || !result.agents.length))
    parts.push(`**Votes so far** (by answer): ${votes}`)
  return parts.length ? ['#### 🗳️ Votes', ...parts].join('\n\n') : ''
}

function otherSection(
  result: RunResult,
  others: AgentResult[],
  bodies: string[],
  secrets: readonly string[]
): string {
  if (!others.length) return ''
  const title = result.winner ? '#### Other answers' : '#### Answers so far'
  const blocks = others.map((a, i) => {
    const model = [a.backend, a.model].filter(Boolean).join(' / ')
    const summary =
      `${htmlText(a.id, secrets, 60)}` +
      (model ? ` · ${htmlText(model, secrets, 80)}` : '') +
      ` · ${a.votesReceived} vote${a.votesReceived === 1 ? '' : 's'}`
    return details(summary, bodies[i] ?? '')
  })
  return [title, ...blocks].join('\n\n')
}

function omittedLine(count: number, hint: string): string {
  return count
    ? `_${count} other answer${count === 1 ? '' : 's'} not shown, to fit. ${hint}_`
    : ''
}
