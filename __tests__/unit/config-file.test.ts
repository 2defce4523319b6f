// The repository config file (.github/massgen-action.yml): its keys, its
// schema, docs/configuration.md and the inputs are one list; a key is read
// by its input's own rule; the file's examples pass the schema and the
// action; bad files get errors naming the file, the key and the form.
// `UPDATE_SCHEMA=1` rewrites schema/massgen-action.schema.json from the list.
import { describe, expect, it } from '@jest/globals'
import { Ajv } from 'ajv'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { parse } from 'yaml'
import { Inputs } from '../../src/core/constants.js'
import {
  CONFIG_KEYS,
  configSchema,
  SCHEMA_PATH
} from '../../src/inputs/config-keys.js'
import { readSettings } from '../../src/inputs/settings.js'
import {
  layeredInputs,
  parseSettingsFile
} from '../../src/inputs/settings-file.js'
import { readShardInputs } from '../../src/inputs/shard-inputs.js'

const action = parse(fs.readFileSync('action.yml', 'utf8')) as {
  inputs: Record<string, unknown>
}
const docs = fs.readFileSync('docs/configuration.md', 'utf8')
if (process.env.UPDATE_SCHEMA === '1')
  fs.writeFileSync(SCHEMA_PATH, `${JSON.stringify(configSchema(), null, 2)}\n`)
const schema = JSON.parse(fs.readFileSync(SCHEMA_PATH, 'utf8')) as {
  properties: Record<string, unknown>
}
const validate = new Ajv({
  strict: true,
  allowUnionTypes: true,
  allErrors: true
}).compile(schema)
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'config-file-'))
const ORIGIN = '.github/massgen-action.yml at base 0123456789ab'

function settings(
  inputs: Record<string, string>,
  fileText?: string,
  warnings: string[] = []
) {
  const parsed =
    fileText === undefined ? undefined : parseSettingsFile(fileText, ORIGIN)
  if (parsed && !parsed.ok) throw new Error(parsed.errors.join('\n'))
  return readSettings({
    getInput: (name) => inputs[name] ?? '',
    env: { GITHUB_TOKEN: 'token' },
    workspace,
    settingsFile: parsed?.file,
    warn: (message) => warnings.push(message)
  })
}

/** What a matrix job reads of a review's shards (shard-inputs.ts), the same way. */
function shardInputs(inputs: Record<string, string>, fileText?: string) {
  const parsed =
    fileText === undefined ? undefined : parseSettingsFile(fileText, ORIGIN)
  if (parsed && !parsed.ok) throw new Error(parsed.errors.join('\n'))
  const all: Record<string, string> = { role: 'matrix', ...inputs }
  return readShardInputs(
    layeredInputs({
      getInput: (name) => all[name] ?? '',
      settingsFile: parsed?.file
    }).getInput
  )
}
const SHARD_KEYS = ['shard-questions', 'shard-paths', 'max-shards']

function refusal(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    return String(error)
  }
  throw new Error('not refused')
}

/** The YAML blocks of a section of docs/configuration.md. */
function yamlBlocks(section: string): string[] {
  const text = docs.split(`## ${section}\n`)[1]?.split('\n## ')[0] ?? ''
  return [...text.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] ?? '')
}

/** A value of every key, as a YAML value and as its input's text. */
const SAMPLES: Record<string, [unknown, string]> = {
  'fail-on': [['blocker', 'unclear'], 'blocker, unclear'],
  'check-run': [false, 'false'],
  'finding-vote': [false, 'false'],
  'min-agreement': [2, '2'],
  'min-severity': ['nit', 'nit'],
  'max-inline-comments': [3, '3'],
  'review-scope': ['full', 'full'],
  'resolve-threads': ['off', 'off'],
  'allow-unread': [['**/*.svg', 'docs/'], '**/*.svg, docs/'],
  include: [['src/**'], 'src/**'],
  exclude: [['*.lock', '!keep.lock'], '*.lock\n!keep.lock'],
  'pr-context': [false, 'false'],
  'pr-diff-max-bytes': [5000, '5000'],
  'project-instructions': ['none', 'none'],
  personas: ['perspective', 'perspective'],
  'agent-commands': [true, 'true'],
  'pass-env': [['JAVA_HOME'], 'JAVA_HOME'],
  'skip-drafts': [false, 'false'],
  'skip-bots': [true, 'true'],
  'skip-labels': [['wip', 'No-Review'], 'wip, No-Review'],
  'max-changed-files': [500, '500'],
  'allowed-bots': [['renovate[bot]'], 'renovate[bot]'],
  'allowed-users': [['octocat', 'hubot'], 'octocat hubot'],
  'allow-fork-pull-request-target': [true, 'true'],
  'accept-local-mode-risk': [true, 'true'],
  'job-summary': [false, 'false'],
  'upload-logs': ['answers-only', 'answers-only'],
  'max-duration': [600, '600'],
  'max-cost': [2.5, '2.50'],
  'checkout-check': ['warn', 'warn'],
  'docker-image': ['ghcr.io/me/img:1', 'ghcr.io/me/img:1'],
  'docker-network': ['bridge', 'bridge'],
  'massgen-version': ['0.1.96', '0.1.96'],
  'cache-massgen': [false, 'false'],
  'cache-save': ['never', 'never'],
  'shard-questions': [{ security: 'Find bugs.' }, 'security: Find bugs.'],
  'shard-paths': [{ web: ['web/**', '*.css'] }, 'web: web/**, *.css'],
  'max-shards': [8, '8']
}

