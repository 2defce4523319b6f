import {
  afterEach,
  beforeEach,
  describe,
  expect,
  it,
  jest
} from '@jest/globals'
import { createGitHub, type GitHubApi } from '../../src/github/api.js'
import { cutDiff } from '../../src/github/pull.js'
import { GitHubError } from '../../src/github/errors.js'
import { runAttempt, runUrl } from '../../src/github/run-url.js'
import { stickyMarker } from '../../src/github/sticky-marker.js'
import { type GitHubOptions } from '../../src/github/client.js'
import {
  addComment,
  BODY_LIMIT,
  faults,
  startGitHubServer,
  type GitHubServer,
  type ServerState,
  type ServerUser
} from '../../test-support/github-server.js'

jest.setTimeout(30_000)

const LIST = 'GET /repos/{owner}/{repo}/issues/{issue_number}/comments'
const CREATE = 'POST /repos/{owner}/{repo}/issues/{issue_number}/comments'
const alice: ServerUser = { login: 'alice', id: 11, type: 'User' }
const marker = stickyMarker('massgen')

let server: GitHubServer
let warnings: string[]

async function setup(
  state: Partial<ServerState> = {},
  options: Partial<GitHubOptions> = {}
): Promise<GitHubApi> {
  server = await startGitHubServer(state)
  warnings = []
  return createGitHub({
    token: 'ghs_test',
    owner: 'octo-org',
    repo: 'octo-repo',
    apiUrl: server.url,
    log: {
      info: () => {},
      debug: () => {},
      warning: (m) => warnings.push(m)
    },
    timing: { retryAfterBaseMs: 10 },
    ...options
  })
}

/** The delay of every timer set from now on (until the mocks are restored). */
function recordTimers(): number[] {
  const delays: number[] = []
  const realSetTimeout = globalThis.setTimeout
  jest
    .spyOn(globalThis, 'setTimeout')
    .mockImplementation((callback: () => void, ms?: number) => {
      delays.push(ms ?? 0)
      return realSetTimeout(callback, ms)
    })
  return delays
}

function calls(method: string, suffix: string) {
  return server.requests.filter(
    (r) => r.method === method && r.path.endsWith(suffix)
  )
}

async function failure(p: Promise<unknown>): Promise<GitHubError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err
  )
  expect(e).toBeInstanceOf(GitHubError)
  return e as GitHubError
}

beforeEach(() => {
  // A request that misses the loopback server must fail, not go out.
  process.env.GITHUB_API_URL = 'http://127.0.0.1:9'
})
afterEach(async () => {
  await server?.close()
})

describe('sticky comment search', () => {
  it('pages through every comment and finds the marker on page 3', async () => {
    const github = await setup()
    for (let i = 0; i < 230; i++) {
      addComment(server.state, 1, `comment ${i}`, alice)
    }
    const ours = addComment(server.state, 1, `${marker}\nold answer`)
    const found = await github.findStickyComment(1, 'massgen')
    expect(found).toEqual({
      id: ours.id,
      url: `https://github.com/octo-org/octo-repo/issues/1#issuecomment-${ours.id}`,
      body: `${marker}\nold answer`
    })
    const pages = calls('GET', '/issues/1/comments').map((r) => r.query.page)
    expect(pages).toEqual([undefined, '2', '3'])
  })

  it('ignores comments by other authors that carry the marker', async () => {
    const github = await setup()
    addComment(server.state, 1, `${marker}\nquoted by a person`, alice)
    expect(await github.findStickyComment(1, 'massgen')).toBeUndefined()
    const ours = addComment(server.state, 1, `${marker}\nmine`)
    expect((await github.findStickyComment(1, 'massgen'))?.id).toBe(ours.id)
  })

  it('takes the marker only as the first line, not quoted further down', async () => {
    const github = await setup()
    // Our own comment for another tag, whose answer quotes this tag's marker.
    addComment(
      server.state,
      1,
      `${stickyMarker('nightly')}\n\n\`\`\`\n${marker}\n\`\`\``
    )
    addComment(server.state, 1, `text first\n${marker}`)
    expect(await github.findStickyComment(1, 'massgen')).toBeUndefined()
    const ours = addComment(server.state, 1, `${marker}\r\nmine`)
    expect((await github.findStickyComment(1, 'massgen'))?.id).toBe(ours.id)
  })

  it('tells tags apart', async () => {
    const github = await setup()
    addComment(server.state, 1, `${stickyMarker('massgen-nightly')}\nx`)
    expect(await github.findStickyComment(1, 'massgen')).toBeUndefined()
  })

  it('matches the login from GET /user for personal tokens', async () => {
    const github = await setup({ identity: alice, userEndpoint: 'ok' })
    addComment(server.state, 1, `${marker}\nbot`, {
      login: 'github-actions[bot]',
      id: 41898282,
      type: 'Bot'
    })
    const mine = addComment(server.state, 1, `${marker}\nalice`, alice)
    expect((await github.findStickyComment(1, 'massgen'))?.id).toBe(mine.id)
  })

  it('falls back to an app-written comment for unnamed app tokens', async () => {
    const app = { id: 9, slug: 'my-app', name: 'My App' }
    const bot: ServerUser = { login: 'my-app[bot]', id: 99, type: 'Bot' }
    const github = await setup({ identity: bot, app })
    // Made by a person through the app: not the app itself, so not ours.
    addComment(server.state, 1, `${marker}\nvia app`, alice, app)
    const ours = addComment(server.state, 1, `${marker}\nx`, bot, app)
    expect((await github.findStickyComment(1, 'massgen'))?.id).toBe(ours.id)
  })
})

