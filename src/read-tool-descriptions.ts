// Imported by read-server.ts before the filesystem server's module: its
// read tools are registered with the lines of plan/read-tools.ts
// READ_TOOL_DESCRIPTIONS.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { READ_TOOL_DESCRIPTIONS } from './plan/read-tools.js'

type Register = (name: string, config: object, cb: unknown) => unknown

/**
 * Before the server registers its tools (read-server.ts imports this first):
 * each read tool registered with its line of READ_TOOL_DESCRIPTIONS, the others as
 * they were.
 */
// eslint-disable-next-line @typescript-eslint/unbound-method -- called with its server as `this`
const register = McpServer.prototype.registerTool as unknown as Register
McpServer.prototype.registerTool = function (
  this: McpServer,
  name: string,
  config: object,
  cb: unknown
) {
  const description = (READ_TOOL_DESCRIPTIONS as Record<string, string>)[name]
  return register.call(
    this,
    name,
    description === undefined ? config : { ...config, description },
    cb
  )
} as unknown as McpServer['registerTool']
