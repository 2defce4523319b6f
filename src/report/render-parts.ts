// Small pieces of the report: figures, cells, the vote table, the footer.
// Every dynamic string is redacted and escaped here, where it is placed.
import { safeMarkdown, truncateMarkdown } from '../safety/markdown.js'
import type { Outcome, RunResult } from '../core/types.js'
import { cell, link } from '../safety/markdown-parts.js'
import { runTotals } from '../results/results.js'

export const OUTCOME_EMOJI: Record<Outcome, string> = {
  success: '✅',
  failed: '❌',
  timeout: '⏱️',
  'cost-limit': '💰',
  'config-error': '⚙️',
  cancelled: '🚫',
  skipped: '⏭️'
}

/** The run's outcome in words, for the first line when there is no verdict. */
export const OUTCOME_TITLE: Record<Outcome, string> = {
  success: 'MassGen answered',
  failed: 'MassGen failed',
  timeout: 'MassGen ran out of time',
  'cost-limit': 'MassGen stopped at the cost limit (max-cost)',
  'config-error': 'MassGen did not run: a setting needs fixing',
  cancelled: 'MassGen was cancelled',
  skipped: 'MassGen skipped this run'
}

export function formatDuration(seconds: number): string {
  const total = Math.max(0, Math.round(seconds))
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = total % 60
  if (h) return `${h}h ${String(m).padStart(2, '0')}m`
  if (m) return `${m}m ${String(s).padStart(2, '0')}s`
  return `${s}s`
}

function formatCost(usd: number): string {
  if (usd > 0 && usd < 0.0001) return '<$0.0001'
  return `$${usd.toFixed(4)}`
}

export function formatCount(n: number): string {
  return Math.round(n).toLocaleString('en-US')
}

export function backendModel(
  agent: { backend?: string; model?: string },
  secrets: readonly string[]
): string {
  const parts = [agent.backend, agent.model].filter(Boolean) as string[]
  return parts.length ? cell(parts.join(' / '), secrets, 80) : '—'
}

/** An agent as the author knows it: its name and its model. */
function agentName(
  agent: { id: string; backend?: string; model?: string },
  secrets: readonly string[]
): string {
  const model = backendModel(agent, secrets)
  return `${cell(agent.id, secrets, 60)}${model === '—' ? '' : ` (${model})`}`
}

/**
 * MassGen's anonymous answer label (`agent2.1`: the second agent's first
 * answer) as the agent's name; the label itself when it names no agent.
 */
function labelName(
  label: string,
  agents: readonly { id: string; answerLabel?: string }[]
): string {
  const exact = agents.find((a) => a.answerLabel === label)
  if (exact) return exact.id
  const n = /^agent(\d+)\.\d+$/.exec(label)?.[1]
  return (n && agents[Number(n) - 1]?.id) || label
}

/**
 * Who voted for whom and why, in the agents' names: the reason apart from
 * the choice, and a state only when it is not a plain vote (an error).
 */
export function voteTable(
  result: RunResult,
  secrets: readonly string[]
): string {
  const byId = new Map(result.agents.map((a) => [a.id, a]))
  const rows = result.agents.map((a) => {
    const name =
      agentName(a, secrets) + (a.id === result.winner ? ' 🏆 chosen' : '')
    const answers = a.answerCount > 1 ? ` (${a.answerCount} drafts)` : ''
    const target = a.votedFor ? byId.get(a.votedFor) : undefined
    const votedFor = a.votedFor
      ? target
        ? cell(target.id, secrets, 60)
        : cell(a.votedFor, secrets, 60)
      : 'no vote'
    const why = a.error
      ? `⚠️ ${cell(a.error, secrets, 300)}`
      : a.voteReason
        ? cell(a.voteReason, secrets, 200)
        : '—'
    return `| ${name}${answers} | ${a.votesReceived} | ${votedFor} | ${why} |`
  })
  return [
    '| Model | Votes for its answer | Voted for | Why |',
    '| --- | ---: | --- | --- |',
    ...rows
  ].join('\n')
}

