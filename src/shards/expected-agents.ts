// Which agents a shard may name in its record. The aggregate holds no API
// key, but it is given the shards' `models` (or their inline `config`), so
// it knows every agent id a shard's run may give and how many at most; a
// record naming another id, or more agents than that, is refused
// (record.ts checkRecord): a taken-over shard cannot invent agents to reach
// `min-agreement`.
import { Inputs } from '../core/constants.js'
import type { Settings } from '../core/types.js'
import { possibleAgentIds } from '../inputs/models.js'

export interface ExpectedAgents {
  ids: ReadonlySet<string>
  most: number
  /** Where they come from, for a refusal's message. */
  from: string
}

function configIds(agents: unknown[]): string[] {
  return agents.flatMap((a) =>
    typeof a === 'object' &&
    a !== null &&
    typeof (a as { id?: unknown }).id === 'string'
      ? [(a as { id: string }).id]
      : []
  )
}

export function expectedAgents(
  settings: Pick<Settings, 'models' | 'userConfig' | 'baseSetup'>
): ExpectedAgents {
  if (settings.baseSetup.some((f) => f.input === Inputs.Config))
    throw new Error(
      `Input '${Inputs.Config}' names a file, but role 'aggregate' reads the shards' agents from it ` +
        "and a shard takes 'config' inline only: give the aggregate the same inline config as the shards."
    )
  const agents = settings.userConfig?.config.agents
  if (Array.isArray(agents)) {
    const ids = configIds(agents)
    return {
      ids: new Set(ids),
      most: ids.length,
      from: `the agents of '${Inputs.Config}'`
    }
  }
  const n = settings.models.length
  return {
    ...possibleAgentIds(settings.models),
    from: n
      ? `'${Inputs.Models}' names ${n} pair${n === 1 ? '' : 's'}`
      : `the default models, '${Inputs.Models}' not given`
  }
}
