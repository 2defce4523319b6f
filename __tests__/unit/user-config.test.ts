// The user's own config, mode, personas, instructions and OpenRouter: pure parts.
import { describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { parse, stringify } from 'yaml'
import { buildConfig } from '../../src/plan/config.js'
import {
  defaultModels,
  selectAgents,
  parseModels
} from '../../src/inputs/models.js'
import {
  massgenArgs,
  modeArgs,
  planRun,
  KEY_ENV_VARS
} from '../../src/plan/plan.js'
import { readSettings } from '../../src/inputs/settings.js'
import {
  isCredentialName,
  parseUserConfig,
  secretFields,
  userAgentPlans
} from '../../src/inputs/user-config.js'
import {
  forbiddenReferences,
  instructionsBlock,
  mergeUserConfig,
  valuesFoundIn,
  withInstructions
} from '../../src/plan/merged-config.js'
import { isConfigPath } from '../../src/inputs/user-inputs.js'
import { redactSecrets } from '../../src/safety/redact.js'

const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'user-config-'))
fs.mkdirSync(path.join(workspace, '.github'))
fs.writeFileSync(
  path.join(workspace, '.github', 'massgen.yaml'),
  'orchestrator:\n  voting_sensitivity: strict\n'
)
fs.writeFileSync(path.join(workspace, 'guide.md'), 'Cite file:line.\n')
const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'outside-'))
fs.writeFileSync(path.join(outside, 'secret.yaml'), 'ui: {}\n')
fs.symlinkSync(
  path.join(outside, 'secret.yaml'),
  path.join(workspace, 'link.yaml')
)
fs.symlinkSync(path.join(outside, 'secret.yaml'), path.join(workspace, 'g.md'))

function read(inputs: Record<string, string>, env: NodeJS.ProcessEnv = {}) {
  return readSettings({
    getInput: (n) => inputs[n] ?? '',
    env,
    workspace
  })
}

/** The bundled read server, as execute hands it to the plan. */
const READ_SERVER = {
  node: '/opt/node/bin/node',
  script: '/action/dist/fs-server/index.js'
}

const generated = () =>
  buildConfig({
    agents: selectAgents(
      parseModels('openai/gpt-5.4'),
      { openai: 'sk-x' },
      {
        docker: true,
        baseUrl: undefined
      }
    ).agents,
    docker: true,
    dockerImage: 'img:1',
    dockerNetwork: 'auto',
    baseUrl: undefined,
    maxDurationSeconds: 900,
    contextPaths: [{ path: '/repo', permission: 'read' }],
    agentCommands: true,
    readServer: READ_SERVER
  }) as unknown as Record<string, unknown>

describe('parseUserConfig', () => {
  it('reads a mapping and turns a single agent into a list', () => {
    expect(
      parseUserConfig(
        'agent: {id: a, backend: {type: openai, model: m}}',
        'inline'
      )
    ).toEqual({
      agents: [{ id: 'a', backend: { type: 'openai', model: 'm' } }]
    })
  })
  it('refuses what is not a mapping, bad YAML and duplicate keys, naming the input', () => {
    for (const text of ['- a\n- b', 'just words', 'a: [', 'a: 1\na: 2']) {
      expect(() => parseUserConfig(text, 'inline')).toThrow(
        /Input 'config' \(inline\)/
      )
    }
  })
  it('tells a path from inline YAML', () => {
    expect(isConfigPath('.github/massgen.yaml')).toBe(true)
    expect(isConfigPath('cfg.JSON')).toBe(true)
    expect(isConfigPath('orchestrator: {voting_sensitivity: strict}')).toBe(
      false
    )
    expect(isConfigPath('a: b.yaml\nc: d')).toBe(false)
  })
})

