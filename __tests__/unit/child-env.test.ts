import { describe, expect, it } from '@jest/globals'
import { parseModels, selectAgents } from '../../src/inputs/models.js'
import { childEnv } from '../../src/plan/plan.js'

const keys = { openai: 'sk-openai-value', google: 'AIza-google-value' }
const agents = selectAgents(parseModels('openai/gpt-5.4'), keys, {
  docker: true,
  baseUrl: undefined
}).agents

describe('childEnv (what MassGen, and so every agent command, may see)', () => {
  const env = childEnv(
    {
      PATH: '/usr/bin',
      HOME: '/home/runner',
      DOCKER_HOST: 'unix:///run/user/1001/docker.sock',
      'INPUT_GITHUB-TOKEN': 'ghs_token',
      'INPUT_OPENAI-API-KEY': 'sk-openai-value',
      ACTIONS_RUNTIME_TOKEN: 'runtime',
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc',
      GITHUB_TOKEN: 'ghs_token',
      GH_TOKEN: 'ghs_token',
      GITHUB_ENV: '/runner/_temp/set_env',
      GITHUB_PATH: '/runner/_temp/add_path',
      GITHUB_OUTPUT: '/runner/_temp/set_output',
      GITHUB_STATE: '/runner/_temp/save_state',
      GITHUB_STEP_SUMMARY: '/runner/_temp/step_summary',
      GITHUB_EVENT_PATH: '/runner/_temp/event.json',
      GOOGLE_API_KEY: 'AIza-google-value',
      GITHUB_REPOSITORY: 'octo-org/octo-repo'
    },
    keys,
    agents
  )
  it('drops the token, the runtime tokens, the inputs and the runner command files', () => {
    for (const name of [
      'INPUT_GITHUB-TOKEN',
      'INPUT_OPENAI-API-KEY',
      'ACTIONS_RUNTIME_TOKEN',
      'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
      'GITHUB_TOKEN',
      'GH_TOKEN',
      'GITHUB_ENV',
      'GITHUB_PATH',
      'GITHUB_OUTPUT',
      'GITHUB_STATE',
      'GITHUB_STEP_SUMMARY',
      'GITHUB_EVENT_PATH'
    ])
      expect(env[name]).toBeUndefined()
  })
  it('gives only the keys of the agents planned', () => {
    expect(env.OPENAI_API_KEY).toBe('sk-openai-value')
    expect(env.GOOGLE_API_KEY).toBeUndefined()
  })
  it('keeps DOCKER_HOST, so MassGen reaches the same engine as the action', () => {
    expect(env.DOCKER_HOST).toBe('unix:///run/user/1001/docker.sock')
    expect(env.GITHUB_REPOSITORY).toBe('octo-org/octo-repo')
  })
})
