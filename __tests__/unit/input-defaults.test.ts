// action.yml is where every input's default is written; the runner fills it
// in, but a workflow may pass '' and tests call the code without it. So the
// code's one copy of them (Defaults, core/constants.ts) holds exactly
// action.yml's defaults, the README's table shows the same, and the settings
// read with every input empty are those read with every input at its
// default.
import { describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { parse } from 'yaml'
import { Defaults, Inputs } from '../../src/core/constants.js'
import { readReportSettings, readSettings } from '../../src/inputs/settings.js'

interface ActionInput {
  default?: string | number | boolean
}

const action = parse(fs.readFileSync('action.yml', 'utf8')) as {
  inputs: Record<string, ActionInput>
}
/** Defaults that are expressions the runner evaluates, not values. */
const EVALUATED = /\$\{\{/
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'defaults-'))

function settingsWith(inputs: Record<string, string>) {
  return readSettings({
    getInput: (name) => inputs[name] ?? '',
    env: { GITHUB_TOKEN: 'token' },
    workspace
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

  it('cover the inputs that have one (a parse that reads none proves nothing)', () => {
    expect(Object.keys(defaults).length).toBeGreaterThan(20)
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

  it("holds action.yml's defaults, every one and no other", () => {
    expect(table).toEqual(Object.fromEntries(literal))
  })

  it("is what the README's table of inputs shows", () => {
    const readme = fs.readFileSync('README.md', 'utf8')
    for (const [name, value] of Object.entries(table))
      expect(readme).toContain(`| \`${name}\` | \`${value}\` |`)
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
