// The sticky comment: one comment per issue and comment-tag, found by a
// hidden marker on its first line and updated in place. Only a comment the
// token itself wrote is ever taken as ours, so a person quoting the marker
// cannot hijack it, and a marker anywhere but the first line names nothing,
// so an answer quoting another tag's marker cannot either.
import type { GitHubLog, Octokit } from './client.js'
import { isRateLimit, statusOf, toGitHubError, WRITE_HINT } from './errors.js'
import {
  defuseStickyMarkers,
  startsWithMarker,
  stickyMarker
} from './sticky-marker.js'

export interface StickyComment {
  id: number
  url: string
  body: string
}

/** A sticky comment the token itself wrote, for sure, and when it last changed. */
export interface OwnReport extends StickyComment {
  updatedAt: string
}

/** The body without its marker line, when it already starts with one. */
function withoutMarker(body: string, tag: string): string {
  if (!startsWithMarker(body, tag)) return body
  const end = body.indexOf('\n')
  return end < 0 ? '' : body.slice(end + 1)
}

interface RawComment {
  id: number
  html_url: string
  body?: string | null
  updated_at?: string
  user?: { login?: string; type?: string } | null
  performed_via_github_app?: { slug?: string } | null
}

export interface StickyTarget {
  octokit: Octokit
  owner: string
  repo: string
  log: GitHubLog
  botLogin: string | undefined
}

export interface StickyComments {
  find(issueNumber: number, tag: string): Promise<StickyComment | undefined>
  /**
   * The sticky comment only when the token is known to have written it
   * (never another app's comment that carries the marker): what a
   * follow-up may present to the agents as the action's own report.
   */
  findOwn(issueNumber: number, tag: string): Promise<OwnReport | undefined>
  upsert(
    issueNumber: number,
    tag: string,
    body: string
  ): Promise<{ id: number; url: string }>
}

export function createStickyComments(target: StickyTarget): StickyComments {
  const { octokit, owner, repo, log } = target

  // Who the token writes as. `GET /user` answers for PATs and user tokens;
  // installation tokens (GITHUB_TOKEN, GitHub Apps) get 403 and no API tells
  // them their own bot login, so then we match known bot logins, and logins
  // learned from our own writes.
  const known = new Set([
    (target.botLogin ?? 'github-actions[bot]').toLowerCase()
  ])
  let identity: Promise<string | undefined> | undefined
  const whoAmI = (): Promise<string | undefined> =>
    (identity ??= octokit.rest.users.getAuthenticated().then(
      (r) => r.data.login.toLowerCase(),
      (e: unknown) => {
        if (statusOf(e) === 403 && !isRateLimit(e)) return undefined
        if (statusOf(e) === 404) return undefined
        identity = undefined
        throw toGitHubError(e, 'GET /user (who the token is)')
      }
    ))
  const learn = (c: RawComment): void => {
    if (c.user?.login) known.add(c.user.login.toLowerCase())
  }

  /**
   * 1: written by us for sure; 2: written by some GitHub App itself (an
   * installation token whose bot login we could not learn); 0: not ours.
   * Comments by people are never ours, whatever they contain.
   */
  const rank = (c: RawComment, me: string | undefined): number => {
    const login = c.user?.login?.toLowerCase()
    if (!login) return 0
    if (me !== undefined) return login === me ? 1 : 0
    if (known.has(login)) return 1
    const app = c.performed_via_github_app?.slug?.toLowerCase()
    return c.user?.type === 'Bot' && app && `${app}[bot]` === login ? 2 : 0
  }

  const find = async (issueNumber: number, tag: string) => {
    const me = await whoAmI()
    let best: (OwnReport & { rank: number }) | undefined
    try {
      await octokit.paginate(
        octokit.rest.issues.listComments,
        { owner, repo, issue_number: issueNumber, per_page: 100 },
        (response, done) => {
          for (const c of response.data as RawComment[]) {
            const r = startsWithMarker(c.body ?? '', tag) ? rank(c, me) : 0
            if (r && (!best || r < best.rank)) {
              best = {
                id: c.id,
                url: c.html_url,
                body: c.body ?? '',
                updatedAt: c.updated_at ?? '',
                rank: r
              }
            }
          }
          if (best?.rank === 1) done()
          return []
        }
      )
    } catch (e) {
      throw toGitHubError(e, `Listing the comments of #${issueNumber}`)
    }
    return best
  }

  const create = async (issueNumber: number, body: string) => {
    try {
      const { data } = await octokit.rest.issues.createComment({
        owner,
        repo,
        issue_number: issueNumber,
        body
      })
      learn(data)
      return { id: data.id, url: data.html_url }
    } catch (e) {
      const what = `Commenting on #${issueNumber} of ${owner}/${repo}`
      const err = toGitHubError(e, what, WRITE_HINT)
      if (err.kind === 'not-found') {
        err.message +=
          '. The issue or pull request is gone, or hidden from the token'
      }
      throw err
    }
  }

  const written = new Map<string, number>()
  const update = async (id: number, body: string) => {
    const { data } = await octokit.rest.issues.updateComment({
      owner,
      repo,
      comment_id: id,
      body
    })
    learn(data)
    return { id: data.id, url: data.html_url }
  }

  return {
    async find(issueNumber, tag) {
      const found = await find(issueNumber, tag)
      return found && { id: found.id, url: found.url, body: found.body }
    },

    async findOwn(issueNumber, tag) {
      const found = await find(issueNumber, tag)
      if (found?.rank !== 1) return undefined
      return {
        id: found.id,
        url: found.url,
        body: found.body,
        updatedAt: found.updatedAt
      }
    },

    async upsert(issueNumber, tag, body) {
      // The marker is the first line, and only there.
      const text = `${stickyMarker(tag)}\n${defuseStickyMarkers(withoutMarker(body, tag))}`
      // The comment this action wrote last for the tag: updated straight away,
      // without listing the comments again (one request, not two or more).
      const key = `${issueNumber}\u0000${tag}`
      const remember = (c: { id: number; url: string }) => {
        written.set(key, c.id)
        return c
      }
      const known = written.get(key)
      if (known !== undefined) {
        try {
          return remember(await update(known, text))
        } catch (e) {
          if (statusOf(e) !== 404) {
            throw toGitHubError(e, `Updating comment ${known}`, WRITE_HINT)
          }
          written.delete(key) // deleted since: look for it again
        }
      }
      const found = await find(issueNumber, tag)
      if (!found) return remember(await create(issueNumber, text))
      try {
        return remember(await update(found.id, text))
      } catch (e) {
        // Deleted since we found it, or another app's comment we may not
        // edit: a fresh comment is better than none.
        const s = statusOf(e)
        const foreign = s === 403 && found.rank === 2 && !isRateLimit(e)
        if (s !== 404 && !foreign) {
          throw toGitHubError(e, `Updating comment ${found.id}`, WRITE_HINT)
        }
        log.warning(
          `Could not update comment ${found.id} (${s}); posting a new one`
        )
        return remember(await create(issueNumber, text))
      }
    }
  }
}
