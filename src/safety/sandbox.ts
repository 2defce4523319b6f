// Local mode's sandbox: the agents' commands run on the runner, so MassGen
// and everything it starts runs in its own PID namespace (the action's and
// the runner's processes, and so their /proc/<pid>/environ with the token,
// cannot be seen), its own mount namespace (the runner's home, work and temp
// folders are hidden behind empty tmpfs mounts; only the repository, the
// run's folder and the tools MassGen needs are bound back, the repository
// read-only unless context-permission is write, the Docker socket masked),
// with no new privileges (sudo and other setuid programs cannot raise them)
// and no supplementary groups (no docker group). Making namespaces needs
// root: the action is root (a `container:` job) or has passwordless sudo (as
// GitHub-hosted runners do). As root the agents run as `nobody`, since a
// root process without capabilities still owns the whole system's files.
import type { Log } from '../core/log.js'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { isInside } from '../core/paths.js'
import type { ProcessRunner } from '../core/process.js'

type Privilege = 'root' | 'sudo' | 'none'

interface BoundPath {
  path: string
  writable: boolean
}

interface SandboxSpec {
  uid: number
  gid: number
  /** Folders replaced by an empty tmpfs inside the sandbox. */
  hide: string[]
  /** Paths bound back at the same place, in this order (outer first). */
  keep: BoundPath[]
  /** MassGen's working folder (and HOME's parent) inside the sandbox. */
  workDir: string
  home: string
}

/** The unprivileged user agents run as when the action itself is root. */
export const NOBODY = 65534

interface SandboxInput {
  /** The action's own uid and gid. */
  uid: number
  gid: number
  /** The runner user's home, RUNNER_TEMP, and the run's work folder. */
  home: string
  runnerTemp: string | undefined
  workDir: string
  /** The repository (and any other context path) with its permission. */
  contextPaths: BoundPath[]
  /** Installed tools MassGen runs (its virtualenv, Python, PATH folders). */
  toolPaths: string[]
  /**
   * Whether the agents' user may pass through a folder (search permission):
   * folders it may not are hidden too, so only what is bound back shows.
   */
  canEnter: (folder: string, uid: number, gid: number) => boolean
}

class SandboxError extends Error {}

export function planSandbox(input: SandboxInput): SandboxSpec {
  const asRoot = input.uid === 0
  const uid = asRoot ? NOBODY : input.uid
  const gid = asRoot ? NOBODY : input.gid
  const private_ = [
    input.home,
    input.runnerTemp && path.dirname(input.runnerTemp)
  ].filter((p): p is string => Boolean(p))
  // A tool folder that holds a private folder would show it again.
  const tools = input.toolPaths.filter(
    (t) => !private_.some((p) => isInside(p, t))
  )
  const keep: BoundPath[] = [
    ...tools.map((p) => ({ path: p, writable: false })),
    ...input.contextPaths,
    { path: input.workDir, writable: true }
  ]
  const closed = keep.flatMap((k) =>
    ancestors(k.path).filter((a) => !input.canEnter(a, uid, gid))
  )
  const hide = outermost([...private_, ...closed].filter((p) => p !== '/'))
  return {
    uid,
    gid,
    hide,
    // Outer paths first, so a read-only folder inside a writable one stays
    // read-only; duplicates keep the most restrictive permission.
    keep: dedupe(keep).sort(
      (a, b) => depth(a.path) - depth(b.path) || a.path.localeCompare(b.path)
    ),
    workDir: input.workDir,
    home: path.join(input.workDir, 'home')
  }
}

function ancestors(p: string): string[] {
  const out: string[] = []
  for (let dir = path.dirname(p); dir !== '/'; dir = path.dirname(dir))
    out.push(dir)
  return out
}

function depth(p: string): number {
  return p.split('/').length
}

/** Drops folders inside another folder of the list: one tmpfs hides both. */
function outermost(folders: string[]): string[] {
  const unique = [...new Set(folders.map((f) => path.resolve(f)))]
  return unique
    .filter((f) => !unique.some((o) => o !== f && isInside(f, o)))
    .sort()
}

function dedupe(paths: BoundPath[]): BoundPath[] {
  const byPath = new Map<string, BoundPath>()
  for (const p of paths) {
    const key = path.resolve(p.path)
    const seen = byPath.get(key)
    byPath.set(key, {
      path: key,
      writable: seen ? seen.writable && p.writable : p.writable
    })
  }
  return [...byPath.values()]
}

