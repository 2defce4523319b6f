// Which agents run: `models` (or the default models) filtered by the keys present.
import { DefaultModels, Inputs } from '../core/constants.js'
import {
  BACKENDS,
  type AgentPlan,
  type ApiKeys,
  type Backend,
  type ModelSpec,
  type Provider
} from '../core/types.js'

/** The provider whose key each backend needs; vllm endpoints take none. */
export const BACKEND_PROVIDER: Record<Backend, Provider | undefined> = {
  openai: 'openai',
  codex: 'openai',
  chatcompletion: 'openai',
  gemini: 'google',
  claude: 'anthropic',
  claude_code: 'anthropic',
  grok: 'xai',
  vllm: undefined,
  openrouter: 'openrouter'
}

/** Environment variables MassGen reads each provider's key from. */
export const PROVIDER_ENV_VARS: Record<Provider, string[]> = {
  openai: ['OPENAI_API_KEY'],
  google: ['GOOGLE_API_KEY', 'GEMINI_API_KEY'],
  anthropic: ['ANTHROPIC_API_KEY'],
  xai: ['XAI_API_KEY'],
  openrouter: ['OPENROUTER_API_KEY']
}

/** Every variable that may carry an API key; only the agents planned get theirs. */
export const KEY_ENV_VARS: readonly string[] = [
  ...new Set(Object.values(PROVIDER_ENV_VARS).flat()),
  'CLAUDE_CODE_API_KEY'
]

/** The action input that supplies each provider's key. */
export const PROVIDER_INPUT: Record<Provider, string> = {
  openai: Inputs.OpenaiApiKey,
  google: Inputs.GeminiApiKey,
  anthropic: Inputs.AnthropicApiKey,
  xai: Inputs.XaiApiKey,
  openrouter: Inputs.OpenrouterApiKey
}

/** Coding agents run their tools in containers only (README, "Models"). */
export const DOCKER_ONLY_BACKENDS: readonly Backend[] = ['codex', 'claude_code']

/** Backends that talk to the endpoint given in `base-url`. */
export const ENDPOINT_BACKENDS: readonly Backend[] = ['chatcompletion', 'vllm']

export class ModelsError extends Error {}
/** No key for any agent: a first run's usual mistake, reported where it is seen. */
export class MissingKeysError extends ModelsError {}

/**
 * The agents chosen for a run (plan.ts, chooseAgents), or why none could be:
 * chosen once, before the intake, which needs to know whether a pull request
 * without secrets has anything to run.
 */
export type AgentChoice = { selection: AgentSelection } | { error: unknown }

/**
 * Parses `models`: `backend/model` pairs separated by spaces, commas or
 * newlines. The model part may itself hold `/` (`vllm/org/model`).
 */
export function parseModels(text: string): ModelSpec[] {
  const words = text.split(/[\s,]+/).filter((w) => w.length > 0)
  const seen = new Set<string>()
  return words.map((word) => {
    const slash = word.indexOf('/')
    if (slash <= 0 || slash === word.length - 1) {
      throw new ModelsError(
        `Input '${Inputs.Models}': '${word}' is not a backend/model pair ` +
          `(expected e.g. 'openai/gpt-5.4 gemini/gemini-3.1-pro-preview')`
      )
    }
    const backend = word.slice(0, slash).toLowerCase()
    const model = word.slice(slash + 1)
    if (!(BACKENDS as readonly string[]).includes(backend)) {
      throw new ModelsError(
        `Input '${Inputs.Models}': unknown backend '${backend}' in '${word}' ` +
          `(expected one of: ${BACKENDS.join(', ')})`
      )
    }
    const key = `${backend}/${model}`
    if (seen.has(key)) {
      throw new ModelsError(
        `Input '${Inputs.Models}': '${key}' is listed twice ` +
          `(each backend/model pair may appear once)`
      )
    }
    seen.add(key)
    return { backend: backend as Backend, model }
  })
}

/** The default models: the OpenAI + Gemini pair (or the one available), plus Claude and Grok. */
export function defaultModels(keys: ApiKeys): ModelSpec[] {
  const models: ModelSpec[] = []
  if (keys.openai)
    models.push({ backend: 'openai', model: DefaultModels.openai })
  if (keys.google)
    models.push({ backend: 'gemini', model: DefaultModels.gemini })
  if (keys.anthropic)
    models.push({ backend: 'claude', model: DefaultModels.claude })
  if (keys.xai) models.push({ backend: 'grok', model: DefaultModels.grok })
  // One OpenRouter key reaches every vendor: used for the defaults only when
  // no vendor's own key is given, so a direct key is never routed around.
  if (models.length === 0 && keys.openrouter) {
    for (const model of DefaultModels.openrouter)
      models.push({ backend: 'openrouter', model })
  }
  return models
}

export interface AgentSelection {
  agents: AgentPlan[]
  /** One line per skipped pair, naming the missing input. */
  warnings: string[]
}

/** Where a first run's missing key is added, said where the user sees the failure. */
const WHERE_KEYS_GO =
  'Add each key as a repository secret (Settings → Secrets and variables → Actions → ' +
  'New repository secret) and pass it to the step, e.g. ' +
  "'openai-api-key: ${{ secrets.OPENAI_API_KEY }}'. Pull requests from forks get no " +
  "repository secrets, and Dependabot's only the secrets stored for Dependabot."

