import { describe, expect, it } from '@jest/globals'
import { parseModels, selectAgents } from '../../src/inputs/models.js'
import { childEnv, KEY_ENV_VARS } from '../../src/plan/plan.js'
import { parsePassEnv } from '../../src/safety/child-env.js'
import { installerEnv } from '../../src/prepare/install/python.js'

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
      GITHUB_REPOSITORY: 'octo-org/octo-repo',
      NPM_TOKEN: 'npm_job_secret',
      AWS_SECRET_ACCESS_KEY: 'aws-job-secret',
      MY_GH: 'ghs_token',
      LC_ALL: 'C.UTF-8',
      HTTPS_PROXY: 'http://proxy:3128',
      PIP_INDEX_URL: 'https://mirror/simple',
      PYTHONPATH: '/opt/tools'
    },
    keys,
    agents,
    ['PYTHONPATH']
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
  })
  it('is an allow-list: job secrets under any name stay behind', () => {
    for (const name of [
      'NPM_TOKEN',
      'AWS_SECRET_ACCESS_KEY',
      'MY_GH',
      'GITHUB_REPOSITORY',
      'PIP_INDEX_URL'
    ])
      expect(env[name]).toBeUndefined()
    expect(env.LC_ALL).toBe('C.UTF-8')
    expect(env.HTTPS_PROXY).toBe('http://proxy:3128')
  })
  it('adds the names pass-env gives', () => {
    expect(env.PYTHONPATH).toBe('/opt/tools')
  })
})

describe('pass-env', () => {
  it('refuses the token, the runner and key variables, naming the input', () => {
    const { names, errors } = parsePassEnv(
      'pass-env',
      'JAVA_HOME, GITHUB_TOKEN\nACTIONS_RUNTIME_TOKEN, OPENAI_API_KEY, MY_GH_TOKEN, 1BAD, INPUT_X, PYTHONPATH',
      KEY_ENV_VARS
    )
    expect(names).toEqual(['JAVA_HOME'])
    expect(errors).toHaveLength(7)
    expect(errors.at(-1)).toContain(
      "'PYTHONPATH' is set by the action for MassGen's start-up guard"
    )
    for (const e of errors) expect(e).toMatch(/^Input 'pass-env': /)
  })
})

describe('installerEnv', () => {
  it('gets the allow-list and pip/uv settings, no key and no job secret', () => {
    const env = installerEnv({
      PATH: '/usr/bin',
      PIP_INDEX_URL: 'https://mirror/simple',
      OPENAI_API_KEY: 'sk-x',
      NPM_TOKEN: 'npm_job_secret'
    })
    expect(env.PIP_INDEX_URL).toBe('https://mirror/simple')
    expect(env.UV_DEFAULT_INDEX).toBe('https://mirror/simple')
    expect(env.OPENAI_API_KEY).toBeUndefined()
    expect(env.NPM_TOKEN).toBeUndefined()
  })
})
