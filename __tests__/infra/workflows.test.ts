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
const EXAMPLES = path.join(ROOT, 'examples')

const yamlFiles = (folder: string) =>
  fs
    .readdirSync(folder)
    .filter((f) => /\.ya?ml$/.test(f))
    .map((f) => path.join(folder, f))
/** The repository's workflows and the examples users copy (examples/massgen.yaml is a MassGen config). */
const ALL_WORKFLOWS = [
  ...yamlFiles(WORKFLOWS),
  ...yamlFiles(EXAMPLES).filter((f) => !f.endsWith('massgen.yaml'))
]

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
    'pass actionlint (with shellcheck on every run: step), the examples too',
    () => {
      const lint = spawnSync('actionlint', ALL_WORKFLOWS, { encoding: 'utf8' })
      expect(lint.stdout + lint.stderr).toBe('')
      expect(lint.status).toBe(0)
    }
  )

  const zizmor = spawnSync('zizmor', ['--version']).status === 0
  ;(zizmor ? it : it.skip)(
    'pass zizmor with no finding, the examples too',
    () => {
      const audit = spawnSync(
        'zizmor',
        [
          '--offline',
          '--no-progress',
          '--config',
          path.join(ROOT, '.github', 'zizmor.yml'),
          ...ALL_WORKFLOWS
        ],
        { encoding: 'utf8' }
      )
      expect(audit.stdout).toContain('No findings to report')
      expect(audit.status).toBe(0)
    }
  )

  it.each(ALL_WORKFLOWS.map((f) => [path.relative(ROOT, f), f]))(
    '%s pins every other action by commit SHA, with its version, and persists no credentials',
    (_name, file) => {
      const text = fs.readFileSync(file, 'utf8')
      const uses = [...text.matchAll(/^\s*(?:- )?uses: (\S+)(.*)$/gm)]
      expect(uses.length).toBeGreaterThan(0)
      for (const [line, ref, comment] of uses) {
        if (ref === './' || ref!.startsWith('massgen/massgen-action@')) continue
        expect({ line, pinned: /@[0-9a-f]{40}$/.test(ref!) }).toEqual({
          line,
          pinned: true
        })
        expect(comment).toMatch(/^ # v\d+\.\d+\.\d+$/)
      }
      const steps = Object.values((parse(text) as Workflow).jobs).flatMap(
        (job) => job.steps
      )
      for (const step of steps.filter((s) =>
        s.uses?.startsWith('actions/checkout@')
      )) {
        expect(step.with?.['persist-credentials']).toBe(false)
      }
    }
  )

  it('the massgen-action steps set only inputs action.yml declares (no deprecated input, which the runner warns about)', () => {
    const declared = Object.keys(
      (
        parse(fs.readFileSync(path.join(ROOT, 'action.yml'), 'utf8')) as {
          inputs: Record<string, unknown>
        }
      ).inputs
    )
    for (const file of ALL_WORKFLOWS) {
      const steps = Object.values(
        (parse(fs.readFileSync(file, 'utf8')) as Workflow).jobs
      ).flatMap((job) => job.steps)
      for (const step of steps.filter(
        (s) => s.uses === './' || s.uses?.startsWith('massgen/massgen-action@')
      )) {
        const undeclared = Object.keys(step.with ?? {}).filter(
          (name) => !declared.includes(name)
        )
        expect({ file: path.relative(ROOT, file), undeclared }).toEqual({
          file: path.relative(ROOT, file),
          undeclared: []
        })
      }
    }
  })

  it('no step output or event text is written into a run: script', () => {
    for (const file of ALL_WORKFLOWS) {
      const steps = Object.values(
        (parse(fs.readFileSync(file, 'utf8')) as Workflow).jobs
      ).flatMap((job) => job.steps)
      for (const step of steps) {
        expect({ file, run: step.run }).not.toEqual({
          file,
          run: expect.stringMatching(/\$\{\{\s*(steps|github\.event)\./)
        })
      }
    }
  })

  it("the README's quick start is examples/pull-request.yml, word for word", () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')
    const block =
      /## Add it to your repository[\s\S]*?```yaml\n([\s\S]*?)\n\s*```/.exec(
        readme
      )?.[1]
    const unindented = block
      ?.split('\n')
      .map((l) => l.replace(/^ {3}/, ''))
      .join('\n')
    expect(unindented).toBe(
      fs.readFileSync(path.join(EXAMPLES, 'pull-request.yml'), 'utf8').trimEnd()
    )
  })

  it('the quick start delivers the review: inline findings with the vote, the check run and SARIF, with the permissions they need', () => {
    const quickStart = parse(
      fs.readFileSync(path.join(EXAMPLES, 'pull-request.yml'), 'utf8')
    ) as Workflow & { permissions: Record<string, string> }
    const steps = Object.values(quickStart.jobs).flatMap((j) => j.steps)
    const action = steps.find((s) =>
      s.uses?.startsWith('massgen/massgen-action@')
    )
    expect(action?.with?.review).toBe('inline')
    // finding-vote and check-run keep their defaults (on).
    expect(action?.with?.['finding-vote']).toBeUndefined()
    expect(action?.with?.['check-run']).toBeUndefined()
    expect(
      steps.some((s) =>
        s.uses?.startsWith('github/codeql-action/upload-sarif@')
      )
    ).toBe(true)
    expect(quickStart.permissions).toMatchObject({
      'pull-requests': 'write',
      checks: 'write',
      'security-events': 'write'
    })
  })

  it('examples/warm-cache.yml warms, on the default branch only, the key the quick start restores', () => {
    const file = (name: string) =>
      parse(fs.readFileSync(path.join(EXAMPLES, name), 'utf8')) as Workflow & {
        on: Record<string, { branches?: string[] } | null>
      }
    const warm = file('warm-cache.yml')
    const quickStart = file('pull-request.yml')
    // Runs whose ref is the default branch: what a pull request may restore.
    expect(Object.keys(warm.on).sort()).toEqual([
      'push',
      'schedule',
      'workflow_dispatch'
    ])
    expect(warm.on.push?.branches).toEqual(['main'])
    const steps = (w: Workflow) => Object.values(w.jobs).flatMap((j) => j.steps)
    const action = (w: Workflow) =>
      steps(w).find((s) => s.uses?.startsWith('massgen/massgen-action@'))
    // cache-save is a key of .github/massgen-action.yml, no longer an input:
    // its default (auto) saves on these refs, none a pull request's.
    expect(action(warm)?.with?.['cache-save']).toBeUndefined()
    expect(action(warm)?.uses).toBe(action(quickStart)?.uses)
    // The Python minor and the mode are in the cache key: the same as the quick start's.
    const python = (w: Workflow) =>
      steps(w).find((s) => s.uses?.startsWith('actions/setup-python@'))?.with?.[
        'python-version'
      ]
    expect(python(warm)).toBe(python(quickStart))
    expect(action(warm)?.with?.docker).toBe(action(quickStart)?.with?.docker)
  })
})
