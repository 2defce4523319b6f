// The repository on the loopback GitHub: GET /repos/{owner}/{repo} (GitHub's
// own `full-repository` example from @octokit/openapi, named for the state's
// repository and default branch) and GET /repos/{owner}/{repo}/git/ref/{ref}
// (`git-ref`: the commit a branch is at, from the state's branches; 404 for
// one it does not know, as GitHub answers). Erasable TypeScript.
import { HttpError, type Handler } from './github-replies.ts'
import { exampleValue } from './openapi.ts'
import type { ServerState } from './github-state.ts'

const R = '/repos/{owner}/{repo}'

/** The state's default branch (main unless it says). */
export const defaultBranchOf = (s: ServerState) => s.defaultBranch ?? 'main'

function repositoryJson(s: ServerState, base: string) {
  const example = exampleValue('full-repository-default-response') as Record<
    string,
    unknown
  >
  const from = 'octocat/Hello-World'
  const full = `${s.owner}/${s.repo}`
  // Every URL of the example names the example's repository: name ours.
  const text = JSON.stringify(example)
    .replaceAll(`https://api.github.com/repos/${from}`, `${base}/repos/${full}`)
    .replaceAll(from, full)
  // Not a fork: no parent or source (the example is one). Its `language`,
  // which the schema requires, is left out of the example: none here.
  const {
    parent: _parent,
    source: _source,
    ...named
  } = JSON.parse(text) as Record<string, unknown>
  return {
    ...named,
    fork: false,
    language: null,
    name: s.repo,
    full_name: full,
    owner: { ...(named.owner as object), login: s.owner },
    default_branch: defaultBranchOf(s)
  }
}

export const repositoryRoutes: [string, Handler][] = [
  [`GET ${R}`, (s, c) => ({ status: 200, data: repositoryJson(s, c.base) })],
  [
    `GET ${R}/git/ref/{ref}`,
    (s, c) => {
      const ref = decodeURIComponent(c.params[0] ?? '')
      const branch = /^heads\/(.+)$/.exec(ref)?.[1]
      const sha = branch === undefined ? undefined : s.branches?.[branch]
      if (!sha) throw new HttpError(404, 'Not Found')
      const url = `${c.base}/repos/${s.owner}/${s.repo}/git`
      return {
        status: 200,
        data: {
          ref: `refs/${ref}`,
          node_id: `REF_${Buffer.from(ref).toString('base64')}`,
          url: `${url}/refs/${ref}`,
          object: { type: 'commit', sha, url: `${url}/commits/${sha}` }
        }
      }
    }
  ]
]
