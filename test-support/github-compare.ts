// Commits on the loopback GitHub: a push to a pull request (its head moves,
// its review comments move with their lines or turn outdated, as GitHub
// does), and GET /compare/{base}...{head} answered from the commit graph
// (@octokit/openapi `commit-comparison`: status ahead, behind, identical or
// diverged; 404 for a commit it does not know; its files from the change's
// diff, a rename with `previous_filename`). Erasable TypeScript.
import { HttpError, type Handler } from './github-replies.ts'
import type { ServerFile, ServerState } from './github-state.ts'

/** file -> new-side line -> its text, from a unified diff. */
export function rightLines(diff: string): Map<string, Map<number, string>> {
  const files = new Map<string, Map<number, string>>()
  let lines: Map<number, string> | undefined
  let right = 0
  let inside = false
  for (const text of diff.split('\n')) {
    if (text.startsWith('diff --git ')) {
      lines = undefined
      inside = false
    } else if (!inside && text.startsWith('+++ ')) {
      const name = text.slice(4).replace(/^b\//, '')
      lines = new Map()
      if (name !== '/dev/null') files.set(name, lines)
    } else {
      const m = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text)
      if (m) {
        inside = true
        right = Number(m[1])
      } else if (inside && lines) {
        if (text.startsWith('+') || text.startsWith(' '))
          lines.set(right++, text.slice(1))
        else if (!text.startsWith('-') && !text.startsWith('\\')) inside = false
      }
    }
  }
  return files
}

export interface Push {
  sha: string
  diff: string
  files: ServerFile[]
  /** The change since the old head (the compare diff); omitted for a force push. */
  change?: string
  /** A force push: the new head does not contain the old one. */
  force?: boolean
  pushedAt?: string
}

/**
 * A push to pull request `n`. A review comment keeps its line when the
 * line's text is unchanged there, moves when the text is found once
 * elsewhere in the file's diff, and is outdated (line null) otherwise.
 */
export function pushToPull(state: ServerState, n: number, push: Push): void {
  const pull = state.pulls[String(n)]
  if (!pull) throw new Error(`no pull request #${n}`)
  const old = pull.head.sha
  const commits = (state.commits ??= {})
  commits[old] ??= { parents: [pull.base.sha] }
  commits[pull.base.sha] ??= { parents: [] }
  commits[push.sha] = { parents: [push.force ? pull.base.sha : old] }
  if (push.change !== undefined)
    (state.compareDiffs ??= {})[`${old}...${push.sha}`] = push.change
  const before = rightLines(pull.diff)
  const after = rightLines(push.diff)
  for (const c of state.reviewComments) {
    if (c.pullNumber !== n || c.line === null || c.side !== 'RIGHT') continue
    const text = before.get(c.path)?.get(c.line)
    const now = after.get(c.path)
    if (text !== undefined && now?.get(c.line) === text) continue
    const found = [...(now ?? new Map<number, string>()).entries()].filter(
      ([, t]) => t === text
    )
    if (text !== undefined && found.length === 1) {
      c.line = (found[0] as [number, string])[0]
      c.startLine = null
    } else {
      c.originalLine ??= c.line
      c.line = null
      c.startLine = null
    }
  }
  pull.head = { ...pull.head, sha: push.sha }
  pull.diff = push.diff
  pull.files = push.files
  if (push.force)
    pull.timeline = [
      ...(pull.timeline ?? []),
      {
        event: 'head_ref_force_pushed',
        created_at: push.pushedAt ?? new Date().toISOString()
      }
    ]
}

/** Ancestors of `sha`, nearest first, with their distance. */
function ancestry(state: ServerState, sha: string): Map<string, number> {
  const seen = new Map<string, number>()
  let level = [sha]
  for (let d = 0; level.length > 0 && d < 10_000; d++) {
    const next: string[] = []
    for (const s of level) {
      if (seen.has(s)) continue
      seen.set(s, d)
      next.push(...(state.commits?.[s]?.parents ?? []))
    }
    level = next
  }
  return seen
}

function commitJson(sha: string, base: string, s: ServerState) {
  const repo = `${s.owner}/${s.repo}`
  return {
    sha,
    node_id: `C_${sha.slice(0, 12)}`,
    url: `${base}/repos/${repo}/commits/${sha}`,
    html_url: `${s.serverUrl}/${repo}/commit/${sha}`,
    comments_url: `${base}/repos/${repo}/comments`,
    commit: {
      url: `${base}/repos/${repo}/git/commits/${sha}`,
      author: null,
      committer: null,
      message: `Commit ${sha.slice(0, 7)}`,
      comment_count: 0,
      tree: { sha: sha, url: `${base}/repos/${repo}/git/trees/${sha}` }
    },
    author: null,
    committer: null,
    parents: (s.commits?.[sha]?.parents ?? []).map((p) => ({
      sha: p,
      url: `${base}/repos/${repo}/commits/${p}`
    }))
  }
}

