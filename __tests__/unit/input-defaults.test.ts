// action.yml is where every input's default is written, the config file's
// schema every key's; the runner fills an input's in, but a workflow may pass
// '' and tests call the code without it. So the code's one copy of them
// (Defaults, core/constants.ts) holds exactly action.yml's and the schema's
// defaults, the README's table and docs/configuration.md show the same, and
// the settings read with every input empty are those read with every input
// and key at its default.
import { describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { parse } from 'yaml'
import { Defaults, Inputs } from '../../src/core/constants.js'
import { readReportSettings, readSettings } from '../../src/inputs/settings.js'
import { parseSettingsFile } from '../../src/inputs/settings-file.js'

interface ActionInput {
  default?: string | number | boolean
}

const action = parse(fs.readFileSync('action.yml', 'utf8')) as {
  inputs: Record<string, ActionInput>
}
/** Defaults that are expressions the runner evaluates, not values. */
const EVALUATED = /\$\{\{/
const schema = JSON.parse(
  fs.readFileSync('schema/massgen-action.schema.json', 'utf8')
) as { properties: Record<string, { default?: unknown }> }
/** Each config key's default, as the schema gives it. */
const keyDefaults = Object.fromEntries(
  Object.entries(schema.properties)
    .filter(([, key]) => key.default !== undefined)
    .map(([name, key]) => [name, String(key.default)] as const)
)
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'defaults-'))

function settingsWith(inputs: Record<string, string>, fileText = '') {
  const parsed = parseSettingsFile(fileText, 'defaults.yml')
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'))
  return readSettings({
    getInput: (name) => inputs[name] ?? '',
    env: { GITHUB_TOKEN: 'token' },
    workspace,
    settingsFile: parsed.file
  })
}

describe("the code's defaults", () => {
  const defaults = Object.fromEntries(
    Object.entries(action.inputs)
      .map(([name, input]) => [name, String(input.default ?? '')] as const)
      .filter(([, value]) => value !== '' && !EVALUATED.test(value))
  )

  it('are the defaults action.yml declares', () => {
    // A query, since a run needs one; it is not a default.
    const fromCode = settingsWith({ query: 'q' })
    const fromAction = settingsWith({ ...defaults, query: 'q' })
    expect(fromCode).toEqual(fromAction)
  })

  it("are the defaults the config file's schema declares", () => {
    const fromCode = settingsWith({ query: 'q' })
    const file = JSON.stringify(
      Object.fromEntries(
        Object.entries(schema.properties).flatMap(([name, key]) =>
          key.default === undefined ? [] : [[name, key.default]]
        )
      )
    )
    expect(settingsWith({ query: 'q' }, file)).toEqual(fromCode)
  })

  it('cover the inputs and keys that have one (a parse that reads none proves nothing)', () => {
    expect(Object.keys(defaults).length).toBeGreaterThan(5)
    expect(Object.keys(keyDefaults).length).toBeGreaterThan(20)
  })
})

describe('the Defaults table', () => {
  const literal = Object.entries(action.inputs)
    .map(([name, input]) => [name, String(input.default ?? '')] as const)
    .filter(([, value]) => value !== '' && !EVALUATED.test(value))
  const inputName = (key: string) =>
    (Inputs as Record<string, string>)[key] ?? `no input ${key}`
  const table = Object.fromEntries(
    Object.entries(Defaults).map(([key, value]) => [
      inputName(key),
      String(value)
    ])
  )

  it("holds action.yml's and the schema's defaults, every one and no other", () => {
    expect(table).toEqual({ ...Object.fromEntries(literal), ...keyDefaults })
  })

  it("is what the README's table of inputs and docs/configuration.md's of keys show", () => {
    const docs =
      fs.readFileSync('README.md', 'utf8') +
      fs.readFileSync('docs/configuration.md', 'utf8')
    for (const [name, value] of Object.entries(table))
      expect(docs).toContain(`| \`${name}\` | \`${value}\` |`)
  })

  it('gives the failure path the settings readSettings gives', () => {
    const read = (inputs: Record<string, string>) =>
      readReportSettings({ getInput: (name) => inputs[name] ?? '' })
    const { jobSummary, commentTag } = settingsWith({ query: 'q' })
    expect(read({})).toEqual({ jobSummary, commentTag })
    // Where no error can be reported, a refused value is its default.
    expect(
      read({ [Inputs.JobSummary]: 'maybe', [Inputs.CommentTag]: 'a b' })
    ).toEqual({
      jobSummary: Defaults.JobSummary,
      commentTag: Defaults.CommentTag
    })
    expect(
      read({ [Inputs.JobSummary]: 'false', [Inputs.CommentTag]: 'other' })
    ).toEqual({ jobSummary: false, commentTag: 'other' })
  })
})
