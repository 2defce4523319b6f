// The user's own MassGen config (`config` input): parsed, refused when it
// would put a secret in the file, and merged under the keys the action owns.
// Pure: no files, no environment.
import { parse } from 'yaml'
import { Inputs } from '../core/constants.js'
import {
  BACKEND_PROVIDER,
  DOCKER_ONLY_BACKENDS,
  ENDPOINT_BACKENDS,
  ModelsError,
  PROVIDER_ENV_VARS,
  PROVIDER_INPUT
} from './models.js'
import {
  BACKENDS,
  type AgentPlan,
  type ApiKeys,
  type Backend
} from '../core/types.js'
import { firstLine } from '../core/text.js'
import { errorText } from '../core/text.js'

/** A config the action will not run; the message names the input. */
export class UserConfigError extends ModelsError {}

type Json = Record<string, unknown>

/** Largest `config` (inline or file) read: a config, not a data file. */
export const MAX_CONFIG_BYTES = 256 * 1024

/** Parses the YAML of `config` into a mapping; `agent:` becomes `agents: [..]`. */
export function parseUserConfig(text: string, origin: string): Json {
  let value: unknown
  try {
    // uniqueKeys: a key given twice is a mistake, not "the last one wins".
    value = parse(text, { uniqueKeys: true, maxAliasCount: 100 })
  } catch (error) {
    const message = errorText(error)
    throw new UserConfigError(
      `Input '${Inputs.Config}' (${origin}): not valid YAML: ${firstLine(message, 200)}`
    )
  }
  if (!isObject(value)) {
    throw new UserConfigError(
      `Input '${Inputs.Config}' (${origin}): expected a YAML mapping such as ` +
        `'orchestrator: {voting_sensitivity: strict}', or a workspace path ending in .yaml, .yml or .json`
    )
  }
  if ('agent' in value) {
    if ('agents' in value) {
      throw new UserConfigError(
        `Input '${Inputs.Config}' (${origin}): has both 'agent' and 'agents'; use 'agents' (a list)`
      )
    }
    const { agent, ...rest } = value
    return { ...rest, agents: [agent] }
  }
  return value
}

/**
 * Names of fields that hold a credential: the last word of the name (any
 * case, `-`, `_` or camelCase) is one of these. `max_tokens` or
 * `bearer_token_env_var` are not: their last word is `tokens` / `var`.
 */
const CREDENTIAL_WORDS = new Set([
  'key',
  'apikey',
  'token',
  'secret',
  'password',
  'passwd',
  'passphrase',
  'authorization',
  'cookie'
])

/** A value that only names a variable MassGen fills in: `${VAR}` or `Bearer ${VAR}`. */
const REFERENCE =
  /^(?:(?:Bearer|Basic|Token|Bot)\s+)?\$\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}$/i

/** `${NAME}` as MassGen expands it anywhere in the config (config_loading.py). */
const EXPANSION = /\$\{([^}]+)\}/g

export function isCredentialName(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
  return CREDENTIAL_WORDS.has(words[words.length - 1] ?? '')
}

/**
 * Fields of the user's config that would put a secret in the file, as
 * `path: why` lines (never the value):
 * - `api_key` anywhere, whatever its value: keys come from the key inputs;
 * - a credential-named field (`*_key`, `*token`, `*secret`, `*password`,
 *   an `Authorization` or `Cookie` header, ...) whose value is not a `${VAR}`
 *   reference: MassGen fills references in from its environment, so the
 *   file itself never holds the secret.
 * Owned paths (set by the action) are not looked at: they never reach the file.
 */
export function secretFields(config: Json): string[] {
  const found: string[] = []
  walk(config, [], (path, key, value) => {
    if (ownedReason(path) !== undefined) return 'skip'
    const where = path.join('.')
    if (key.toLowerCase().replace(/-/g, '_') === 'api_key') {
      found.push(
        `${where}: 'api_key' is not accepted; give the key in its input (e.g. '${Inputs.OpenaiApiKey}')`
      )
      return 'skip'
    }
    if (!isCredentialName(key) || isObject(value) || Array.isArray(value))
      return 'go'
    if (value === null || typeof value === 'boolean') return 'go'
    if (typeof value === 'string' && REFERENCE.test(value.trim())) return 'go'
    found.push(
      `${where}: a credential-named field must be a \${VAR} reference (e.g. "\${${envName(key)}}"), not a value`
    )
    return 'go'
  })
  return found
}

