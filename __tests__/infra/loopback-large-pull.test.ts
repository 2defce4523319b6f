// The loopback GitHub's files list and its 406 on diffs, checked against
// GitHub's own OpenAPI description (npm @octokit/openapi): the Diff Entry
// schema of GET /pulls/{n}/files, its 3,000-file cap and pagination, the
// `unacceptable` answer of GET /pulls/{n} with the diff media type, and the
// pull request's draft / locked / state / labels fields.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { createRequire } from 'node:module'
import {
  startGitHubServer,
  type GitHubServer
} from '../../test-support/github-server.js'
import { largePull, manyFiles } from '../../test-support/large-pull.js'

type Schema = {
  type?: string
  enum?: unknown[]
  nullable?: boolean
  required?: string[]
  properties?: Record<string, Schema>
  items?: Schema
  $ref?: string
}
const spec = createRequire(import.meta.url)(
  '@octokit/openapi/generated/api.github.com.json'
) as {
  paths: Record<string, Record<string, { responses: Record<string, Schema> }>>
  components: {
    schemas: Record<string, Schema>
    responses: Record<string, unknown>
  }
}
const schema = (name: string): Schema => spec.components.schemas[name] ?? {}

/** The schema's own fields: required ones present, each of its type. */
function problems(
  value: Record<string, unknown>,
  s: Schema,
  at = ''
): string[] {
  const out: string[] = []
  for (const key of s.required ?? [])
    if (!(key in value)) out.push(`${at}${key} missing`)
  for (const [key, prop] of Object.entries(s.properties ?? {})) {
    if (!(key in value)) continue
    const v = value[key]
    if (v === null) {
      if (!prop.nullable && prop.type) out.push(`${at}${key} is null`)
      continue
    }
    const type = Array.isArray(v) ? 'array' : typeof v
    const want = prop.type === 'integer' ? 'number' : prop.type
    if (want && want !== type) out.push(`${at}${key}: ${type}, not ${want}`)
    if (prop.enum && !prop.enum.includes(v))
      out.push(`${at}${key}: ${JSON.stringify(v)} not in enum`)
  }
  return out
}

let github: GitHubServer
beforeAll(async () => {
  github = await startGitHubServer({ issues: [42] })
  const files = manyFiles(3050)
  files[1] = {
    ...files[1]!,
    patch: undefined,
    filename: 'logo.png',
    status: 'added'
  }
  files[2] = { ...files[2]!, status: 'renamed', previousFilename: 'src/old.ts' }
  github.state.pulls['42'] = {
    ...largePull(files),
    draft: true,
    labels: ['wip']
  }
})
afterAll(async () => {
  await github.close()
})

const api = (path: string, accept = 'application/vnd.github+json') =>
  fetch(`${github.url}/repos/octo-org/octo-repo${path}`, {
    headers: { accept, authorization: 'token t' }
  })

describe('loopback GitHub: GET /pulls/{n}/files (OpenAPI pulls/list-files)', () => {
  it('every entry is a Diff Entry with its patch, 30 a page by default, 100 at most', async () => {
    expect(
      Object.keys(
        spec.paths['/repos/{owner}/{repo}/pulls/{pull_number}/files']?.get
          ?.responses ?? {}
      )
    ).toContain('200')
    const first = (await (await api('/pulls/42/files')).json()) as Array<
      Record<string, unknown>
    >
    expect(first).toHaveLength(30)
    const big = await api('/pulls/42/files?per_page=500')
    const page = (await big.json()) as Array<Record<string, unknown>>
    expect(page).toHaveLength(100)
    expect(big.headers.get('link')).toMatch(/[?&]page=30[^>]*>; rel="last"/)
    for (const entry of page)
      expect(problems(entry, schema('diff-entry'))).toEqual([])
    expect(page[0]?.patch).toBe('@@ -1,2 +1,2 @@\n context\n-old\n+LINE-0')
    expect(page[1]).not.toHaveProperty('patch')
    expect(page[2]?.previous_filename).toBe('src/old.ts')
  })
  it('stops at 3,000 files while changed_files counts them all', async () => {
    let count = 0
    for (let n = 1; n <= 31; n++) {
      const rows = (await (
        await api(`/pulls/42/files?per_page=100&page=${n}`)
      ).json()) as unknown[]
      count += rows.length
    }
    expect(count).toBe(3000)
    const pr = (await (await api('/pulls/42')).json()) as Record<
      string,
      unknown
    >
    expect(pr.changed_files).toBe(3050)
  })
})

describe('loopback GitHub: GET /pulls/{n} (OpenAPI pulls/get)', () => {
  it('answers 406 `too_large` for the diff media type, as api.github.com does', async () => {
    expect(
      spec.paths['/repos/{owner}/{repo}/pulls/{pull_number}']?.get?.responses[
        '406'
      ]
    ).toEqual({
      $ref: '#/components/responses/unacceptable'
    })
    const res = await api('/pulls/42', 'application/vnd.github.diff')
    expect(res.status).toBe(406)
    const body = (await res.json()) as Record<string, unknown>
    expect(problems(body, schema('basic-error'))).toEqual([])
    // Recorded from api.github.com (quoted in truongnh1992/gemini-ai-code-reviewer#51).
    expect(body).toEqual({
      message:
        "Sorry, the diff exceeded the maximum number of files (300). Consider using 'List pull requests files' API or locally cloning the repository instead.",
      errors: [{ resource: 'PullRequest', field: 'diff', code: 'too_large' }],
      documentation_url:
        'https://docs.github.com/rest/pulls/pulls#list-pull-requests-files',
      status: '406'
    })
  })
  it('gives draft, locked, state and labels with the types the schema names', async () => {
    const pr = (await (await api('/pulls/42')).json()) as Record<
      string,
      unknown
    >
    const s = schema('pull-request')
    const own = {
      properties: Object.fromEntries(
        ['draft', 'locked', 'state', 'labels', 'changed_files'].map((k) => [
          k,
          s.properties?.[k] ?? {}
        ])
      )
    }
    expect(problems(pr, own)).toEqual([])
    expect(pr).toMatchObject({ draft: true, locked: false, state: 'open' })
    const labels = pr.labels as Array<Record<string, unknown>>
    expect(labels.map((l) => l.name)).toEqual(['wip'])
    expect(
      problems(labels[0] ?? {}, s.properties?.labels?.items ?? {})
    ).toEqual([])
  })
})
