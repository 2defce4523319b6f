// The inputs that make a run the user's own: `config`, `mode`, `personas`,
// `instructions` / `instructions-file`. On events whose checkout is the
// repository's own code the files are read from the workspace: inside it,
// never through a link, never past a size cap. On events that carry someone
// else's code only their paths are taken here (`baseSetup`): base-setup.ts
// reads them from the base commit through the API.
import * as path from 'node:path'
import { Defaults, Inputs } from '../core/constants.js'
import {
  MAX_CONFIG_BYTES,
  parseUserConfig,
  secretFields,
  UserConfigError
} from './user-config.js'
import {
  PERSONA_MODES,
  RUN_MODES,
  type SetupFileRef,
  type UserConfigSource,
  type UserSetup
} from '../core/types.js'
import { readWorkspaceFileSync } from '../safety/workspace-file.js'
import { isInside } from '../core/paths.js'
import { showValue } from '../core/text.js'

/** Instructions go into every agent's system prompt on every call. */
const MAX_INSTRUCTIONS_BYTES = 64 * 1024

/** Where the setup files are read: the workspace, or later the base commit. */
export interface SetupReader {
  workspace: string
  fromBase: boolean
}

export function readUserInputs(
  getInput: (name: string) => string,
  reader: SetupReader,
  errors: string[]
): UserSetup {
  const setupFiles: string[] = []
  const baseSetup: SetupFileRef[] = []
  const files = { setupFiles, baseSetup }
  const userConfig = readConfig(
    getInput(Inputs.Config).trim(),
    reader,
    errors,
    files
  )
  return {
    userConfig,
    mode:
      readChoice(getInput(Inputs.Mode), Inputs.Mode, RUN_MODES, errors) ??
      Defaults.Mode,
    personas: readChoice(
      getInput(Inputs.Personas),
      Inputs.Personas,
      PERSONA_MODES,
      errors
    ),
    instructions: readInstructions(getInput, reader, errors, files),
    setupFiles,
    baseSetup
  }
}

interface SetupFiles {
  setupFiles: string[]
  baseSetup: SetupFileRef[]
}

function readChoice<T extends string>(
  raw: string,
  input: string,
  choices: readonly T[],
  errors: string[]
): T | undefined {
  const value = raw.trim().toLowerCase()
  if (!value) return undefined
  if ((choices as readonly string[]).includes(value)) return value as T
  errors.push(
    `Input '${input}': got '${showValue(raw)}', expected one of ${choices.map((c) => `'${c}'`).join(', ')}`
  )
  return undefined
}

/** A workspace path when it is one line ending in .yaml, .yml or .json; otherwise inline YAML. */
export function isConfigPath(value: string): boolean {
  return !value.includes('\n') && /\.(ya?ml|json)$/i.test(value)
}

function readConfig(
  value: string,
  reader: SetupReader,
  errors: string[],
  files: SetupFiles
): UserConfigSource | undefined {
  if (!value) return undefined
  if (!isConfigPath(value)) {
    if (Buffer.byteLength(value, 'utf8') > MAX_CONFIG_BYTES) {
      errors.push(
        `Input '${Inputs.Config}': inline YAML over ${MAX_CONFIG_BYTES} bytes (expected a config, not data)`
      )
      return undefined
    }
    return configFromText(value, 'inline', errors)
  }
  const file = readSetupFile(
    reader,
    { input: Inputs.Config, file: value, maxBytes: MAX_CONFIG_BYTES },
    errors,
    files
  )
  return file === undefined
    ? undefined
    : configFromText(file.text, file.relative, errors)
}

/** The `config` text parsed and checked for secrets; errors name the input. */
export function configFromText(
  text: string,
  origin: string,
  errors: string[]
): UserConfigSource | undefined {
  try {
    const config = parseUserConfig(text, origin)
    const secrets = secretFields(config)
    if (secrets.length > 0) {
      errors.push(
        `Input '${Inputs.Config}' (${origin}) would put secrets in MassGen's config file; ` +
          `refused:\n${secrets.map((s) => `  - ${s}`).join('\n')}`
      )
      return undefined
    }
    return { config, origin }
  } catch (error) {
    if (!(error instanceof UserConfigError)) throw error
    errors.push(error.message)
    return undefined
  }
}