describe('secret refusal', () => {
  it('names credential fields by their last word, not max_tokens or *_env_var', () => {
    for (const name of [
      'api_key',
      'apiKey',
      'BRAVE_API_KEY',
      'X-Api-Key',
      'access_token',
      'Authorization',
      'Cookie',
      'client_secret',
      'password',
      'db-passwd'
    ])
      expect([name, isCredentialName(name)]).toEqual([name, true])
    for (const name of [
      'max_tokens',
      'bearer_token_env_var',
      'prompt_token_count',
      'keys',
      'system_message',
      'env'
    ])
      expect([name, isCredentialName(name)]).toEqual([name, false])
  })
  it('refuses api_key at any depth whatever its value', () => {
    const config = parseUserConfig(
      [
        'agents:',
        '  - id: a',
        '    backend: {type: openai, model: m, api_key: "${OPENAI_API_KEY}"}',
        'orchestrator:',
        '  deep: {deeper: {API-KEY: x}}'
      ].join('\n'),
      'inline'
    )
    const found = secretFields(config)
    expect(found).toHaveLength(2)
    expect(found[0]).toMatch(
      /^agents\.0\.backend\.api_key: 'api_key' is not accepted/
    )
    expect(found[1]).toMatch(/^orchestrator\.deep\.deeper\.API-KEY/)
  })
  it('refuses literal credentials in env blocks and headers, accepts ${VAR} references', () => {
    const config = parseUserConfig(
      [
        'agents:',
        '  - id: a',
        '    backend:',
        '      type: openai',
        '      model: m',
        '      max_tokens: 4000',
        '      mcp_servers:',
        '        - name: search',
        '          command: npx',
        '          env: {BRAVE_API_KEY: "${BRAVE_API_KEY}", SHOW_BANNER: "false", GH_TOKEN: ghp_literal}',
        '        - name: web',
        '          type: http',
        '          headers: {Authorization: "Bearer ${WEB_TOKEN}", X-Api-Key: "abc123"}'
      ].join('\n'),
      'inline'
    )
    expect(secretFields(config)).toEqual([
      expect.stringMatching(
        /mcp_servers\.0\.env\.GH_TOKEN: a credential-named field must be a \$\{VAR\} reference/
      ),
      expect.stringMatching(/mcp_servers\.1\.headers\.X-Api-Key/)
    ])
  })
  it('never shows the refused value', () => {
    const found = secretFields({ token: 'tok-VERYSECRET' })
    expect(found.join()).not.toContain('VERYSECRET')
  })
  it('refuses ${VAR} of the action secrets anywhere, and key values themselves', () => {
    const forbidden = [...KEY_ENV_VARS, 'GITHUB_TOKEN']
    expect(KEY_ENV_VARS).toContain('OPENROUTER_API_KEY')
    expect(
      forbiddenReferences(
        {
          agents: [{ system_message: 'say ${ OPENAI_API_KEY } and ${HOME}' }],
          x: '${ACTIONS_RUNTIME_TOKEN}'
        },
        forbidden
      )
    ).toEqual([
      expect.stringMatching(
        /^agents\.0\.system_message: references \$\{OPENAI_API_KEY\}/
      ),
      expect.stringMatching(/^x: references \$\{ACTIONS_RUNTIME_TOKEN\}/)
    ])
    expect(
      valuesFoundIn({ a: ['x', 'pre sk-or-v1-abc post'] }, ['sk-or-v1-abc'])
    ).toEqual(['a.1'])
  })
})

