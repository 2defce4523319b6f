// The Octokit client behind the GitHub API: retries for server and network
// errors, throttling for rate limits, and a write limiter that lets a run's
// few writes go at once.
import { randomUUID } from 'node:crypto'
import { getOctokit } from '@actions/github'
import { retry } from '@octokit/plugin-retry'
import { throttling } from '@octokit/plugin-throttling'
import type { Log } from '../core/log.js'

export type Octokit = ReturnType<typeof getOctokit>

export interface GitHubOptions {
  token: string
  owner: string
  repo: string
  /** Defaults to GITHUB_API_URL, then https://api.github.com. */
  apiUrl?: string
  log?: Log
  /**
   * Login the token writes as when `GET /user` is refused (installation
   * tokens). Defaults to `github-actions[bot]`, the GITHUB_TOKEN's author.
   */
  botLogin?: string
  /** Retry tuning; tests shrink the waits. */
  timing?: {
    /** Milliseconds per second of Retry-After and of backoff. Default 1000. */
    retryAfterBaseMs?: number
    /** Retries per request. Default 3. */
    retries?: number
    /** Never sleep longer than this for a rate limit. Default 120. */
    maxWaitSeconds?: number
    /** Writes that go at once before spacing starts. Default WRITE_BURST. */
    writeBurst?: number
    /** Spacing of writes after the burst, in ms. Default 1000. */
    writeSpacingMs?: number
    /** The write limiter's time; tests record its waits instead of waiting. */
    clock?: WriteClock
  }
}

/** What the write limiter needs of time. */
export interface WriteClock {
  now(): number
  sleep(ms: number): Promise<void>
}

const REAL_CLOCK: WriteClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms))
}

/**
 * Writes (comment, reactions) the action makes with no wait between them.
 * A run makes about five: the progress comment, its updates (20 s apart at
 * most), the report and two reactions. The throttling plugin's default
 * spaces every write 1 s from the last, which held the final report and the
 * reactions back by up to 3 s; GitHub asks for that spacing only for "a
 * large number" of writes. Past the burst, writes are spaced as before, and
 * a secondary rate limit is still honoured through onSecondaryRateLimit.
 */
const WRITE_BURST = 8

/**
 * Stands in for the plugin's Bottleneck group of writes (it only calls
 * `key(id).schedule(options, fn)`): one write at a time, the first `burst`
 * at once, then at least `spacingMs` apart.
 */
function writeLimiter(burst: number, spacingMs: number, clock: WriteClock) {
  let queue: Promise<unknown> = Promise.resolve()
  let count = 0
  let last = 0
  const limiter = {
    schedule<T>(_options: unknown, task: () => Promise<T>): Promise<T> {
      const run = queue.then(async () => {
        count++
        const wait = count > burst ? last + spacingMs - clock.now() : 0
        if (wait > 0) await clock.sleep(wait)
        last = clock.now()
        return task()
      })
      queue = run.catch(() => undefined)
      return run
    }
  }
  return { key: () => limiter }
}

export function createOctokit(options: GitHubOptions, log: Log): Octokit {
  const baseMs = options.timing?.retryAfterBaseMs ?? 1000
  const retries = options.timing?.retries ?? 3
  const maxWait = options.timing?.maxWaitSeconds ?? 120
  const onLimit = (
    after: number,
    req: { method: string; url: string },
    _o: unknown,
    count: number
  ): boolean => {
    const again = count < retries && after <= maxWait
    log.warning(
      `GitHub rate limit on ${req.method} ${req.url}: ` +
        (again ? `retrying in ${after}s` : 'giving up')
    )
    return again
  }
  return getOctokit(
    options.token,
    {
      baseUrl:
        options.apiUrl ??
        process.env.GITHUB_API_URL ??
        'https://api.github.com',
      log: {
        debug: (m: string) => log.debug(m),
        info: (m: string) => log.debug(m),
        warn: (m: string) => log.warning(m),
        error: (m: string) => log.warning(m)
      },
      // The retry plugin owns 5xx and network errors; 403/429 rate limits
      // belong to throttling, which honours Retry-After and the reset time.
      retry: {
        retries,
        retryAfterBaseValue: baseMs,
        doNotRetry: [400, 401, 403, 404, 406, 410, 422, 429, 451]
      },
      throttle: {
        // Own limiter keys, so two clients in one process never pace each other.
        id: `massgen-action-${randomUUID()}`,
        // Typed as a Bottleneck.Group; the plugin uses only key().schedule().
        write: writeLimiter(
          options.timing?.writeBurst ?? WRITE_BURST,
          options.timing?.writeSpacingMs ?? 1000,
          options.timing?.clock ?? REAL_CLOCK
        ) as never,
        retryAfterBaseValue: baseMs,
        onRateLimit: onLimit,
        onSecondaryRateLimit: onLimit
      }
    },
    retry,
    throttling
  )
}
