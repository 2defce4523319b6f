// Docker mode with 'context-permission: write': MassGen mounts the repository
// read-write, but the agents' commands run as the image's user (uid 1000 in
// MassGen's images) while the checkout belongs to the runner's user (uid 1001
// on GitHub, modes 0755/0644), so the mount alone lets them write nothing.
// POSIX ACLs give that one uid write access for the run; afterwards they are
// taken back exactly, by the main step or, if it died, by the post step: a
// record in the run's private folder says what to undo.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Inputs } from '../core/constants.js'
import type { ProcessRunner } from '../core/process.js'
import { errorText, stderrDetail, unescapeC } from '../core/text.js'
import type { StageLog } from '../core/log.js'

export class ContainerWriteError extends Error {}

interface ContainerWriteAccess {
  /** Takes the ACLs back; a second call does nothing. */
  revoke(): Promise<void>
}

/** What revoking needs; kept in the run's folder (0700), never elsewhere. */
interface GrantRecord {
  /** The image's uid, the one the ACL entries name. */
  uid: number
  /** Who granted: unless root, only files it owns were (and are) touched. */
  actor: number
  /** Absolute real paths whose trees were opened. */
  roots: string[]
  /** getfacl dump of the extended ACLs that existed before, if any. */
  dump?: string
}

const RECORD_FILE = 'container-write-access.json'
const DUMP_FILE = 'container-write-access.acl'
const RESTORE_FILE = 'container-write-access.restore.acl'
/** A large checkout is walked twice per command; minutes are plenty. */
const TREE_TIMEOUT_MS = 10 * 60_000
const DOCKER_TIMEOUT_MS = 120_000

const NO_ACL_TOOLS =
  `'${Inputs.ContextPermission}: write' in Docker mode needs setfacl and getfacl ` +
  "(the Debian/Ubuntu package 'acl': sudo apt-get install -y acl), because the " +
  "agents' commands run as the image's user"

/**
 * Opens `paths` (files or folder trees) to the image's user for this run.
 * Nothing is changed when that user is root or the action's own user.
 */
export async function grantContainerWrite(
  runner: ProcessRunner,
  image: string,
  paths: string[],
  log: StageLog,
  recordDir: string
): Promise<ContainerWriteAccess> {
  const access = { revoke: () => revokeContainerWrite(runner, recordDir, log) }
  const uid = await imageUid(runner, image)
  const actor = process.getuid?.() ?? 0
  if (uid === 0 || uid === actor) {
    log.info(
      `Docker image ${image} runs commands as uid ${uid}: no ACL needed for '${Inputs.ContextPermission}: write'`
    )
    return access
  }
  await warnIfUserNamespaces(runner, log)
  const roots = paths.map((p) => fs.realpathSync(p))
  const who = `uid ${uid} (the user of ${image})`
  const where = roots.join(', ')
  for (const tool of ['setfacl', 'getfacl']) {
    const probe = await runner.exec(tool, ['--version'], { timeoutMs: 30_000 })
    if (probe.exitCode !== 0)
      throw new ContainerWriteError(
        `${NO_ACL_TOOLS} (uid ${uid}), not the runner's, and '${tool}' could not be run` +
          `${stderrDetail(probe.stderr)}. Install it, or set '${Inputs.ContextPermission}: read'.`
      )
  }
  const started = Date.now()
  const dump = await dumpExtendedAcls(runner, roots, recordDir)
  const record: GrantRecord = { uid, actor, roots, ...(dump ? { dump } : {}) }
  // Written before the first change: a step that dies midway is still undone.
  fs.writeFileSync(path.join(recordDir, RECORD_FILE), JSON.stringify(record), {
    mode: 0o600
  })
  for (const root of roots) {
    const specs = grantSpecs(uid, keeperUid(actor, fs.statSync(root).uid))
    const granted = await runner.exec(
      'find',
      treeArgs(root, uid, actor, {
        dirs: ['setfacl', '-P', '-m', specs.dirs],
        files: ['setfacl', '-P', '-m', specs.files]
      }),
      { timeoutMs: TREE_TIMEOUT_MS }
    )
    if (granted.exitCode !== 0) {
      await access.revoke()
      throw new ContainerWriteError(
        `Could not give ${who} write access to ${where} with POSIX ACLs${stderrDetail(granted.stderr)}. ` +
          'The file system must support ACLs (ext4, xfs, btrfs do). ' +
          `Set '${Inputs.ContextPermission}: read', or use 'docker: false'.`
      )
    }
    if (actor !== 0) await warnIfOthersOwnFiles(runner, root, uid, actor, log)
  }
  log.info(
    `Gave ${who} write access to ${where} with POSIX ACLs for this run ` +
      `(${((Date.now() - started) / 1000).toFixed(1)} s); they are removed when it ends`
  )
  return access
}

