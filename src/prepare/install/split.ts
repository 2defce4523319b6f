// The Actions cache entry of an install, in two: the core, restored before
// MassGen starts, and the extras, restored only for a run that can reach
// them. The extras of 0.1.97 are a third of the virtualenv's bytes and a
// sixth of its files (a restore's time goes mostly into creating files):
// the Claude Code CLI that claude_agent_sdk bundles (only the `claude_code`
// backend runs it), and what only MassGen's tools for features the action
// never configures import (opencv for video, elevenlabs for audio, the
// document readers and writers, the memory stores, the agent frameworks of
// its example tools); none of them is loaded by MassGen's start, its MCP
// servers or a run of the action's own config. docs/setup-speed.md has the
// measurements.
//
// @actions/cache tars each path it is given with all that is below it, so
// the core is named by patterns: every entry of each folder on the way down
// to an extra (`<folder>/*`), less that folder's child on the way
// (`!<child>`); the last pattern that matches a path decides. The patterns
// depend on the folder and release alone, so the restore hands the same
// ones (the entry's version hashes them).
import * as fs from 'node:fs'
import * as path from 'node:path'
import type { ModelSpec } from '../../core/types.js'

/** Written into a fresh install beside its marker; saved with the extras. */
export const EXTRAS_MARKER_FILE = '.massgen-action-extras'

/** One Actions cache entry: its key says what it holds. */
export interface CacheEntry {
  key: string
  /** What @actions/cache is handed: paths, or patterns for the core. */
  paths: string[]
}

export interface CacheEntries {
  core: CacheEntry
  /** Undefined when the install is one entry (no extras known). */
  extras?: CacheEntry
  /** What the extras are, as their key and marker name them. */
  extrasTag?: string
}

interface Extras {
  tag: string
  /** Relative to site-packages. */
  paths: string[]
}

const EXTRAS: Record<string, Extras> = {
  '0.1.97': {
    tag: 'claude-cli-video-audio-documents-memory-frameworks',
    paths: [
      'claude_agent_sdk/_bundled',
      // video
      'cv2',
      'opencv_python.libs',
      // audio generation
      'elevenlabs',
      // documents
      'reportlab',
      'pptx',
      'docx',
      'openpyxl',
      'PyPDF2',
      // memory
      'mem0',
      'qdrant_client',
      // the example tools' agent frameworks
      'agentscope',
      'smolagents',
      'langgraph'
    ]
  }
}

/**
 * The entries of one install: the extras apart only for a locked install of
 * a release whose extras are known (another resolution may lay them out
 * otherwise).
 */
export function cacheEntries(
  dir: string,
  version: string,
  pythonMinor: string,
  locked: boolean,
  baseKey: string
): CacheEntries {
  const extras = locked ? EXTRAS[version] : undefined
  if (!extras) return { core: { key: baseKey, paths: [dir] } }
  const sitePackages = path.join('lib', `python${pythonMinor}`, 'site-packages')
  const relative = [
    ...extras.paths.map((p) => path.join(sitePackages, p)),
    EXTRAS_MARKER_FILE
  ]
  return {
    core: {
      key: `${baseKey}-without-${extras.tag}`,
      paths: corePatterns(dir, relative)
    },
    extras: {
      key: `${baseKey}-${extras.tag}-only`,
      paths: relative.map((p) => path.join(dir, p))
    },
    extrasTag: extras.tag
  }
}

/** Everything below `dir` except the `excluded` paths (relative to it). */
export function corePatterns(dir: string, excluded: string[]): string[] {
  // Each folder on the way down to an excluded path, and its children
  // that are on the way or excluded.
  const cut = new Map<string, Set<string>>()
  for (const relative of excluded) {
    const parts = relative.split(path.sep)
    for (let depth = 0; depth < parts.length; depth++) {
      const folder = parts.slice(0, depth).join(path.sep)
      const children = cut.get(folder) ?? new Set<string>()
      children.add(parts[depth]!)
      cut.set(folder, children)
    }
  }
  const folders = [...cut.keys()].sort(
    (a, b) => depthOf(a) - depthOf(b) || a.localeCompare(b)
  )
  return folders.flatMap((folder) => {
    const base = path.join(dir, folder)
    return [
      path.join(base, '*'),
      ...[...cut.get(folder)!]
        .sort()
        .map((child) => `!${path.join(base, child)}`)
    ]
  })
}

function depthOf(folder: string): number {
  return folder === '' ? 0 : folder.split(path.sep).length
}

export function extrasMarkerText(tag: string): string {
  return `extras=${tag}\ncomplete=true\n`
}

/** The extras are there: no split, or their marker names them. */
export function hasExtras(dir: string, entries: CacheEntries): boolean {
  if (!entries.extrasTag) return true
  try {
    return (
      fs.readFileSync(path.join(dir, EXTRAS_MARKER_FILE), 'utf8') ===
      extrasMarkerText(entries.extrasTag)
    )
  } catch {
    return false
  }
}

/**
 * Whether a run can reach the extras: an agent of the `claude_code` backend
 * (claude_agent_sdk runs its bundled CLI), or a user `config`, whose
 * backends and tools (video, audio, documents, memory) the action does not
 * vet.
 */
export function runNeedsExtras(run: {
  models: readonly ModelSpec[]
  userConfig: unknown
}): boolean {
  return (
    run.userConfig !== undefined ||
    run.models.some((model) => model.backend === 'claude_code')
  )
}
