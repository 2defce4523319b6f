// `npm run demo -- --local-model` (scripts/demo.ts): a review of a small
// sample pull request by two agents on a real model running here on the CPU,
// with the real MassGen, `review: inline` and the vote on every finding;
// prints the comment the action would post, and writes it with the run's
// other outputs under demo-output/. No key, no step by hand: the MassGen
// virtualenv and the model are fetched and cached on first use.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { localModelFile } from '../test-support/local-model-process.ts'
import { closeLocalReview, localReview } from '../test-support/local-review.ts'
import { ROOT } from '../test-support/run-action.ts'

export async function localModelReview(
  out: string,
  say: (line: string) => void
): Promise<number> {
  say(
    'massgen-action demo: a review by two agents on a local model (SmolLM2-135M on the CPU), real MassGen, loopback GitHub API, no API key'
  )
  const massgen = execFileSync(
    'bash',
    [path.join(ROOT, 'scripts', 'setup-massgen.sh')],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }
  )
    .trim()
    .split('\n')
    .pop() as string
  say(`model: ${localModelFile()}`)
  say(
    'reviewing pull request #42 (takes minutes: the model runs on the CPU)...'
  )
  const started = Date.now()
  const review = await localReview(massgen)
  const seconds = Math.round((Date.now() - started) / 1000)
  try {
    const { run, github, model } = review
    fs.rmSync(out, { recursive: true, force: true })
    fs.mkdirSync(out, { recursive: true })
    const comment =
      github.state.comments.find((c) => c.issueNumber === 42)?.body ?? ''
    const inline = github.state.reviewComments
      .map((c) => `- ${c.path}:${c.line ?? ''} ${c.body.split('\n')[0]}`)
      .join('\n')
    fs.writeFileSync(path.join(out, 'comment.md'), comment)
    fs.writeFileSync(path.join(out, 'summary.md'), run.summary)
    fs.writeFileSync(
      path.join(out, 'outputs.json'),
      JSON.stringify(run.outputs, null, 2)
    )
    fs.writeFileSync(path.join(out, 'action-log.txt'), run.stdout + run.stderr)
    fs.copyFileSync(model.logFile, path.join(out, 'model-requests.jsonl'))
    const requests = model.requests()
    const modelMs = requests.reduce((n, r) => n + (r.ms ?? 0), 0)
    const tokens = requests.reduce(
      (n, r) => n + (r.promptTokens ?? 0) + (r.completionTokens ?? 0),
      0
    )
    // The outcome first, as the comment opens with it; the texts follow.
    say('')
    say(
      `status: ${run.outputs.status}    verdict: ${run.outputs.verdict ?? '-'}    ${seconds} s in all, ${Math.round(modelMs / 1000)} s in the model, ${requests.length} model requests, ${tokens} tokens`
    )
    say(
      'a 135M model reviews poorly (it may miss the planted unbounded recursion): this run shows the pipeline, not review quality (docs/evaluation.md)'
    )
    say('')
    say('--- the comment the action would post on #42 ---')
    say(comment.replace(/^<!--[^\n]*-->\n/, ''))
    say('--- inline review comments ---')
    say(inline || '(none)')
    say('---')
    say(
      `written to ${path.relative(process.cwd(), out) || out}/: comment.md, summary.md, outputs.json, action-log.txt, model-requests.jsonl`
    )
    return run.exitCode === 0 ? 0 : 1
  } finally {
    await closeLocalReview(review)
  }
}