/**
 * Runs inside the new namespaces as root: stages the kept paths, hides the
 * private folders, binds the kept paths back (read-only unless writable),
 * masks the container sockets, then drops to the agents' user for good.
 * Arguments: uid gid PATH home workdir {hide:P | ro:P | rw:P}... -- command...
 * (PATH travels as an argument because sudo replaces it with its secure_path.)
 * Paths travel as arguments, never through the shell's parser.
 */
const SANDBOX_SCRIPT = `set -eu
uid=$1 gid=$2 path=$3 home=$4 workdir=$5; shift 5
stage=$(mktemp -d /tmp/.massgen-sandbox.XXXXXX)
mount -t tmpfs -o mode=0700,size=64k massgen-stage "$stage"
hides=0 keeps=0
for arg in "$@"; do
  [ "$arg" = -- ] && break
  case "$arg" in
    hide:*) hides=$((hides+1)) ;;
    ro:*|rw:*)
      keeps=$((keeps+1)); p=\${arg#??:}
      if [ -d "$p" ]; then mkdir "$stage/$keeps"; else : > "$stage/$keeps"; fi
      mount --rbind "$p" "$stage/$keeps" ;;
  esac
done
for arg in "$@"; do
  [ "$arg" = -- ] && break
  case "$arg" in hide:*) mount -t tmpfs -o mode=0755 massgen-hidden "\${arg#hide:}" ;; esac
done
i=0
while [ "$1" != -- ]; do
  case "$1" in
    ro:*|rw:*)
      i=$((i+1)); p=\${1#??:}
      if [ -d "$stage/$i" ]; then mkdir -p "$p"
      else mkdir -p "$(dirname "$p")"; [ -e "$p" ] || : > "$p"; fi
      mount --rbind "$stage/$i" "$p"
      case "$1" in ro:*) mount -o remount,bind,ro "$p" ;; esac ;;
  esac
  shift
done
shift
umount -l "$stage"
rmdir "$stage" 2>/dev/null || true
for s in /var/run/docker.sock /run/docker.sock /run/containerd/containerd.sock /var/run/containerd/containerd.sock; do
  if [ -S "$s" ]; then mount --bind /dev/null "$s"; fi
done
mkdir -p "$home"
# As root the agents run as nobody: the run's folder becomes theirs.
chown -R -h "$uid:$gid" "$workdir"
cd "$workdir"
export HOME="$home" PATH="$path"
exec setpriv --reuid="$uid" --regid="$gid" --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all -- "$@"
`

/** The command line that starts `command args` inside the sandbox. */
export function sandboxedCommand(
  spec: SandboxSpec,
  privilege: Exclude<Privilege, 'none'>,
  command: string,
  args: string[],
  pathVar: string
): { command: string; args: string[] } {
  const inner = [
    'unshare',
    '--pid',
    '--fork',
    '--kill-child',
    '--mount-proc',
    '--mount',
    '--propagation',
    'private',
    '--',
    '/bin/sh',
    '-c',
    SANDBOX_SCRIPT,
    'massgen-sandbox',
    String(spec.uid),
    String(spec.gid),
    pathVar,
    spec.home,
    spec.workDir,
    ...spec.hide.map((h) => `hide:${h}`),
    ...spec.keep.map((k) => `${k.writable ? 'rw' : 'ro'}:${k.path}`),
    '--',
    command,
    ...args
  ]
  // sudo -E keeps the environment (the agents' keys travel there, never in
  // arguments, which every user can read in /proc/<pid>/cmdline).
  if (privilege === 'sudo')
    return { command: 'sudo', args: ['-n', '-E', '--', ...inner] }
  const [first = 'unshare', ...rest] = inner
  return { command: first, args: rest }
}

/** Root, passwordless sudo, or neither. */
async function detectPrivilege(
  runner: ProcessRunner,
  uid: number
): Promise<Privilege> {
  if (uid === 0) return 'root'
  const probe = await runner.exec('sudo', ['-n', '-E', 'true'], {
    timeoutMs: 10_000
  })
  return probe.exitCode === 0 ? 'sudo' : 'none'
}

