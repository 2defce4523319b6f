// The user's own MassGen config (`config` input): parsed, refused when it
// would put a secret in the file, and its agents checked against the models;
// merged into the generated config by the plan (plan/merged-config.ts).
// Pure: no files, no environment.
import { parse } from 'yaml'
import { Inputs } from '../core/constants.js'
import { ownedReason } from '../core/owned-config.js'
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

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function envName(key: string): string {
  return key.replace(/[^A-Za-z0-9]+/g, '_').toUpperCase()
}