describe('upsertStickyComment', () => {
  it('writes the marker as the first line and breaks any marker in the body', async () => {
    const github = await setup()
    const quoted = `see \`${stickyMarker('other')}\` and ${marker}`
    await github.upsertStickyComment(1, 'massgen', quoted)
    const body = server.state.comments[0]?.body ?? ''
    expect(body.split('\n')[0]).toBe(marker)
    expect(body.split('massgen-action:sticky')).toHaveLength(2)
    // Same length: a body at GitHub's limit stays within it.
    expect(body.length).toBe(marker.length + 1 + quoted.length)
  })

  it('creates once with the marker, then updates in place', async () => {
    const github = await setup()
    const first = await github.upsertStickyComment(1, 'massgen', 'Running...')
    const second = await github.upsertStickyComment(1, 'massgen', 'Done')
    expect(second.id).toBe(first.id)
    expect(server.state.comments).toHaveLength(1)
    expect(server.state.comments[0]?.body).toBe(`${marker}\nDone`)
    expect(calls('POST', '/issues/1/comments')).toHaveLength(1)
    const patch = calls('PATCH', `/issues/comments/${first.id}`)
    expect(patch[0]?.body).toEqual({ body: `${marker}\nDone` })
    expect(patch[0]?.headers.authorization).toBeUndefined()
  })

  it('does not add the marker twice', async () => {
    const github = await setup()
    await github.upsertStickyComment(1, 'massgen', `${marker}\nhello`)
    expect(server.state.comments[0]?.body).toBe(`${marker}\nhello`)
  })

  it('posts a new comment when the found one was deleted', async () => {
    const github = await setup()
    const old = addComment(server.state, 1, `${marker}\nold`)
    server.injectFault(
      'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}',
      faults.notFound()
    )
    const made = await github.upsertStickyComment(1, 'massgen', 'new')
    expect(made.id).not.toBe(old.id)
    expect(warnings.join('\n')).toContain('posting a new one')
  })

  it('throws not-found when the issue is gone', async () => {
    const github = await setup({ issues: [] })
    const e = await failure(github.upsertStickyComment(5, 'massgen', 'x'))
    expect(e.kind).toBe('not-found')
    expect(e.message).toContain('#5')
  })

  it('throws body-too-long past 65,536 characters', async () => {
    const github = await setup()
    const e = await failure(
      github.upsertStickyComment(1, 'massgen', 'x'.repeat(BODY_LIMIT))
    )
    expect(e.kind).toBe('body-too-long')
    expect(e.status).toBe(422)
    expect(e.message).toContain('65536')
    expect(server.state.comments).toHaveLength(0)
  })

  it('throws forbidden with a permissions hint', async () => {
    const github = await setup()
    server.injectFault(CREATE, faults.forbidden())
    const e = await failure(github.upsertStickyComment(1, 'massgen', 'x'))
    expect(e.kind).toBe('forbidden')
    expect(e.message).toContain('pull-requests: write')
    expect(calls('POST', '/issues/1/comments')).toHaveLength(1)
  })
})

