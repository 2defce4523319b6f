// The sticky comment: one comment per issue and comment-tag, found by a
// hidden marker on its first line and updated in place. Only a comment the
// token itself wrote is ever taken as ours, so a person quoting the marker
// cannot hijack it, and a marker anywhere but the first line names nothing,
// so an answer quoting another tag's marker cannot either.
import type { Octokit } from './client.js'
import { isRateLimit, statusOf, toGitHubError, WRITE_HINT } from './errors.js'
import type { Authored, Authorship, Identity } from './identity.js'
import {
  defuseStickyMarkers,
  startsWithMarker,
  stickyMarker
} from './sticky-marker.js'
import type { Log } from '../core/log.js'

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

interface RawComment extends Authored {
  id: number
  html_url: string
  body?: string | null
  updated_at?: string
}

interface StickyTarget {
  octokit: Octokit
  owner: string
  repo: string
  log: Log
  identity: Identity
}

interface StickyComments {
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

/** What one client learns while it runs: what it wrote. */
interface Session {
  target: StickyTarget
  /** The comment written last per issue and tag, updated without a listing. */
  written: Map<string, number>
}

export function createStickyComments(target: StickyTarget): StickyComments {
  const session: Session = { target, written: new Map() }
  return {
    async find(issueNumber, tag) {
      const found = await findSticky(session, issueNumber, tag)
      return found && { id: found.id, url: found.url, body: found.body }
    },
    async findOwn(issueNumber, tag) {
      const found = await findSticky(session, issueNumber, tag)
      if (found?.authorship !== 'ours') return undefined
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

/** Ours for sure before some app's comment that may be ours. */
const PREFERENCE: Record<Authorship, number> = {
  ours: 2,
  'an-app': 1,
  'not-ours': 0
}

async function findSticky(
  session: Session,
  issueNumber: number,
  tag: string
): Promise<(OwnReport & { authorship: Authorship }) | undefined> {
  const { octokit, owner, repo, identity } = session.target
  const me = await identity.login()
  let best: (OwnReport & { authorship: Authorship }) | undefined
  try {
    await octokit.paginate(
      octokit.rest.issues.listComments,
      { owner, repo, issue_number: issueNumber, per_page: 100 },
      (response, done) => {
        for (const c of response.data as RawComment[]) {
          const authorship = startsWithMarker(c.body ?? '', tag)
            ? identity.authorship(c, me)
            : 'not-ours'
          const rank = PREFERENCE[authorship]
          if (rank > (best ? PREFERENCE[best.authorship] : 0)) {
            best = {
              id: c.id,
              url: c.html_url,
              body: c.body ?? '',
              updatedAt: c.updated_at ?? '',
              authorship
            }
          }
        }
        if (best?.authorship === 'ours') done()
        return []
      }
    )
  } catch (e) {
    throw toGitHubError(e, `Listing the comments of #${issueNumber}`)
  }
  return best
}

/** Where a comment is written: a new one on an issue, or over one. */
type CommentPlace = { issueNumber: number } | { commentId: number }

/** Writes the comment; GitHub's answer tells the identity who the token is. */
async function writeComment(
  session: Session,
  place: CommentPlace,
  body: string
): Promise<{ id: number; url: string }> {
  const { octokit, owner, repo } = session.target
  const { data } =
    'issueNumber' in place
      ? await octokit.rest.issues.createComment({
          owner,
          repo,
          body,
          issue_number: place.issueNumber
        })
      : await octokit.rest.issues.updateComment({
          owner,
          repo,
          body,
          comment_id: place.commentId
        })
  session.target.identity.learn(data)
  return { id: data.id, url: data.html_url }
}

async function createComment(
  session: Session,
  issueNumber: number,
  body: string
): Promise<{ id: number; url: string }> {
  try {
    return await writeComment(session, { issueNumber }, body)
  } catch (e) {
    const { owner, repo } = session.target
    const what = `Commenting on #${issueNumber} of ${owner}/${repo}`
    const err = toGitHubError(e, what, WRITE_HINT)
    if (err.kind === 'not-found') {
      err.message +=
        '. The issue or pull request is gone, or hidden from the token'
    }
    throw err
  }
}

function updateComment(
  session: Session,
  commentId: number,
  body: string
): Promise<{ id: number; url: string }> {
  return writeComment(session, { commentId }, body)
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
    const foreign =
      s === 403 && found.authorship === 'an-app' && !isRateLimit(e)
    if (s !== 404 && !foreign) {
      throw toGitHubError(e, `Updating comment ${found.id}`, WRITE_HINT)
    }
    session.target.log.warning(
      `Could not update comment ${found.id} (${s}); posting a new one`
    )
    return remember(await createComment(session, issueNumber, text))
  }
}
