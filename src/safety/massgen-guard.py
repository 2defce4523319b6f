# MassGen loads this file at start-up as `sitecustomize`, before any of its own
# code: src/safety/massgen-guard.ts writes it into the guard's folder (what
# it does and why is told there) with its settings beside it, in
# massgen_guard.json: the answer markers' pattern and the strings the action
# shares with it, each written once, in TypeScript.
import importlib.abc
import inspect
import json
import os
import re
import sys

with open(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "massgen_guard.json"),
    encoding="utf-8",
) as _file:
    _SETTINGS = json.load(_file)

_MARKER = re.compile(_SETTINGS["marker_pattern"], re.IGNORECASE)
_OPEN = _SETTINGS["marker_open"]
_CLOSE = _SETTINGS["marker_close"]


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
    print(_SETTINGS["active_line"], file=sys.stderr, flush=True)


def _no_artifact_testing(module):
    # A read-only review makes no artifact to run, view or click through.
    section = getattr(module, "OutputFirstVerificationSection", None)
    if section is None or not _SETTINGS.get("review_only"):
        return
    build = section.__init__

    def built_off(self, *args, **kwargs):
        build(self, *args, **kwargs)
        self.enabled = False

    section.__init__ = built_off


def _no_background_tools(module):
    # A review whose agents run no commands and call no tool of the user's
    # starts nothing in the background: MassGen 0.1.97 offers six schemas to
    # manage such jobs in every request, with no switch of its own.
    backend = getattr(module, "CustomToolAndMCPBackend", None)
    if backend is None or not _SETTINGS.get("no_background_tools"):
        return
    backend._get_background_tool_management_schemas = lambda self: []


def _prompt_sections(module):
    _no_instructions(module)
    _no_artifact_testing(module)


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
    gate = os.environ.get(_SETTINGS["read_gate_env"])
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
    "massgen.system_prompt_sections": _prompt_sections,
    "massgen.message_templates": _neutral_answers,
    "massgen.mcp_tools.client": _after_read_gate,
    "massgen.backend.base_with_custom_tool_and_mcp": _no_background_tools,
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


# What MassGen 0.1.97 imports only once it has its arguments (its API
# client's resources: over a second of CPU), imported ahead too; a module
# missing in another release is skipped.
_WARM_MODULES = (
    "openai.resources",
    "anyio._backends._asyncio",
    "massgen.adapters",
    "massgen.config_validator",
    "massgen.permissions",
    "massgen.session",
)


def _warm_start():
    """MassGen imported now; its arguments, when the action hands them over."""
    import importlib

    import massgen.cli as cli

    for name in _WARM_MODULES:
        try:
            importlib.import_module(name)
        except Exception:
            pass

    cli_main = getattr(cli, "cli_main", None)
    if cli_main is None:
        print("massgen-action guard: massgen.cli has no cli_main; no warm start", file=sys.stderr, flush=True)
        os._exit(3)

    def handed_cli_main(*args, **kwargs):
        line = sys.stdin.readline()
        if not line:
            # Not needed: the action closed stdin without arguments.
            sys.exit(0)
        handed = json.loads(line)
        if not isinstance(handed, list) or not all(isinstance(a, str) for a in handed):
            sys.exit("massgen-action guard: the warm start's arguments are not a list of strings")
        sys.argv[1:] = handed
        print(_SETTINGS["warm_handed_line"], file=sys.stderr, flush=True)
        return cli_main(*args, **kwargs)

    cli.cli_main = handed_cli_main
    print(_SETTINGS["warm_ready_line"], file=sys.stderr, flush=True)


# Taken out of the environment first: no process MassGen starts waits too.
if os.environ.pop(_SETTINGS["warm_start_env"], None) == "1":
    _warm_start()
