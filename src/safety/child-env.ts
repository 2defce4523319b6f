// The environment of every process the action starts: an allow-list, so a
// secret a workflow puts in the job's or step's `env:` (NPM_TOKEN, a cloud
// key, a webhook, the token under a name of its own) never reaches MassGen,
// its MCP servers, the agents' commands, the installer or the docker CLI.
import { holdsSecret, redactionNeedles } from './redact.js'

/**
 * What MassGen, Python, Node (MCP servers), git and the docker CLI need to
 * run on a runner: where things are, language and time, proxies and
 * certificates, how to reach the Docker engine, and what actions/setup-python
 * exports so its Python starts. docs/security.md "The environment" lists the same names.
 */
const ALLOWED_NAMES: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TMPDIR',
  'CI',
  'GITHUB_ACTIONS',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  'NODE_EXTRA_CA_CERTS',
  'DOCKER_HOST',
  'DOCKER_CONTEXT',
  'DOCKER_CONFIG',
  'DOCKER_CERT_PATH',
  'DOCKER_TLS_VERIFY',
  'DOCKER_API_VERSION',
  'pythonLocation',
  'Python_ROOT_DIR',
  'Python3_ROOT_DIR',
  'PKG_CONFIG_PATH',
  'LD_LIBRARY_PATH',
  // Keeps litellm (in MassGen) on its bundled price list instead of a download.
  'LITELLM_LOCAL_MODEL_COST_MAP'
]

/** Families allowed by prefix: locale (LC_ALL, LC_CTYPE, ...) and XDG folders. */
const ALLOWED_PREFIXES: readonly string[] = ['LC_', 'XDG_']

/** pip's and uv's own settings (index, certificates): the installer only. */
const INSTALLER_PREFIXES: readonly string[] = ['PIP_', 'UV_']

/** The allowed part of `base`, plus the names in `extra` that are set. */
export function allowedEnv(
  base: NodeJS.ProcessEnv,
  extra: readonly string[] = []
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue
    if (isAllowed(name) || extra.includes(name)) env[name] = value
  }
  return env
}

/** What pip and uv start with: the allow-list and their own settings. */
export function installerBaseEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const own = Object.keys(base).filter((name) =>
    INSTALLER_PREFIXES.some((p) => name.startsWith(p))
  )
  return allowedEnv(base, own)
}

function isAllowed(name: string): boolean {
  return (
    ALLOWED_NAMES.includes(name) ||
    ALLOWED_PREFIXES.some((prefix) => name.startsWith(prefix))
  )
}

/** A variable name as a shell and the runner take it. */
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/

/**
 * Names `pass-env` may never hand on: the token and the runner's own
 * (command files, runtime and OIDC tokens, the inputs that hold the keys),
 * and the key variables, which only the planned agents get, from the key
 * inputs.
 */
function forbiddenReason(
  name: string,
  keyVars: readonly string[]
): string | undefined {
  const upper = name.toUpperCase()
  if (/^(GITHUB_|GH_|ACTIONS_|INPUT_|RUNNER_)/.test(upper))
    return 'belongs to the runner or carries its token'
  if (/(^|_)(GH|GITHUB)(_|$)/.test(upper) && /TOKEN|PAT|KEY/.test(upper))
    return 'looks like a GitHub token'
  // Python's start-up: the action sets these for MassGen's guard
  // (safety/massgen-guard.ts), which a PYTHONPATH of the job's would undo.
  if (
    [
      'PYTHONPATH',
      'PYTHONHOME',
      'PYTHONSTARTUP',
      'PYTHONNOUSERSITE',
      'PYTHON_DOTENV_DISABLED'
    ].includes(upper)
  )
    return "is set by the action for MassGen's start-up guard"
  if (keyVars.includes(upper))
    return 'is an API key variable; give the key through its key input (only the agents planned get it)'
  return undefined
}

const PASS_ENV_EXPECTED =
  "variable names separated by newlines or commas, e.g. 'JAVA_HOME, MY_TOOL_HOME'"

/**
 * `pass-env`: the names, or the problems with them (each naming the input
 * and the expected form).
 */
export function parsePassEnv(
  input: string,
  text: string,
  keyVars: readonly string[]
): { names: string[]; errors: string[] } {
  const words = text
    .split(/[\n,]/)
    .map((w) => w.trim())
    .filter(Boolean)
  const errors: string[] = []
  const names: string[] = []
  for (const word of words.slice(0, 100)) {
    if (!NAME.test(word)) {
      errors.push(
        `Input '${input}': '${word.slice(0, 40)}' is not a variable name (expected ${PASS_ENV_EXPECTED})`
      )
      continue
    }
    const reason = forbiddenReason(word, keyVars)
    if (reason) {
      errors.push(
        `Input '${input}': '${word}' ${reason}; it is never passed on (expected ${PASS_ENV_EXPECTED})`
      )
      continue
    }
    if (!names.includes(word)) names.push(word)
  }
  if (words.length > 100)
    errors.push(
      `Input '${input}': ${words.length} names, expected at most 100 (${PASS_ENV_EXPECTED})`
    )
  return { names, errors }
}

/**
 * `pass-env` names whose value holds the GitHub token or a key given to
 * the action, in any form redaction knows (a credential under a name of
 * the workflow's own): each an error naming the input, never the value.
 */
export function passEnvHoldingSecrets(
  input: string,
  names: readonly string[],
  env: NodeJS.ProcessEnv,
  secrets: readonly string[]
): string[] {
  const needles = redactionNeedles(secrets.filter(Boolean))
  if (needles.length === 0) return []
  return names
    .filter((name) => holdsSecret(env[name] ?? '', needles))
    .map(
      (name) =>
        `Input '${input}': the variable '${name}' holds the GitHub token or an API key given to the action; ` +
        "it is never passed on (expected names of variables that hold no credential of the action's; " +
        'give a key through its key input)'
    )
}