/**
 * Takes back what grantContainerWrite gave, from its record in `recordDir`:
 * every ACL of the files the grant could touch is removed, then the ACLs
 * that existed before are put back on the files that are still the same
 * kind, owner and path (no symbolic link on the way: an agent could have
 * replaced a folder with a link to the runner's files). Files the agents
 * created belong to the image's user and keep the entries they inherited,
 * which let the runner's user change and delete them.
 */
export async function revokeContainerWrite(
  runner: ProcessRunner,
  recordDir: string,
  log: StageLog
): Promise<void> {
  const recordFile = path.join(recordDir, RECORD_FILE)
  if (!fs.existsSync(recordFile)) return // Nothing granted, or already taken back.
  try {
    const record = parseRecord(fs.readFileSync(recordFile, 'utf8'), recordDir)
    if (!record) {
      log.warning(`Unreadable ${recordFile}: the run's ACLs stay as they are`)
      return
    }
    const problems = await takeBack(runner, record, recordDir)
    if (problems.length > 0)
      log.warning(
        `Could not take back every ACL given to uid ${record.uid}: ${problems.join('; ')}. ` +
          `'setfacl -R -x u:${record.uid},d:u:${record.uid} <path>' removes them.`
      )
    else
      log.info(
        `Took back the write access of uid ${record.uid} to ${record.roots.join(', ')}`
      )
  } catch (error) {
    log.warning(`Could not take back the ACLs of the run: ${errorText(error)}`)
  } finally {
    fs.rmSync(recordFile, { force: true })
  }
}

/** Clears what the grant touched, then restores what was there; the problems. */
async function takeBack(
  runner: ProcessRunner,
  record: GrantRecord,
  recordDir: string
): Promise<string[]> {
  const problems: string[] = []
  for (const root of record.roots) {
    if (!isPlainPath(root)) continue
    const cleared = await runner.exec(
      'find',
      treeArgs(root, record.uid, record.actor, {
        dirs: ['setfacl', '-P', '-b'],
        files: ['setfacl', '-P', '-b']
      }),
      { timeoutMs: TREE_TIMEOUT_MS }
    )
    if (cleared.exitCode !== 0)
      problems.push(`${root}${stderrDetail(cleared.stderr)}`)
  }
  if (!record.dump) return problems
  const restore = path.join(recordDir, RESTORE_FILE)
  try {
    const { uid, actor } = record
    const kept = restorableDump(
      fs.readFileSync(record.dump, 'utf8'),
      probePath,
      (owner) => isTouched(owner, uid, actor)
    )
    if (!kept) return problems
    fs.writeFileSync(restore, kept, { mode: 0o600 })
    const restored = await runner.exec(
      'setfacl',
      ['-P', `--restore=${restore}`],
      { timeoutMs: TREE_TIMEOUT_MS }
    )
    if (restored.exitCode !== 0)
      problems.push(`the earlier ACLs${stderrDetail(restored.stderr)}`)
    return problems
  } finally {
    fs.rmSync(restore, { force: true })
    fs.rmSync(record.dump, { force: true })
  }
}

/** The uid the image's commands run as. */
async function imageUid(runner: ProcessRunner, image: string): Promise<number> {
  const inspect = await runner.exec(
    'docker',
    ['image', 'inspect', '--format', '{{.Config.User}}', image],
    { timeoutMs: DOCKER_TIMEOUT_MS }
  )
  if (inspect.exitCode !== 0)
    throw new ContainerWriteError(
      `Could not read the user of the Docker image '${image}'${stderrDetail(inspect.stderr)}`
    )
  const user = parseImageUser(inspect.stdout)
  if ('uid' in user) return user.uid
  // A user name: only the image's own /etc/passwd knows its uid.
  const id = await runner.exec(
    'docker',
    ['run', '--rm', '--network', 'none', '--entrypoint', 'id', image, '-u'],
    { timeoutMs: DOCKER_TIMEOUT_MS }
  )
  const uid = id.exitCode === 0 ? parseUid(id.stdout) : undefined
  if (uid === undefined)
    throw new ContainerWriteError(
      `Could not find the uid of user '${user.name}' of the Docker image '${image}' ` +
        `('id -u' in the image${stderrDetail(id.stderr || id.stdout)}), which '${Inputs.ContextPermission}: write' needs`
    )
  return uid
}

