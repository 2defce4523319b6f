// The repository's own workflows: a `run:` step that cannot work on GitHub
// must fail here first. The self-test's server step once made Node load the
// Node binary as a script, hidden by `&`, and raced the server's start with
// `sleep 2`; running the step's script as written catches that class.
import { describe, expect, it } from '@jest/globals'
import { spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { parse } from 'yaml'

const ROOT = path.resolve(import.meta.dirname, '..', '..')
const WORKFLOWS = path.join(ROOT, '.github', 'workflows')

interface Step {
  name?: string
  run?: string
  uses?: string
  with?: Record<string, unknown>
}
interface Workflow {
  jobs: Record<string, { steps: Step[] }>
}

function workflow(file: string): Workflow {
  return parse(fs.readFileSync(path.join(WORKFLOWS, file), 'utf8')) as Workflow
}

describe('the workflows', () => {
  it('the self-test starts its scripted server as written, and it answers', async () => {
    const steps = workflow('ci.yml').jobs['self-test']?.steps ?? []
    const start = steps.find((s) => s.name?.startsWith('Start the scripted'))
    const action = steps.find((s) => s.uses === './')
    expect(start?.run).toBeDefined()
    const baseUrl = String(action?.with?.['base-url'])
    const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'workflow-step-'))
    // As the runner runs a `run:` step: bash -e, from the checkout.
    const step = spawn('bash', ['-e', '-c', start!.run!], {
      cwd: ROOT,
      env: { ...process.env, RUNNER_TEMP: temp },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true
    })
    let output = ''
    step.stdout.on('data', (c: Buffer) => (output += c.toString()))
    step.stderr.on('data', (c: Buffer) => (output += c.toString()))
    const code = await new Promise<number | null>((resolve) =>
      step.on('close', resolve)
    )
    try {
      expect({ code, output }).toEqual({ code: 0, output: '' })
      const models = await fetch(`${baseUrl}/models`)
      expect(models.status).toBe(200)
    } finally {
      // The server outlives the step, as on a runner: stop it by its port.
      spawnSync('bash', [
        '-c',
        `pkill -f 'test-support/llm-server.ts --port ${new URL(baseUrl).port}'`
      ])
    }
  })

  const actionlint = spawnSync('actionlint', ['-version']).status === 0
  ;(actionlint ? it : it.skip)(
    'pass actionlint (with shellcheck on every run: step)',
    () => {
      const files = fs
        .readdirSync(WORKFLOWS)
        .filter((f) => /\.ya?ml$/.test(f))
        .map((f) => path.join(WORKFLOWS, f))
      const lint = spawnSync('actionlint', files, { encoding: 'utf8' })
      expect(lint.stdout + lint.stderr).toBe('')
      expect(lint.status).toBe(0)
    }
  )
})
