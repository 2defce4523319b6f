// The repository config file (`.github/massgen-action.yml`, YAML or JSON):
// its text checked against the one list of keys (config-keys.ts) and turned
// into the text each key's input would give, so one rule checks an input
// and its key (settings.ts). Read from the base commit on events that carry
// someone else's code (context/base-setup.ts), else from the workspace;
// never through a link, never past its size cap. An input set in the
// workflow wins over the file; the file wins over the default.
import { parse } from 'yaml'
import { CONFIG_KEY_NAMES, CONFIG_KEYS, type KeySchema } from './config-keys.js'
import { Inputs } from '../core/constants.js'
import { showValue } from '../core/text.js'
import { readWorkspaceFileSync } from '../safety/workspace-file.js'

/** Where the file is, from the repository root. */
export const SETTINGS_FILE = '.github/massgen-action.yml'
/** A config of a few dozen keys; more is not a config. */
export const MAX_SETTINGS_FILE_BYTES = 64 * 1024

/** The file's keys, each as the text its input would give. */
export interface SettingsFile {
  /** Where it was read, for messages ('.github/massgen-action.yml at base 0123456789ab'). */
  origin: string
  values: ReadonlyMap<string, string>
}

type ParsedSettingsFile =
  { ok: true; file: SettingsFile } | { ok: false; errors: string[] }

const DOCS = 'docs/configuration.md'

/** The file's text checked and converted; every problem names the key and the file. */
export function parseSettingsFile(
  text: string,
  origin: string
): ParsedSettingsFile {
  let data: unknown
  try {
    data = parse(text, { maxAliasCount: 0, uniqueKeys: true })
  } catch (error) {
    const why = error instanceof Error ? error.message.split('\n')[0] : ''
    return {
      ok: false,
      errors: [
        `${origin}: not YAML or JSON (${showValue(why ?? '')}); expected a mapping of keys (${DOCS})`
      ]
    }
  }
  if (data === null || data === undefined)
    return { ok: true, file: { origin, values: new Map() } }
  if (typeof data !== 'object' || Array.isArray(data))
    return {
      ok: false,
      errors: [
        `${origin}: expected a mapping of keys such as 'fail-on: blocker' (${DOCS}), got ${Array.isArray(data) ? 'a list' : 'one value'}`
      ]
    }
  const errors: string[] = []
  const values = new Map<string, string>()
  for (const [name, value] of Object.entries(data)) {
    const text = keyText(name, value, origin, errors)
    if (text !== undefined) values.set(name, text)
  }
  return errors.length
    ? { ok: false, errors }
    : { ok: true, file: { origin, values } }
}

function keyText(
  name: string,
  value: unknown,
  origin: string,
  errors: string[]
): string | undefined {
  const at = `${origin}: key '${showValue(name)}'`
  if (!CONFIG_KEY_NAMES.has(name)) {
    errors.push(
      `${at} is not a setting of the file (expected one of the keys in ${DOCS})${inputHint(name)}`
    )
    return undefined
  }
  const schema = CONFIG_KEYS.find((k) => k.name === name)?.schema ?? {}
  if (value === null) return '' // `key:` with nothing: unset, the default applies
  const text = asText(value, schema)
  if (text === undefined)
    errors.push(
      `${at}: got ${describe(value)}, expected ${expectedForm(schema)}`
    )
  return text
}

/** What an unknown key most likely is: an input of the workflow, or a key misspelt. */
function inputHint(name: string): string {
  if ((Object.values(Inputs) as string[]).includes(name))
    return `; '${name}' is an input of action.yml, set in the workflow step's 'with:'`
  const near = [...CONFIG_KEY_NAMES].find((k) => editDistance(k, name) <= 2)
  return near ? `; did you mean '${near}'?` : ''
}

/** Levenshtein distance, for a misspelt key (names of at most ~30 characters). */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(
        (row[j] ?? 0) + 1,
        (next[j - 1] ?? 0) + 1,
        (row[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1)
      )
    row = next
  }
  return row[b.length] ?? 0
}

/** The value as its input's text, or undefined when the key does not take its shape. */
function asText(value: unknown, schema: KeySchema): string | undefined {
  const takes = (t: string) => jsonTypes(schema).has(t)
  if (typeof value === 'boolean')
    return takes('boolean') ? String(value) : undefined
  if (typeof value === 'number')
    return takes('number') || (takes('integer') && Number.isInteger(value))
      ? String(value)
      : undefined
  if (typeof value === 'string') return takes('string') ? value : undefined
  if (Array.isArray(value))
    return takes('array') && value.every((v) => typeof v === 'string')
      ? value.join('\n')
      : undefined
  if (typeof value === 'object' && takes('object'))
    return namedLines(value as Record<string, unknown>)
  return undefined
}

