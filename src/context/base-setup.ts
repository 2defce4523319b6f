// The files `config`, `instructions-file` and `query-file` name, read from
// the base commit through the contents API on events that carry someone
// else's code (event/setup-source.ts says which). The checkout is never read
// for them there: it may be the pull request's head, and whoever wrote it
// would set up the review (MCP servers on the runner, a backend pointed at
// their server with your key). Any doubt fails the run closed, with an error
// naming the input.
import type { SetupSource } from '../event/setup-source.js'
import type { GitHubApi } from '../github/api.js'
import type { FileAtCommit } from '../github/contents.js'
import type { PullBase } from '../github/pull.js'
import { Inputs } from '../core/constants.js'
import { errorText } from '../core/text.js'
import { InputError, queryFromText } from '../inputs/settings.js'
import type { SetupFileRef, Settings } from '../core/types.js'
import { configFromText, instructionsFromText } from '../inputs/user-inputs.js'
import {
  MAX_SETTINGS_FILE_BYTES,
  parseSettingsFile,
  SETTINGS_FILE,
  settingsFileInWorkspace,
  type SettingsFile
} from '../inputs/settings-file.js'

type NotAFile = Exclude<FileAtCommit, { kind: 'file' }>

function why(read: NotAFile, place = 'the base commit'): string {
  switch (read.kind) {
    case 'absent':
      return `is not in ${place} (add it to the base branch first)`
    case 'link':
      return `is a link in ${place} (expected a regular file)`
    case 'not-a-file':
      return `is a ${read.type === 'dir' ? 'folder' : read.type} in ${place} (expected a regular file)`
    case 'too-large':
      return `is too large in ${place}`
    case 'unreadable':
      return `could not be read from ${place}`
  }
}

/**
 * Settings with the base commit's setup files read in (`baseSetup` empty
 * after). Unchanged when no input names a file.
 */
export async function withBaseSetup(
  settings: Settings,
  source: SetupSource,
  github: (() => GitHubApi) | undefined
): Promise<Settings> {
  if (settings.baseSetup.length === 0) return settings
  const named = settings.baseSetup.map((f) => `'${f.input}'`).join(', ')
  if (source.from === 'workspace')
    throw new Error('base-setup: the setup was to come from the workspace')
  const intro =
    `On ${source.why} the checkout may hold someone else's code, so ${named} ` +
    'must be read from the base commit through the API, never from the checkout'
  if (source.from === 'none')
    throw new InputError(
      `${intro}; this event names no base commit. Nothing was run.`
    )
  if (!github)
    throw new InputError(
      `${intro}, which needs input '${Inputs.GithubToken}' (with contents: read). Nothing was run.`
    )
  const api = github()
  const ref = await baseRef(api, source, intro)
  const errors: string[] = []
  const texts = new Map<string, string>()
  for (const file of settings.baseSetup) {
    const read = await api
      .getFileAtCommit(file.path, ref, file.maxBytes)
      .catch((error: unknown): NotAFile => ({
        kind: 'unreadable',
        detail: errorText(error)
      }))
    if (read.kind === 'file') texts.set(file.input, read.text)
    else errors.push(problem(file, read, ref))
  }
  const at = (file: SetupFileRef) => `${file.path} at base ${ref.slice(0, 12)}`
  const values: Partial<Settings> = {}
  for (const file of settings.baseSetup) {
    const text = texts.get(file.input)
    if (text === undefined) continue
    if (file.input === Inputs.Config)
      values.userConfig = configFromText(text, at(file), errors)
    else if (file.input === Inputs.InstructionsFile)
      values.instructions = instructionsFromText(text, at(file), errors)
    else if (file.input === Inputs.QueryFile)
      values.query = queryFromText(text, at(file), errors)
  }
  if (errors.length > 0) throw new InputError(errors.join('\n'))
  return {
    ...settings,
    ...values,
    setupFiles: settings.baseSetup.map(at),
    baseSetup: []
  }
}

/**
 * The repository config file (inputs/settings-file.ts): on events that carry
 * someone else's code it is read through the API, never from the checkout,
 * so a pull request that edits it does not change its own review; else from
 * the workspace. Undefined when there is none (the inputs and defaults
 * apply); an InputError when it is there but cannot be used, or when where
 * it is cannot be learned.
 */