describe('retries', () => {
  it('retries 500 and 502, then succeeds', async () => {
    const github = await setup()
    server.injectFault(LIST, faults.serverError(500))
    server.injectFault(LIST, faults.serverError(502))
    expect(await github.findStickyComment(1, 'massgen')).toBeUndefined()
    expect(calls('GET', '/issues/1/comments')).toHaveLength(3)
  })

  it('gives up after a bounded number of retries', async () => {
    const github = await setup(
      {},
      { timing: { retryAfterBaseMs: 1, retries: 2 } }
    )
    server.injectFault(LIST, faults.serverError(503), 10)
    const e = await failure(github.findStickyComment(1, 'massgen'))
    expect(e.kind).toBe('failed')
    expect(calls('GET', '/issues/1/comments')).toHaveLength(3)
  })

  it('waits the Retry-After of a 429 secondary rate limit', async () => {
    // Retry-After 2 at 389 ms a second: the retry is scheduled 778 ms after
    // the refusal, a delay no other timer here uses. The timers set are
    // recorded (and run as asked), so the wait is read, not timed.
    const github = await setup({}, { timing: { retryAfterBaseMs: 389 } })
    server.injectFault(LIST, faults.secondaryRateLimit(2, 429))
    const delays = recordTimers()
    try {
      expect(await github.findStickyComment(1, 'massgen')).toBeUndefined()
    } finally {
      jest.restoreAllMocks()
    }
    expect(delays).toContain(778)
    expect(calls('GET', '/issues/1/comments')).toHaveLength(2)
    expect(warnings.join('\n')).toContain('retrying in 2s')
  })

  it('retries a 403 primary rate limit (x-ratelimit-remaining: 0)', async () => {
    const github = await setup()
    server.injectFault(CREATE, faults.primaryRateLimit(1, 403))
    await github.upsertStickyComment(1, 'massgen', 'x')
    expect(calls('POST', '/issues/1/comments')).toHaveLength(2)
    expect(server.state.comments).toHaveLength(1)
  })

  it('reports rate-limited when the limit outlasts the wait budget', async () => {
    const github = await setup({}, { timing: { maxWaitSeconds: 5 } })
    server.injectFault(LIST, faults.secondaryRateLimit(600, 403))
    const e = await failure(github.findStickyComment(1, 'massgen'))
    expect(e.kind).toBe('rate-limited')
    expect(calls('GET', '/issues/1/comments')).toHaveLength(1)
  })
})

describe('reactions', () => {
  it('adds and removes a reaction on an issue comment', async () => {
    const github = await setup()
    const c = addComment(server.state, 1, '/massgen hi', alice)
    const id = await github.addReaction(c.id, 'eyes')
    expect(server.state.reactions).toEqual([
      expect.objectContaining({ id, commentId: c.id, content: 'eyes' })
    ])
    await github.removeReaction(c.id, id)
    expect(server.state.reactions).toEqual([])
    // Removing twice is fine: the reaction is gone either way.
    await github.removeReaction(c.id, id)
  })
})

describe('getPermission', () => {
  it('prefers role_name, falls back to permission, 404 is none', async () => {
    const github = await setup({
      permissions: {
        ann: 'maintain',
        tim: 'triage',
        sec: { role_name: 'security-reviewer', permission: 'write' },
        'odd name': 'admin'
      }
    })
    expect(await github.getPermission('ann')).toBe('maintain')
    expect(await github.getPermission('tim')).toBe('triage')
    expect(await github.getPermission('sec')).toBe('write')
    expect(await github.getPermission('nobody')).toBe('none')
  })
})

