// The config MassGen gets: the user's merged over the generated one under
// the keys the action owns (core/owned-config.ts), the repository's
// instructions added to every agent, and the last look for the action's
// secrets anywhere in it. Pure.
import { ownedReason } from '../core/owned-config.js'
import { Inputs } from '../core/constants.js'

type Json = Record<string, unknown>

/** `${NAME}` as MassGen expands it anywhere in the config (config_loading.py). */
const EXPANSION = /\$\{([^}]+)\}/g

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