/**
 * Each agent a request of which was over its model's context, named: the
 * cause MassGen's own error ("failed to use workflow tools") hides.
 */
export function contextOverflowLines(
  result: RunResult,
  secrets: readonly string[]
): string {
  return result.agents
    .filter((a) => a.contextOverflow !== undefined)
    .map((a) => {
      const failed = a.status === 'error' || a.error !== undefined
      return (
        `⚠️ **${cell(a.id, secrets, 60)} ${failed ? 'failed: its request was' : 'sent a request'} ` +
        `over its model's context.** The provider said: ${cell(a.contextOverflow ?? '', secrets, 400)} ` +
        `Give it a model with a longer context, or a shorter question or diff.`
      )
    })
    .join('\n\n')
}

/** `label 2 · label 1`, most votes first. */
export function votesLine(
  votes: Record<string, number>,
  secrets: readonly string[],
  agents: readonly { id: string; answerLabel?: string }[] = []
): string {
  return Object.entries(votes)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 20)
    .map(([label, n]) => `${cell(labelName(label, agents), secrets, 60)} ${n}`)
    .join(' · ')
}

interface FooterContext {
  secrets: readonly string[]
  runUrl?: string
  artifactUrl?: string
}

export function footer(result: RunResult, ctx: FooterContext): string {
  const parts: string[] = []
  const totals = runTotals(result)
  if (totals.seconds !== undefined)
    parts.push(`⏱️ ${formatDuration(totals.seconds)}`)
  if (totals.cost !== undefined)
    parts.push(`💰 ${formatCost(totals.cost)} (estimated)`)
  if (totals.inputTokens !== undefined || totals.outputTokens !== undefined) {
    const tokensIn = formatCount(totals.inputTokens ?? 0)
    const tokensOut = formatCount(totals.outputTokens ?? 0)
    parts.push(`🔤 ${tokensIn} in / ${tokensOut} out tokens`)
  }
  if (result.outcome !== 'success' && result.exitCode !== null)
    parts.push(`exit code ${result.exitCode}`)
  if (result.signal)
    parts.push(`signal ${cell(result.signal, ctx.secrets, 20)}`)
  if (result.dockerImage)
    parts.push(`🐳 ${cell(result.dockerImage, ctx.secrets, 200)}`)
  const run = link('Workflow run', ctx.runUrl)
  const logs = link('Logs artifact', ctx.artifactUrl)
  return [...parts, run, logs].filter(Boolean).join(' · ')
}

export function reasonBlock(
  result: RunResult,
  secrets: readonly string[]
): string {
  const reason = result.reason?.trim()
  if (!reason || result.outcome === 'success') return ''
  if (!reason.includes('\n') && reason.length <= 300)
    return `**Reason:** ${cell(reason, secrets, 300)}`
  // Each line its own wrapped paragraph: a long fix reads on GitHub
  // without scrolling (a code block does not wrap).
  const lines = reason
    .split(/\r?\n/)
    .filter((l) => l.trim())
    .slice(0, 60)
    .map((l) => `> ${cell(l, secrets, 2000)}`)
  return `**Reason:**\n\n${lines.join('\n>\n')}`
}

/** Short questions inline, long ones collapsed (and cut to an eighth). */
export function questionBlock(
  question: string,
  secrets: readonly string[],
  maxChars: number,
  hint: string
): string {
  const q = question.trim()
  if (!q) return ''
  if (!q.includes('\n') && q.length <= 200)
    return `**Question:** ${cell(q, secrets, 200)}`
  const limit = Math.max(500, Math.floor(maxChars / 8))
  const body = truncateMarkdown(
    safeMarkdown(q, secrets),
    limit,
    `_✂️ Cut. ${hint}_`
  )
  return details(`Question (${formatCount(q.length)} characters)`, body)
}

export function details(summaryHtml: string, body: string): string {
  return `<details>\n<summary>${summaryHtml}</summary>\n\n${body}\n\n</details>`
}
