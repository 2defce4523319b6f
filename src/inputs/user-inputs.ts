// The inputs that make a run the user's own: `config`, `mode`, `personas`,
// `instructions` / `instructions-file`. Files are read inside the workspace
// only, never through a link that leaves it, and never past a size cap.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Inputs } from './constants.js'
import {
  MAX_CONFIG_BYTES,
  parseUserConfig,
  secretFields,
  UserConfigError
} from '../plan/user-config.js'
import {
  PERSONA_MODES,
  RUN_MODES,
  type PersonaMode,
  type RunMode,
  type UserConfigSource
} from './types.js'
import { READ_FLAGS } from '../safety/agent-files.js'
import { isInside } from '../shared/paths.js'
import { showValue } from '../shared/text.js'

/** Instructions go into every agent's system prompt on every call. */
export const MAX_INSTRUCTIONS_BYTES = 64 * 1024

export interface UserInputs {
  userConfig: UserConfigSource | undefined
  mode: RunMode
  personas: PersonaMode | undefined
  instructions: string
  /** Workspace-relative paths of the files read (config, instructions). */
  setupFiles: string[]
}

export function readUserInputs(
  getInput: (name: string) => string,
  workspace: string,
  errors: string[]
): UserInputs {
  const setupFiles: string[] = []
  const userConfig = readConfig(
    getInput(Inputs.Config).trim(),
    workspace,
    errors,
    setupFiles
  )
  return {
    userConfig,
    mode:
      readChoice(getInput(Inputs.Mode), Inputs.Mode, RUN_MODES, errors) ??
      'full',
    personas: readChoice(
      getInput(Inputs.Personas),
      Inputs.Personas,
      PERSONA_MODES,
      errors
    ),
    instructions: readInstructions(getInput, workspace, errors, setupFiles),
    setupFiles
  }
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
  workspace: string,
  errors: string[],
  setupFiles: string[]
): UserConfigSource | undefined {
  if (!value) return undefined
  let text = value
  let origin = 'inline'
  if (isConfigPath(value)) {
    const file = readWorkspaceFile(
      workspace,
      value,
      Inputs.Config,
      MAX_CONFIG_BYTES,
      errors
    )
    if (file === undefined) return undefined
    text = file.text
    origin = file.relative
    setupFiles.push(file.relative)
  } else if (Buffer.byteLength(value, 'utf8') > MAX_CONFIG_BYTES) {
    errors.push(
      `Input '${Inputs.Config}': inline YAML over ${MAX_CONFIG_BYTES} bytes (expected a config, not data)`
    )
    return undefined
  }
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
  workspace: string,
  errors: string[],
  setupFiles: string[]
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
    const read = readWorkspaceFile(
      workspace,
      file,
      Inputs.InstructionsFile,
      MAX_INSTRUCTIONS_BYTES,
      errors
    )
    if (!read) return ''
    setupFiles.push(read.relative)
    if (!read.text.trim())
      errors.push(
        `Input '${Inputs.InstructionsFile}': '${showValue(file)}' is empty`
      )
    return read.text.trim()
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

/**
 * Reads a regular file inside the workspace: the path may not leave it, by
 * `..`, an absolute path or a link anywhere along the way; the last part is
 * opened without following a link, and at most maxBytes are read.
 */
export function readWorkspaceFile(
  workspace: string,
  file: string,
  input: string,
  maxBytes: number,
  errors: string[]
): { text: string; relative: string } | undefined {
  const expected = `expected a file path inside the workspace (${workspace})`
  let root: string
  try {
    root = fs.realpathSync(workspace)
  } catch {
    errors.push(`Input '${input}': the workspace ${workspace} does not exist`)
    return undefined
  }
  const lexical = path.resolve(root, file)
  if (!inside(root, lexical)) {
    errors.push(
      `Input '${input}': '${showValue(file)}' is outside the workspace (${expected})`
    )
    return undefined
  }
  let real: string
  try {
    real = fs.realpathSync(lexical)
  } catch {
    errors.push(
      `Input '${input}': cannot read '${showValue(file)}' (${expected}, existing)`
    )
    return undefined
  }
  if (!inside(root, real)) {
    errors.push(
      `Input '${input}': '${showValue(file)}' leads outside the workspace through a link (${expected})`
    )
    return undefined
  }
  let fd: number | undefined
  try {
    // A pull request may put a FIFO at the path: it must not hang the step.
    fd = fs.openSync(real, READ_FLAGS)
    const stat = fs.fstatSync(fd)
    if (!stat.isFile()) {
      errors.push(
        `Input '${input}': '${showValue(file)}' is not a regular file (${expected})`
      )
      return undefined
    }
    if (stat.size > maxBytes) {
      errors.push(
        `Input '${input}': '${showValue(file)}' is ${stat.size} bytes, expected at most ${maxBytes}`
      )
      return undefined
    }
    const buffer = Buffer.alloc(maxBytes + 1)
    const length = fs.readSync(fd, buffer, 0, maxBytes + 1, 0)
    if (length > maxBytes) {
      errors.push(
        `Input '${input}': '${showValue(file)}' is over ${maxBytes} bytes`
      )
      return undefined
    }
    return {
      text: buffer.subarray(0, length).toString('utf8'),
      relative: path.relative(root, real)
    }
  } catch {
    errors.push(
      `Input '${input}': cannot read '${showValue(file)}' (${expected})`
    )
    return undefined
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

function inside(root: string, target: string): boolean {
  return path.resolve(target) !== path.resolve(root) && isInside(target, root)
}
