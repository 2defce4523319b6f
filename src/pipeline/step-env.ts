// What both steps take from the job in the same way, each once: the
// repository, the token, the secrets every redaction uses, the one GitHub
// client.
import * as core from '@actions/core'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { createGitHub, type GitHubApi } from '../github/api.js'
import { readKeys, readToken } from '../inputs/settings.js'

interface Repository {
  readonly owner: string
  readonly repo: string
}

/** owner/repo of GITHUB_REPOSITORY ('' each outside a runner). */
function repository(env: NodeJS.ProcessEnv = process.env): Repository {
  const [owner = '', repo = ''] = (env.GITHUB_REPOSITORY ?? '/').split('/')
  return { owner, repo }
}

/** The `github-token` input, else the job's GITHUB_TOKEN (as readSettings reads it). */
export function actionToken(): string {
  return readToken({
    getInput: (name) => core.getInput(name),
    env: process.env
  })
}

/**
 * The API keys and the token: masked here, before anything can print them,
 * and the one list every redaction of the step uses.
 */
export function actionSecrets(token: string): readonly string[] {
  const keys = readKeys({
    getInput: (name) => core.getInput(name),
    env: process.env
  })
  const secrets = [...Object.values(keys), token].filter((s): s is string =>
    Boolean(s)
  )
  for (const secret of secrets) core.setSecret(secret)
  return secrets
}

export function openGitHub(
  token: string,
  timing?: { retries: number }
): GitHubApi {
  return createGitHub({
    token,
    ...repository(),
    log: core,
    ...(timing ? { timing } : {})
  })
}

/** One client for the whole step, opened on first use (a skip needs none). */
export function gitHubOnce(token: string): () => GitHubApi {
  let github: GitHubApi | undefined
  return () => (github ??= openGitHub(token))
}

/** The step's own folder under RUNNER_TEMP (the OS's temp folder off Actions). */
export function makeWorkDir(label: string): string {
  const root = process.env.RUNNER_TEMP || os.tmpdir()
  fs.mkdirSync(root, { recursive: true })
  return fs.mkdtempSync(path.join(root, `massgen-${label}-`))
}
