// Files an agent touched: the run's work folder is MassGen's cwd, and an
// agent can leave links anywhere in it. Whatever it leaves, the action must
// never create, change or delete a file outside that folder: not when it
// scrubs keys from the folder, not when it writes its answer file, not in
// the post step. Played through the bundled action with a MassGen stand-in
// that plants the links (test-support/fake-massgen.mjs, FAKE_MASSGEN_PLANT_LINKS).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import type { GitHubServer } from '../../test-support/github-server.js'
import { ROOT, type ActionRun } from '../../test-support/run-action.js'
import { KEYS } from '../../test-support/fixtures.js'
import { prRun } from '../../test-support/pr-run.js'
import { githubWithPull } from '../../test-support/loopback.js'

let github: GitHubServer
beforeAll(async () => {
  github = await githubWithPull()
})
afterAll(async () => {
  await github.close()
})

/** What the attacker wants the post step to run, with a key to make the scrub act. */
const PAYLOAD = `process.stdout.write('PWNED-BY-AGENT\\n') // ${KEYS.openai}\n`

const sha256 = (file: string) =>
  createHash('sha256').update(fs.readFileSync(file)).digest('hex')

/** A copy of the bundle, a canary file and a folder, all outside the run. */
function outsideWorld() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'security-files-'))
  const actionDir = path.join(dir, 'action')
  fs.cpSync(path.join(ROOT, 'dist'), actionDir, { recursive: true })
  const canary = path.join(dir, 'canary.txt')
  fs.writeFileSync(canary, `canary holding a key: ${KEYS.openai}\n`)
  const outsideDir = path.join(dir, 'outside')
  fs.mkdirSync(outsideDir)
  const outsideFile = path.join(outsideDir, 'notes.txt')
  fs.writeFileSync(outsideFile, `outside notes: ${KEYS.openai}\n`)
  const postScript = path.join(actionDir, 'index.js')
  const before = {
    canary: sha256(canary),
    outsideFile: sha256(outsideFile),
    postScript: sha256(postScript),
    outsideEntries: fs.readdirSync(outsideDir),
    dirEntries: fs.readdirSync(dir).sort()
  }
  return {
    dir,
    actionDir,
    plant: JSON.stringify({ canary, postScript, outsideDir }),
    expectUntouched() {
      expect(sha256(canary)).toBe(before.canary)
      expect(sha256(outsideFile)).toBe(before.outsideFile)
      expect(sha256(postScript)).toBe(before.postScript)
      expect(fs.readdirSync(outsideDir)).toEqual(before.outsideEntries)
      expect(fs.readdirSync(dir).sort()).toEqual(before.dirEntries)
    }
  }
}

/** Over the suite's pull-request run (pr-run.ts): a tag. */
function inputs(tag: string): Record<string, string> {
  return { 'comment-tag': tag, 'max-duration': '30' }
}

/** A pull request run whose MassGen stand-in succeeds, planting what `env` says. */
function successRun(tag: string, env: Record<string, string>) {
  return prRun(github, {
    inputs: inputs(tag),
    env: { FAKE_MASSGEN_SCENARIO: 'success', ...env }
  })
}

