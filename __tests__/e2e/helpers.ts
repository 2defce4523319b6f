// Shared set-up for end-to-end runs of dist/index.js under Node 24.
import { secretForms } from '../../src/safety/redact.js'
import * as fs from 'node:fs'
import * as path from 'node:path'
import {
  startGitHubServer,
  type GitHubServer
} from '../../test-support/github-server.js'
import {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  expect
} from '@jest/globals'
import {
  startLlmServer,
  type LlmScript,
  type LlmServer,
  type StartOptions
} from '../../test-support/llm-server.js'
import { samplePull } from '../../test-support/sample-pull.js'
import {
  listFiles,
  ROOT,
  type ActionRun
} from '../../test-support/run-action.js'

export function event(name: string): unknown {
  return JSON.parse(
    fs.readFileSync(
      path.join(ROOT, '__fixtures__', 'events', `${name}.json`),
      'utf8'
    )
  )
}

/** A GitHub server that knows PR #42 (the pull_request fixtures) and issue #7. */
export async function githubWithPull(): Promise<GitHubServer> {
  const server = await startGitHubServer({ issues: [7, 42] })
  server.state.pulls['42'] = samplePull()
  return server
}

/**
 * A fresh loopback GitHub with pull request #42 for every test, with these
 * collaborator roles; `use` receives each test's server.
 */
export function githubForEachTest(
  permissions: GitHubServer['state']['permissions'],
  use: (server: GitHubServer) => void
): void {
  let server: GitHubServer | undefined
  beforeEach(async () => {
    server = await githubWithPull()
    server.state.permissions = permissions
    use(server)
  })
  afterEach(async () => {
    await server?.close()
  })
}

/** Distinctive fake key values, to scan for leaks. */
export const KEYS = {
  // Real lengths and formats: a shell wraps a long key's encoding over lines
  // (OpenAI project 164, Anthropic 108, Gemini 39, xAI 84 characters).
  openai:
    'sk-proj-Rm0m_xsI-qCWyLEXEI_KWk7hqLUSMoEtLmeA5az8AV5bJs275mRN8UD3WPlMtCdaA3iGUkHfz-a8C8IFr7Iu33ZmMZiiWL-dYPxaxDj2a5EqxyteHL3znhzKiJcnSK1otBNcfsqWmY5xLwKSNobuZXNg7_32',
  google: 'AIzaI7ZAW5K3QF1tYdaHl7QmzNhtB5-QzhLQxPk',
  anthropic:
    'sk-ant-api03-1nxGS5zvXnYqX5VTlOjqhtGgTg5W2akEv2l0Jit7AvuNfat2fnQ1SG-uBFDARS1tVbhdOuWfjMUCt1U6eKOiiWXJnUpOgAA',
  xai: 'xai-sWkM7G6J4BpubDj82UmNKUDyYYB1nv3MIhuFuEp78AogStdOKrIHjLyjLVhYZAya0nDRgNoMQBsZNA23'
}

/** Comments the action posted (bodies) on one issue. */
export function commentsOn(server: GitHubServer, issue: number): string[] {
  return server.state.comments
    .filter((c) => c.issueNumber === issue)
    .map((c) => c.body)
}

/**
 * Where a key value shows: any file the run wrote (work folder, config,
 * MassGen's logs, outputs, summary), any request sent to GitHub, the outputs,
 * the saved state or the logs. `::add-mask::` lines are the runner's masking
 * commands: the runner consumes them and never shows them.
 */
export function findKeyLeaks(
  run: ActionRun,
  server: GitHubServer | undefined,
  keys: string[] = Object.values(KEYS),
  extraDirs: string[] = []
): string[] {
  const logs = (text: string) =>
    text
      .split('\n')
      .filter((l) => !l.startsWith('::add-mask::'))
      .join('\n')
  const texts: [string, string][] = [
    ['stdout', logs(run.stdout)],
    ['stderr', logs(run.stderr)],
    ['post stdout', logs(run.post?.stdout ?? '')],
    ['post stderr', logs(run.post?.stderr ?? '')],
    ['outputs', JSON.stringify(run.outputs)],
    ['state', JSON.stringify(run.state)],
    ...[run.dir, ...extraDirs]
      .flatMap((d) => listFiles(d))
      .map((f): [string, string] => [f, fs.readFileSync(f, 'latin1')]),
    ...(server?.requests ?? []).map((r): [string, string] => [
      `${r.method} ${r.path}`,
      `${JSON.stringify(r.body) ?? ''} ${JSON.stringify(r.query)} ${JSON.stringify(r.headers)}`
    ])
  ]
  // Each key as it is and in every encoded form an attacker would use that
  // the action recognises (base64, hex, URL-encoded, reversed).
  const forms = keys.flatMap((k) =>
    secretForms(k).map((form) => ({
      form,
      label: `${k.slice(0, 6)}...${form === k ? '' : ' (encoded)'}`
    }))
  )
  return texts.flatMap(([where, text]) =>
    forms
      .filter(({ form }) => text.includes(form))
      .map(({ label }) => `${label} in ${where}`)
  )
}

export function expectNoKeyLeak(
  run: ActionRun,
  server: GitHubServer,
  keys: string[] = Object.values(KEYS)
): void {
  expect(findKeyLeaks(run, server, keys)).toEqual([])
}

/** The local runtime image of the Docker-mode tests (scripts/provision.sh builds it). */
export const TEST_IMAGE =
  process.env.MASSGEN_ACTION_TEST_IMAGE ?? 'massgen-action-runtime:test'

/**
 * Loopback servers for one test file: a GitHub API (PR #42, issue #7) for
 * the whole file, and scripted LLM servers made per test, all closed after.
 */
export function loopbackServers() {
  let github: GitHubServer | undefined
  const llms: LlmServer[] = []
  beforeAll(async () => {
    github = await githubWithPull()
  })
  afterAll(async () => {
    await github?.close()
    await Promise.all(llms.map((s) => s.close()))
  })
  return {
    github(): GitHubServer {
      if (!github) throw new Error('loopbackServers: used outside a test')
      return github
    },
    async llm(script: LlmScript, options?: StartOptions): Promise<LlmServer> {
      const server = await startLlmServer(script, options)
      llms.push(server)
      return server
    }
  }
}