/**
 * Why a key input can be empty though the workflow passes it. The runner
 * sets every input of action.yml, its default ('') when `with:` leaves it
 * out, and an unset or misspelled secret evaluates to '': the action cannot
 * tell a key input passed empty from one left out, so it names the empty
 * ones the run needed and says both.
 */
function emptyKeyInputs(inputs: readonly string[]): string {
  const named = inputs.map((i) => `'${i}'`).join(', ')
  const one = inputs.length === 1
  return (
    `${one ? 'input' : 'inputs'} ${named} ${one ? 'is' : 'are'} empty. ` +
    `If the workflow passes ${one ? 'it' : 'them'} (e.g. '${inputs[0] ?? ''}: \${{ secrets.NAME }}'), ` +
    `${one ? 'it was' : 'they were'} passed but empty: is the secret set, under that exact name, ` +
    'for this repository (or its organization) and this event? GitHub passes a secret that is not set ' +
    'as an empty string; forks get no secrets.'
  )
}

/**
 * Keeps the pairs whose key is present, names the agents and records which
 * key variables each needs. Throws when nothing can run.
 */
export function selectAgents(
  requested: ModelSpec[],
  keys: ApiKeys,
  options: { docker: boolean; baseUrl: string | undefined }
): AgentSelection {
  const specs = requested.length > 0 ? requested : defaultModels(keys)
  if (specs.length === 0) {
    throw new MissingKeysError(
      `No API key was given, so no default model can run: the key ` +
        emptyKeyInputs(Object.values(PROVIDER_INPUT)) +
        ` Set at least one of the inputs ` +
        `${Object.values(PROVIDER_INPUT).join(', ')} (or the environment variables ` +
        `OPENAI_API_KEY, GOOGLE_API_KEY, ANTHROPIC_API_KEY, XAI_API_KEY, OPENROUTER_API_KEY), ` +
        `or name a vllm endpoint in '${Inputs.Models}' with '${Inputs.BaseUrl}'. ${WHERE_KEYS_GO}`
    )
  }
  const warnings: string[] = []
  const kept: ModelSpec[] = []
  const missing = new Set<string>()
  for (const spec of specs) {
    if (DOCKER_ONLY_BACKENDS.includes(spec.backend) && !options.docker) {
      throw new ModelsError(
        `Input '${Inputs.Models}': '${spec.backend}/${spec.model}' is a coding agent that ` +
          `needs Docker mode; remove it or set '${Inputs.Docker}: true'`
      )
    }
    if (ENDPOINT_BACKENDS.includes(spec.backend) && !options.baseUrl) {
      throw new ModelsError(
        `Input '${Inputs.BaseUrl}' is required for '${spec.backend}/${spec.model}' ` +
          `(expected the endpoint's URL, e.g. 'http://localhost:8000/v1')`
      )
    }
    const provider = BACKEND_PROVIDER[spec.backend]
    if (provider && !keys[provider]) {
      warnings.push(
        `Skipping '${spec.backend}/${spec.model}': input '${PROVIDER_INPUT[provider]}' ` +
          `is empty and ${PROVIDER_ENV_VARS[provider].join(' / ')} is not set`
      )
      missing.add(PROVIDER_INPUT[provider])
      continue
    }
    kept.push(spec)
  }
  if (kept.length === 0) {
    throw new MissingKeysError(
      `None of the models in '${Inputs.Models}' has its API key: ` +
        `${emptyKeyInputs([...missing])} Set ${[...missing].map((m) => `'${m}'`).join(', ')}. ${WHERE_KEYS_GO}`
    )
  }
  return { agents: nameAgents(kept), warnings }
}

/**
 * Ids `agent_a`, `agent_b`, ... keep the agents' sorted order equal to the
 * order of `models`, so MassGen's anonymous labels (agent1, agent2, ... by
 * sorted id) follow the order the user wrote.
 */
function nameAgents(specs: ModelSpec[]): AgentPlan[] {
  return specs.map((spec, index) => {
    const provider = BACKEND_PROVIDER[spec.backend]
    return {
      id: agentId(index, specs.length),
      backend: spec.backend,
      model: spec.model,
      keyEnvVars: provider ? PROVIDER_ENV_VARS[provider] : []
    }
  })
}

export function agentId(index: number, total: number): string {
  const letter = (n: number) => String.fromCharCode(97 + n)
  // Two letters for all past 26 agents, so lexical order stays list order.
  const suffix =
    total <= 26
      ? letter(index)
      : letter(Math.floor(index / 26)) + letter(index % 26)
  return `agent_${suffix}`
}

/** Every provider's key, as placeholders: to count what the defaults may give. */
const EVERY_KEY: Required<ApiKeys> = {
  openai: 'x',
  google: 'x',
  anthropic: 'x',
  xai: 'x',
  openrouter: 'x'
}

/**
 * The agent ids a run of `models` (the default models when empty) may name,
 * whichever keys it holds, and how many it runs at most: selectAgents names
 * the pairs it keeps agent_a, agent_b, ... in order. For a step that holds
 * no key (a matrix review's aggregate) and checks what a run reported.
 */
export function possibleAgentIds(models: ModelSpec[]): {
  ids: ReadonlySet<string>
  most: number
} {
  const most =
    models.length > 0
      ? models.length
      : Math.max(
          defaultModels(EVERY_KEY).length,
          defaultModels({ openrouter: 'x' }).length
        )
  const ids = new Set<string>()
  for (let kept = 1; kept <= most; kept++)
    for (let i = 0; i < kept; i++) ids.add(agentId(i, kept))
  return { ids, most }
}