describe('files an agent touched', () => {
  it("attack: an agent plants links at the scrub's temporary names, at answer.md, as an answer and as folders, so the action overwrites its own post step — fails", async () => {
    const world = outsideWorld()
    const run = await prRun(github, {
      actionDir: world.actionDir,
      inputs: inputs('links-main'),
      env: {
        FAKE_MASSGEN_SCENARIO: 'success',
        FAKE_MASSGEN_ANSWER: PAYLOAD,
        FAKE_MASSGEN_PLANT_LINKS: world.plant
      }
    })
    expect(run.outputs.status).toBe('success')
    // The post step ran the action's own code, not the agent's.
    expect(run.post?.exitCode).toBe(0)
    expect(run.post?.stdout).not.toContain('PWNED-BY-AGENT')
    world.expectUntouched()
    // The answer file is the action's own, a regular file, redacted.
    const answerFile = run.outputs['answer-file'] ?? ''
    expect(fs.lstatSync(answerFile).isFile()).toBe(true)
    expect(fs.readFileSync(answerFile, 'utf8')).not.toContain(KEYS.openai)
    // And the scrub still did its job on the run's own files.
    const logDir = run.outputs['log-dir'] ?? ''
    const final = path.join(logDir, 'turn_1/attempt_1/final/agent_a/answer.txt')
    expect(fs.lstatSync(final).isFile()).toBe(true)
    expect(fs.readFileSync(final, 'utf8')).not.toContain(KEYS.openai)
  }, 120_000)

  it("attack: an agent leaves named pipes where an agent's answer and vote go, so reading the results waits for ever — fails", async () => {
    const run = await successRun('fifo-answers', {
      FAKE_MASSGEN_PLANT_FIFOS: 'answers'
    })
    // The step ends on its own, with the answers that are files.
    expect(run.exitCode).toBe(0)
    expect(run.outputs.status).toBe('success')
    expect(run.outputs.answer).toContain('Answer from agent_a.')
    expect(run.summary).not.toContain('Answer from agent_b.')
  }, 120_000)

  it('attack: an agent turns status.json into a named pipe while MassGen runs, so the progress poll waits for ever — fails', async () => {
    const run = await successRun('fifo-status', {
      FAKE_MASSGEN_PLANT_FIFOS: 'status',
      // Longer than the action's status polls (every 3 s).
      FAKE_MASSGEN_DELAY_MS: '7000'
    })
    // The step ends on its own and reports a run it could not read.
    expect(run.outputs.status).toBe('failed')
    expect(run.summary).toContain('status.json')
  }, 120_000)

  it('attack: the same links when the main step dies and the post step scrubs — fails', async () => {
    const world = outsideWorld()
    const run = await prRun(github, {
      actionDir: world.actionDir,
      inputs: inputs('links-post'),
      env: {
        FAKE_MASSGEN_SCENARIO: 'hang',
        FAKE_MASSGEN_ANSWER: PAYLOAD,
        FAKE_MASSGEN_PLANT_LINKS: world.plant
      },
      killAfterMs: 6000
    })
    expect(run.post?.exitCode).toBe(0)
    expect(run.post?.stdout).toContain(
      'The main step did not finish its report'
    )
    expect(run.post?.stdout).not.toContain('PWNED-BY-AGENT')
    world.expectUntouched()
    const workDir = run.state['work-dir'] ?? ''
    const final = path.join(
      workDir,
      '.massgen/massgen_logs/log_20261130_120000_000001/turn_1/attempt_1/final/agent_a/answer.txt'
    )
    expect(fs.readFileSync(final, 'utf8')).not.toContain(KEYS.openai)
  }, 120_000)

  it('attack: an agent leaves a 15 TiB sparse file (one `truncate -s 15T`) in its workspace and its logs, so the end-of-run scrub reads for days — fails', async () => {
    const rssFile = path.join(
      fs.mkdtempSync(path.join(os.tmpdir(), 'security-sparse-')),
      'rss.json'
    )
    let run: ActionRun | undefined
    try {
      run = await prRun(github, {
        inputs: inputs('sparse'),
        env: {
          FAKE_MASSGEN_SCENARIO: 'success',
          FAKE_MASSGEN_PLANT_SPARSE: String(15 * 2 ** 40),
          BENCH_RSS_FILE: rssFile
        },
        // The bundle's own peak RSS, written at its exit (scripts/bench-rss.mjs).
        nodeArgs: ['--import', path.join(ROOT, 'scripts', 'bench-rss.mjs')],
        // Not a timing assertion: a step still reading after this is killed,
        // so the old bundle fails here instead of holding the suite for days.
        killAfterMs: 100_000
      })
      expect(run.exitCode).toBe(0)
      expect(run.outputs.status).toBe('success')
      expect(run.stdout).toMatch(
        /2 file\(s\) of the run were over \d+ bytes, too large to check for keys, and were removed/
      )
      const workDir = run.state['work-dir'] ?? ''
      expect(
        fs.existsSync(
          path.join(workDir, '.massgen', 'workspaces', 'agent_a', 'huge.bin')
        )
      ).toBe(false)
      const rss = JSON.parse(fs.readFileSync(rssFile, 'utf8')) as {
        maxRssKiB: number
      }
      // Measured: see the report of this change; well under 1 GiB.
      expect(rss.maxRssKiB).toBeLessThan(512 * 1024)
      process.stdout.write(`sparse run: peak RSS ${rss.maxRssKiB} KiB\n`)
    } finally {
      const workDir = run?.state['work-dir']
      if (workDir) fs.rmSync(workDir, { recursive: true, force: true })
    }
  }, 180_000)
})
