// actions/checkout keeps the job's token in the repository's git config by
// default (persist-credentials: true), as an `http.<url>.extraheader` line
// `AUTHORIZATION: basic base64(x-access-token:TOKEN)`. That config sits in
// the context path the agents read. So for the run the header lines are
// taken out of every config of the repository (its .git/config, worktree
// and submodule configs), and put back, byte for byte, once MassGen has
// stopped: by the main step, or by the post step when the main step died.
//
// Put back only into an unchanged file: an agent that edited the config
// during the run (a `url.insteadOf` sending github.com elsewhere, a hook
// path) must not get the token sent where it chose. Then the token stays
// out, and a warning says why.
//
// The post step gets no copy of the token from here: the state keeps the
// removed lines with their credential replaced by a placeholder, and a hash
// of the credential. The post step rebuilds the credential from its own
// `github-token` (the token actions/checkout uses by default) and writes it
// back only when the hash matches.
//
// actions/checkout v6 keeps the header in a file of its own instead,
// `$RUNNER_TEMP/git-credentials-<uuid>.config`, which the repository's
// configs include (`includeIf.gitdir:<repo>/.git.path`). Such a file, when
// it is directly in RUNNER_TEMP, is treated like a config of the repository:
// its header lines are taken out for the run and put back the same way.
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { readAgentFile, walkFiles, writeAgentFile } from './agent-files.js'
import { folderId } from './no-follow.js'
import { errorText } from '../core/text.js'
import type { StageLog } from '../core/log.js'

const MAX_CONFIG_BYTES = 4 * 1024 * 1024
const HEADER_LINE = /^\s*extraheader\s*=.*\bauthorization\s*:/i
const CREDENTIAL = /(\bauthorization\s*:\s*[A-Za-z]+\s+)([^\s"]+)/i
const PLACEHOLDER = '\u0000credential\u0000'

interface RemovedLine {
  /** Line number in the original file. */
  index: number
  /** The line with its credential replaced by PLACEHOLDER. */
  template: string
  /** sha256 of the credential (the base64 after `basic`). */
  credentialHash: string
}

/** One config file the headers were taken from; what the state keeps. */
export interface TakenFile {
  /** The git folder (real path) and the config's path inside it. */
  root: string
  /** The git folder's device and inode: restored only into that folder. */
  rootId: string
  rel: string
  mode: number
  /** sha256 of the file as the action left it for the run. */
  neutralHash: string
  lines: RemovedLine[]
}

export interface TakenCredentials {
  files: TakenFile[]
  /** The credentials' values (the tokens inside), for redaction and masking. */
  secrets: string[]
  /** The original files, kept in memory for an exact restore by the main step. */
  originals: Map<string, Buffer>
}

const sha256 = (data: string | Buffer) =>
  createHash('sha256').update(data).digest('hex')

/** The git folder of the repository holding `contextPath`, if any. */
function findGitDir(contextPath: string): string | undefined {
  let dir = contextPath
  try {
    if (!fs.statSync(dir).isDirectory()) dir = path.dirname(dir)
  } catch {
    return undefined
  }
  for (;;) {
    const dotGit = path.join(dir, '.git')
    try {
      const stat = fs.lstatSync(dotGit)
      if (stat.isDirectory()) return fs.realpathSync(dotGit)
      if (stat.isFile()) {
        // A worktree or submodule: `gitdir: <path>`.
        const line = /^gitdir:\s*(.+)$/m.exec(fs.readFileSync(dotGit, 'utf8'))
        if (line?.[1]) return fs.realpathSync(path.resolve(dir, line[1].trim()))
      }
    } catch {
      // No .git here: look further up.
    }
    const up = path.dirname(dir)
    if (up === dir) return undefined
    dir = up
  }
}

/** Folders of a git folder that never hold a config (objects can be huge). */
const NOT_CONFIG = /^(objects|refs|logs|hooks|lfs|info|rr-cache|branches)$/
const CONFIG_FILE =
  /^(config|config\.worktree|worktrees\/[^/]+\/config\.worktree|modules\/.+\/config)$/

/** Config files of the repository: [git folder, path inside it]. */
function configFiles(gitDir: string): Array<[string, string]> {
  const roots = new Set([gitDir])
  try {
    const common = fs.readFileSync(path.join(gitDir, 'commondir'), 'utf8')
    roots.add(fs.realpathSync(path.resolve(gitDir, common.trim())))
  } catch {
    // Not a linked worktree.
  }
  const found: Array<[string, string]> = []
  for (const root of roots) {
    for (const { rel } of walkFiles(root, (name) => !NOT_CONFIG.test(name)))
      if (CONFIG_FILE.test(rel)) found.push([root, rel])
  }
  return found
}

/** How actions/checkout v6 names its credentials file (include.path / includeIf.*.path). */
const INCLUDED_CREDENTIALS =
  /^\s*path\s*=\s*"?([^"\n]*\/(git-credentials-[0-9a-f-]+\.config))"?\s*$/gim