/** `{name: text}` or `{name: [globs]}` as the input's `name: text` lines; none holds a line break. */
function namedLines(map: Record<string, unknown>): string | undefined {
  const lines: string[] = []
  for (const [name, v] of Object.entries(map)) {
    const text =
      typeof v === 'string'
        ? v
        : Array.isArray(v) && v.every((g) => typeof g === 'string')
          ? v.join(', ')
          : undefined
    if (text === undefined || /[\r\n]/.test(text) || /[\r\n:]/.test(name))
      return undefined
    lines.push(`${name}: ${text}`)
  }
  return lines.join('\n')
}

function jsonTypes(schema: KeySchema): Set<string> {
  const own = schema.type === undefined ? [] : [schema.type].flat()
  const types = new Set<string>(own)
  for (const part of schema.anyOf ?? [])
    for (const t of jsonTypes(part)) types.add(t)
  return types
}

function expectedForm(schema: KeySchema): string {
  const forms: Record<string, string> = {
    boolean: 'true or false',
    integer: 'a whole number',
    number: 'a number',
    string: 'a string',
    array: 'a list of strings',
    object: 'a mapping of names to one-line text'
  }
  const types = [...jsonTypes(schema)]
  return `${types.map((t) => forms[t] ?? t).join(' or ')} (${DOCS})`
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list'
  if (typeof value === 'object') return 'a mapping'
  const shown = typeof value === 'string' ? value : JSON.stringify(value)
  return `${typeof value} '${showValue(shown ?? '')}'`
}

/**
 * The file in the workspace: on events whose checkout is the repository's
 * own code. Undefined when there is none.
 */
export function settingsFileInWorkspace(
  workspace: string
): ParsedSettingsFile | undefined {
  const read = readWorkspaceFileSync(
    workspace,
    SETTINGS_FILE,
    MAX_SETTINGS_FILE_BYTES
  )
  if (read.ok) return parseSettingsFile(read.text, SETTINGS_FILE)
  if (read.why === 'missing') return undefined
  const why = {
    link: 'goes through a link (expected a regular file)',
    'not-file': 'is not a regular file',
    'too-big': `is over ${MAX_SETTINGS_FILE_BYTES} bytes`,
    unreadable: 'cannot be read'
  }[read.why]
  return { ok: false, errors: [`${SETTINGS_FILE} in the workspace ${why}`] }
}

/**
 * The inputs as the settings read them: the workflow's input when set, else
 * the file's key. An input that moved to the file still works, with one
 * warning naming its key; an error about a value the file gave names the
 * file and the key instead of the input.
 */
export function layeredInputs(source: {
  getInput(name: string): string
  settingsFile?: SettingsFile
  warn?: (message: string) => void
}): {
  getInput: (name: string) => string
  relabel: (errors: string) => string
} {
  const warned = new Set<string>()
  const fromFile = new Set<string>()
  const file = source.settingsFile
  const getInput = (name: string): string => {
    const input = source.getInput(name)
    if (!CONFIG_KEY_NAMES.has(name)) return input
    if (input.trim()) {
      if (!warned.has(name)) source.warn?.(deprecation(name, file))
      warned.add(name)
      return input
    }
    const value = file?.values.get(name)
    if (value === undefined) return input
    fromFile.add(name)
    return value
  }
  const relabel = (errors: string) =>
    errors
      .split('\n')
      .map((error) => {
        const name = /^Input '([a-z-]+)'/.exec(error)?.[1]
        return name && fromFile.has(name) && file
          ? `${file.origin}: key '${name}'${error.slice(`Input '${name}'`.length)}`
          : error
      })
      .join('\n')
  return { getInput, relabel }
}

function deprecation(name: string, file: SettingsFile | undefined): string {
  const also = file?.values.has(name)
    ? ` It wins over the '${name}' ${file.origin} sets.`
    : ''
  return (
    `Input '${name}' is deprecated: set the key '${name}' in ${SETTINGS_FILE} ` +
    `(docs/configuration.md) instead; the input keeps working until the next major version.${also}`
  )
}