describe('the config file, its schema and the inputs are one list', () => {
  const keys = CONFIG_KEYS.map((k) => k.name).sort()

  it('the published schema is the one generated from the keys (UPDATE_SCHEMA=1 rewrites it)', () => {
    expect(schema).toEqual(configSchema())
    expect(Object.keys(schema.properties).sort()).toEqual(keys)
  })

  it('every name is an input of action.yml or a key of the file, never both', () => {
    const declared = Object.keys(action.inputs)
    expect([...declared, ...keys].sort()).toEqual(Object.values(Inputs).sort())
    expect(declared.filter((n) => keys.includes(n))).toEqual([])
  })

  it('docs/configuration.md lists every key, and no other', () => {
    const table = docs.split('## Keys\n')[1]?.split('\n## ')[0] ?? ''
    const listed = [...table.matchAll(/^\| `([a-z-]+)` \|/gm)].map((m) => m[1])
    expect(listed.sort()).toEqual(keys)
  })

  it('the samples below cover every key', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(keys)
  })
})

describe("docs/configuration.md's examples", () => {
  const examples = yamlBlocks('Example')

  it('pass the schema and the action, and set what they say', () => {
    expect(examples.length).toBe(2)
    for (const example of examples) {
      expect(validate(parse(example))).toBe(true)
      expect(validate.errors ?? []).toEqual([])
      expect(parseSettingsFile(example, ORIGIN).ok).toBe(true)
    }
    const s = settings({ query: 'q' }, examples[0])
    expect(s).toMatchObject({
      failOn: 'blocker',
      exclude: ['docs/**', '*.snap'],
      skipLabels: ['wip', 'no-review'],
      maxChangedFiles: 500
    })
  })

  it("this repository's own file passes the schema and the action", () => {
    const own = fs.readFileSync('.github/massgen-action.yml', 'utf8')
    expect(validate(parse(own))).toBe(true)
    expect(settings({ query: 'q' }, own).maxDurationSeconds).toBe(300)
  })

  it('fail the schema with a key misspelt or a value of the wrong type', () => {
    const example = parse(examples[0] ?? '') as Record<string, unknown>
    expect(validate({ ...example, 'min-severty': 'nit' })).toBe(false)
    expect(validate({ ...example, 'max-shards': [4] })).toBe(false)
    expect(validate({ ...example, 'min-severity': 'low' })).toBe(false)
  })
})

describe("the README's and the examples' config files", () => {
  /** The README's YAML blocks that are a .github/massgen-action.yml (they name its schema). */
  const readmeFiles = [
    ...fs
      .readFileSync('README.md', 'utf8')
      .matchAll(/^( *)```yaml\n((?:.*\n)*?)\1```/gm)
  ]
    .map((m) => (m[2] ?? '').replace(new RegExp(`^${m[1] ?? ''}`, 'gm'), ''))
    .filter((block) => block.includes('massgen-action.schema.json'))
  /** examples/matrix-review.yml's file, written as comments after "For example:". */
  const matrixLines = fs
    .readFileSync('examples/matrix-review.yml', 'utf8')
    .split('\n')
  const from = matrixLines.findIndex((line) => line.includes('For example:'))
  const matrixFile = matrixLines
    .slice(from + 1)
    .filter((line, i, all) =>
      all.slice(0, i + 1).every((l) => l.startsWith('  #   '))
    )
    .map((line) => line.slice('  #   '.length))
    .join('\n')

  it('pass the schema and the action', () => {
    expect(readmeFiles.length).toBeGreaterThan(0)
    for (const file of [...readmeFiles, matrixFile]) {
      expect(validate(parse(file))).toBe(true)
      expect(parseSettingsFile(file, ORIGIN).ok).toBe(true)
    }
    expect(settings({ query: 'q' }, readmeFiles[0]).failOn).toBe('blocker')
    const matrix = shardInputs({ role: 'matrix' }, matrixFile)
    expect(matrix.questions.map((q) => q.name)).toEqual(['bugs', 'security'])
    expect(matrix.paths.map((p) => p.name)).toEqual(['web', 'api'])
    expect(settings({ query: 'q' }, matrixFile).maxCost).toBe(2)
  })
})