describe('mergeUserConfig', () => {
  it('lets the user add and change what the action does not own', () => {
    const { config, overridden } = mergeUserConfig(generated(), {
      orchestrator: {
        voting_sensitivity: 'strict',
        coordination: { max_orchestration_restarts: 1 }
      },
      timeout_settings: { initial_round_timeout_seconds: 300 }
    })
    expect(overridden).toEqual([])
    const orchestrator = config.orchestrator as Record<string, unknown>
    expect(orchestrator.voting_sensitivity).toBe('strict')
    expect(orchestrator.coordination).toEqual({
      enable_changedoc: false,
      max_orchestration_restarts: 1
    })
    expect(orchestrator.context_paths).toEqual([
      { path: '/repo', permission: 'read' }
    ])
    expect(config.timeout_settings).toEqual({
      orchestrator_timeout_seconds: 900,
      initial_round_timeout_seconds: 300
    })
  })
  it('keeps the owned keys and lists each one it replaced, with why', () => {
    const { config, overridden } = mergeUserConfig(generated(), {
      ui: { display_type: 'rich_terminal' },
      timeout_settings: { orchestrator_timeout_seconds: 99999 },
      orchestrator: {
        context_paths: [{ path: '/', permission: 'write' }],
        snapshot_storage: '/tmp/elsewhere'
      }
    })
    expect(overridden).toEqual([
      expect.stringMatching(
        /^orchestrator\.context_paths \(set from 'context-path'/
      ),
      expect.stringMatching(
        /^orchestrator\.snapshot_storage \(the run's own folders\)/
      ),
      expect.stringMatching(
        /^timeout_settings\.orchestrator_timeout_seconds \(set from 'max-duration'\)/
      ),
      expect.stringMatching(/^ui \(the action reads MassGen's logs/)
    ])
    expect(config.ui).toEqual({ display_type: 'simple', logging_enabled: true })
    expect(
      (config.orchestrator as Record<string, unknown>).context_paths
    ).toEqual([{ path: '/repo', permission: 'read' }])
  })
  it("keeps each agent's cwd and Docker fields, takes the rest of the user's agent", () => {
    const base = generated()
    const { config, overridden } = mergeUserConfig(base, {
      agents: [
        {
          id: 'agent_a',
          system_message: 'Be terse.',
          backend: {
            type: 'openai',
            model: 'gpt-5.4',
            cwd: '/',
            command_line_execution_mode: 'local',
            command_line_docker_network_mode: 'host',
            command_line_docker_credentials: { env_file: '.env' },
            reasoning: { effort: 'high' }
          }
        }
      ]
    })
    const agent = (
      config.agents as Record<string, Record<string, unknown>>[]
    )[0]
    expect(agent?.system_message).toBe('Be terse.')
    expect(agent?.backend).toMatchObject({
      cwd: 'workspaces/agent_a',
      command_line_execution_mode: 'docker',
      command_line_docker_network_mode: 'none',
      reasoning: { effort: 'high' }
    })
    expect(agent?.backend).not.toHaveProperty('command_line_docker_credentials')
    expect(overridden.map((o) => o.split(' ')[0])).toEqual([
      'agents.0.backend.cwd',
      'agents.0.backend.command_line_execution_mode',
      'agents.0.backend.command_line_docker_network_mode',
      'agents.0.backend.command_line_docker_credentials'
    ])
  })
})

describe('userAgentPlans', () => {
  const options = {
    keys: { openrouter: 'sk-or-1', openai: 'sk-1' },
    docker: false,
    baseUrl: undefined,
    modelsGiven: false
  }
  const agents = (list: unknown) => ({ agents: list })
  it('uses the user agents, with the key variables of their backend', () => {
    expect(
      userAgentPlans(
        agents([
          {
            id: 'reviewer',
            backend: { type: 'openrouter', model: 'anthropic/claude-opus-4.6' }
          },
          { id: 'critic', backend: { type: 'openai', model: 'gpt-5.4' } }
        ]),
        options
      )
    ).toEqual([
      {
        id: 'reviewer',
        backend: 'openrouter',
        model: 'anthropic/claude-opus-4.6',
        keyEnvVars: ['OPENROUTER_API_KEY']
      },
      {
        id: 'critic',
        backend: 'openai',
        model: 'gpt-5.4',
        keyEnvVars: ['OPENAI_API_KEY']
      }
    ])
    expect(userAgentPlans({ orchestrator: {} }, options)).toBeUndefined()
  })
  it('refuses models given too, a missing key, unknown backends, bad ids', () => {
    const one = agents([{ id: 'a', backend: { type: 'openai', model: 'm' } }])
    expect(() =>
      userAgentPlans(one, { ...options, modelsGiven: true })
    ).toThrow(/it defines 'agents', so input 'models' must be empty/)
    expect(() =>
      userAgentPlans(
        agents([{ id: 'a', backend: { type: 'claude', model: 'm' } }]),
        options
      )
    ).toThrow(/needs input 'anthropic-api-key'/)
    expect(() =>
      userAgentPlans(
        agents([{ id: 'a', backend: { type: 'groq', model: 'm' } }]),
        options
      )
    ).toThrow(/backend type 'groq' is not one the action has a key input for/)
    expect(() =>
      userAgentPlans(
        agents([{ id: '../x', backend: { type: 'openai', model: 'm' } }]),
        options
      )
    ).toThrow(/agents\[0\]: 'id' must be letters, digits/)
    expect(() =>
      userAgentPlans(
        agents([
          { id: 'a', backend: { type: 'openai', model: 'm' } },
          { id: 'a', backend: { type: 'openai', model: 'n' } }
        ]),
        options
      )
    ).toThrow(/id 'a' is used twice/)
    expect(() =>
      userAgentPlans(
        agents([{ id: 'a', backend: { type: 'vllm', model: 'm' } }]),
        options
      )
    ).toThrow(/needs 'backend.base_url' or input 'base-url'/)
    expect(() =>
      userAgentPlans(
        agents([{ id: 'a', backend: { type: 'codex', model: 'm' } }]),
        options
      )
    ).toThrow(/needs Docker mode/)
  })
})

describe('instructions', () => {
  it("go after each agent's own system message, in their own section", () => {
    const config = withInstructions(
      { agents: [{ id: 'a', system_message: 'Be terse.' }, { id: 'b' }] },
      'Cite file:line.'
    )
    const agents = config.agents as { system_message: string }[]
    expect(agents[0]?.system_message).toBe(
      `Be terse.\n\n${instructionsBlock('Cite file:line.')}`
    )
    expect(agents[1]?.system_message).toBe(instructionsBlock('Cite file:line.'))
    expect(instructionsBlock('x')).toMatch(
      /^<repository_instructions>\n[\s\S]*\nx\n<\/repository_instructions>$/
    )
  })
})

describe('mode and personas', () => {
  it("map to MassGen's own flags, before the question", () => {
    expect(modeArgs({ mode: 'full', personas: undefined })).toEqual([])
    expect(modeArgs({ mode: 'quick', personas: undefined })).toEqual([
      '--quick'
    ])
    expect(modeArgs({ mode: 'fast', personas: 'perspective' })).toEqual([
      '--fast',
      '--personas',
      'perspective'
    ])
    const args = massgenArgs('/c.yaml', '--q', {
      mode: 'quick',
      personas: 'off'
    })
    expect(args.slice(-5)).toEqual([
      '--quick',
      '--personas',
      'off',
      '--',
      '--q'
    ])
  })
})

describe('settings of the new inputs', () => {
  it('reads a config file, inline YAML, mode, personas and the instructions file', () => {
    const s = read({
      config: '.github/massgen.yaml',
      mode: 'Quick',
      personas: 'methodology',
      'instructions-file': 'guide.md'
    })
    expect(s.userConfig).toEqual({
      config: { orchestrator: { voting_sensitivity: 'strict' } },
      origin: path.join('.github', 'massgen.yaml')
    })
    expect(s).toMatchObject({
      mode: 'quick',
      personas: 'methodology',
      instructions: 'Cite file:line.'
    })
    expect(s.setupFiles).toEqual(['.github/massgen.yaml', 'guide.md'])
    expect(
      read({ config: 'orchestrator:\n  answer_novelty_requirement: strict' })
        .userConfig?.origin
    ).toBe('inline')
    expect(read({})).toMatchObject({
      mode: 'full',
      personas: undefined,
      instructions: '',
      userConfig: undefined
    })
  })
  it('gives clear errors naming the input and the expected form', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [
        { mode: 'turbo' },
        /Input 'mode': got 'turbo', expected one of 'full', 'quick', 'fast'/
      ],
      [
        { personas: 'wild' },
        /Input 'personas': got 'wild', expected one of 'off', 'perspective', 'implementation', 'methodology'/
      ],
      [
        { config: '../outside.yaml' },
        /Input 'config': '..\/outside.yaml' is outside the workspace/
      ],
      [
        { config: 'link.yaml' },
        /Input 'config': 'link.yaml' goes through a link \(expected a regular file inside the workspace/
      ],
      [
        { config: 'missing.yaml' },
        /Input 'config': cannot read 'missing.yaml'/
      ],
      [
        { 'instructions-file': 'g.md' },
        /Input 'instructions-file': 'g.md' goes through a link/
      ],
      [
        { 'instructions-file': '/etc/passwd' },
        /Input 'instructions-file': '\/etc\/passwd' is outside the workspace/
      ],
      [
        { instructions: 'a', 'instructions-file': 'guide.md' },
        /Inputs 'instructions' and 'instructions-file' are both set/
      ],
      [
        { instructions: 'x'.repeat(70_000) },
        /Input 'instructions': over 65536 bytes/
      ],
      [
        {
          config:
            'agents:\n  - id: a\n    backend: {type: openai, model: m, api_key: sk-abc}'
        },
        /Input 'config' \(inline\) would put secrets in MassGen's config file; refused:\n {2}- agents\.0\.backend\.api_key/
      ]
    ]
    for (const [inputs, message] of cases)
      expect(() => read(inputs)).toThrow(message)
  })
})

describe('OpenRouter', () => {
  it('reads its key from the input or OPENROUTER_API_KEY', () => {
    expect(read({}, { OPENROUTER_API_KEY: 'sk-or-v1-env' }).keys).toEqual({
      openrouter: 'sk-or-v1-env'
    })
    expect(read({ 'openrouter-api-key': 'sk-or-v1-in' }).keys).toEqual({
      openrouter: 'sk-or-v1-in'
    })
  })
  it('gives the defaults only when it is the only key', () => {
    expect(defaultModels({ openrouter: 'k' })).toEqual([
      { backend: 'openrouter', model: 'openai/gpt-5.4' },
      { backend: 'openrouter', model: 'google/gemini-3.1-pro-preview' }
    ])
    expect(defaultModels({ openrouter: 'k', anthropic: 'a' })).toEqual([
      { backend: 'claude', model: 'claude-opus-4-6' }
    ])
  })
  it('parses openrouter/vendor/model and skips it without its key, naming the input', () => {
    const specs = parseModels('openrouter/anthropic/claude-opus-4.6')
    expect(specs).toEqual([
      { backend: 'openrouter', model: 'anthropic/claude-opus-4.6' }
    ])
    expect(() =>
      selectAgents(specs, {}, { docker: false, baseUrl: undefined })
    ).toThrow(/Set 'openrouter-api-key'/)
  })
  it('gives only the OpenRouter agents its key, never in the config file', () => {
    const settings = read({
      models: 'openrouter/x-ai/grok-4',
      'openrouter-api-key': 'sk-or-v1-SECRETVALUE123',
      docker: 'false'
    })
    const plan = planRun({
      settings,
      question: 'q',
      configFile: '/c.yaml',
      extraContextPaths: [],
      baseEnv: { OPENROUTER_API_KEY: 'stale', PATH: '/bin' },
      readServer: READ_SERVER
    })
    expect(plan.env.OPENROUTER_API_KEY).toBe('sk-or-v1-SECRETVALUE123')
    expect(JSON.stringify(plan.config)).not.toContain('sk-or-v1')
    expect(redactSecrets('key sk-or-v1-SECRETVALUE123 here', [])).toBe(
      'key *** here'
    )
  })
})

describe('planRun with a user config', () => {
  it('merges, adds the instructions, and keeps the question out of the config', () => {
    const settings = read({
      config:
        'agents:\n  - id: reviewer\n    backend: {type: openai, model: gpt-5.4, temperature: 0.1}\norchestrator: {max_new_answers_per_agent: 2}',
      'openai-api-key': 'sk-userconfig-0123456789',
      instructions: 'Cite file:line.',
      docker: 'false'
    })
    const plan = planRun({
      settings,
      question: 'Is it safe?',
      configFile: '/c.yaml',
      extraContextPaths: [],
      baseEnv: {},
      readServer: READ_SERVER
    })
    expect(plan.agents.map((a) => a.id)).toEqual(['reviewer'])
    const written = parse(JSON.stringify(plan.config)) as {
      agents: { system_message: string; backend: Record<string, unknown> }[]
      orchestrator: Record<string, unknown>
    }
    // A read-only local-mode review: the read server, no command tool.
    expect(written.agents[0]?.backend).toMatchObject({ temperature: 0.1 })
    expect(written.agents[0]?.backend).not.toHaveProperty('cwd')
    expect(written.agents[0]?.backend).not.toHaveProperty(
      'command_line_execution_mode'
    )
    expect(written.agents[0]?.system_message).toContain('Cite file:line.')
    expect(written.orchestrator.max_new_answers_per_agent).toBe(2)
    expect(JSON.stringify(plan.config)).not.toContain('Is it safe?')
    expect(plan.args.at(-1)).toBe('Is it safe?')
  })
  it("the vote round's ballot run keeps its own keys over the user's orchestrator settings", () => {
    const settings = read({
      config:
        'orchestrator: {max_new_answers_per_agent: 2, skip_voting: false, skip_final_presentation: false}',
      'openai-api-key': 'sk-userconfig-0123456789',
      models: 'openai/m',
      docker: 'false'
    })
    const plan = planRun({
      settings,
      question: 'The ballot.',
      configFile: '/c.vote.yaml',
      extraContextPaths: [],
      baseEnv: {},
      readServer: READ_SERVER,
      ballot: true
    })
    expect(plan.config.orchestrator).toMatchObject({
      skip_voting: true,
      skip_final_presentation: true,
      max_new_answers_per_agent: 1,
      disable_injection: true
    })
  })
  it("a read-only review's answers run has no final presentation (config.ts IDLE_PRESENTATION); a review that writes, or a run that is no review, keeps it", () => {
    const answers = (inputs: Record<string, string>) =>
      planRun({
        settings: read({
          'openai-api-key': 'sk-userconfig-0123456789',
          models: 'openai/m',
          docker: 'false',
          ...inputs
        }),
        question: 'q',
        configFile: '/c.yaml',
        extraContextPaths: [],
        baseEnv: {},
        readServer: READ_SERVER
      }).config.orchestrator as Record<string, unknown>
    const review = answers({ review: 'inline' })
    expect(review.skip_final_presentation).toBe(true)
    // MassGen's vote stays: it names the winner and the decision.
    expect(review).not.toHaveProperty('skip_voting')
    expect(
      answers({ review: 'inline', 'context-permission': 'write' })
    ).not.toHaveProperty('skip_final_presentation')
    expect(answers({})).not.toHaveProperty('skip_final_presentation')
  })
  it('refuses instructions that would carry a key into the config', () => {
    const settings = read({
      'openai-api-key': 'sk-userconfig-0123456789',
      instructions: 'Use ${OPENAI_API_KEY} then sk-userconfig-0123456789',
      docker: 'false',
      models: 'openai/m'
    })
    expect(() =>
      planRun({
        settings,
        question: 'q',
        configFile: '/c.yaml',
        extraContextPaths: [],
        baseEnv: {},
        readServer: READ_SERVER
      })
    ).toThrow(
      /refused:\n {2}- agents\.0\.system_message: references \$\{OPENAI_API_KEY\}[\s\S]*holds the value of an API key/
    )
  })
})

// The README's config examples live in docs/configuration.md, which it links.
describe("docs/configuration.md's config examples", () => {
  const readme = fs.readFileSync('docs/configuration.md', 'utf8')
  const section =
    readme.split('## Your own MassGen config\n')[1]?.split('\n## ')[0] ?? ''
  const blocks = [...section.matchAll(/```yaml\n([\s\S]*?)```/g)].map(
    (m) => m[1] ?? ''
  )
  const configs = blocks.map((block) => {
    const value = parse(block) as unknown
    if (Array.isArray(value))
      return (value[0] as { with: { config: string } }).with.config
    return block
  })
  it('are three, and each merges with nothing overridden and no secret', () => {
    expect(configs).toHaveLength(3)
    for (const [i, text] of configs.entries()) {
      const settings = read({
        config: text,
        'openai-api-key': 'sk-readme-0123456789',
        'openrouter-api-key': 'sk-or-v1-readme-0123456789',
        'gemini-api-key': 'AIza-readme-0123456789',
        docker: 'false'
      })
      const plan = planRun({
        settings,
        question: 'q',
        configFile: '/c.yaml',
        extraContextPaths: [],
        baseEnv: {},
        readServer: READ_SERVER
      })
      expect(plan.overridden).toEqual([])
      if (process.env.README_CONFIG_DUMP)
        fs.writeFileSync(
          path.join(process.env.README_CONFIG_DUMP, `example-${i}.yaml`),
          stringify(plan.config)
        )
    }
  })
})
