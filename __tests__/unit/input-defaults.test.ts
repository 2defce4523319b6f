// action.yml is where every input's default is written; the runner fills it
// in, but a workflow may pass '' and tests call the code without it. So the
// code's fallbacks must give the very same settings: read with every input
// empty and read with every input at action.yml's default, they agree.
import { describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { parse } from 'yaml'
import { readSettings } from '../../src/inputs/settings.js'

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
