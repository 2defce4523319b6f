// A few lines of Python that MassGen loads at start-up, before any of its
// own code (Python imports `sitecustomize` from the first folder of
// PYTHONPATH that has one), to turn off what MassGen 0.1.97 reads by itself
// from the folders it is given (docs/massgen-0.1.97.md, "Files MassGen loads
// by itself"):
//
// - ProjectInstructionsSection (massgen/system_prompt_sections.py) walks up
//   from every context path through up to 10 parent folders and puts the
//   first CLAUDE.md or AGENTS.md into every agent's system prompt, links
//   followed, no size cap: the pull request's own, or one above the
//   checkout. The guard makes it find nothing; the repository's own
//   instructions come from the base commit instead (project-instructions.ts).
// - the answers MassGen frames as `<agentN.M> ... <end of agentN.M>` pass
//   through neutralizeMarkers' pattern first (massgen-markers.ts).
//
// python-dotenv (which MassGen calls at start-up and in its tools) is turned
// off by PYTHON_DOTENV_DISABLED in the same environment.
//
// In Docker mode the read container starts while MassGen starts
// (prepare/read-container.ts): MassGen's MCP client (mcp_tools/client.py,
// MCPClient.connect, where every MCP server is started) then waits until the
// file READ_GATE_ENV names exists, which the action writes once the container
// serves; without the wait MassGen would start the read server in a container
// not yet there, and its agents would quietly read nothing.
//
// Where the guard lives: a folder beside the run's own (`<work folder>-guard`:
// the sandbox hands the work folder itself to the agents' user), readable by
// every user (in a root job's sandbox MassGen runs as nobody; it holds no
// secret), written before MassGen starts, never in the checkout; in local
// mode's sandbox it is bound read-only, and Docker-mode containers never
// see it. MassGen's cwd is the run's folder, and its
// console script puts only its own bin folder first on sys.path, so no file
// of the checkout can shadow the guard; PYTHONPATH is the guard alone.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { MARKER_CLOSE, MARKER_OPEN, MARKER_PATTERN } from './massgen-markers.js'

/** MassGen's MCP servers start once the file this names exists (Docker mode's read container). */
export const READ_GATE_ENV = 'MASSGEN_ACTION_READ_GATE'

/** The line the guard prints on stderr once it has patched MassGen. */
export const GUARD_ACTIVE_LINE =
  'massgen-action guard: project instruction files off, answer markers neutralised'

function guardSource(): string {
  return `# Written by massgen-action for one run (src/safety/massgen-guard.ts).
import importlib.abc
import inspect
import os
import re
import sys

_MARKER = re.compile(${JSON.stringify(MARKER_PATTERN)}, re.IGNORECASE)
_OPEN = ${JSON.stringify(MARKER_OPEN)}
_CLOSE = ${JSON.stringify(MARKER_CLOSE)}


def _neutral(text):
    if not isinstance(text, str):
        return text
    return _MARKER.sub(lambda m: _OPEN + m.group(1) + (_CLOSE if m.group(2) else ""), text)


def _no_instructions(module):
    section = getattr(module, "ProjectInstructionsSection", None)
    if section is None:
        return
    section.discover_instruction_file = lambda self, context_path: None
    section.build_content = lambda self: ""
    print(${JSON.stringify(GUARD_ACTIVE_LINE)}, file=sys.stderr, flush=True)


# Arguments that carry the agents' text into MassGen's framing.
_AGENT_TEXT = ("agent_summaries", "agent_answers", "all_answers", "agent_changedocs", "vote_summary")


def _neutral_value(value):
    if isinstance(value, dict):
        return {k: _neutral(v) for k, v in value.items()}
    return _neutral(value)


def _neutral_arguments(method, names):
    signature = inspect.signature(method)

    def framed(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        for name in names:
            if name in bound.arguments:
                bound.arguments[name] = _neutral_value(bound.arguments[name])
        return method(*bound.args, **bound.kwargs)

    return framed


def _neutral_answers(module):
    templates = getattr(module, "MessageTemplates", None)
    if templates is None:
        return
    for attr, method in list(vars(templates).items()):
        if not inspect.isfunction(method):
            continue
        names = [n for n in inspect.signature(method).parameters if n in _AGENT_TEXT]
        if names:
            setattr(templates, attr, _neutral_arguments(method, names))


def _after_read_gate(module):
    client = getattr(module, "MCPClient", None)
    gate = os.environ.get(${JSON.stringify(READ_GATE_ENV)})
    if client is None or not gate:
        return
    connect = client.connect

    async def connect_when_open(self):
        import asyncio

        while not os.path.exists(gate):
            await asyncio.sleep(0.02)
        return await connect(self)

    client.connect = connect_when_open


_PATCHES = {
    "massgen.system_prompt_sections": _no_instructions,
    "massgen.message_templates": _neutral_answers,
    "massgen.mcp_tools.client": _after_read_gate,
}


class _PatchAfterImport(importlib.abc.MetaPathFinder):
    """Runs a module's patch right after the module's own code, before any use."""

    def find_spec(self, name, path=None, target=None):
        patch = _PATCHES.get(name)
        if patch is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        run_module = loader.exec_module

        def exec_module(module):
            run_module(module)
            patch(module)

        loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, _PatchAfterImport())
`
}

/**
 * Writes the guard into a new folder beside the run's folder and returns it
 * (for PYTHONPATH). Exclusive creation: nothing already there is followed or
 * reused.
 */
export function writeMassgenGuard(workDir: string): string {
  const dir = `${workDir}-guard`
  fs.mkdirSync(dir, { mode: 0o755 })
  fs.writeFileSync(path.join(dir, 'sitecustomize.py'), guardSource(), {
    flag: 'wx',
    mode: 0o444
  })
  return dir
}

/**
 * MassGen's environment with the guard loaded and python-dotenv off. Any
 * PYTHONPATH of the runner's is dropped (MassGen's virtualenv needs none,
 * and a relative entry would be read from MassGen's cwd); no user site
 * folder either (a usercustomize or .pth file in ~/.local would run in it).
 */
export function withMassgenGuard(
  env: NodeJS.ProcessEnv,
  guardDir: string
): NodeJS.ProcessEnv {
  return {
    ...env,
    PYTHONPATH: guardDir,
    PYTHONNOUSERSITE: '1',
    PYTHON_DOTENV_DISABLED: '1'
  }
}
