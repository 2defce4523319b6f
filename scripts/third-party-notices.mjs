// Writes the third-party notices of a bundle: every npm package ncc put into
// it, with its version, license name and license text. ncc's own
// `--license` output leaves out the packages it reaches as ES modules
// (@actions/core, yaml and zod among them: 27 of the 171 in dist/index.js),
// so the list comes from the build's module statistics instead
// (`ncc build --stats-out`). A package that ships no license file takes its
// text from scripts/license-texts/; one with neither fails the build, so a
// new dependency cannot ship without its notice.
//
//   node scripts/third-party-notices.mjs STATS.json NOTICES.txt
// (the statistics file is removed afterwards: it is large and only for this)
import * as fs from 'node:fs'
import * as path from 'node:path'

const TEXTS = path.join(import.meta.dirname, 'license-texts')
/** Between two entries: a line no license text of the bundle has (tested). */
export const SEPARATOR = `\n${'-'.repeat(72)}\n\n`
const LICENSE_FILE = /^(licen[cs]e|copying)(\.(md|txt|markdown))?$/i

/** The package folders of every module in ncc's statistics, nested node_modules included. */
export function bundledPackages(stats, cwd) {
  const folders = new Set()
  const visit = (modules) => {
    for (const module of modules ?? []) {
      const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(
        module.name ?? ''
      )
      if (match) folders.add(path.resolve(cwd, match[1]))
      visit(module.modules)
    }
  }
  visit(stats.modules)
  for (const chunk of stats.chunks ?? []) visit(chunk.modules)
  return [...folders]
}

function licenseText(folder, name) {
  const file = fs.readdirSync(folder).find((f) => LICENSE_FILE.test(f))
  if (file) return fs.readFileSync(path.join(folder, file), 'utf8').trim()
  const stored = path.join(TEXTS, `${name.replace('/', '+')}.txt`)
  return fs.existsSync(stored) ? fs.readFileSync(stored, 'utf8').trim() : ''
}

function licenseName(manifest) {
  if (typeof manifest.license === 'string') return manifest.license
  if (manifest.license?.type) return manifest.license.type
  if (Array.isArray(manifest.licenses))
    return manifest.licenses.map((l) => l.type ?? l).join(' OR ')
  return 'none declared in its package.json (see scripts/license-texts/README.md)'
}

/** One entry per name@version, sorted; `missing` names the packages with no text. */
export function notices(folders) {
  const entries = new Map()
  for (const folder of folders) {
    const manifest = JSON.parse(
      fs.readFileSync(path.join(folder, 'package.json'), 'utf8')
    )
    const id = `${manifest.name}@${manifest.version}`
    entries.set(id, {
      id,
      license: licenseName(manifest),
      text: licenseText(folder, manifest.name)
    })
  }
  const sorted = [...entries.values()].sort((a, b) => a.id.localeCompare(b.id))
  return {
    text: sorted
      .map((e) => `${e.id}\n${e.license}\n\n${e.text}\n`)
      .join(SEPARATOR),
    missing: sorted.filter((e) => !e.text).map((e) => e.id)
  }
}

if (process.argv[1] === import.meta.filename) {
  const [statsFile, out] = process.argv.slice(2)
  const stats = JSON.parse(fs.readFileSync(statsFile, 'utf8'))
  fs.rmSync(statsFile)
  const { text, missing } = notices(bundledPackages(stats, process.cwd()))
  if (missing.length > 0) {
    console.error(
      `${out}: no license text for ${missing.join(', ')}: add it to scripts/license-texts/ (see its README)`
    )
    process.exit(1)
  }
  fs.writeFileSync(out, text)
}
