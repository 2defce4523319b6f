// What the Docker-mode tests ask the real engine.
import { execFileSync } from 'node:child_process'

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
