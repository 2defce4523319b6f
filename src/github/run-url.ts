// Where this workflow run lives on GitHub, read from the runner's variables.

/** Number of this run attempt (GITHUB_RUN_ATTEMPT), 1 when unknown. */
export function runAttempt(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.GITHUB_RUN_ATTEMPT)
  return Number.isInteger(n) && n >= 1 ? n : 1
}

/** Link to this workflow run (and attempt, after a re-run), if known. */
export function runUrl(
  env: NodeJS.ProcessEnv = process.env
): string | undefined {
  const server = (env.GITHUB_SERVER_URL || 'https://github.com').replace(
    /\/+$/,
    ''
  )
  const repository = env.GITHUB_REPOSITORY
  const id = env.GITHUB_RUN_ID
  if (!repository || !id || !/^\d+$/.test(id)) return undefined
  const attempt = runAttempt(env)
  const suffix = attempt > 1 ? `/attempts/${attempt}` : ''
  return `${server}/${repository}/actions/runs/${id}${suffix}`
}