/** Search permission on a folder for uid/gid, by its mode bits (no ACLs). */
function canEnterFolder(folder: string, uid: number, gid: number) {
  try {
    const st = fs.statSync(folder)
    if (uid === 0) return true
    if (st.uid === uid) return (st.mode & 0o100) !== 0
    if (st.gid === gid) return (st.mode & 0o010) !== 0
    return (st.mode & 0o001) !== 0
  } catch {
    return false
  }
}

/**
 * Folders MassGen needs besides the run's own: its installation and the
 * Python it links to, and PATH's folders that exist (node and npx for the
 * filesystem MCP server, git), all read-only.
 */
function toolPathsFor(
  massgenExecutable: string,
  pathVar: string | undefined
): string[] {
  const paths: string[] = []
  if (massgenExecutable.startsWith('/')) {
    const bin = path.dirname(massgenExecutable)
    paths.push(path.dirname(bin))
    try {
      const python = fs.realpathSync(path.join(bin, 'python'))
      paths.push(path.dirname(path.dirname(python)))
    } catch {
      // Not a virtualenv: its folder is enough.
    }
  }
  for (const entry of (pathVar ?? '').split(':')) {
    if (!entry.startsWith('/')) continue
    try {
      if (fs.statSync(entry).isDirectory()) paths.push(fs.realpathSync(entry))
    } catch {
      // Missing PATH entries are common; nothing to bind.
    }
  }
  return [...new Set(paths)].filter((p) => !isSystemFolder(p))
}

/** Folders every user can read already and that are never hidden. */
function isSystemFolder(p: string): boolean {
  return /^\/(usr|bin|sbin|lib|lib64|etc)(\/|$)/.test(p)
}

export interface Launch {
  command: string
  args: string[]
  env: NodeJS.ProcessEnv
}

interface SandboxRequest {
  workDir: string
  contextPaths: BoundPath[]
  /** More installed tools MassGen starts (the agents' read server, its Node). */
  toolPaths?: string[]
  env: NodeJS.ProcessEnv
  log: Pick<Log, 'info'>
}

/**
 * Wraps MassGen's launch in the sandbox after checking, with a command that
 * does nothing, that the sandbox can be made on this runner.
 */
export async function sandboxLaunch(
  runner: ProcessRunner,
  launch: Launch,
  request: SandboxRequest
): Promise<Launch> {
  const uid = process.getuid?.() ?? 0
  const gid = process.getgid?.() ?? 0
  const privilege = await detectPrivilege(runner, uid)
  if (privilege === 'none') {
    throw new SandboxError(
      "Local mode runs the agents' commands in a sandbox (own PID and mount " +
        'namespaces), which needs root or passwordless sudo (`sudo -n`); this runner ' +
        "has neither. Use Docker mode ('docker: true'), give the runner user " +
        "passwordless sudo, or set 'local-sandbox: false' to run the agents' " +
        'commands as the runner user, where they can read the GitHub token and ' +
        'change the job (only for trusted questions on private runners).'
    )
  }
  const spec = planSandbox({
    uid,
    gid,
    home: os.homedir(),
    runnerTemp: request.env.RUNNER_TEMP,
    workDir: request.workDir,
    contextPaths: request.contextPaths,
    toolPaths: [
      ...toolPathsFor(launch.command, launch.env.PATH),
      ...(request.toolPaths ?? [])
    ],
    canEnter: canEnterFolder
  })
  const pathVar = launch.env.PATH ?? '/usr/bin:/bin'
  const probe = sandboxedCommand(spec, privilege, 'true', [], pathVar)
  const check = await runner.exec(probe.command, probe.args, {
    env: launch.env,
    timeoutMs: 30_000
  })
  if (check.exitCode !== 0) {
    throw new SandboxError(
      `Could not make the local-mode sandbox (${privilege}): ` +
        `${check.stderr.trim().split('\n').slice(-3).join(' ').slice(0, 500) || `exit ${check.exitCode}`}. ` +
        "Use Docker mode ('docker: true'), or set 'local-sandbox: false' to run " +
        'the agents unsandboxed (only for trusted questions).'
    )
  }
  request.log.info(
    `Local mode: agents run sandboxed (${privilege === 'root' ? 'as nobody' : 'as the runner user'}, ` +
      `own PID and mount namespaces, no new privileges; hidden: ${spec.hide.join(', ')})`
  )
  const wrapped = sandboxedCommand(
    spec,
    privilege,
    launch.command,
    launch.args,
    pathVar
  )
  return { ...wrapped, env: launch.env }
}
