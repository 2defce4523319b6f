// max-cost and the pull request's context filters, end to end: the bundled
// action under Node 24, the REAL MassGen 0.1.97 in local mode, the scripted
// LLM server (which reports a cost with each reply's usage, as OpenRouter
// does) and the loopback GitHub API. One real run serves every check here,
// to keep the number of slow runs small.
import { beforeAll, describe, expect, it, jest } from '@jest/globals'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { parse } from 'yaml'
import type { GitHubServer } from '../../test-support/github-server.js'
import { openTempDir, type ActionRun } from '../../test-support/run-action.js'
import { samplePull } from '../../test-support/sample-pull.js'
import { massgenBinary } from '../../test-support/massgen-binary.js'
import { commentsOn, loopbackServers } from '../../test-support/loopback.js'
import { prRun } from '../../test-support/pr-run.js'
import { expectNoKeyLeak } from '../../test-support/leaks.js'

jest.setTimeout(600_000)

const loopback = loopbackServers()

const section = (name: string, line: string) =>
  `diff --git a/${name} b/${name}\nindex 1111111..2222222 100644\n` +
  `--- a/${name}\n+++ b/${name}\n@@ -1 +1 @@\n-old\n+${line}\n`

/**
 * PR #42's changes: the parser (reviewed), a lockfile (a default
 * exclusion), a path the workflow excludes, a file the BASE branch's
 * .gitattributes marks generated, and the author's own .gitattributes,
 * which tries to mark everything generated to hide the change.
 */
const CHANGES: Array<[string, string]> = [
  ['src/parser.ts', 'PARSER-CHANGE-LINE'],
  ['package-lock.json', 'LOCKFILE-CHANGE-LINE'],
  ['docs/generated/api.md', 'EXCLUDED-PATH-LINE'],
  ['gen/client.ts', 'BASE-GENERATED-LINE'],
  ['src/backdoor.ts', 'BACKDOOR-LINE'],
  ['.gitattributes', '* linguist-generated']
]
const HOSTILE_ATTRIBUTES = '* linguist-generated\n* -diff\n'

let run: ActionRun
let github: GitHubServer
let prDir: string

beforeAll(async () => {
  github = loopback.github()
  const pull = samplePull()
  pull.files = CHANGES.map(([filename]) => ({
    filename,
    status: 'modified',
    additions: 1,
    deletions: 1
  }))
  pull.diff = CHANGES.map(([name, line]) => section(name, line)).join('')
  github.state.pulls['42'] = pull
  github.state.files = {
    [pull.base.sha]: { '.gitattributes': 'gen/** linguist-generated=true\n' },
    // What the pull request's head (and so the checkout) holds.
    [pull.head.sha]: { '.gitattributes': HOSTILE_ATTRIBUTES }
  }
  const llm = await loopback.llm({
    agentIds: ['agent_a', 'agent_b'],
    agents: {
      // Each reply reports $0.03: the first answer passes a $0.02 cap.
      'model-a': {
        answer: 'Partial answer A: the parser change looks safe.',
        costPerRequest: 0.03
      },
      // B never answers: without the cap the run would go to max-duration.
      'model-b': { fail: 'hang' }
    }
  })
  // The checkout of the pull request: its .gitattributes is the author's.
  const workspace = openTempDir('cost-context-ws-')
  fs.writeFileSync(path.join(workspace, '.gitattributes'), HOSTILE_ATTRIBUTES)
  run = await prRun(github, {
    workspace,
    inputs: {
      models: 'vllm/model-a vllm/model-b',
      'gemini-api-key': undefined,
      'base-url': llm.url,
      'massgen-command': massgenBinary(),
      'comment-tag': 'cost-cap',
      'max-duration': '300',
      'max-cost': '0.02',
      exclude: 'docs/generated/'
    }
  })
  const config = parse(
    fs.readFileSync(run.outputs['config-file'] ?? '', 'utf8')
  ) as { orchestrator: { context_paths: Array<{ path: string }> } }
  prDir =
    config.orchestrator.context_paths
      .map((c) => c.path)
      .find((p) => p.endsWith('pr-context')) ?? ''
})

