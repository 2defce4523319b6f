// Reads a step's stdout as the Actions runner reads it for workflow commands
// (facts from the runner's ActionCommand / ActionCommandManager): a line ends
// at \n, \r\n or a lone \r; a trimmed line starting `::name` is a command
// (`::name key=value,...::data`); a line holding `##[name ...]data` anywhere
// is a legacy one; `::stop-commands::TOKEN` ignores every command until the
// line `::TOKEN::`. Streams its input: only the commands are kept.

export interface WorkflowCommand {
  name: string
  /** Everything after the command name, as written. */
  rest: string
}

/** The commands named here are the ones the runner registers. */
const REGISTERED = new Set([
  'set-output',
  'set-env',
  'add-path',
  'add-mask',
  'save-state',
  'debug',
  'notice',
  'warning',
  'error',
  'group',
  'endgroup',
  'echo',
  'stop-commands',
  'add-matcher',
  'remove-matcher',
  'internal-set-repo-path'
])

function parseV2(line: string): WorkflowCommand | undefined {
  const trimmed = line.trim()
  if (!trimmed.startsWith('::')) return undefined
  const end = trimmed.indexOf('::', 2)
  if (end < 0) return undefined
  const info = trimmed.slice(2, end)
  const name = info.split(' ')[0] ?? ''
  return { name, rest: trimmed.slice(2 + name.length) }
}

function parseV1(line: string): WorkflowCommand | undefined {
  const start = line.indexOf('##[')
  if (start < 0) return undefined
  const close = line.indexOf(']', start)
  if (close < 0) return undefined
  const name = (line.slice(start + 3, close).split(' ')[0] ?? '').trim()
  return REGISTERED.has(name.toLowerCase())
    ? { name, rest: line.slice(start + 3 + name.length) }
    : undefined
}

/** The commands the runner would act on, stop-commands honoured. */
export function workflowCommands(stdout: string): WorkflowCommand[] {
  const found: WorkflowCommand[] = []
  let stopToken: string | undefined
  for (const line of stdout.split(/\r\n|\r|\n/)) {
    const command = parseV2(line) ?? parseV1(line)
    if (!command) continue
    if (stopToken !== undefined) {
      if (command.name.toLowerCase() === stopToken.toLowerCase())
        stopToken = undefined
      continue
    }
    if (command.name === 'stop-commands') {
      stopToken = command.rest.replace(/^::/, '')
      continue
    }
    // Unregistered v2 names are kept too: stricter than the runner.
    found.push(command)
  }
  return found
}