/** With remapped uids the ACL would name the wrong user on the runner. */
async function warnIfUserNamespaces(runner: ProcessRunner, log: StageLog) {
  const info = await runner.exec(
    'docker',
    ['info', '--format', '{{json .SecurityOptions}}'],
    { timeoutMs: 30_000 }
  )
  if (/name=(userns|rootless)/.test(info.stdout))
    log.warning(
      'The Docker daemon remaps user ids (userns-remap or rootless), so the ' +
        "image's uid is another uid on the runner: the ACLs for " +
        `'${Inputs.ContextPermission}: write' may not let the agents write.`
    )
}

/** Files neither the actor nor the image's user owns stay closed to the agents. */
async function warnIfOthersOwnFiles(
  runner: ProcessRunner,
  root: string,
  uid: number,
  actor: number,
  log: StageLog
) {
  const found = await runner.exec(
    'find',
    [
      root,
      '!',
      '-uid',
      String(uid),
      '!',
      '-uid',
      String(actor),
      '-print',
      '-quit'
    ],
    { timeoutMs: TREE_TIMEOUT_MS }
  )
  const first = found.stdout.split('\n')[0]?.trim()
  if (first)
    log.warning(
      `Some files under ${root} belong to other users (e.g. ${first}); the agents cannot write them`
    )
}

/** The extended ACLs present before the grant, in a file, or none. */
async function dumpExtendedAcls(
  runner: ProcessRunner,
  roots: string[],
  recordDir: string
): Promise<string | undefined> {
  const dump = path.join(recordDir, DUMP_FILE)
  // Through a file: a dump can be larger than what exec keeps of stdout.
  const done = await runner.exec(
    '/bin/sh',
    [
      '-c',
      'out=$1; shift; umask 077; exec getfacl -R -P -s -n --absolute-names -- "$@" > "$out"',
      'sh',
      dump,
      ...roots
    ],
    { timeoutMs: TREE_TIMEOUT_MS }
  )
  if (done.exitCode !== 0) {
    fs.rmSync(dump, { force: true })
    throw new ContainerWriteError(
      `Could not read the ACLs of ${roots.join(', ')}${stderrDetail(done.stderr)}, ` +
        `so they could not be restored after the run. Set '${Inputs.ContextPermission}: read', ` +
        'or make the folder readable by the runner user.'
    )
  }
  if (fs.statSync(dump).size > 0) return dump
  fs.rmSync(dump, { force: true })
  return undefined
}

function isPlainPath(p: string): boolean {
  try {
    const stat = fs.lstatSync(p)
    return (stat.isDirectory() || stat.isFile()) && fs.realpathSync(p) === p
  } catch {
    return false
  }
}

function probePath(p: string): PathProbe | undefined {
  try {
    const stat = fs.lstatSync(p)
    return {
      uid: stat.uid,
      kind: stat.isDirectory() ? 'dir' : stat.isFile() ? 'file' : 'other',
      realPath: fs.realpathSync(p)
    }
  } catch {
    return undefined
  }
}

// ---- pure parts ----------------------------------------------------------

/** `Config.User` of an image: '' (root), 'name', 'uid', 'name:group', 'uid:gid'. */
export function parseImageUser(
  configUser: string
): { uid: number } | { name: string } {
  const user = configUser.trim().split(':')[0] ?? ''
  if (user === '' || user === 'root') return { uid: 0 }
  const uid = parseUid(user)
  return uid === undefined ? { name: user } : { uid }
}

export function parseUid(text: string): number | undefined {
  const t = text.trim()
  return /^\d{1,10}$/.test(t) && Number(t) <= 0xfffffffe ? Number(t) : undefined
}

/**
 * Whose access the agents' new files must keep: the action's user, or when
 * that is root, the checkout's owner (later steps run as that user). Root
 * and the image's user need no entry.
 */
export function keeperUid(actor: number, rootOwner: number): number {
  return actor !== 0 ? actor : rootOwner
}

/**
 * ACL entries: the image's uid may read, write and enter (X: execute only
 * where someone already may); folders pass both on to what is created in
 * them, with the keeper's too, so the runner's user can still change and
 * delete what the agents leave (on a self-hosted runner the next checkout
 * must clean it).
 */