/**
 * The credentials files of actions/checkout v6 that `configs` include, as
 * [RUNNER_TEMP's real path, file name]: only files directly in RUNNER_TEMP
 * (where checkout writes them), never a path a config could aim elsewhere.
 */
async function includedCredentialFiles(
  configs: Array<[string, string]>,
  runnerTemp: string | undefined
): Promise<Array<[string, string]>> {
  if (!runnerTemp) return []
  let temp: string
  try {
    temp = fs.realpathSync(runnerTemp)
  } catch {
    return []
  }
  const names = new Set<string>()
  for (const [root, rel] of configs) {
    const text = (await readAgentFile(root, rel, MAX_CONFIG_BYTES))?.toString(
      'utf8'
    )
    for (const match of text?.matchAll(INCLUDED_CREDENTIALS) ?? []) {
      const [, included = '', name = ''] = match
      if (sameFolder(path.dirname(included), temp)) names.add(name)
    }
  }
  return [...names].map((name) => [temp, name])
}

function sameFolder(a: string, b: string): boolean {
  try {
    return fs.realpathSync(a) === b
  } catch {
    return false
  }
}

/** Splits a config's lines into the kept ones and the removed header lines. */
function withoutHeaders(text: string): {
  kept: string[]
  removed: Array<{ index: number; line: string; credential: string }>
} {
  const kept: string[] = []
  const removed: Array<{ index: number; line: string; credential: string }> = []
  text.split('\n').forEach((line, index) => {
    const credential = HEADER_LINE.test(line)
      ? (CREDENTIAL.exec(line)?.[2] ?? '')
      : undefined
    if (credential === undefined) kept.push(line)
    else removed.push({ index, line, credential })
  })
  return { kept, removed }
}

