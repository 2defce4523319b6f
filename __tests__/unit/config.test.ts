import { describe, expect, it } from '@jest/globals'
import { parse, stringify } from 'yaml'
import { buildConfig, configRelativePath } from '../../src/plan/config.js'
import { selectAgents, parseModels } from '../../src/inputs/models.js'
import { agentCommandsOn } from '../../src/plan/plan.js'
import { readContainerRunArgs } from '../../src/prepare/read-container.js'

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
  contextPaths: [{ path: '/repo', permission: 'read' as const }],
  agentCommands: true,
  readServer: {
    node: '/opt/node/bin/node',
    script: '/action/dist/fs-server/index.js'
  }
}
const readServer = {
  name: 'filesystem',
  type: 'stdio',
  command: '/opt/node/bin/node',
  args: ['/action/dist/fs-server/index.js', '/repo'],
  allowed_tools: [
    'read_text_file',
    'read_multiple_files',
    'list_directory',
    'search_files'
  ]
}

const container = {
  docker: '/usr/bin/docker',
  name: 'massgen-read-0a1b2c3d',
  image: 'img:1',
  user: '1001:118',
  env: {},
  marker: '/run/read-container'
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
      agent_temporary_workspace: 'temp_workspaces',
      coordination: { enable_changedoc: false }
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
    // With commands (and for Codex, whose CLI ignores allowed_tools): MassGen's setup.
    expect(codex?.backend.mcp_servers).toBeUndefined()
    expect(openai?.backend.mcp_servers).toBeUndefined()
    const readOnly = buildConfig({
      ...base,
      agents: coding,
      agentCommands: false,
      docker: false
    })
    expect(readOnly.agents[0]?.backend.mcp_servers).toBeUndefined()
    expect(readOnly.agents[1]?.backend.mcp_servers).toEqual([readServer])
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
  it("without commands an agent has only the read server on the context paths: no command tool, no Docker fields, none of MassGen's file servers", () => {
    const config = buildConfig({
      ...base,
      docker: false,
      agentCommands: false,
      contextPaths: [
        { path: '/repo', permission: 'read' },
        { path: '/run/pr-context', permission: 'read' }
      ]
    })
    // No folder of its own either (no `cwd`): MassGen then sends none of
    // its filesystem sections in the system prompt.
    expect(config.agents[0]?.backend).toEqual({
      type: 'openai',
      model: 'gpt-5.4',
      enable_mcp_command_line: false,
      exclude_file_operation_mcps: true,
      mcp_servers: [
        { ...readServer, args: [...readServer.args, '/run/pr-context'] }
      ]
    })
    // Where it may write, it works in its own folder.
    const writes = buildConfig({
      ...base,
      docker: false,
      agentCommands: false,
      contextPaths: [{ path: '/repo', permission: 'write' }]
    })
    expect(writes.agents[0]?.backend.cwd).toBe('workspaces/agent_a')
  })
  it('agent-commands auto: on only with a writable context path, off for a read-only review in either mode; only the input decides', () => {
    const on = (contextPermission: 'read' | 'write') =>
      agentCommandsOn({ agentCommands: 'auto', contextPermission })
    expect(on('write')).toBe(true)
    expect(on('read')).toBe(false)
    expect(
      agentCommandsOn({ agentCommands: true, contextPermission: 'read' })
    ).toBe(true)
    expect(
      agentCommandsOn({ agentCommands: false, contextPermission: 'write' })
    ).toBe(false)
  })
  it("Docker mode without commands: the read server runs in a container of the agents' image, read-only, no network, the action's uid; coding agents keep their commands in their container", () => {
    const coding = selectAgents(
      parseModels('codex/gpt-5.4-codex openai/gpt-5.4'),
      keys,
      { docker: true, baseUrl: undefined }
    ).agents
    const config = buildConfig({
      ...base,
      agents: coding,
      docker: true,
      agentCommands: false,
      readContainer: {
        ...container,
        env: { DOCKER_HOST: 'unix:///run/docker.sock' }
      },
      contextPaths: [
        { path: '/repo', permission: 'read' },
        { path: '/run/pr-context', permission: 'read' }
      ]
    })
    const [codex, openai] = config.agents
    expect(codex?.backend.enable_mcp_command_line).toBe(true)
    expect(codex?.backend.command_line_execution_mode).toBe('docker')
    expect(codex?.backend.mcp_servers).toBeUndefined()
    expect(openai?.backend.enable_mcp_command_line).toBe(false)
    expect(openai?.backend.command_line_execution_mode).toBeUndefined()
    expect(openai?.backend.mcp_servers).toEqual([
      {
        name: 'filesystem',
        type: 'stdio',
        command: '/usr/bin/docker',
        args: [
          'exec',
          '--interactive',
          'massgen-read-0a1b2c3d',
          '/opt/massgen-action/node',
          '/opt/massgen-action/fs-server/index.js',
          '/repo',
          '/run/pr-context'
        ],
        allowed_tools: readServer.allowed_tools,
        env: { DOCKER_HOST: 'unix:///run/docker.sock' },
        security: { allowed_executables: ['docker'] }
      }
    ])
  })
  it("the read container: detached, named, no network, no capabilities, read-only root and mounts, the action's uid, the run's marker folder mounted", () => {
    expect(
      readContainerRunArgs(
        base.readServer,
        ['/repo', '/run/pr-context'],
        container
      )
    ).toEqual([
      'run',
      '--detach',
      '--name',
      'massgen-read-0a1b2c3d',
      '--pull',
      'never',
      '--network',
      'none',
      '--cap-drop',
      'ALL',
      '--security-opt',
      'no-new-privileges',
      '--read-only',
      '--pids-limit',
      '64',
      '--user',
      '1001:118',
      '--workdir',
      '/opt/massgen-action/fs-server',
      '--mount',
      'type=bind,source=/opt/node/bin/node,target=/opt/massgen-action/node,readonly',
      '--mount',
      'type=bind,source=/action/dist/fs-server,target=/opt/massgen-action/fs-server,readonly',
      '--mount',
      'type=bind,source=/run/read-container,target=/run/read-container,readonly',
      '--mount',
      'type=bind,source=/repo,target=/repo,readonly',
      '--mount',
      'type=bind,source=/run/pr-context,target=/run/pr-context,readonly',
      '--entrypoint',
      '/opt/massgen-action/node',
      'img:1',
      '-e',
      "process.on('SIGTERM',()=>process.exit(0));setInterval(()=>{},1<<30)"
    ])
  })
  it('attack: a context path with a comma would add --mount fields (a writable or second mount) — refused', () => {
    expect(() =>
      buildConfig({
        ...base,
        docker: true,
        agentCommands: false,
        readContainer: container,
        contextPaths: [
          {
            path: '/repo/x,readonly=false,target=/etc',
            permission: 'read'
          }
        ]
      })
    ).toThrow(/cannot mount .*without commas or quotes/)
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
    ).toEqual({ write_mode: 'legacy', enable_changedoc: false })
    // Read-only, or local mode (MassGen's copy is its own user's there): MassGen's default.
    expect(
      buildConfig({ ...base, docker: true }).orchestrator.coordination
    ).not.toHaveProperty('write_mode')
    expect(
      buildConfig({ ...base, docker: false, contextPaths: write }).orchestrator
        .coordination
    ).not.toHaveProperty('write_mode')
  })
  it("the vote round's run asks each agent once and nothing more: no MassGen vote, no final presentation; the answers' run keeps both", () => {
    expect(
      buildConfig({ ...base, docker: false, ballot: true }).orchestrator
    ).toMatchObject({
      skip_voting: true,
      skip_final_presentation: true,
      max_new_answers_per_agent: 1,
      disable_injection: true
    })
    const answers = buildConfig({ ...base, docker: false }).orchestrator
    expect(answers).not.toHaveProperty('skip_voting')
    expect(answers).not.toHaveProperty('skip_final_presentation')
  })
  it('without a presentation: skip_final_presentation alone, MassGen still votes', () => {
    const orchestrator = buildConfig({
      ...base,
      docker: false,
      noPresentation: true
    }).orchestrator
    expect(orchestrator.skip_final_presentation).toBe(true)
    expect(orchestrator).not.toHaveProperty('skip_voting')
    expect(orchestrator).not.toHaveProperty('max_new_answers_per_agent')
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
