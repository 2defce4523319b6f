// What the Docker-mode tests ask the real engine.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'

export function docker(...args: string[]): string {
  return execFileSync('docker', args, { encoding: 'utf8' }).trim()
}

/** Names of the containers that mount anything under `dir` (a run's folder). */
export function containersUnder(dir: string): string[] {
  const ids = docker('ps', '--all', '--quiet').split('\n').filter(Boolean)
  if (ids.length === 0) return []
  return docker(
    'inspect',
    '--format',
    '{{.Name}}{{range .Mounts}} {{.Source}}{{end}}',
    ...ids
  )
    .split('\n')
    .filter((line) =>
      line
        .split(' ')
        .slice(1)
        .some((m) => m.startsWith(dir))
    )
    .map((line) => line.split(' ')[0] ?? '')
}

/** Live processes whose command line names anything under `dir` (a run's folder). */
export function processesUnder(dir: string): string[] {
  const found: string[] = []
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue
    try {
      const cmdline = fs
        .readFileSync(`/proc/${pid}/cmdline`, 'utf8')
        .split('\0')
        .join(' ')
      if (cmdline.includes(dir)) found.push(`${pid} ${cmdline.slice(0, 120)}`)
    } catch {
      // Gone meanwhile.
    }
  }
  return found
}
