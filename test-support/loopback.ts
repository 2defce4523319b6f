// The loopback servers as test files set them up: a GitHub that knows the
// fixtures' pull request, per file or per test, and scripted LLM servers,
// all closed after; and what a test reads back from the GitHub server.
import { afterAll, afterEach, beforeAll, beforeEach } from '@jest/globals'
import { startGitHubServer, type GitHubServer } from './github-server.ts'
import {
  startLlmServer,
  type LlmScript,
  type LlmServer,
  type StartOptions
} from './llm-server.ts'
import { samplePull } from './sample-pull.ts'

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

/** Comments the action posted (bodies) on one issue. */
export function commentsOn(server: GitHubServer, issue: number): string[] {
  return server.state.comments
    .filter((c) => c.issueNumber === issue)
    .map((c) => c.body)
}

/** GitHub writes: the requests that would change something. */
export function writes(server: GitHubServer): string[] {
  return server.requests
    .filter((r) => r.method !== 'GET')
    .map((r) => `${r.method} ${r.path}`)
}