/**
 * `${VAR}` references to the action's own secrets anywhere in a config:
 * MassGen would expand them into prompts, MCP servers or headers that do not
 * need them. `forbidden` holds the variable names (KEY_ENV_VARS and the like).
 */
export function forbiddenReferences(
  config: unknown,
  forbidden: readonly string[]
): string[] {
  const found: string[] = []
  const bad = (name: string) =>
    forbidden.includes(name) || /^(ACTIONS_|INPUT_)/i.test(name)
  walkValues(config, [], (path, text) => {
    for (const match of text.matchAll(EXPANSION)) {
      const name = (match[1] ?? '').trim()
      if (bad(name)) {
        found.push(
          `${path.join('.') || '(root)'}: references \${${name}}, a secret of the action ` +
            '(keys reach only the backends that need them)'
        )
      }
    }
  })
  return found
}

/** Paths of strings that hold one of `values` (the keys, the token). */
export function valuesFoundIn(config: unknown, values: string[]): string[] {
  const needles = values.filter((v) => v.length >= 4)
  const found: string[] = []
  walkValues(config, [], (path, text) => {
    if (needles.some((v) => text.includes(v))) found.push(path.join('.'))
  })
  return found
}

/**
 * Why the action keeps its own value at a path, or undefined when the user's
 * value wins. `agents.N` paths are matched for every agent.
 */
function ownedReason(path: readonly string[]): string | undefined {
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

interface MergeResult {
  config: Json
  /** `path (why)` for every user value the action replaced or dropped. */
  overridden: string[]
}

/**
 * Deep-merges the user's config over the generated one. Mappings merge key
 * by key, lists and scalars of the user replace the generated ones, except
 * at owned paths, where the generated value stays (or the user's is dropped).
 * `agents` merge by position: the generated agents were made from the user's
 * own (userAgents) or from `models` (then the user has none).
 */
export function mergeUserConfig(generated: Json, user: Json): MergeResult {
  const overridden: string[] = []
  const config = mergeAt(generated, user, [], overridden) as Json
  return { config, overridden }
}

function mergeAt(
  base: unknown,
  over: unknown,
  path: string[],
  notes: string[]
): unknown {
  const reason = ownedReason(path)
  // write_mode is the action's only where it sets one (Docker mode, write).
  const ownedHere =
    reason ??
    (path.join('.') === 'orchestrator.coordination.write_mode' &&
    base !== undefined
      ? `needed for '${Inputs.ContextPermission}: write' in Docker mode`
      : undefined)
  if (ownedHere !== undefined) {
    if (over !== undefined && !sameValue(base, over))
      notes.push(`${path.join('.')} (${ownedHere})`)
    return base
  }
  if (over === undefined) return base
  if (isObject(base) && isObject(over)) {
    const out: Json = {}
    for (const key of new Set([...Object.keys(base), ...Object.keys(over)])) {
      const value = mergeAt(base[key], over[key], [...path, key], notes)
      if (value !== undefined) out[key] = value
    }
    return out
  }
  if (path.length === 1 && path[0] === 'agents' && Array.isArray(base)) {
    const list = Array.isArray(over) ? over : []
    return base.map((agent, i) =>
      mergeAt(agent, list[i], [...path, String(i)], notes)
    )
  }
  // Inside an owned subtree the user's whole value may be owned below: walk
  // it so e.g. `ui: {...}` given as a new mapping is still reported.
  if (isObject(over) && base === undefined) {
    return mergeAt({}, over, path, notes)
  }
  return over
}

interface UserAgentOptions {
  keys: ApiKeys
  docker: boolean
  baseUrl: string | undefined
  /** `models` was given too (then it is an error). */
  modelsGiven: boolean
}

/**
 * The user's `agents` as plans: each a backend the action knows the key of,
 * with that key present. Throws a config error naming what is wrong.
 */
export function userAgentPlans(
  user: Json,
  options: UserAgentOptions
): AgentPlan[] | undefined {
  if (!('agents' in user)) return undefined
  const prefix = `Input '${Inputs.Config}':`
  if (options.modelsGiven) {
    throw new UserConfigError(
      `${prefix} it defines 'agents', so input '${Inputs.Models}' must be empty ` +
        '(give the models in one place)'
    )
  }
  const agents = user.agents
  if (!Array.isArray(agents) || agents.length === 0 || agents.length > 64) {
    throw new UserConfigError(
      `${prefix} 'agents' must be a list of 1 to 64 agents, each {id, backend: {type, model}}`
    )
  }
  const seen = new Set<string>()
  return agents.map((agent: unknown, i) => {
    const where = `${prefix} agents[${i}]`
    const id = isObject(agent) ? agent.id : undefined
    const backend = isObject(agent) ? agent.backend : undefined
    if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(id)) {
      throw new UserConfigError(
        `${where}: 'id' must be letters, digits, '_' or '-' (at most 64), e.g. 'reviewer_a'`
      )
    }
    if (seen.has(id))
      throw new UserConfigError(`${where}: id '${id}' is used twice`)
    seen.add(id)
    if (!isObject(backend)) {
      throw new UserConfigError(
        `${where} ('${id}'): needs 'backend: {type, model}'`
      )
    }
    const type = backend.type
    if (
      typeof type !== 'string' ||
      !(BACKENDS as readonly string[]).includes(type)
    ) {
      throw new UserConfigError(
        `${where} ('${id}'): backend type '${String(type)}' is not one the action has a key input for ` +
          `(expected one of: ${BACKENDS.join(', ')})`
      )
    }
    const model = backend.model
    if (typeof model !== 'string' || !model.trim()) {
      throw new UserConfigError(
        `${where} ('${id}'): 'backend.model' must be a model name`
      )
    }
    return checkAgent(id, type as Backend, model, backend, options, where)
  })
}