export async function readSettingsFile(
  source: SetupSource,
  where: {
    workspace: string
    github: (() => GitHubApi) | undefined
    /** The pull request's base as the event names it (no API call then). */
    base?: PullBase
    /** The default branch as the event names it (else asked once). */
    defaultBranch?: string
    note: (message: string) => void
  }
): Promise<SettingsFile | undefined> {
  if (source.from === 'workspace')
    return usable(settingsFileInWorkspace(where.workspace))
  // An event naming outside code and no base (GitHub's own payloads always
  // name the default branch): the permission gate decides it next, so no
  // error here takes the place of its refusal.
  if (source.from === 'none') {
    where.note(
      `On ${source.why} the event names no base commit: ${SETTINGS_FILE} was not read.`
    )
    return undefined
  }
  // Unread for want of a token, the defaults would stand for the
  // repository's own settings (its gate among them): the run stops instead,
  // as for the setup files.
  if (!where.github)
    throw new InputError(
      `On ${source.why} ${SETTINGS_FILE} is read from the base commit through the API, which needs input ` +
        `'${Inputs.GithubToken}' (with contents: read). Nothing was run.`
    )
  const api = where.github()
  const intro = `On ${source.why} ${SETTINGS_FILE} must be read through the API, never from the checkout`
  const commit =
    source.from === 'branch'
      ? { sha: source.ref, label: `branch '${source.ref}'` }
      : await policyCommit(api, source, where, intro)
  const read = await api
    .getFileAtCommit(SETTINGS_FILE, commit.sha, MAX_SETTINGS_FILE_BYTES)
    .catch((error: unknown): NotAFile => ({
      kind: 'unreadable',
      detail: errorText(error)
    }))
  if (read.kind === 'absent') return undefined
  const origin = `${SETTINGS_FILE} at ${commit.label}`
  if (read.kind === 'file') return usable(parseSettingsFile(read.text, origin))
  const detail =
    read.kind === 'unreadable' && read.detail
      ? `: ${read.detail.slice(0, 300)}`
      : ''
  const size =
    read.kind === 'too-large'
      ? ` (expected at most ${MAX_SETTINGS_FILE_BYTES} bytes)`
      : ''
  const place = commit.place ?? 'the base commit'
  throw new InputError(
    `${SETTINGS_FILE} ${why(read, place)}${size}${detail} (read from ${commit.label}, ` +
      'not from the checkout: a pull request cannot set up its own review). Nothing was run.'
  )
}

/** The commit the file is read at, and how messages name it. */
interface PolicyCommit {
  sha: string
  label: string
  place?: string
}

/**
 * The repository's policy lives on its default branch. A pull request's
 * author can retarget it to any branch (an old release branch without the
 * file, or with a laxer one) and have a maintainer's comment, or a push,
 * run the review there; so a base other than the default branch reads the
 * file at the default branch's head. A base that is the default branch
 * reads it at the base commit, as the event names it.
 */
async function policyCommit(
  api: GitHubApi,
  source: Extract<SetupSource, { from: 'pull-base' }>,
  where: { base?: PullBase; defaultBranch?: string; note: (m: string) => void },
  intro: string
): Promise<PolicyCommit> {
  const base = where.base ?? (await pullBase(api, source, intro))
  const branch =
    where.defaultBranch ??
    (await asked(
      () => api.getDefaultBranch(),
      intro,
      'the default branch',
      /\S/
    ))
  if (base.ref === branch)
    return { sha: base.sha, label: `base ${base.sha.slice(0, 12)}` }
  const sha = await asked(
    () => api.getBranchHead(branch),
    intro,
    `the commit the default branch '${branch}' is at`,
    /^[0-9a-f]{40}$/i
  )
  const label = `default branch '${branch}' at ${sha.slice(0, 12)}`
  where.note(
    `${SETTINGS_FILE} is read from the ${label}, not from the base branch ` +
      `'${base.ref}' (${base.sha.slice(0, 12)}) of pull request #${source.pullNumber}: ` +
      "the repository's policy lives on its default branch, and a pull request can be retargeted to any branch."
  )
  return { sha, label, place: `the default branch '${branch}'` }
}

/** What GitHub names in the expected form, or an InputError (fail closed). */
async function asked(
  ask: () => Promise<string>,
  intro: string,
  what: string,
  form: RegExp
): Promise<string> {
  try {
    const answer = await ask()
    if (form.test(answer)) return answer
    throw new Error(`GitHub named none ('${answer.slice(0, 40)}')`)
  } catch (error) {
    throw new InputError(
      `${intro}; ${what} could not be found: ${String(error).slice(0, 300)}. Nothing was run.`
    )
  }
}

async function pullBase(
  api: GitHubApi,
  source: Extract<SetupSource, { from: 'pull-base' }>,
  intro: string
): Promise<PullBase> {
  try {
    const base = await api.getPullBase(source.pullNumber)
    if (/^[0-9a-f]{40}$/i.test(base.sha) && base.ref.trim()) return base
    throw new Error(`the API named no base commit ('${base.sha.slice(0, 40)}')`)
  } catch (error) {
    throw new InputError(
      `${intro}; the base commit could not be found: ${String(error).slice(0, 300)}. Nothing was run.`
    )
  }
}

function usable(
  parsed: ReturnType<typeof parseSettingsFile> | undefined
): SettingsFile | undefined {
  if (parsed === undefined || parsed.ok) return parsed?.file
  throw new InputError(`${parsed.errors.join('\n')}\nNothing was run.`)
}

async function baseRef(
  api: GitHubApi,
  source: Exclude<SetupSource, { from: 'workspace' | 'none' }>,
  intro: string
): Promise<string> {
  if (source.from === 'branch') return source.ref
  return (await pullBase(api, source, intro)).sha
}

function problem(file: SetupFileRef, read: NotAFile, ref: string): string {
  const size =
    read.kind === 'too-large'
      ? ` (expected at most ${file.maxBytes} bytes)`
      : ''
  const detail =
    read.kind === 'unreadable' && read.detail
      ? `: ${read.detail.slice(0, 300)}`
      : ''
  return (
    `Input '${file.input}': '${file.path}' ${why(read)}${size}${detail} ` +
    `(read from base ${ref.slice(0, 12)}, not from the checkout: a pull request ` +
    'cannot set up its own review). Nothing was run.'
  )
}
