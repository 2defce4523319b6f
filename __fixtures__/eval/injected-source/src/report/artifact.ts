// Uploads MassGen's logs (answers, votes, status, metrics, events, massgen.log)
// as a workflow artifact. Never the agents' workspaces or snapshots: those
// hold whatever the agents wrote, a checkout of the repository included. The
// selected files are first copied to a staging folder with every known secret
// redacted, streamed in bounded chunks, and only that folder is uploaded.
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import {
  inFolderOf,
  openRegular,
  pipeHandles,
  walkFiles
} from '../safety/agent-files.js'
import { redactingStream, redactSecrets } from '../safety/redact.js'
import { errorText } from '../core/text.js'
import type { StageLog } from '../core/log.js'

/** The part of @actions/artifact's client used here (tests pass a fake). */
export interface ArtifactUploader {
  uploadArtifact(
    name: string,
    files: string[],
    rootDirectory: string,
    options?: { retentionDays?: number; compressionLevel?: number }
  ): Promise<{ id?: number; size?: number }>
}

interface UploadLogsOptions {
  /** Artifact name; characters GitHub refuses become `_`. */
  name: string
  retentionDays?: number
  log: StageLog
  /** Values to redact from every staged file (keys, the GitHub token). */
  secrets?: readonly string[]
  /** The full winning answer, staged as `winning-answer.md`. */
  winningAnswer?: string
  /** Defaults to process.env (artifact service, run URL). */
  env?: NodeJS.ProcessEnv
  /** Where staging folders go; default RUNNER_TEMP, then the OS temp. */
  tempDir?: string
  /** Defaults to @actions/artifact's DefaultArtifactClient. */
  client?: ArtifactUploader
  /** Staged bytes at most; files beyond are left out and listed. */
  maxBytes?: number
  /** Which log files: all (default) or answers-only. */
  scope?: LogScope
}

interface StagedLogs {
  /** Absolute paths of the staged files, for the upload. */
  files: string[]
  bytes: number
  /** Log-relative paths left out because of maxBytes. */
  skipped: string[]
}

/** File kinds MassGen writes into its log folder. */
const LOG_EXTENSIONS = new Set([
  '.txt',
  '.json',
  '.jsonl',
  '.md',
  '.log',
  '.yaml',
  '.yml'
])
/** Folders never uploaded: agent workspaces, snapshots and their kin. */
const EXCLUDED_DIR =
  /^(workspaces?|temp_workspaces?|snapshots?|snapshot_storage|\.git|\.massgen|node_modules|__pycache__|\.venv|venv)$|^workspace_/i
export const WINNING_ANSWER_FILE = 'winning-answer.md'
const DEFAULT_MAX_BYTES = 1024 * 1024 * 1024
const CHUNK = 64 * 1024

/**
 * What the agents wrote as their results: status, answers and votes. The
 * other log files (massgen.log, events, agent outputs) hold the agents'
 * command and tool output too, whatever a command printed.
 */
const ANSWER_FILES = new Set(['status.json', 'answer.txt', 'vote.json'])

/** `all` log files, or `answers-only` (status, answers, votes). */
type LogScope = 'all' | 'answers-only'

/**
 * Log-relative paths (with `/`) of the files to upload, sorted. Only regular
 * files with a log extension; links are never followed, excluded folders
 * never entered.
 */
export function selectLogFiles(
  logDir: string,
  scope: LogScope = 'all'
): string[] {
  const files = walkFiles(logDir, (name) => !EXCLUDED_DIR.test(name))
  return [...files]
    .map((f) => f.rel)
    .filter((rel) => LOG_EXTENSIONS.has(path.extname(rel).toLowerCase()))
    .filter((rel) => scope === 'all' || ANSWER_FILES.has(path.basename(rel)))
    .sort()
}

/** Copies the selected log files into `stagingDir`, redacted, plus the winning answer. */
export async function stageLogs(
  logDir: string,
  stagingDir: string,
  options: {
    secrets?: readonly string[]
    winningAnswer?: string
    maxBytes?: number
    scope?: LogScope
  } = {}
): Promise<StagedLogs> {
  const secrets = options.secrets ?? []
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES
  const staged: StagedLogs = { files: [], bytes: 0, skipped: [] }
  fs.mkdirSync(stagingDir, { recursive: true })
  if (options.winningAnswer !== undefined) {
    const file = path.join(stagingDir, WINNING_ANSWER_FILE)
    fs.writeFileSync(file, redactSecrets(options.winningAnswer, secrets), {
      mode: 0o600
    })
    staged.files.push(file)
    staged.bytes += fs.statSync(file).size
  }
  for (const rel of selectLogFiles(logDir, options.scope)) {
    const source = path.join(logDir, ...rel.split('/'))
    const target = path.join(stagingDir, ...rel.split('/'))
    let size: number
    try {
      size = fs.lstatSync(source).size
    } catch {
      continue
    }
    if (staged.bytes + size > maxBytes) {
      staged.skipped.push(rel)
      continue
    }
    fs.mkdirSync(path.dirname(target), { recursive: true })
    try {
      // An agent may have swapped the file or a folder on its way for a
      // link since the walk: agent-files opens neither.
      const copied = await copyRedacted(logDir, rel, target, secrets)
      if (!copied) continue
    } catch {
      fs.rmSync(target, { force: true })
      continue
    }
    staged.files.push(target)
    staged.bytes += fs.statSync(target).size
  }
  if (staged.skipped.length > 0) {
    const file = path.join(stagingDir, 'SKIPPED.txt')
    const note = `Left out, over the ${maxBytes}-byte limit of this artifact:\n`
    fs.writeFileSync(file, note + staged.skipped.join('\n') + '\n')
    staged.files.push(file)
  }
  return staged
}

