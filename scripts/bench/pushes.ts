// Review across pushes: what each agent is sent to read at each push of a
// three-push pull request, the incremental review against the full one,
// measured side by side in one bench run. The same pull request (a bulk
// file the first push adds and no later push touches, a fix and a new
// problem in the second, a one-line fix in the third) is reviewed twice
// from scratch, `review-scope: incremental` and `full`, by the real
// MassGen with two scripted agents that read the files the prompt tells
// them to (`prompt:NAME`, test-support/llm-reads.ts). The scripted LLM
// server counts the UTF-8 bytes of every message each agent is sent.
import {
  pushToPull,
  startGitHubServer
} from '../../test-support/github-server.ts'
import { startLlmServer } from '../../test-support/llm-server.ts'
import {
  massgenBinary,
  virtualenvFolders
} from '../../test-support/massgen-binary.ts'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { ROOT, runAction } from '../../test-support/run-action.ts'
import {
  answerAt,
  pushesPull,
  pushOf,
  retryFixPush
} from '../../test-support/pushes-pull.ts'
import { ratio } from './format.ts'
import type { Row } from './format.ts'

const KEY = 'sk-benchOPENAIkey1234567890abcdef'
/** Lines of the file no push after the first touches (about 25 KB of diff). */
const BULK_LINES = 500
const MODELS = ['model-a', 'model-b']

type Scope = 'incremental' | 'full'

/** Per push, per model: the bytes of all messages that model was sent. */
async function reviewThreePushes(
  scope: Scope,
  say: (line: string) => void
): Promise<Array<Record<string, number>>> {
  const github = await startGitHubServer({ issues: [42] })
  github.state.pulls['42'] = pushesPull(BULK_LINES)
  const massgen = massgenBinary()
  const out: Array<Record<string, number>> = []
  try {
    for (let push = 0; push < 3; push++) {
      if (push === 1) pushToPull(github.state, 42, pushOf(1, BULK_LINES))
      if (push === 2) pushToPull(github.state, 42, retryFixPush(BULK_LINES))
      const head = github.state.pulls['42']?.head.sha ?? ''
      // What the prompt points each agent at: the change and the open
      // findings when there are, else the whole diff.
      const reads = (p: number) =>
        scope === 'incremental' && p > 0
          ? ['prompt:since-last-review.patch', 'prompt:open-findings.md']
          : ['prompt:diff.patch']
      const llm = await startLlmServer({
        agentIds: ['agent_a', 'agent_b'],
        agents: Object.fromEntries(
          MODELS.map((m, i) => [
            m,
            {
              answer: answerAt(Math.min(push, 2), `agent_${'ab'[i]}`),
              reads: reads(push),
              voteFor: 'agent_a'
            }
          ])
        )
      })
      say(`review across pushes: ${scope}, push ${push + 1}/3`)
      // The fixture's pull_request event, at this push's head.
      const payload = JSON.parse(
        fs.readFileSync(
          path.join(ROOT, '__fixtures__', 'events', 'pull_request.opened.json'),
          'utf8'
        )
      ) as { action: string; pull_request: { head: { sha: string } } }
      payload.action = push === 0 ? 'opened' : 'synchronize'
      payload.pull_request.head.sha = head
      const run = await runAction({
        eventName: 'pull_request',
        payload,
        githubApiUrl: github.url,
        inputs: {
          query: 'Review this pull request.',
          models: 'vllm/model-a vllm/model-b',
          'base-url': llm.url,
          'openai-api-key': KEY,
          'massgen-command': massgen,
          'max-duration': '300',
          'upload-logs': 'false',
          review: 'inline',
          'review-scope': scope
        },
        pathExtra: virtualenvFolders(massgen)
      })
      if (run.outputs.status !== 'success')
        say(`  run ended ${run.outputs.status ?? 'without a status'}`)
      out.push(
        Object.fromEntries(
          MODELS.map((m) => [
            m,
            llm.requests
              .filter((r) => r.model === m)
              .reduce((n, r) => n + r.promptBytes, 0)
          ])
        )
      )
      await llm.close()
    }
  } finally {
    await github.close()
  }
  return out
}

/** Rows: per push, the bytes each agent was sent, incremental / full. */
export async function pushesRows(say: (line: string) => void): Promise<Row[]> {
  const incremental = await reviewThreePushes('incremental', say)
  const full = await reviewThreePushes('full', say)
  const kb = (n?: number) =>
    n === undefined ? 'n/a' : `${(n / 1024).toFixed(1)} KiB`
  return [0, 1, 2].map((p): Row => {
    const inc = incremental[p] ?? {}
    const all = full[p] ?? {}
    const sum = (r: Record<string, number>) =>
      Object.values(r).reduce((a, b) => a + b, 0)
    return [
      `review push ${p + 1}/3: prompt bytes per agent, incremental / full`,
      ratio(sum(inc), sum(all)),
      MODELS.map((m) => `${m} ${kb(inc[m])} vs ${kb(all[m])}`).join('; ') +
        (p === 0 ? ' (first push: both review the whole pull request)' : ''),
      p === 0 ? '1.00' : '< 1'
    ]
  })
}