describe('getPullRequestContext', () => {
  const files = Array.from({ length: 150 }, (_, i) => ({
    filename: `src/f${i}.ts`,
    status: 'modified',
    additions: i,
    deletions: 1
  }))
  const diff = files
    .map((f) => `diff --git a/${f.filename} b/${f.filename}\n+é line\n`)
    .join('')
  const pull = {
    title: 'Speed up',
    body: null,
    author: alice,
    base: { ref: 'main', sha: 'b'.repeat(40), repo: 'octo-org/octo-repo' },
    head: { ref: 'feat', sha: 'h'.repeat(40), repo: 'fork/octo-repo' },
    files,
    diff
  }

  it('reads the PR, all changed files and a cut diff', async () => {
    const github = await setup({ pulls: { '7': pull } })
    const ctx = await github.getPullRequestContext(7, 1000)
    expect(ctx).toMatchObject({
      number: 7,
      title: 'Speed up',
      body: '',
      baseRef: 'main',
      headRef: 'feat',
      headSha: 'h'.repeat(40),
      headRepo: 'fork/octo-repo',
      diffTruncated: true
    })
    expect(ctx.files).toHaveLength(150)
    expect(ctx.files[149]).toEqual({
      filename: 'src/f149.ts',
      status: 'modified',
      additions: 149,
      deletions: 1
    })
    expect(Buffer.byteLength(ctx.diff)).toBeLessThanOrEqual(1000)
    expect(ctx.diff.endsWith('\n')).toBe(true)
    expect(diff.startsWith(ctx.diff)).toBe(true)
    const diffCall = server.requests.find((r) =>
      r.headers.accept?.includes('diff')
    )
    expect(diffCall?.headers.accept).toBe('application/vnd.github.v3.diff')
  })

  it('keeps a small diff whole', async () => {
    const github = await setup({ pulls: { '7': pull } })
    const ctx = await github.getPullRequestContext(7, 1_000_000)
    expect(ctx.diff).toBe(diff)
    expect(ctx.diffTruncated).toBe(false)
  })

  it('copes with a deleted fork and rebuilds a diff GitHub will not render from the patches', async () => {
    const gone = {
      ...pull,
      files: files.map((f, i) =>
        i === 0 ? f : { ...f, patch: `@@ -1 +1 @@\n-a\n+b${i}` }
      ),
      head: { ...pull.head, repo: null },
      diffTooLarge: true
    }
    const github = await setup({ pulls: { '8': gone } })
    const ctx = await github.getPullRequestContext(8, 1_000_000)
    expect(ctx.headRepo).toBeUndefined()
    expect(ctx.diffRebuilt).toBe(true)
    expect(ctx.diffTruncated).toBe(false)
    expect(ctx.diff).toContain(
      'diff --git a/src/f1.ts b/src/f1.ts\n--- a/src/f1.ts\n+++ b/src/f1.ts\n@@ -1 +1 @@\n-a\n+b1\n'
    )
    expect(ctx.withoutPatch).toEqual([
      { file: 'src/f0.ts', reason: expect.stringContaining('no patch') }
    ])
    expect(ctx.changedFiles).toBe(150)
    expect(warnings.join('\n')).toContain(
      'exceeded the maximum number of files (300)'
    )
  })

  it('throws not-found for a missing PR', async () => {
    const github = await setup()
    const e = await failure(github.getPullRequestContext(404, 10))
    expect(e.kind).toBe('not-found')
  })
})

describe('pure helpers', () => {
  it('cuts a diff by whole files, naming each file left out', () => {
    const file = (name: string, body: string) =>
      `diff --git a/${name} b/${name}\n--- a/${name}\n+++ b/${name}\n@@ -1 +1 @@\n-a\n+${body}\n`
    const small = file('a.ts', 'é')
    const large = file('b.ts', 'x'.repeat(200))
    const late = file('c.ts', 'z')
    const diff = small + large + late
    expect(cutDiff(diff, 10_000)).toEqual({ diff, truncated: false, cut: [] })
    const budget = Buffer.byteLength(small + late)
    expect(cutDiff(diff, budget)).toEqual({
      diff: small + late,
      truncated: true,
      cut: [{ path: 'b.ts', bytes: Buffer.byteLength(large) }]
    })
  })

  it('builds a marker that cannot break out of its HTML comment', () => {
    expect(stickyMarker('massgen')).toBe(
      '<!-- massgen-action:sticky tag=massgen -->'
    )
    expect(stickyMarker('a --> b')).toBe(
      '<!-- massgen-action:sticky tag=a_-__b -->'
    )
  })

  it('links the run, and the attempt after a re-run', () => {
    const env = {
      GITHUB_SERVER_URL: 'https://github.example.com/',
      GITHUB_REPOSITORY: 'o/r',
      GITHUB_RUN_ID: '123'
    }
    expect(runUrl(env)).toBe('https://github.example.com/o/r/actions/runs/123')
    expect(runUrl({ ...env, GITHUB_RUN_ATTEMPT: '1' })).toBe(
      'https://github.example.com/o/r/actions/runs/123'
    )
    expect(runUrl({ ...env, GITHUB_RUN_ATTEMPT: '3' })).toBe(
      'https://github.example.com/o/r/actions/runs/123/attempts/3'
    )
    expect(runUrl({ GITHUB_REPOSITORY: 'o/r', GITHUB_RUN_ID: '5' })).toBe(
      'https://github.com/o/r/actions/runs/5'
    )
    expect(runUrl({ GITHUB_REPOSITORY: 'o/r' })).toBeUndefined()
    expect(runAttempt({ GITHUB_RUN_ATTEMPT: 'x' })).toBe(1)
  })
})