export function grantSpecs(
  uid: number,
  keeper: number
): { files: string; dirs: string } {
  const files = `u:${uid}:rwX`
  const inherited = [`d:u:${uid}:rwX`]
  if (keeper !== 0 && keeper !== uid) inherited.push(`d:u:${keeper}:rwX`)
  return { files, dirs: [files, ...inherited].join(',') }
}

/**
 * find(1) arguments that run `commands.dirs` on the folders and
 * `commands.files` on the regular files under `root` (never on links: find
 * does not follow them) that a grant touches: not the image user's own (what
 * the agents made keeps its inherited entries), and when the actor is not
 * root only the actor's (it can change no one else's ACLs).
 */
export function treeArgs(
  root: string,
  uid: number,
  actor: number,
  commands: { dirs: string[]; files: string[] }
): string[] {
  if (!path.isAbsolute(root)) throw new Error(`not an absolute path: ${root}`)
  return [
    root,
    ...touchedFilter(uid, actor),
    '(',
    ...['-type', 'd', '-exec', ...commands.dirs, '{}', '+'],
    '-o',
    ...['-type', 'f', '-exec', ...commands.files, '{}', '+'],
    ')'
  ]
}

/** find(1) tests for the owners whose files a grant touches. */
function touchedFilter(uid: number, actor: number): string[] {
  return [
    '!',
    '-uid',
    String(uid),
    ...(actor === 0 ? [] : ['-uid', String(actor)])
  ]
}

/** The same rule as touchedFilter, for one file's owner. */
export function isTouched(owner: number, uid: number, actor: number): boolean {
  return owner !== uid && (actor === 0 || owner === actor)
}

export interface PathProbe {
  uid: number
  kind: 'dir' | 'file' | 'other'
  realPath: string
}

interface AclBlock {
  /** As getfacl wrote it (octal escapes). */
  rawPath: string
  path: string
  owner?: number
  lines: string[]
}

/** Blocks of `getfacl -n --absolute-names` output. */
export function splitAclDump(text: string): AclBlock[] {
  const blocks: AclBlock[] = []
  let current: AclBlock | undefined
  for (const line of text.split('\n')) {
    const file = /^# file: (.*)$/.exec(line)
    if (file) {
      current = {
        rawPath: file[1] ?? '',
        // getfacl writes whitespace, backslash and control bytes as \ooo.
        path: unescapeC(file[1] ?? ''),
        lines: []
      }
      blocks.push(current)
      continue
    }
    if (!current) continue
    const owner = /^# owner: (\d+)$/.exec(line)
    if (owner) current.owner = Number(owner[1])
    else if (line.trim() !== '' && !line.startsWith('#'))
      current.lines.push(line)
  }
  return blocks
}

/**
 * The part of a dump that may be restored: blocks of files the revoke
 * cleared (`touched`, by owner) whose path is still the same kind of file,
 * of the same owner, reached without a symbolic link (setfacl --restore
 * follows links, even with -P). Owner lines are left out so a restore never
 * changes an owner. Empty when nothing is left.
 */
export function restorableDump(
  text: string,
  probe: (path: string) => PathProbe | undefined,
  touched: (owner: number) => boolean
): string {
  return splitAclDump(text)
    .filter((block) => {
      const now = probe(block.path)
      return (
        now !== undefined &&
        now.kind !== 'other' &&
        now.realPath === block.path &&
        block.owner !== undefined &&
        now.uid === block.owner &&
        touched(block.owner) &&
        (now.kind === 'dir' ||
          !block.lines.some((l) => l.startsWith('default:')))
      )
    })
    .map((block) => [`# file: ${block.rawPath}`, ...block.lines, ''].join('\n'))
    .join('\n')
}

/** The record, if it is one this module wrote for `recordDir`. */
export function parseRecord(
  text: string,
  recordDir: string
): GrantRecord | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof value !== 'object' || value === null) return undefined
  const r = value as Record<string, unknown>
  const id = (v: unknown) =>
    typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xfffffffe
  if (!id(r.uid) || !id(r.actor) || r.uid === 0) return undefined
  if (
    !Array.isArray(r.roots) ||
    !r.roots.every((p) => typeof p === 'string' && path.isAbsolute(p))
  )
    return undefined
  if (r.dump !== undefined && r.dump !== path.join(recordDir, DUMP_FILE))
    return undefined
  return {
    uid: r.uid as number,
    actor: r.actor as number,
    roots: r.roots as string[],
    ...(r.dump !== undefined ? { dump: r.dump } : {})
  }
}