const read = (name: string) => fs.readFileSync(path.join(prDir, name), 'utf8')

describe('max-cost with the real MassGen', () => {
  it('stops MassGen once its estimated cost reaches the cap and reports the answers so far', () => {
    expect(run.outputs.status).toBe('cost-limit')
    expect(Number(run.outputs.cost)).toBeGreaterThanOrEqual(0.02)
    expect(run.exitCode).not.toBe(0)
    expect(run.stdout).toMatch(/reached max-cost \(\$0\.02\): stopping MassGen/)
    expect(run.stdout).not.toMatch(/did not finish within max-duration/)
    const comment =
      commentsOn(github, 42).find((b) => b.includes('tag=cost-cap')) ?? ''
    for (const report of [comment, run.summary]) {
      expect(report).toContain(
        '💰 MassGen stopped at the cost limit (max-cost)'
      )
      expect(report).toContain('Cost limit reached')
      expect(report).toContain(
        'Partial answer A: the parser change looks safe.'
      )
    }
    expectNoKeyLeak(run, github)
  })
})

describe("include / exclude on the pull request's context", () => {
  it('MassGen was told where the folder is and that left-out.tsv lists what is missing', () => {
    expect(prDir).not.toBe('')
    // The question as MassGen recorded it when it ran.
    const logDir = run.outputs['log-dir'] ?? ''
    const metadata = fs
      .readdirSync(logDir, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('execution_metadata.yaml'))
      .map((f) => {
        const meta = parse(fs.readFileSync(path.join(logDir, f), 'utf8')) as {
          query?: string
        }
        return meta.query ?? ''
      })
      .join('\n')
    expect(metadata).toContain(`read-only folder ${prDir}`)
    expect(metadata).toContain('listed with the reason in left-out.tsv')
  })
  it('a lockfile change and an excluded path are absent from the context but listed as left out', () => {
    const diff = read('diff.patch')
    const files = read('changed-files.tsv')
    expect(diff).toContain('+PARSER-CHANGE-LINE')
    expect(files).toContain('src/parser.ts')
    for (const [name, line] of [
      ['package-lock.json', 'LOCKFILE-CHANGE-LINE'],
      ['docs/generated/api.md', 'EXCLUDED-PATH-LINE'],
      ['gen/client.ts', 'BASE-GENERATED-LINE']
    ]) {
      expect(diff).not.toContain(line)
      expect(files).not.toContain(name)
    }
    const leftOut = read('left-out.tsv')
    expect(leftOut).toContain('file and diff\tlockfile\tpackage-lock.json')
    expect(leftOut).toContain(
      "file and diff\texclude 'docs/generated/'\tdocs/generated/api.md"
    )
    expect(leftOut).toContain(
      "file and diff\tgenerated (linguist-generated in the base branch's .gitattributes)\tgen/client.ts"
    )
    expect(read('pull-request.md')).toContain(
      'changed files: 6, of which 3 left out'
    )
  })
  it("attack: the pull request's author adds `* linguist-generated` and `* -diff` to .gitattributes to hide the change from review — fails", () => {
    const diff = read('diff.patch')
    expect(diff).toContain('+BACKDOOR-LINE')
    expect(diff).toContain('+PARSER-CHANGE-LINE')
    expect(diff).toContain('diff --git a/.gitattributes b/.gitattributes')
    const leftOutFiles = read('left-out.tsv')
      .trim()
      .split('\n')
      .slice(1)
      .map((row) => row.split('\t')[2])
    expect(leftOutFiles).toEqual([
      'package-lock.json',
      'docs/generated/api.md',
      'gen/client.ts'
    ])
  })
})
