// `npm run demo`: a review of a small sample pull request, locally, with the
// real MassGen and no API key (scripts/demo-review.ts): three scripted agents
// on a scripted OpenAI-compatible server, `review: inline` with the vote on
// every finding, a loopback GitHub API receiving the comment, the inline
// review and the check run, and the bundled action run under Node 24 exactly
// as a runner runs it. Prints the comment. Run by Node 24 directly (it
// strips the types).
//
// `npm run demo -- --question`: the question-and-answer job instead, on this
// repository: three scripted agents answer which file a new contributor
// should read first, and vote.
//
// `npm run demo -- --local-model`: the review by two agents on a real model
// running here on the CPU (test-support/local-model.ts, the model fetched
// and cached by scripts/fetch-model.sh), `review: inline` with the vote on
// every finding; prints the comment the action would post.
// docs/local-model.md states its time, idle and loaded.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { startGitHubServer } from '../test-support/github-server.ts'
import { startLlmServer } from '../test-support/llm-server.ts'
import { ROOT, runAction } from '../test-support/run-action.ts'
import { localModelReview } from './demo-local-model.ts'
import { reviewDemo } from './demo-review.ts'

const out = path.join(ROOT, 'demo-output')
const say = (line: string) => process.stdout.write(`${line}\n`)

if (process.argv.includes('--local-model')) {
  process.exitCode = await localModelReview(out, say)
  process.exit()
}

const massgen = () =>
  execFileSync('bash', [path.join(ROOT, 'scripts', 'setup-massgen.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit']
  })
    .trim()
    .split('\n')
    .pop() as string

if (!process.argv.includes('--question')) {
  say(
    'massgen-action demo: a pull request review by three agents: real MassGen, scripted LLMs, loopback GitHub API, no API key'
  )
  process.exitCode = await reviewDemo(massgen(), out, say)
  process.exit()
}

say(
  'massgen-action demo: a question about this repository: real MassGen, scripted LLMs, loopback GitHub API, no API key'
)
const massgenPath = massgen()

const llm = await startLlmServer({
  agentIds: ['agent_a', 'agent_b', 'agent_c'],
  agents: {
    'architect-model': {
      answer:
        'Start with `src/pipeline/main-step.ts`: it is the whole pipeline in ' +
        'one page (decide -> prepare -> execute -> finish, for every role), and every other ' +
        'folder is named after the stage it serves.',
      voteFor: 'agent_a',
      voteReason: 'The pipeline file gives the map before the details.'
    },
    'reviewer-model': {
      answer:
        'Read `action.yml` first: the inputs and outputs are the contract, ' +
        'and the README tables are checked against it by a test.',
      voteFor: 'agent_a',
      voteReason:
        'main-step.ts shows how the contract is honoured, not just what it is.'
    },
    'skeptic-model': {
      answer:
        'Read `docs/massgen-0.1.97.md`: it lists what the real MassGen does ' +
        'where its documentation is wrong, which explains most design choices.',
      voteFor: 'agent_c',
      voteReason: 'The surprises matter most.'
    }
  }
})
const github = await startGitHubServer({ issues: [1] })
try {
  say(`scripted LLM server: ${llm.url}`)
  say(`GitHub API stand-in: ${github.url}`)
  say(`MassGen: ${massgenPath}`)
  say('running dist/index.js under Node 24 (MassGen takes a minute)...')
  const run = await runAction({
    eventName: 'workflow_dispatch',
    payload: {
      inputs: {},
      ref: 'refs/heads/main',
      repository: { full_name: 'octo-org/octo-repo' }
    },
    githubApiUrl: github.url,
    workspace: ROOT,
    post: true,
    inputs: {
      query:
        'Which file of this repository should a new contributor read first, and why?',
      models: 'vllm/architect-model vllm/reviewer-model vllm/skeptic-model',
      'base-url': llm.url,
      'massgen-command': massgenPath,
      docker: 'false',
      'issue-number': '1',
      'max-duration': '600'
    }
  })
  fs.rmSync(out, { recursive: true, force: true })
  fs.mkdirSync(out, { recursive: true })
  const comment =
    github.state.comments.find((c) => c.issueNumber === 1)?.body ?? ''
  fs.writeFileSync(path.join(out, 'comment.md'), comment)
  fs.writeFileSync(path.join(out, 'summary.md'), run.summary)
  fs.writeFileSync(
    path.join(out, 'outputs.json'),
    JSON.stringify(run.outputs, null, 2)
  )
  fs.writeFileSync(path.join(out, 'action-log.txt'), run.stdout + run.stderr)
  if (run.outputs['config-file']) {
    fs.copyFileSync(
      run.outputs['config-file'],
      path.join(out, 'massgen-config.yaml')
    )
  }
  say('')
  say(`status: ${run.outputs.status}    winner: ${run.outputs.winner ?? '-'}`)
  // The shape of the action's `votes` output (action.yml).
  const rows = JSON.parse(run.outputs.votes ?? '[]') as {
    agent: string
    backend: string
    model: string
    votes: number
    voted_for: string | null
  }[]
  for (const row of rows) {
    say(
      `  ${row.agent} (${row.backend}/${row.model}): ${row.votes} vote(s), voted for ${row.voted_for ?? '-'}`
    )
  }
  say('')
  say('winning answer:')
  say(`  ${run.outputs.answer ?? ''}`)
  say('')
  say(
    `written to ${path.relative(process.cwd(), out) || out}/: comment.md (the PR/issue comment), summary.md (job summary),`
  )
  say(
    '  outputs.json (step outputs), massgen-config.yaml (the config MassGen ran), action-log.txt'
  )
  process.exitCode = run.outputs.status === 'success' ? 0 : 1
} finally {
  await llm.close()
  await github.close()
}
