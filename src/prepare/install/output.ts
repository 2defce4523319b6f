// What an install tells the user: the log it writes to, the error it fails
// with, and the end of an installer's output, cleaned for a public log.
import { redactSecrets } from '../../safety/redact.js'

export class MassgenInstallError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'MassgenInstallError'
  }
}

const TAIL_LINES = 15

export function describeExit(run: {
  exitCode: number | null
  signal: string | null
}) {
  if (run.signal) return `killed by ${run.signal}, timed out?`
  if (run.exitCode === 127) return 'command not found'
  return `exit ${run.exitCode}`
}

/** Last lines of an installer's output, without colours or credentials. */
export function tail(output: string, env: NodeJS.ProcessEnv): string {
  // eslint-disable-next-line no-control-regex
  let text = output.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '')
  // user:password@ in index URLs
  text = text.replace(/(\w+:\/\/)[^/\s@]+@/g, '$1***@')
  const values = Object.entries(env)
    .filter(([name]) => /KEY|TOKEN|SECRET|PASSWORD/i.test(name))
    .map(([, value]) => value ?? '')
    .filter((value) => value.length >= 8)
  // The installer's environment holds no key (safety/child-env.ts); key
  // shapes are redacted all the same.
  text = redactSecrets(text, values)
  const lines = text
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '')
  return lines
    .slice(-TAIL_LINES)
    .map((line) => `  ${line}`)
    .join('\n')
}