/**
 * Copies one log file, redacted, when it is a regular file with no other
 * hard link (such a link may be a file from outside, linked in).
 */
function copyRedacted(
  logDir: string,
  rel: string,
  target: string,
  secrets: readonly string[]
): Promise<boolean> {
  return inFolderOf(logDir, rel, async (folder, name) => {
    const file = await openRegular(folder, name, { singleLink: true })
    if (!file) return false
    try {
      const out = await fs.promises.open(target, 'wx', 0o600)
      try {
        await pipeHandles(file.handle, redactingStream(secrets), out, CHUNK)
      } finally {
        await out.close()
      }
      return true
    } finally {
      await file.handle.close()
    }
  })
}

/** Link to an artifact of this run, if the run is known. */
export function artifactUrl(
  env: NodeJS.ProcessEnv,
  id: number | undefined
): string | undefined {
  const server = (env.GITHUB_SERVER_URL || 'https://github.com').replace(
    /\/+$/,
    ''
  )
  const repository = env.GITHUB_REPOSITORY
  const run = env.GITHUB_RUN_ID
  if (id === undefined || !repository || !run || !/^\d+$/.test(run))
    return undefined
  return `${server}/${repository}/actions/runs/${run}/artifacts/${id}`
}

/** GitHub refuses `" : < > | * ? \r \n \ /` in artifact names. */
export function artifactName(name: string): string {
  return name.replace(/["':<>|*?\r\n\\/]/g, '_').trim() || 'massgen-logs'
}

/**
 * Stages and uploads the logs. Never throws: a failed upload is a warning,
 * the report goes on without the link. Skipped (undefined) off Actions.
 */
export async function uploadLogs(
  logDir: string,
  options: UploadLogsOptions
): Promise<{ id?: number; url?: string } | undefined> {
  const env = options.env ?? process.env
  if (
    !options.client &&
    (!env.ACTIONS_RUNTIME_TOKEN || !env.ACTIONS_RESULTS_URL)
  ) {
    options.log.info(
      'No artifact service here (ACTIONS_RUNTIME_TOKEN/ACTIONS_RESULTS_URL unset): logs not uploaded.'
    )
    return undefined
  }
  const root = options.tempDir || env.RUNNER_TEMP || os.tmpdir()
  let staging: string | undefined
  try {
    fs.mkdirSync(root, { recursive: true })
    staging = fs.mkdtempSync(path.join(root, 'massgen-logs-'))
    const staged = await stageLogs(logDir, staging, options)
    if (staged.skipped.length > 0) {
      options.log.warning(
        `${staged.skipped.length} log files left out of the artifact (size limit); see SKIPPED.txt in it.`
      )
    }
    if (staged.files.length === 0) {
      options.log.info('No MassGen log files to upload.')
      return undefined
    }
    // Loaded here: the artifact client is large and most code paths never need it.
    const client =
      options.client ??
      new (await import('@actions/artifact')).DefaultArtifactClient()
    const name = artifactName(options.name)
    const uploaded = await client.uploadArtifact(name, staged.files, staging, {
      ...(options.retentionDays ? { retentionDays: options.retentionDays } : {})
    })
    const url = artifactUrl(env, uploaded.id)
    options.log.info(
      `Uploaded the MassGen logs as artifact '${name}' (${staged.files.length} files, ${staged.bytes} bytes)${url ? `: ${url}` : ''}`
    )
    return {
      ...(uploaded.id !== undefined ? { id: uploaded.id } : {}),
      ...(url ? { url } : {})
    }
  } catch (error) {
    const message = redactSecrets(errorText(error), options.secrets ?? [])
    options.log.warning(
      `Could not upload the MassGen logs as an artifact: ${message}`
    )
    return undefined
  } finally {
    if (staging) fs.rmSync(staging, { recursive: true, force: true })
  }
}
