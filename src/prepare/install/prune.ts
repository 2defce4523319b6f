// Distributions a fresh MassGen install loses right after it is built: what
// MassGen never imports in the runs the action configures. Smaller virtualenv
// (cache save and restore) and a faster start (docs/setup-speed.md: 1.8 ->
// 1.5 GB; `import massgen.cli.entrypoint` ~13 % less CPU).
//
// How the list was made (docs/setup-speed.md, "What the virtualenv holds"):
// every distribution of the locked install, minus the closure (extras
// included) of the requirements of every distribution whose modules
// MassGen's source imports anywhere (also lazily) or that are loaded at
// start-up; that leaves
// documentation builders (sphinx and themes, babel), test tools (pytest,
// syrupy) and unused transitive dependencies (pyarrow, uvloop, ag2). Two
// more are imported at start-up but guarded (`try: import ... except
// ImportError`) and serve features the action never configures:
// github-copilot-sdk (the `copilot` backend: 3.2 s of 12 s of imports) and
// dspy (question paraphrasing), with what only they need.

const PRUNED: Record<string, string[]> = {
  '0.1.97': [
    'accessible-pygments',
    'ag2',
    'alabaster',
    'autogen-agentchat',
    'autogen-core',
    'babel',
    'beautifulsoup4',
    'cerebras-cloud-sdk',
    'datasets',
    'dill',
    'docutils',
    'dspy',
    'fast-depends',
    'github-copilot-sdk',
    'httptools',
    'imagesize',
    'iniconfig',
    'multiprocess',
    'pluggy',
    'pyarrow',
    'pyautogen',
    'pydata-sphinx-theme',
    'pytest',
    'pytest-textual-snapshot',
    'roman-numerals',
    'snowballstemmer',
    'soupsieve',
    'sphinx',
    'sphinx-book-theme',
    'sphinx-rtd-theme',
    'sphinxcontrib-applehelp',
    'sphinxcontrib-devhelp',
    'sphinxcontrib-htmlhelp',
    'sphinxcontrib-jquery',
    'sphinxcontrib-jsmath',
    'sphinxcontrib-qthelp',
    'sphinxcontrib-serializinghtml',
    'syrupy',
    'uvloop'
  ]
}

/**
 * The distributions to remove after installing this release, only when its
 * dependencies were locked (another resolution may need them).
 */
export function prunedFor(version: string, locked: boolean): string[] {
  return locked ? (PRUNED[version] ?? []) : []
}

/** Part of the cache key: a pruned install is a different cache entry. */
export function pruneTag(version: string, locked: boolean): string {
  return prunedFor(version, locked).length > 0 ? '-pruned1' : ''
}