/** The token inside a `basic` credential (base64 of `user:token`), if any. */
function tokenOf(credential: string): string | undefined {
  const decoded = Buffer.from(credential, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  return colon > 0 ? decoded.slice(colon + 1) : undefined
}

/**
 * Takes the header lines out of every config of the repository holding
 * `contextPath`; warns once when there were any.
 */
export async function takeGitCredentials(
  contextPath: string,
  log: StageLog,
  /** RUNNER_TEMP, where actions/checkout v6 keeps the header. */
  runnerTemp?: string
): Promise<TakenCredentials> {
  const taken: TakenCredentials = {
    files: [],
    secrets: [],
    originals: new Map()
  }
  const gitDir = findGitDir(contextPath)
  if (!gitDir) return taken
  const configs = configFiles(gitDir)
  const files = [
    ...configs,
    ...(await includedCredentialFiles(configs, runnerTemp))
  ]
  for (const [root, rel] of files) {
    try {
      await takeFrom(root, rel, taken)
    } catch (error) {
      log.warning(
        `Could not take the credentials out of ${path.join(root, rel)}: ${errorText(error)}`
      )
    }
  }
  if (taken.files.length > 0) {
    log.warning(
      `The checkout keeps a GitHub token in its git config (${taken.files
        .map((f) => path.join(f.root, f.rel))
        .join(', ')}), which the agents could read or use. ` +
        'It is taken out for the run and put back after. Set ' +
        '`persist-credentials: false` on actions/checkout so it is never there.'
    )
  }
  return taken
}

async function takeFrom(
  root: string,
  rel: string,
  taken: TakenCredentials
): Promise<void> {
  const original = await readAgentFile(root, rel, MAX_CONFIG_BYTES)
  if (!original) return
  const { kept, removed } = withoutHeaders(original.toString('utf8'))
  if (removed.length === 0) return
  const neutral = kept.join('\n')
  const mode = statMode(root, rel)
  await writeAgentFile(root, rel, neutral, mode)
  taken.originals.set(path.join(root, rel), original)
  taken.files.push({
    root,
    rootId: folderId(root),
    rel,
    mode,
    neutralHash: sha256(neutral),
    lines: removed.map((r) => ({
      index: r.index,
      template: r.line.replace(r.credential, PLACEHOLDER),
      credentialHash: sha256(r.credential)
    }))
  })
  for (const r of removed) {
    taken.secrets.push(r.credential)
    const token = tokenOf(r.credential)
    if (token) taken.secrets.push(token)
  }
}

function statMode(root: string, rel: string): number {
  try {
    return fs.lstatSync(path.join(root, rel)).mode & 0o777
  } catch {
    return 0o644
  }
}

/** What the post step needs to put the credentials back (no credential in it). */
export function credentialState(taken: TakenCredentials): string {
  return taken.files.length > 0 ? JSON.stringify(taken.files) : ''
}

/**
 * Puts the lines back. `original` gives a file's bytes as they were (main
 * step); without it the file is rebuilt from the state's templates and
 * `token` (post step). Returns the files that could not be restored.
 */
export async function restoreGitCredentials(
  files: TakenFile[],
  log: StageLog,
  source: { originals: Map<string, Buffer> } | { token: string }
): Promise<string[]> {
  const failed: string[] = []
  for (const file of files) {
    const where = path.join(file.root, file.rel)
    // An agent may have moved the .git folder and put another (or a link to
    // one) in its place: only the folder the headers came from counts.
    const now = await readAgentFile(
      file.root,
      file.rel,
      MAX_CONFIG_BYTES,
      file.rootId
    )
    if (!now || sha256(now) !== file.neutralHash) {
      log.warning(
        `${where} changed during the run (an agent may have edited it), so the ` +
          'GitHub token was not put back into it. Later steps that push or fetch ' +
          'must check out again.'
      )
      failed.push(where)
      continue
    }
    const original =
      'originals' in source
        ? source.originals.get(where)
        : rebuild(now.toString('utf8'), file, source.token)
    if (!original) {
      log.warning(
        `The GitHub token taken out of ${where} could not be rebuilt (it was not ` +
          "this job's github-token); it was not put back."
      )
      failed.push(where)
      continue
    }
    await writeAgentFile(file.root, file.rel, original, file.mode, file.rootId)
    log.info(`Put the checkout's credentials back into ${where}`)
  }
  return failed
}

/** The original file from the neutral one, the templates and the token. */
function rebuild(
  neutral: string,
  file: TakenFile,
  token: string
): string | undefined {
  if (!token) return undefined
  const credential = Buffer.from(`x-access-token:${token}`).toString('base64')
  if (file.lines.some((l) => l.credentialHash !== sha256(credential)))
    return undefined
  const lines = neutral.split('\n')
  for (const l of [...file.lines].sort((a, b) => a.index - b.index))
    lines.splice(l.index, 0, l.template.replace(PLACEHOLDER, credential))
  return lines.join('\n')
}

/** Parses the post step's saved state; [] when absent or not ours. */
export function parseCredentialState(text: string): TakenFile[] {
  if (!text) return []
  try {
    const files = JSON.parse(text) as TakenFile[]
    return Array.isArray(files) ? files : []
  } catch {
    return []
  }
}

/** How many folder entries gitConfigsUnder looks at, at most: a huge workspace is refused, not half read. */
const MAX_WALKED_ENTRIES = 500_000

/**
 * The git folders under `workspace` (every `.git` folder, and the gitdir a
 * `.git` file points to), never following a link, never entering a `.git`
 * folder itself. Throws past MAX_WALKED_ENTRIES entries.
 */
function gitDirsUnder(workspace: string): string[] {
  const found = new Set<string>()
  let seen = 0
  const stack = [workspace]
  for (let dir = stack.pop(); dir !== undefined; dir = stack.pop()) {
    let entries: fs.Dirent[]
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true })
    } catch {
      continue
    }
    seen += entries.length
    if (seen > MAX_WALKED_ENTRIES)
      throw new Error(
        `${workspace} holds over ${MAX_WALKED_ENTRIES} entries, too many to check for git credentials`
      )
    for (const entry of entries) {
      const full = path.join(dir, entry.name)
      if (entry.name === '.git') {
        const gitDir = findGitDir(dir)
        if (gitDir) found.add(gitDir)
      } else if (entry.isDirectory()) stack.push(full)
    }
  }
  return [...found]
}

/**
 * Every file that may hold the job's token for git under `workspace`: each
 * repository's configs (worktree and submodule ones too), the repository
 * holding `contextPath`, and actions/checkout v6's credentials files
 * (`$RUNNER_TEMP/git-credentials-<uuid>.config`, included or not), as full
 * paths with their text.
 */
export async function gitCredentialTexts(
  workspace: string,
  contextPath: string,
  runnerTemp: string | undefined
): Promise<Array<{ file: string; text: string }>> {
  const gitDirs = new Set(gitDirsUnder(workspace))
  const own = findGitDir(contextPath)
  if (own) gitDirs.add(own)
  const configs = [...gitDirs].flatMap(configFiles)
  const files = [
    ...configs,
    ...(await includedCredentialFiles(configs, runnerTemp))
  ]
  if (runnerTemp)
    try {
      const temp = fs.realpathSync(runnerTemp)
      for (const name of fs.readdirSync(temp))
        if (/^git-credentials-.*\.config$/.test(name)) files.push([temp, name])
    } catch {
      // No RUNNER_TEMP: no checkout v6 credentials file.
    }
  const texts: Array<{ file: string; text: string }> = []
  for (const [root, rel] of files) {
    const data = await readAgentFile(root, rel, MAX_CONFIG_BYTES)
    if (data)
      texts.push({ file: path.join(root, rel), text: data.toString('utf8') })
  }
  return texts
}
