// Pull request #42 as the loopback GitHub server serves it: the PR that the
// pull_request fixtures (__fixtures__/events/pull_request.opened.json) name.
import type {
  ServerPull,
  ServerState,
  ServerTreeEntry
} from './github-state.ts'

/**
 * The head commit the pull_request fixtures name (`pull_request.head.sha`):
 * the server's head is the event's, as when nobody pushed after the event.
 */
export const FIXTURE_HEAD_SHA = '9f8e7d6c5b4a39281706f5e4d3c2b1a098765432'

export function samplePull(): ServerPull {
  return {
    title: 'Speed up the parser',
    body: 'Please review @alice',
    author: { login: 'alice-maintainer', id: 5550001, type: 'User' },
    base: { ref: 'main', sha: 'a'.repeat(40), repo: 'octo-org/octo-repo' },
    head: { ref: 'fast', sha: FIXTURE_HEAD_SHA, repo: 'octo-org/octo-repo' },
    files: [
      {
        filename: 'src/parser.ts',
        status: 'modified',
        additions: 10,
        deletions: 2
      }
    ],
    diff: 'diff --git a/src/parser.ts b/src/parser.ts\n+fast\n'
  }
}

/** PR #42 changing these files, and the base commit's tree at `baseSha`. */
export function servePullAtBase(
  state: ServerState,
  baseSha: string,
  changed: string[],
  base: Record<string, ServerTreeEntry>
): void {
  const pull = samplePull()
  pull.files = changed.map((filename) => ({
    filename,
    status: 'modified',
    additions: 1,
    deletions: 1
  }))
  state.pulls['42'] = pull
  state.files = { [baseSha]: base }
}
