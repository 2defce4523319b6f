import { describe, expect, it } from '@jest/globals'
import {
  agentId,
  defaultModels,
  ModelsError,
  parseModels,
  selectAgents
} from '../../src/inputs/models.js'

const local = { docker: false, baseUrl: undefined }

describe('parseModels', () => {
  it('splits on spaces, commas and newlines', () => {
    expect(
      parseModels('openai/gpt-5.4, gemini/g3\n claude/c4  grok/g4')
    ).toEqual([
      { backend: 'openai', model: 'gpt-5.4' },
      { backend: 'gemini', model: 'g3' },
      { backend: 'claude', model: 'c4' },
      { backend: 'grok', model: 'g4' }
    ])
  })
  it('keeps slashes inside the model name', () => {
    expect(parseModels('vllm/meta-llama/Llama-3-8B')).toEqual([
      { backend: 'vllm', model: 'meta-llama/Llama-3-8B' }
    ])
  })
  it('is empty for empty text', () => {
    expect(parseModels('  \n ')).toEqual([])
  })
  it.each([
    ['gpt-5.4', /not a backend\/model pair/],
    ['openai/', /not a backend\/model pair/],
    ['/gpt', /not a backend\/model pair/],
    ['mistral/large', /unknown backend 'mistral'/],
    ['openai/a openai/a', /listed twice/]
  ])('rejects %s', (text, message) => {
    expect(() => parseModels(text)).toThrow(message)
    expect(() => parseModels(text)).toThrow(/Input 'models'/)
  })
})

describe('defaultModels', () => {
  it('uses the OpenAI + Gemini pair plus Claude and Grok when keys exist', () => {
    expect(
      defaultModels({ openai: 'k', google: 'k', anthropic: 'k', xai: 'k' }).map(
        (m) => m.backend
      )
    ).toEqual(['openai', 'gemini', 'claude', 'grok'])
  })
  it('uses the single one available', () => {
    expect(defaultModels({ google: 'k' })).toEqual([
      { backend: 'gemini', model: 'gemini-3.1-pro-preview' }
    ])
  })
})

describe('selectAgents', () => {
  it('skips pairs whose key is missing, naming the input', () => {
    const { agents, warnings } = selectAgents(
      parseModels('openai/a gemini/b'),
      { openai: 'k' },
      local
    )
    expect(agents.map((a) => a.model)).toEqual(['a'])
    expect(warnings).toEqual([
      expect.stringContaining("input 'gemini-api-key' is empty")
    ])
  })
  it('fails listing the keys to set when none is left', () => {
    expect(() =>
      selectAgents(parseModels('claude/a grok/b'), {}, local)
    ).toThrow(/'anthropic-api-key', 'xai-api-key'/)
  })
  it('fails with no keys and no models', () => {
    expect(() => selectAgents([], {}, local)).toThrow(ModelsError)
  })
  it('needs docker for coding agents', () => {
    expect(() =>
      selectAgents(parseModels('codex/gpt-5.4'), { openai: 'k' }, local)
    ).toThrow(/needs Docker mode/)
    expect(
      selectAgents(
        parseModels('codex/gpt-5.4'),
        { openai: 'k' },
        { docker: true, baseUrl: undefined }
      ).agents
    ).toHaveLength(1)
  })
  it('needs base-url for endpoint backends, and vllm needs no key', () => {
    expect(() => selectAgents(parseModels('vllm/m'), {}, local)).toThrow(
      /'base-url' is required/
    )
    const { agents } = selectAgents(
      parseModels('vllm/m'),
      {},
      { docker: false, baseUrl: 'http://x/v1' }
    )
    expect(agents).toEqual([
      { id: 'agent_a', backend: 'vllm', model: 'm', keyEnvVars: [] }
    ])
  })
  it('records the key variables by name', () => {
    const { agents } = selectAgents(
      parseModels('gemini/g claude_code/c'),
      { google: 'k', anthropic: 'k' },
      { docker: true, baseUrl: undefined }
    )
    expect(agents.map((a) => a.keyEnvVars)).toEqual([
      ['GOOGLE_API_KEY', 'GEMINI_API_KEY'],
      ['ANTHROPIC_API_KEY']
    ])
  })
})

describe('agentId', () => {
  it('keeps lexical order equal to list order', () => {
    for (const total of [3, 26, 40]) {
      const ids = Array.from({ length: total }, (_, i) => agentId(i, total))
      expect([...ids].sort()).toEqual(ids)
      expect(new Set(ids).size).toBe(total)
    }
  })
})
