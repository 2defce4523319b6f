// What a resolution of an earlier finding's thread is worth. The pull
// request's author can resolve any thread on their own pull request, so a
// resolution dismisses a finding only when the person GitHub names as its
// resolver has write access (admin, maintain or write), read the way the
// command gate reads it (event/gate.ts): any other resolution, one GitHub
// names no one for, or one whose permission cannot be read, is reported and
// ignored, and the finding keeps counting.
import { WRITERS, type GitHubApi, type Permission } from '../github/api.js'
import type { EarlierFinding } from '../core/review.js'
import { errorText } from '../core/text.js'

type PermissionLookup = Pick<GitHubApi, 'getPermission' | 'owner' | 'repo'>

type Worth = NonNullable<EarlierFinding['resolution']>

/** Each resolved finding with its resolution judged; one lookup per person. */
export async function judgeResolutions(
  github: PermissionLookup,
  earlier: readonly EarlierFinding[]
): Promise<EarlierFinding[]> {
  const asked = new Map<string, Promise<Omit<Worth, 'by'>>>()
  const judge = (login: string) => {
    const key = login.toLowerCase()
    let answer = asked.get(key)
    if (!answer) {
      answer = worthOf(github, login)
      asked.set(key, answer)
    }
    return answer
  }
  return Promise.all(
    earlier.map(async (f): Promise<EarlierFinding> => {
      const by = f.resolution?.by
      if (by === undefined) return f
      if (by === null)
        return {
          ...f,
          resolution: {
            by,
            worth: 'ignored',
            why: 'GitHub names no person who resolved it'
          }
        }
      return { ...f, resolution: { by, ...(await judge(by)) } }
    })
  )
}

async function worthOf(
  github: PermissionLookup,
  login: string
): Promise<Omit<Worth, 'by'>> {
  let permission: Permission
  try {
    permission = await github.getPermission(login)
  } catch (e) {
    return {
      worth: 'ignored',
      why: `${login}'s permission could not be read (${errorText(e).slice(0, 200)})`
    }
  }
  if (WRITERS.includes(permission))
    return {
      worth: 'dismissed',
      why: `${login} has ${permission} access`
    }
  return {
    worth: 'ignored',
    why: `${login} has ${permission} access to ${github.owner}/${github.repo}; only write, maintain or admin dismiss a finding`
  }
}