function checkAgent(
  id: string,
  backend: Backend,
  model: string,
  fields: Json,
  options: UserAgentOptions,
  where: string
): AgentPlan {
  if (DOCKER_ONLY_BACKENDS.includes(backend) && !options.docker) {
    throw new UserConfigError(
      `${where} ('${id}'): '${backend}' is a coding agent that needs Docker mode; ` +
        `set '${Inputs.Docker}: true' or use another backend`
    )
  }
  if (
    ENDPOINT_BACKENDS.includes(backend) &&
    !options.baseUrl &&
    typeof fields.base_url !== 'string'
  ) {
    throw new UserConfigError(
      `${where} ('${id}'): '${backend}' needs 'backend.base_url' or input '${Inputs.BaseUrl}'`
    )
  }
  const provider = BACKEND_PROVIDER[backend]
  if (provider && !options.keys[provider]) {
    throw new UserConfigError(
      `${where} ('${id}'): '${backend}/${model}' needs input '${PROVIDER_INPUT[provider]}' ` +
        `(or ${PROVIDER_ENV_VARS[provider].join(' / ')}), which is empty`
    )
  }
  return {
    id,
    backend,
    model,
    keyEnvVars: provider ? PROVIDER_ENV_VARS[provider] : []
  }
}

/** Adds the instructions to each agent's own system_message, after it. */
export function withInstructions(config: Json, instructions: string): Json {
  if (!instructions || !Array.isArray(config.agents)) return config
  const block = instructionsBlock(instructions)
  return {
    ...config,
    agents: config.agents.map((agent: unknown) => {
      if (!isObject(agent)) return agent
      const own =
        typeof agent.system_message === 'string' ? agent.system_message : ''
      return {
        ...agent,
        system_message: own.trim() ? `${own.trimEnd()}\n\n${block}` : block
      }
    })
  }
}

/** The instructions as one clearly delimited section of the system prompt. */
export function instructionsBlock(instructions: string): string {
  return [
    '<repository_instructions>',
    "The repository's maintainers give these instructions for every task. " +
      'Follow them; the task itself comes in the user message.',
    '',
    instructions.trim(),
    '</repository_instructions>'
  ].join('\n')
}

type Visit = (path: string[], key: string, value: unknown) => 'go' | 'skip'

function walk(value: unknown, path: string[], visit: Visit): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => walk(v, [...path, String(i)], visit))
  } else if (isObject(value)) {
    for (const [key, v] of Object.entries(value)) {
      const at = [...path, key]
      if (visit(at, key, v) === 'go') walk(v, at, visit)
    }
  }
}

function walkValues(
  value: unknown,
  path: string[],
  visit: (path: string[], text: string) => void
): void {
  if (typeof value === 'string') visit(path, value)
  else if (Array.isArray(value))
    value.forEach((v, i) => walkValues(v, [...path, String(i)], visit))
  else if (isObject(value)) {
    for (const [key, v] of Object.entries(value)) {
      // Keys are expanded by nobody, but a key holding a secret is one too.
      visit([...path, key], key)
      walkValues(v, [...path, key], visit)
    }
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

function envName(key: string): string {
  return key.replace(/[^A-Za-z0-9]+/g, '_').toUpperCase()
}
