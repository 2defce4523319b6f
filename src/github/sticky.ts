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

/** What one client learns while it runs: who it writes as, what it wrote. */
interface Session {
  target: StickyTarget
  /** Logins known to be the token's (its default bot, and learned from writes). */
  known: Set<string>
  identity: Promise<string | undefined> | undefined
  /** The comment written last per issue and tag, updated without a listing. */
  written: Map<string, number>
}

export function createStickyComments(target: StickyTarget): StickyComments {
  const session: Session = {
    target,
    known: new Set([(target.botLogin ?? 'github-actions[bot]').toLowerCase()]),
    identity: undefined,
    written: new Map()
  }
  return {
    async find(issueNumber, tag) {
      const found = await findSticky(session, issueNumber, tag)
      return found && { id: found.id, url: found.url, body: found.body }
    },
    async findOwn(issueNumber, tag) {
      const found = await findSticky(session, issueNumber, tag)
      if (found?.rank !== 1) return undefined
      // The next upsert updates it straight away, without a second listing.
      session.written.set(stickyKey(issueNumber, tag), found.id)
      return {
        id: found.id,
        url: found.url,
        body: found.body,
        updatedAt: found.updatedAt
      }
    },
    upsert: (issueNumber, tag, body) =>
      upsertSticky(session, issueNumber, tag, body)
  }
}

/**
 * Who the token writes as. `GET /user` answers for PATs and user tokens;
 * installation tokens (GITHUB_TOKEN, GitHub Apps) get 403 and no API tells
 * them their own bot login, so then the known bot logins count, and logins
 * learned from our own writes.
 */
function whoAmI(session: Session): Promise<string | undefined> {
  return (session.identity ??= session.target.octokit.rest.users
    .getAuthenticated()
    .then(
      (r) => r.data.login.toLowerCase(),
      (e: unknown) => {
        if (statusOf(e) === 403 && !isRateLimit(e)) return undefined
        if (statusOf(e) === 404) return undefined
        session.identity = undefined
        throw toGitHubError(e, 'GET /user (who the token is)')
      }
    ))
}

function learn(session: Session, c: RawComment): void {
  if (c.user?.login) session.known.add(c.user.login.toLowerCase())
}

/**
 * 1: written by us for sure; 2: written by some GitHub App itself (an
 * installation token whose bot login we could not learn); 0: not ours.
 * Comments by people are never ours, whatever they contain.
 */
function rank(session: Session, c: RawComment, me: string | undefined): number {
  const login = c.user?.login?.toLowerCase()
  if (!login) return 0
  if (me !== undefined) return login === me ? 1 : 0
  if (session.known.has(login)) return 1
  const app = c.performed_via_github_app?.slug?.toLowerCase()
  return c.user?.type === 'Bot' && app && `${app}[bot]` === login ? 2 : 0
}

async function findSticky(
  session: Session,
  issueNumber: number,
  tag: string
): Promise<(OwnReport & { rank: number }) | undefined> {
  const { octokit, owner, repo } = session.target
  const me = await whoAmI(session)
  let best: (OwnReport & { rank: number }) | undefined
  try {
    await octokit.paginate(
      octokit.rest.issues.listComments,
      { owner, repo, issue_number: issueNumber, per_page: 100 },
      (response, done) => {
        for (const c of response.data as RawComment[]) {
          const r = startsWithMarker(c.body ?? '', tag)
            ? rank(session, c, me)
            : 0
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

async function createComment(
  session: Session,
  issueNumber: number,
  body: string
): Promise<{ id: number; url: string }> {
  const { octokit, owner, repo } = session.target
  try {
    const { data } = await octokit.rest.issues.createComment({
      owner,
      repo,
      issue_number: issueNumber,
      body
    })
    learn(session, data)
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

async function updateComment(
  session: Session,
  id: number,
  body: string
): Promise<{ id: number; url: string }> {
  const { octokit, owner, repo } = session.target
  const { data } = await octokit.rest.issues.updateComment({
    owner,
    repo,
    comment_id: id,
    body
  })
  learn(session, data)
  return { id: data.id, url: data.html_url }
}

function stickyKey(issueNumber: number, tag: string): string {
  return `${issueNumber}\u0000${tag}`
}

async function upsertSticky(
  session: Session,
  issueNumber: number,
  tag: string,
  body: string
): Promise<{ id: number; url: string }> {
  // The marker is the first line, and only there.
  const text = `${stickyMarker(tag)}\n${defuseStickyMarkers(withoutMarker(body, tag))}`
  // The comment this action wrote last for the tag: updated straight away,
  // without listing the comments again (one request, not two or more).
  const key = stickyKey(issueNumber, tag)
  const remember = (c: { id: number; url: string }) => {
    session.written.set(key, c.id)
    return c
  }
  const last = session.written.get(key)
  if (last !== undefined) {
    try {
      return remember(await updateComment(session, last, text))
    } catch (e) {
      if (statusOf(e) !== 404) {
        throw toGitHubError(e, `Updating comment ${last}`, WRITE_HINT)
      }
      session.written.delete(key) // deleted since: look for it again
    }
  }
  const found = await findSticky(session, issueNumber, tag)
  if (!found) return remember(await createComment(session, issueNumber, text))
  try {
    return remember(await updateComment(session, found.id, text))
  } catch (e) {
    // Deleted since we found it, or another app's comment we may not
    // edit: a fresh comment is better than none.
    const s = statusOf(e)
    const foreign = s === 403 && found.rank === 2 && !isRateLimit(e)
    if (s !== 404 && !foreign) {
      throw toGitHubError(e, `Updating comment ${found.id}`, WRITE_HINT)
    }
    session.target.log.warning(
      `Could not update comment ${found.id} (${s}); posting a new one`
    )
    return remember(await createComment(session, issueNumber, text))
  }
}
