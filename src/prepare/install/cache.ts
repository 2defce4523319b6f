// The GitHub Actions cache, behind a narrow interface so tests can hand in a fake.

/** The narrow interface to @actions/cache, so tests can hand in a fake. */
export interface CacheStore {
  /** The key restored, or undefined on a miss. */
  restore(paths: string[], key: string): Promise<string | undefined>
  save(paths: string[], key: string): Promise<void>
}

export function createActionsCacheStore(): CacheStore {
  return {
    // Loaded on first use: @actions/cache is a third of the bundle, and the
    // usual run (massgen-command, or a virtualenv already there) never needs it.
    restore: async (paths, key) =>
      (await import('@actions/cache')).restoreCache(paths, key),
    async save(paths, key) {
      // saveCache logs its own failures and returns -1 instead of throwing.
      const id = await (await import('@actions/cache')).saveCache(paths, key)
      if (id === -1)
        throw new Error(
          '@actions/cache saved nothing (its own line above says why)'
        )
    }
  }
}

export function cacheAvailable(env: NodeJS.ProcessEnv): boolean {
  return Boolean(
    env.ACTIONS_RUNTIME_TOKEN &&
    (env.ACTIONS_RESULTS_URL || env.ACTIONS_CACHE_URL)
  )
}
