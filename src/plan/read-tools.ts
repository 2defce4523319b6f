// How the agents read the repository and the pull request's context: the
// filesystem MCP server (npm @modelcontextprotocol/server-filesystem), bundled
// into dist/fs-server/ and run by the action's own Node, read tools only.
//
// Why not MassGen's own choice (docs/massgen-time.md): MassGen 0.1.97 starts
// every MCP server anew for every agent turn and stops it after. Its own
// filesystem server goes through `npx -y` (a registry download on a fresh
// HOME, ~1 s warm, 12 s cold, and no proxy settings reach it), and its Python
// servers (workspace_tools, command_line) import all of MassGen: 9-14 s per
// start, with a 30 s connect limit a busy runner misses. A backend entry named
// `filesystem` stops MassGen from adding its own; with
// `exclude_file_operation_mcps` it adds no workspace_tools either. This server
// is up in ~0.3 s and exits as soon as MassGen closes its stdin.
import * as fs from 'node:fs'
import * as path from 'node:path'

/**
 * The server's reading tools a review uses: read a file or several, list a
 * folder, find files by name. Writing (write_file, edit_file, move_file,
 * create_directory) is left out: MassGen's own permission checks are for the
 * servers it configures itself, so this one offers nothing that changes
 * files. Left out too, as every schema is sent again with every request
 * (docs/benchmarks.md, the price of consensus): list_directory_with_sizes
 * and get_file_info (sizes and dates a review does not weigh),
 * directory_tree (a whole tree in one answer; list_directory walks it) and
 * list_allowed_directories (the prompt names the folders).
 */
export const READ_TOOLS = [
  'read_text_file',
  'read_multiple_files',
  'list_directory',
  'search_files'
] as const

/**
 * Those tools' descriptions, one line each (the read server, src/read-server.ts,
 * registers them with these). MassGen sends every tool's schema with every
 * request (docs/benchmarks.md, the price of consensus); the server's own
 * descriptions of these four are ~1.6 KB of every request, mostly advice a
 * reviewer does not need ("Great for finding files ...", "Only works within
 * allowed directories", said four times). The parameters and their own
 * descriptions stay the server's.
 */
export const READ_TOOL_DESCRIPTIONS: Readonly<
  Record<(typeof READ_TOOLS)[number], string>
> = {
  read_text_file:
    'Read a text file; head or tail: only its first or last N lines.',
  read_multiple_files: 'Read several text files at once.',
  list_directory: 'List a folder: [FILE] and [DIR] entries.',
  search_files:
    "Find files and folders under path whose path matches a glob pattern ('**/*.ts')."
}

/** Where the bundled server is and the Node that runs it. */
export interface ReadServerLaunch {
  node: string
  script: string
}

interface McpServerEntry {
  name: 'filesystem'
  type: 'stdio'
  command: string
  args: string[]
  allowed_tools: string[]
}

/** The bundled server beside the running bundle (dist/fs-server/index.js). */
export function bundledReadServer(
  bundleFile: string = process.argv[1] ?? '',
  node: string = process.execPath
): ReadServerLaunch {
  const dist = path.dirname(fs.realpathSync(bundleFile))
  const script = path.join(dist, 'fs-server', 'index.js')
  if (!fs.existsSync(script))
    throw new Error(
      `The agents' read tools are missing: ${script} (the action's dist/ folder is incomplete).`
    )
  return { node, script }
}

/** The backend's MCP server entry: read tools on exactly these folders. */
export function readServerEntry(
  launch: ReadServerLaunch,
  folders: string[]
): McpServerEntry {
  return {
    name: 'filesystem',
    type: 'stdio',
    command: launch.node,
    // Folders only: the server refuses to start on a missing one, and MassGen
    // would then run the turn without it.
    args: [launch.script, ...folders],
    allowed_tools: [...READ_TOOLS]
  }
}

/** Folders the local-mode sandbox must show (read-only) for the server to run. */
export function readServerFolders(launch: ReadServerLaunch): string[] {
  return [path.dirname(launch.node), path.dirname(launch.script)]
}
