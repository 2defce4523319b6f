// Check runs in the loopback GitHub (the Checks API): every request body is
// checked against GitHub's published OpenAPI description (openapi.ts:
// required fields, enums, the 50-annotation limit, PATCH's "completed needs
// a conclusion"), plus the limits the description only states in prose
// (annotation title 255 characters, message 64 KB). A create or update
// appends its annotations to the run's, as GitHub does. The token's
// `checks` permission is the state's checksPermission.
// Erasable TypeScript, run directly by Node 24.
import { HttpError, now, page, type Handler } from './github-replies.ts'
import { requestBodyErrors } from './openapi.ts'
import type {
  ServerCheckAnnotation,
  ServerCheckRun,
  ServerState
} from './github-state.ts'

const CHECKS_DOCS = 'https://docs.github.com/rest/checks/runs'
const CREATE = 'POST /repos/{owner}/{repo}/check-runs'
const UPDATE = 'PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}'
const LIST = 'GET /repos/{owner}/{repo}/commits/{ref}/check-runs'
const ANNOTATIONS =
  'GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations'
const TITLE_CHARS = 255
const MESSAGE_BYTES = 64 * 1024

function allow(s: ServerState, write: boolean): void {
  const p = s.checksPermission ?? 'write'
  if (p === 'none' || (write && p !== 'write'))
    throw new HttpError(403, 'Resource not accessible by integration', {
      documentation_url: CHECKS_DOCS
    })
}

/** GitHub's 422 for a body its schema refuses. */
function validate(route: string, body: unknown): void {
  const errors = requestBodyErrors(route, body)
  if (errors.length > 0)
    throw new HttpError(422, `Invalid request.\n\n${errors.join('\n')}`, {
      documentation_url: CHECKS_DOCS
    })
}

function annotationsOf(body: Record<string, unknown>): ServerCheckAnnotation[] {
  const output = body.output as { annotations?: ServerCheckAnnotation[] }
  const list = output?.annotations ?? []
  for (const a of list) {
    if ([...(a.title ?? '')].length > TITLE_CHARS)
      throw new HttpError(422, 'Validation Failed', {
        errors: [
          {
            resource: 'CheckRun',
            code: 'custom',
            field: 'title',
            message: 'title is too long'
          }
        ]
      })
    if (Buffer.byteLength(a.message, 'utf8') > MESSAGE_BYTES)
      throw new HttpError(422, 'Validation Failed', {
        errors: [
          {
            resource: 'CheckRun',
            code: 'custom',
            field: 'message',
            message: 'message is too long'
          }
        ]
      })
  }
  return list
}

function knownCommit(s: ServerState, sha: string): boolean {
  return Object.values(s.pulls).some(
    (p) => p.head.sha === sha || p.base.sha === sha
  )
}

/** Fields a create or update may set, applied as GitHub applies them. */
function apply(run: ServerCheckRun, body: Record<string, unknown>): void {
  const str = (k: string) => (typeof body[k] === 'string' ? body[k] : undefined)
  if (str('name')) run.name = str('name') as string
  if (str('external_id') !== undefined)
    run.externalId = str('external_id') as string
  if (str('details_url') !== undefined)
    run.detailsUrl = str('details_url') as string
  if (str('status')) run.status = str('status') as string
  // A conclusion completes the run (the description says so).
  if (str('conclusion')) {
    run.conclusion = str('conclusion') as string
    run.status = 'completed'
  }
  if (run.status === 'completed')
    run.completedAt = str('completed_at') ?? run.completedAt ?? now()
  const output = body.output as
    { title?: string; summary?: string; text?: string } | undefined
  if (output) {
    run.output = {
      title: output.title ?? null,
      summary: output.summary ?? null,
      text: output.text ?? run.output.text
    }
    run.annotations.push(...annotationsOf(body))
  }
}

