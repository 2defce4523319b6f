import { describe, expect, it } from '@jest/globals'
import { parse, stringify } from 'yaml'
import { buildConfig, configRelativePath } from '../../src/plan/config.js'
import { selectAgents, parseModels } from '../../src/inputs/models.js'

const keys = { openai: 'sk-secret-openai', google: 'AIza-secret' }
const agents = selectAgents(parseModels('openai/gpt-5.4 gemini/g3'), keys, {
  docker: true,
  baseUrl: undefined
}).agents
const base = {
  agents,
  dockerImage: 'ghcr.io/massgen/mcp-runtime-sudo:latest',
  dockerNetwork: 'auto' as const,
  baseUrl: undefined,
  maxDurationSeconds: 900,
  contextPaths: [{ path: '/repo', permission: 'read' as const }]
}

describe('buildConfig', () => {
  it('writes the Docker-mode fields per agent: no key and no network for agents whose model client is not in the container', () => {
    const config = buildConfig({ ...base, docker: true })
    expect(config.agents[0]).toEqual({
      id: 'agent_a',
      backend: {
        type: 'openai',
        model: 'gpt-5.4',
        cwd: 'workspaces/agent_a',
        enable_mcp_command_line: true,
        command_line_execution_mode: 'docker',
        command_line_docker_image: 'ghcr.io/massgen/mcp-runtime-sudo:latest',
        command_line_docker_network_mode: 'none',
        command_line_docker_enable_sudo: true,
        enable_code_based_tools: true,
        exclude_file_operation_mcps: true
      }
    })
    expect(config.orchestrator).toEqual({
      context_paths: [{ path: '/repo', permission: 'read' }],
      snapshot_storage: 'snapshots',
      agent_temporary_workspace: 'temp_workspaces'
    })
    expect(config.timeout_settings).toEqual({
      orchestrator_timeout_seconds: 900
    })
    expect(config.ui).toEqual({ display_type: 'simple', logging_enabled: true })
    const yaml = stringify(config)
    expect(yaml).not.toContain('sk-secret')
    expect(yaml).not.toContain('AIza')
    expect(yaml).not.toContain('api_key')
    expect(parse(yaml)).toEqual(config)
  })
  it('coding agents get their key by name and a network; docker-network overrides the network for all', () => {
    const coding = selectAgents(
      parseModels('codex/gpt-5.4-codex openai/gpt-5.4'),
      keys,
      { docker: true, baseUrl: undefined }
    ).agents
    const auto = buildConfig({ ...base, agents: coding, docker: true })
    const [codex, openai] = auto.agents
    expect(codex?.backend.command_line_docker_network_mode).toBe('bridge')
    expect(codex?.backend.command_line_docker_credentials).toEqual({
      env_vars: ['OPENAI_API_KEY']
    })
    expect(openai?.backend.command_line_docker_network_mode).toBe('none')
    expect(openai?.backend.command_line_docker_credentials).toBeUndefined()
    const bridged = buildConfig({
      ...base,
      agents: coding,
      docker: true,
      dockerNetwork: 'bridge'
    })
    expect(
      bridged.agents.map((a) => a.backend.command_line_docker_network_mode)
    ).toEqual(['bridge', 'bridge'])
  })
  it('local mode has no Docker fields', () => {
    const config = buildConfig({ ...base, docker: false })
    for (const agent of config.agents) {
      expect(agent.backend.command_line_execution_mode).toBe('local')
      expect(
        Object.keys(agent.backend).filter((k) => k.includes('docker'))
      ).toEqual([])
      expect(agent.backend.enable_code_based_tools).toBeUndefined()
    }
  })
  it('puts base_url on endpoint backends only', () => {
    const mixed = selectAgents(parseModels('vllm/m openai/o'), keys, {
      docker: false,
      baseUrl: 'http://127.0.0.1:8000/v1'
    }).agents
    const config = buildConfig({
      ...base,
      agents: mixed,
      docker: false,
      baseUrl: 'http://127.0.0.1:8000/v1'
    })
    expect(config.agents[0]?.backend.base_url).toBe('http://127.0.0.1:8000/v1')
    expect(config.agents[1]?.backend.base_url).toBeUndefined()
  })
  it("Docker mode with a writable context path writes it in place (write_mode 'legacy'): MassGen's copy would be closed to the image's user", () => {
    const write = [{ path: '/repo', permission: 'write' as const }]
    expect(
      buildConfig({ ...base, docker: true, contextPaths: write }).orchestrator
        .coordination
    ).toEqual({ write_mode: 'legacy' })
    // Read-only, or local mode (MassGen's copy is its own user's there): MassGen's default.
    expect(
      buildConfig({ ...base, docker: true }).orchestrator
    ).not.toHaveProperty('coordination')
    expect(
      buildConfig({ ...base, docker: false, contextPaths: write }).orchestrator
    ).not.toHaveProperty('coordination')
  })
  it('rejects a relative context path', () => {
    expect(() =>
      buildConfig({
        ...base,
        docker: false,
        contextPaths: [{ path: 'repo', permission: 'read' }]
      })
    ).toThrow()
  })
})

describe('configRelativePath', () => {
  it("follows MassGen's own naming of the config file", () => {
    expect(configRelativePath(new Date(Date.UTC(2026, 10, 30, 4, 5, 6)))).toBe(
      '.massgen-quality/sessions/run_20261130_040506/configs/run_20261130_040506.yaml'
    )
  })
})
