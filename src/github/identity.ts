// Who the token writes as, so that only the action's own comments, reviews
// and markers are ever taken as its own: never a person's, whatever they
// quote, and never another app's or bot's (a bot may echo anyone's text).
import type { Octokit } from './client.js'
import { isRateLimit, statusOf, toGitHubError } from './errors.js'

/** The author fields GitHub gives on a comment or review. */
export interface Authored {
  user?: { login?: string; type?: string } | null
  performed_via_github_app?: { slug?: string } | null
}

/**
 * How sure we are that the token wrote a text: 'ours' for sure; 'an-app'
 * when some GitHub App wrote it through its own installation and our own
 * login could not be learned (it may be us); 'not-ours' otherwise.
 */
export type Authorship = 'ours' | 'an-app' | 'not-ours'

export interface Identity {
  /** The token's login, when GitHub tells (PATs and user tokens). */
  login(): Promise<string | undefined>
  /** Remembers the author of something the token just wrote. */
  learn(written: Authored): void
  authorship(text: Authored, login: string | undefined): Authorship
}

/**
 * `GET /user` answers for PATs and user tokens; installation tokens
 * (GITHUB_TOKEN, GitHub Apps) get 403 and no API tells them their own bot
 * login, so then the known bot logins count: the default bot's, and those
 * learned from our own writes.
 */
export function createIdentity(
  octokit: Octokit,
  botLogin: string | undefined
): Identity {
  const known = new Set([(botLogin ?? 'github-actions[bot]').toLowerCase()])
  let asked: Promise<string | undefined> | undefined
  return {
    login() {
      return (asked ??= octokit.rest.users.getAuthenticated().then(
        (r) => r.data.login.toLowerCase(),
        (e: unknown) => {
          if (statusOf(e) === 403 && !isRateLimit(e)) return undefined
          if (statusOf(e) === 404) return undefined
          asked = undefined // a passing fault: ask again next time
          throw toGitHubError(e, 'GET /user (who the token is)')
        }
      ))
    },
    learn(written) {
      const login = written.user?.login
      if (login) known.add(login.toLowerCase())
    },
    authorship(text, me) {
      const login = text.user?.login?.toLowerCase()
      if (!login) return 'not-ours'
      if (me !== undefined) return login === me ? 'ours' : 'not-ours'
      if (known.has(login)) return 'ours'
      const app = text.performed_via_github_app?.slug?.toLowerCase()
      const appItself =
        text.user?.type === 'Bot' && app && `${app}[bot]` === login
      return appItself ? 'an-app' : 'not-ours'
    }
  }
}
