// The paths of MassGen's config the action sets itself, and why: the user's
// config never overrides them (plan/merged-config.ts), and a secret at one
// of them never reaches the file (inputs/user-config.ts secretFields).
import { Inputs } from './constants.js'

/**
 * Why the action keeps its own value at a path, or undefined when the user's
 * value wins. `agents.N` paths are matched for every agent.
 */
export function ownedReason(path: readonly string[]): string | undefined {
  const [top, index, section, field] = path
  if (top === 'ui') return "the action reads MassGen's logs and status file"
  if (top === 'timeout_settings' && index === 'orchestrator_timeout_seconds')
    return `set from '${Inputs.MaxDuration}'`
  if (top === 'orchestrator' && path.length >= 2) {
    if (index === 'context_paths')
      return `set from '${Inputs.ContextPath}' and the pull request's files`
    if (index === 'snapshot_storage' || index === 'agent_temporary_workspace')
      return "the run's own folders"
  }
  if (top === 'agents' && index !== undefined && section === 'backend') {
    if (field === 'cwd') return 'each agent works in its own folder of the run'
    if (field === 'command_line_execution_mode')
      return `set from '${Inputs.Docker}'`
    if (field?.startsWith('command_line_docker_'))
      return `set from '${Inputs.Docker}', '${Inputs.DockerImage}' and '${Inputs.DockerNetwork}'`
  }
  return undefined
}