/**
 * A comparison's `files` (@octokit/openapi `diff-entry`), from its diff as
 * git writes it: a rename is one entry, `renamed`, with `previous_filename`;
 * `patch` is the file's hunks, absent when there are none.
 */
export function changedFiles(
  diff: string,
  at: { api: string; web: string; head: string }
) {
  const parts = diff
    .split(/^(?=diff --git )/m)
    .filter((p) => p.startsWith('diff --git '))
  return parts.map((part) => {
    const lines = part.split('\n')
    const header = /^diff --git a\/(.+) b\/(.+)$/.exec(lines[0] ?? '')
    const from = lines.find((l) => l.startsWith('rename from '))?.slice(12)
    const to = lines.find((l) => l.startsWith('rename to '))?.slice(10)
    const filename = to ?? header?.[2] ?? ''
    const status = from
      ? 'renamed'
      : lines.some((l) => l.startsWith('new file mode'))
        ? 'added'
        : lines.some((l) => l.startsWith('deleted file mode'))
          ? 'removed'
          : 'modified'
    const hunk = lines.findIndex((l) => l.startsWith('@@'))
    const patch = hunk < 0 ? '' : lines.slice(hunk).join('\n').trimEnd()
    const count = (c: string) =>
      lines.slice(Math.max(hunk, 0)).filter((l) => hunk >= 0 && l.startsWith(c))
        .length
    const additions = count('+')
    const deletions = count('-')
    return {
      sha: '0'.repeat(40),
      filename,
      status,
      additions,
      deletions,
      changes: additions + deletions,
      blob_url: `${at.web}/blob/${at.head}/${encodeURI(filename)}`,
      raw_url: `${at.web}/raw/${at.head}/${encodeURI(filename)}`,
      contents_url: `${at.api}/contents/${encodeURI(filename)}?ref=${at.head}`,
      ...(patch ? { patch } : {}),
      ...(from ? { previous_filename: from } : {})
    }
  })
}

export const compareRoutes: [string, Handler][] = [
  [
    'GET /repos/{owner}/{repo}/compare/{basehead}',
    (s, c) => {
      const basehead = decodeURIComponent(c.params[0] ?? '')
      const [base = '', head = ''] = basehead.split('...')
      if (!s.commits?.[base] || !s.commits?.[head])
        throw new HttpError(404, 'Not Found')
      const up = ancestry(s, head)
      const down = ancestry(s, base)
      const ahead = up.get(base)
      const behind = down.get(head)
      const status =
        base === head
          ? 'identical'
          : ahead !== undefined
            ? 'ahead'
            : behind !== undefined
              ? 'behind'
              : 'diverged'
      const mergeBase =
        [...up.entries()]
          .filter(([sha]) => down.has(sha))
          .sort((a, b) => a[1] - b[1])[0]?.[0] ?? base
      if (/\.diff\b/.test(c.accept))
        return {
          status: 200,
          text: s.compareDiffs?.[`${base}...${head}`] ?? ''
        }
      const repo = `${s.owner}/${s.repo}`
      return {
        status: 200,
        data: {
          url: `${c.base}/repos/${repo}/compare/${basehead}`,
          html_url: `${s.serverUrl}/${repo}/compare/${basehead}`,
          permalink_url: `${s.serverUrl}/${repo}/compare/${basehead}`,
          diff_url: `${s.serverUrl}/${repo}/compare/${basehead}.diff`,
          patch_url: `${s.serverUrl}/${repo}/compare/${basehead}.patch`,
          base_commit: commitJson(base, c.base, s),
          merge_base_commit: commitJson(mergeBase, c.base, s),
          status,
          ahead_by: up.get(mergeBase) ?? 0,
          behind_by: down.get(mergeBase) ?? 0,
          total_commits: up.get(mergeBase) ?? 0,
          commits: [],
          files: changedFiles(s.compareDiffs?.[`${base}...${head}`] ?? '', {
            api: c.base,
            web: `${s.serverUrl}/${repo}`,
            head
          })
        }
      }
    }
  ]
]