describe('a key is read by its input’s rule', () => {
  it.each(Object.entries(SAMPLES))(
    '%s: the same value in the file or as the input gives the same settings, and the schema takes it',
    (name, [value, text]) => {
      expect(validate({ [name]: value })).toBe(true)
      const read = SHARD_KEYS.includes(name) ? shardInputs : settings
      const fromFile = read({ query: 'q' }, JSON.stringify({ [name]: value }))
      const fromInput = read({ query: 'q', [name]: text })
      expect(fromFile).toEqual(fromInput)
      expect(fromFile).not.toEqual(read({ query: 'q' }))
    }
  )

  it('the workflow input wins over the file, the file over the default; each old input warns once, naming its key', () => {
    const warnings: string[] = []
    const s = settings(
      { query: 'q', 'min-severity': 'blocker' },
      'min-severity: nit\nmax-inline-comments: 3\n',
      warnings
    )
    expect(s.minSeverity).toBe('blocker')
    expect(s.maxInlineComments).toBe(3)
    expect(s.minAgreement).toBe(1)
    expect(warnings).toEqual([
      expect.stringMatching(
        /^Input 'min-severity' is deprecated: set the key 'min-severity' in \.github\/massgen-action\.yml .*It wins over the 'min-severity' \.github\/massgen-action\.yml at base 0123456789ab sets\./
      )
    ])
  })

  it('an input that stays in action.yml is read from the workflow, never the file', () => {
    const parsed = parseSettingsFile('comment-tag: other\n', ORIGIN)
    expect(parsed).toEqual({
      ok: false,
      errors: [
        expect.stringMatching(
          /^\.github\/massgen-action\.yml at base 0123456789ab: key 'comment-tag' is not a setting of the file \(expected one of the keys in docs\/configuration\.md\); 'comment-tag' is an input of action\.yml, set in the workflow step's 'with:'$/
        )
      ]
    })
  })
})

describe('a bad file is refused, naming the file, the key and the form', () => {
  const errors = (text: string) => {
    const parsed = parseSettingsFile(text, ORIGIN)
    return parsed.ok ? [] : parsed.errors
  }

  it('a refused value names the file and the key, not an input', () => {
    expect(
      refusal(() =>
        settings({ query: 'q' }, 'fail-on: sometimes\nmax-shards: 4\n')
      )
    ).toBe(
      `Error: ${ORIGIN}: key 'fail-on': got 'sometimes', expected 'blocker', 'concern' or 'never', or a list with 'unclear' such as 'blocker, unclear'`
    )
    // The same value as an input names the input.
    expect(
      refusal(() => settings({ query: 'q', 'fail-on': 'sometimes' }))
    ).toMatch(/^Error: Input 'fail-on': got 'sometimes'/)
    expect(refusal(() => settings({ query: 'q' }, 'exclude: ["!"]\n'))).toMatch(
      new RegExp(`^Error: ${ORIGIN}: key 'exclude': '!'`)
    )
  })

  it('unknown keys, wrong types and what is not a mapping', () => {
    expect(
      errors('min-severty: nit\nmax-shards: [4]\ncheck-run: yes\n')
    ).toEqual([
      `${ORIGIN}: key 'min-severty' is not a setting of the file (expected one of the keys in docs/configuration.md); did you mean 'min-severity'?`,
      `${ORIGIN}: key 'max-shards': got a list, expected a whole number (docs/configuration.md)`,
      `${ORIGIN}: key 'check-run': got string 'yes', expected true or false (docs/configuration.md)`
    ])
    expect(errors('- fail-on\n')).toEqual([
      `${ORIGIN}: expected a mapping of keys such as 'fail-on: blocker' (docs/configuration.md), got a list`
    ])
    expect(errors('fail-on: [blocker\n')[0]).toMatch(
      new RegExp(`^${ORIGIN}: not YAML or JSON \\(`)
    )
    expect(errors('shard-questions: {a: "two\\nlines"}\n')).toEqual([
      `${ORIGIN}: key 'shard-questions': got a mapping, expected a mapping of names to one-line text or a string (docs/configuration.md)`
    ])
  })

  it('YAML aliases (a billion laughs) and duplicate keys are refused', () => {
    expect(errors('a: &a [x]\nexclude: *a\n')).not.toEqual([])
    expect(errors('exclude: x\nexclude: y\n')).not.toEqual([])
  })

  it('JSON is read as YAML, and an empty file sets nothing', () => {
    expect(settings({ query: 'q' }, '{"min-agreement": 2}').minAgreement).toBe(
      2
    )
    expect(settings({ query: 'q' }, '# nothing yet\n')).toEqual(
      settings({ query: 'q' })
    )
  })
})
