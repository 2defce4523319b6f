// MassGen's own validation of the config file, before any token is spent:
// `massgen --validate FILE --json` (cli/entrypoint.py) runs the same
// ConfigValidator the run would (config_validator.py) and prints its result
// as JSON: {valid, errors: [{message, location, suggestion}], warnings}.
import type { ProcessRunner } from '../core/process.js'

interface ValidationOutcome {
  valid: boolean
  /** `[location] message (suggestion)`, as MassGen words them. */
  errors: string[]
  warnings: string[]
}

interface Issue {
  message?: unknown
  location?: unknown
  suggestion?: unknown
}

/** The flags that ask MassGen to validate a file and print JSON. */
function validateArgs(configFile: string): string[] {
  return ['--validate', configFile, '--json']
}

/**
 * Reads MassGen's JSON answer; undefined when the output is not one (a
 * MassGen without `--validate`): the run then validates the file itself.
 */
function parseValidation(stdout: string): ValidationOutcome | undefined {
  const start = stdout.indexOf('{')
  const end = stdout.lastIndexOf('}')
  if (start < 0 || end <= start) return undefined
  let data: unknown
  try {
    data = JSON.parse(stdout.slice(start, end + 1))
  } catch {
    return undefined
  }
  if (typeof data !== 'object' || data === null) return undefined
  const record = data as {
    valid?: unknown
    errors?: unknown
    warnings?: unknown
  }
  if (typeof record.valid !== 'boolean') return undefined
  return {
    valid: record.valid,
    errors: issues(record.errors),
    warnings: issues(record.warnings)
  }
}

function issues(list: unknown): string[] {
  if (!Array.isArray(list)) return []
  return list.slice(0, 60).map((item: Issue) => {
    const where = typeof item.location === 'string' ? `[${item.location}] ` : ''
    const tip =
      typeof item.suggestion === 'string' && item.suggestion
        ? ` (💡 ${item.suggestion})`
        : ''
    const message =
      typeof item.message === 'string'
        ? item.message
        : item.message === undefined || item.message === null
          ? ''
          : JSON.stringify(item.message)
    return `${where}${message}${tip}`
  })
}

export async function validateWithMassgen(
  runner: ProcessRunner,
  launch: { command: string; prefixArgs: string[]; env: NodeJS.ProcessEnv },
  configFile: string,
  cwd: string
): Promise<ValidationOutcome | undefined> {
  const result = await runner.exec(
    launch.command,
    [...launch.prefixArgs, ...validateArgs(configFile)],
    // Imports only: a loaded runner needs seconds, never minutes.
    { cwd, env: launch.env, timeoutMs: 180_000 }
  )
  return parseValidation(result.stdout)
}
