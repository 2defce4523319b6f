// The README's tables cannot drift from action.yml.
import { describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import { parse } from 'yaml'
import { Inputs, Outputs } from '../../src/core/constants.js'
import { CONFIG_KEY_NAMES } from '../../src/inputs/config-keys.js'

const action = parse(fs.readFileSync('action.yml', 'utf8')) as {
  inputs: Record<string, { default?: string }>
  outputs: Record<string, unknown>
}
const readme = fs.readFileSync('README.md', 'utf8')
// The outputs' table is in docs/outputs.md, which the README links.
const outputsPage = fs.readFileSync('docs/outputs.md', 'utf8')
const section = (title: string, text = readme) =>
  text.split(`## ${title}\n`)[1]?.split('\n## ')[0] ?? ''
const rows = (text: string) =>
  new Map(
    [...text.matchAll(/^\| `([a-z-]+)` \|(.*)$/gm)].map((m) => [
      m[1] ?? '',
      (m[2] ?? '').split(' | ')
    ])
  )

describe('README', () => {
  it('documents every input of action.yml with its default, and no other', () => {
    const documented = rows(section('Inputs'))
    expect([...documented.keys()].sort()).toEqual(
      Object.keys(action.inputs).sort()
    )
    for (const [name, spec] of Object.entries(action.inputs)) {
      const cell = documented.get(name)?.[0]?.trim() ?? ''
      expect(cell).toBe(spec.default ? `\`${spec.default}\`` : '')
    }
  })
  it('documents every output of action.yml, and no other (docs/outputs.md)', () => {
    expect([...rows(section('Outputs', outputsPage)).keys()].sort()).toEqual(
      Object.keys(action.outputs).sort()
    )
  })
  it('action.yml declares exactly the names the code reads and writes', () => {
    // The config file's keys are read as inputs too (deprecated), not declared.
    expect(Object.keys(action.inputs).sort()).toEqual(
      Object.values(Inputs)
        .filter((name) => !CONFIG_KEY_NAMES.has(name))
        .sort()
    )
    expect(Object.keys(action.inputs).length).toBeLessThanOrEqual(30)
    expect(Object.keys(action.outputs).sort()).toEqual(
      Object.values(Outputs).sort()
    )
  })
  it('starts with the two commands', () => {
    const first = readme.split('```sh\n')[1]?.split('```')[0] ?? ''
    expect(first).toMatch(/npm run demo/)
    expect(first).toMatch(/npm test/)
  })
})
