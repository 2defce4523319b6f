// `npm run demo` (scripts/demo.ts): a review of a small sample pull request
// (#42: a recursive parser, a cache, a README line) by three scripted agents
// with the real MassGen, `review: inline` and the vote on every finding, the
// bundled action under Node 24 against a loopback GitHub. The agents' words
// are scripted (test-support/review-vote-script.ts, the run of
// __tests__/e2e/review-vote.test.ts): two raise the same problem and the
// third confirms it in the vote; one raises a false positive the two others
// reject; one finding only the pull request's own description backs. Prints
// the comment and the inline comments the action would post, and writes
// them with the run's outputs under demo-output/.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { event } from '../test-support/fixtures.ts'
import { startGitHubServer } from '../test-support/github-server.ts'
import { startLlmServer } from '../test-support/llm-server.ts'
import { threeAgentReview } from '../test-support/pr-run.ts'
import { reviewPull } from '../test-support/review-pull.ts'
import { plantedBody, voteScript } from '../test-support/review-vote-script.ts'
import { runAction } from '../test-support/run-action.ts'

interface FindingOut {
  file: string
  line: number
  severity: string
  title: string
  confirmed: number | null
  rejected: number | null
  posted: string
}

export async function reviewDemo(
  massgen: string,
  out: string,
  say: (line: string) => void
): Promise<number> {
  const llm = await startLlmServer(voteScript({ plain: true }))
  const github = await startGitHubServer({ issues: [42] })
  github.state.pulls['42'] = { ...reviewPull(), body: plantedBody() }
  try {
    say(`scripted LLM server: ${llm.url}`)
    say(`GitHub API stand-in: ${github.url}`)
    say(`MassGen: ${massgen}`)
    say(
      'reviewing pull request #42 with dist/index.js under Node 24: MassGen runs twice, for the answers and for the vote on every finding (about half a minute on an idle 2-core machine)...'
    )
    const run = await runAction({
      eventName: 'pull_request',
      payload: event('pull_request.opened'),
      githubApiUrl: github.url,
      post: true,
      inputs: { ...threeAgentReview(llm.url, massgen), docker: 'false' }
    })
    const comment =
      github.state.comments.find((c) => c.issueNumber === 42)?.body ?? ''
    const review = github.state.reviews.find((r) => r.state !== 'PENDING')
    const inline = github.state.reviewComments.filter(
      (c) => c.reviewId === review?.id
    )
    fs.rmSync(out, { recursive: true, force: true })
    fs.mkdirSync(out, { recursive: true })
    fs.writeFileSync(path.join(out, 'comment.md'), comment)
    fs.writeFileSync(
      path.join(out, 'review.md'),
      [
        review?.body ?? '',
        ...inline.map((c) => `\n---\n${c.path} line ${c.line}\n\n${c.body}`)
      ].join('\n')
    )
    fs.writeFileSync(path.join(out, 'summary.md'), run.summary)
    fs.writeFileSync(
      path.join(out, 'outputs.json'),
      JSON.stringify(run.outputs, null, 2)
    )
    fs.writeFileSync(path.join(out, 'action-log.txt'), run.stdout + run.stderr)
    // The outcome first, as the comment opens with it; the texts follow.
    say('')
    say(
      `status: ${run.outputs.status}    verdict: ${run.outputs.verdict ?? '-'}`
    )
    say('')
    say('--- the comment the action posts on #42 ---')
    say(comment.replace(/^<!--[^\n]*-->\n/, ''))
    say('--- its inline review comments ---')
    for (const c of inline) {
      say(`${c.path} line ${c.line}:`)
      say(c.body.replace(/^<!--[^\n]*-->\n/, ''))
      say('')
    }
    if (!inline.length) say('(none)')
    say('--- the vote on every finding ---')
    const findings = JSON.parse(run.outputs.findings ?? '[]') as FindingOut[]
    for (const f of findings)
      say(
        `${f.severity} ${f.file}:${f.line} "${f.title}": confirmed by ${f.confirmed ?? '-'}, rejected by ${f.rejected ?? '-'} -> ${f.posted}`
      )
    say('')
    say(
      `written to ${path.relative(process.cwd(), out) || out}/: comment.md (the sticky comment), review.md (the review and its inline comments),`
    )
    say(
      '  summary.md (job summary), outputs.json (step outputs), action-log.txt'
    )
    return run.outputs.status === 'success' && run.outputs.verdict ? 0 : 1
  } finally {
    await llm.close()
    await github.close()
  }
}