export function checkRunJson(r: ServerCheckRun, s: ServerState, base: string) {
  const repo = `${s.owner}/${s.repo}`
  const url = `${base}/repos/${repo}/check-runs/${r.id}`
  return {
    id: r.id,
    head_sha: r.headSha,
    node_id: `CR_${r.id}`,
    external_id: r.externalId,
    url,
    html_url: `${s.serverUrl}/${repo}/runs/${r.id}`,
    details_url: r.detailsUrl,
    status: r.status,
    conclusion: r.conclusion,
    started_at: r.startedAt,
    completed_at: r.completedAt,
    output: {
      ...r.output,
      annotations_count: r.annotations.length,
      annotations_url: `${url}/annotations`
    },
    name: r.name,
    check_suite: { id: 7_000_000 + r.appId },
    app: null,
    pull_requests: []
  }
}

/** One annotation as GET .../annotations answers it (`check-annotation`). */
export function annotationJson(
  a: ServerCheckAnnotation,
  run: ServerCheckRun,
  s: ServerState
) {
  return {
    path: a.path,
    blob_href: `${s.serverUrl}/${s.owner}/${s.repo}/blob/${run.headSha}/${a.path}`,
    start_line: a.start_line,
    end_line: a.end_line,
    start_column: null,
    end_column: null,
    annotation_level: a.annotation_level,
    title: a.title ?? null,
    message: a.message,
    raw_details: a.raw_details ?? null
  }
}

export const checkRoutes: [string, Handler][] = [
  [
    ANNOTATIONS,
    (s, c) => {
      allow(s, false)
      const run = (s.checkRuns ?? []).find((r) => r.id === Number(c.params[0]))
      if (!run) throw new HttpError(404, 'Not Found')
      const { slice, link } = page(run.annotations, c)
      const headers: Record<string, string> = link ? { link } : {}
      return {
        status: 200,
        data: slice.map((a) => annotationJson(a, run, s)),
        headers
      }
    }
  ],
  [
    CREATE,
    (s, c) => {
      allow(s, true)
      validate(CREATE, c.body)
      const sha = String(c.body.head_sha)
      if (!knownCommit(s, sha))
        throw new HttpError(422, `No commit found for SHA: ${sha}`)
      const run: ServerCheckRun = {
        id: s.nextId++,
        name: '',
        headSha: sha,
        externalId: null,
        status: 'queued',
        conclusion: null,
        detailsUrl: null,
        startedAt: now(),
        completedAt: null,
        output: { title: null, summary: null, text: null },
        annotations: [],
        appId: s.app?.id ?? 0
      }
      apply(run, c.body)
      ;(s.checkRuns ??= []).push(run)
      return { status: 201, data: checkRunJson(run, s, c.base) }
    }
  ],
  [
    UPDATE,
    (s, c) => {
      allow(s, true)
      validate(UPDATE, c.body)
      const run = (s.checkRuns ?? []).find((r) => r.id === Number(c.params[0]))
      if (!run) throw new HttpError(404, 'Not Found')
      if (run.appId !== (s.app?.id ?? 0))
        throw new HttpError(
          403,
          'Invalid app_id: the check run belongs to another app'
        )
      apply(run, c.body)
      return { status: 200, data: checkRunJson(run, s, c.base) }
    }
  ],
  [
    LIST,
    (s, c) => {
      allow(s, false)
      const ref = decodeURIComponent(c.params[0] ?? '')
      const name = c.query.get('check_name')
      const status = c.query.get('status')
      const all = (s.checkRuns ?? [])
        .filter(
          (r) =>
            r.headSha === ref &&
            (name === null || r.name === name) &&
            (status === null || r.status === status)
        )
        .reverse()
      const { slice, link } = page(all, c)
      const headers: Record<string, string> = link ? { link } : {}
      return {
        status: 200,
        data: {
          total_count: all.length,
          check_runs: slice.map((r) => checkRunJson(r, s, c.base))
        },
        headers
      }
    }
  ]
]
