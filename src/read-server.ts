// The agents' read server, bundled into dist/fs-server/ (plan/read-tools.ts):
// the filesystem MCP server (npm @modelcontextprotocol/server-filesystem)
// as published, with its read tools described in a line each. The order is
// the point: read-tool-descriptions.ts changes the registration before the server's
// module registers its tools and starts serving on stdio.
import './read-tool-descriptions.js'
import '@modelcontextprotocol/server-filesystem/dist/index.js'