function readInstructions(
  getInput: (name: string) => string,
  reader: SetupReader,
  errors: string[],
  files: SetupFiles
): string {
  const text = getInput(Inputs.Instructions).trim()
  const file = getInput(Inputs.InstructionsFile).trim()
  if (text && file) {
    errors.push(
      `Inputs '${Inputs.Instructions}' and '${Inputs.InstructionsFile}' are both set: give only one`
    )
    return ''
  }
  if (file) {
    const read = readSetupFile(
      reader,
      {
        input: Inputs.InstructionsFile,
        file,
        maxBytes: MAX_INSTRUCTIONS_BYTES
      },
      errors,
      files
    )
    return read ? instructionsFromText(read.text, read.relative, errors) : ''
  }
  if (Buffer.byteLength(text, 'utf8') > MAX_INSTRUCTIONS_BYTES) {
    errors.push(
      `Input '${Inputs.Instructions}': over ${MAX_INSTRUCTIONS_BYTES} bytes (expected a short guide; ` +
        'they go to every agent on every call)'
    )
    return ''
  }
  return text
}

/** The text of `instructions-file`, refused when empty. */
export function instructionsFromText(
  text: string,
  file: string,
  errors: string[]
): string {
  if (!text.trim())
    errors.push(
      `Input '${Inputs.InstructionsFile}': '${showValue(file)}' is empty`
    )
  return text.trim()
}

/** A file one input names, its size cap, and the name as given. */
interface SetupFileRequest {
  input: string
  file: string
  maxBytes: number
}

/**
 * The file an input names: read now from the workspace, or, when the setup
 * comes from the base commit, only its path checked and noted for later
 * (then undefined is returned).
 */
export function readSetupFile(
  reader: SetupReader,
  request: SetupFileRequest,
  errors: string[],
  files: SetupFiles
): { text: string; relative: string } | undefined {
  const relative = setupPath(reader.workspace, request, errors)
  if (relative === undefined) return undefined
  if (reader.fromBase) {
    files.baseSetup.push({
      input: request.input,
      path: relative,
      maxBytes: request.maxBytes
    })
    return undefined
  }
  const read = readWorkspaceFile(reader.workspace, request, relative, errors)
  if (read !== undefined) files.setupFiles.push(relative)
  return read === undefined ? undefined : { text: read, relative }
}

/**
 * The workspace-relative path of the file (`/`-separated, as the repository
 * names it), or undefined with an error when it would leave the workspace.
 */
function setupPath(
  workspace: string,
  { input, file }: SetupFileRequest,
  errors: string[]
): string | undefined {
  const root = path.resolve(workspace)
  const lexical = path.resolve(root, file)
  if (!inside(root, lexical)) {
    errors.push(
      `Input '${input}': '${showValue(file)}' is outside the workspace ` +
        `(expected a file path inside the workspace (${workspace}))`
    )
    return undefined
  }
  return path.relative(root, lexical).split(path.sep).join('/')
}

/** Reads a regular file inside the workspace, never through a link, at most maxBytes. */
function readWorkspaceFile(
  workspace: string,
  { input, file, maxBytes }: SetupFileRequest,
  relative: string,
  errors: string[]
): string | undefined {
  const read = readWorkspaceFileSync(workspace, relative, maxBytes)
  if (read.ok) return read.text
  const shown = `'${showValue(file)}'`
  const expected = `(expected a regular file inside the workspace (${workspace}), reached without a link)`
  const problem = {
    missing: `cannot read ${shown} ${expected}`,
    unreadable: `cannot read ${shown} ${expected}`,
    link: `${shown} goes through a link ${expected}`,
    'not-file': `${shown} is not a regular file ${expected}`,
    'too-big': `${shown} is over ${maxBytes} bytes (expected at most ${maxBytes})`
  }[read.why]
  errors.push(`Input '${input}': ${problem}`)
  return undefined
}

function inside(root: string, target: string): boolean {
  return path.resolve(target) !== path.resolve(root) && isInside(target, root)
}
