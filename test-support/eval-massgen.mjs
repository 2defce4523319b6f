#!/usr/bin/env node
// The MassGen stand-in (fake-massgen.mjs, `scripted`) answering per case and
// per MODEL, for the evaluation's tests (__tests__/e2e/eval.test.ts): an
// evaluation runs the same models together and each alone, so an agent's
// answer must follow its model, not its agent id. FAKE_MASSGEN_EVAL (JSON):
//   { "<text in the pull request's title>": { "<backend/model>":
//       { "answer": "...", "ballot"?: "...", "fail"?: true } } }
// The case is the one whose key the pull request's title (pr-context's
// pull-request.md) holds; `ballot` is the model's answer in the vote round;
// `fail` crashes any run the model is in. Then fake-massgen.mjs runs with
// FAKE_MASSGEN_AGENTS and FAKE_MASSGEN_BALLOTS keyed by agent id.
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'

const args = process.argv.slice(2)
const config = fs.readFileSync(args[args.indexOf('--config') + 1] ?? '', 'utf8')

/** agent id -> `backend/model`, from the config the action wrote. */
const models = new Map()
let agent
let backend
for (const line of config.split('\n')) {
  const id = /^\s*- id: (\S+)/.exec(line)
  if (id) {
    agent = id[1]
    backend = undefined
    continue
  }
  const type = /^\s+type: (\S+)/.exec(line)
  if (type && agent && !backend) backend = type[1]
  const model = /^\s+model: (\S+)/.exec(line)
  if (model && agent && backend && !models.has(agent))
    models.set(agent, `${backend}/${model[1]}`)
}

const context = /- path: (\S*pr-context)\s*$/m.exec(config)?.[1]
const pullRequest = context
  ? fs.readFileSync(path.join(context, 'pull-request.md'), 'utf8')
  : ''
const script = JSON.parse(process.env.FAKE_MASSGEN_EVAL ?? '{}')
const key = Object.keys(script).find((k) => pullRequest.includes(k))
const byModel = key ? script[key] : {}

const ids = [...models.keys()]
const entry = (id) => byModel[models.get(id)] ?? {}
const env = {
  ...process.env,
  FAKE_MASSGEN_SCENARIO: ids.some((id) => entry(id).fail)
    ? 'crash'
    : 'scripted',
  FAKE_MASSGEN_AGENTS: JSON.stringify(
    Object.fromEntries(
      ids.map((id) => [
        id,
        {
          answer: entry(id).answer ?? `No script for ${models.get(id)}.`,
          voteFor: ids[0]
        }
      ])
    )
  ),
  FAKE_MASSGEN_BALLOTS: JSON.stringify(
    Object.fromEntries(
      ids.flatMap((id) => (entry(id).ballot ? [[id, entry(id).ballot]] : []))
    )
  )
}
const standIn = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  'fake-massgen.mjs'
)
const result = spawnSync(process.execPath, [standIn, ...args], {
  env,
  stdio: 'inherit'
})
if (result.signal) process.kill(process.pid, result.signal)
process.exit(result.status ?? 1)
