// The artifacts of a matrix review, through @actions/artifact: the plan the
// matrix job uploads, and each shard's record. A shard's artifact is hostile
// (its agents may have been prompt-injected, its runner taken over): it is
// downloaded as the zip it is, never extracted by the client, and read here
// with every size capped before a byte is inflated. A zip bomb, a second
// file, a link or a FIFO entry fails closed: the shard is reported as
// hostile, nothing of it is used.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { inflateRawSync } from 'node:zlib'
import { errorText } from '../core/text.js'

/** An artifact as @actions/artifact lists it (`createdAt` the service's). */
export interface ListedArtifact {
  id: number
  name: string
  size: number
  createdAt?: Date
}

/** The part of @actions/artifact's client used here (tests pass the real one). */
export interface ArtifactDoor {
  listArtifacts(options?: { latest?: boolean }): Promise<{
    artifacts: ListedArtifact[]
  }>
  downloadArtifact(
    id: number,
    options: { path: string; skipDecompress?: boolean }
  ): Promise<{ downloadPath?: string }>
  uploadArtifact(
    name: string,
    files: string[],
    rootDirectory: string,
    options?: { retentionDays?: number }
  ): Promise<{ id?: number; size?: number }>
}

export async function artifactDoor(): Promise<ArtifactDoor> {
  // Loaded here: the artifact client is large and the plain run never needs it.
  const { DefaultArtifactClient } = await import('@actions/artifact')
  return new DefaultArtifactClient()
}

/** A zip's overhead beyond its content: headers, names, the directory. */
const ZIP_OVERHEAD_BYTES = 64 * 1024

type Fetched =
  { ok: true; text: string; zipBytes: number } | { ok: false; reason: string }

interface ZipEntry {
  name: string
  method: number
  compressed: number
  size: number
  /** Unix mode from the external attributes (0 when the zip gives none). */
  mode: number
  dataStart: number
}

const S_IFMT = 0o170000
const S_IFREG = 0o100000

/** The central directory, every field checked against the buffer's bounds. */
function zipEntries(zip: Buffer): ZipEntry[] {
  const fail = (why: string): never => {
    throw new Error(`not a readable zip: ${why}`)
  }
  let eocd = -1
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 65_557); i--)
    if (zip.readUInt32LE(i) === 0x06054b50) {
      eocd = i
      break
    }
  if (eocd < 0) fail('no end of central directory')
  const count = zip.readUInt16LE(eocd + 10)
  if (count > 16) fail(`${count} entries`)
  let at = zip.readUInt32LE(eocd + 16)
  const entries: ZipEntry[] = []
  for (let n = 0; n < count; n++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== 0x02014b50)
      fail('a bad directory entry')
    const madeBy = zip.readUInt16LE(at + 4) >> 8
    const nameLength = zip.readUInt16LE(at + 28)
    const local = zip.readUInt32LE(at + 42)
    const external = zip.readUInt32LE(at + 38)
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength)
    if (local + 30 > zip.length || zip.readUInt32LE(local) !== 0x04034b50)
      fail(`a bad local header for ${JSON.stringify(name)}`)
    const dataStart =
      local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28)
    const compressed = zip.readUInt32LE(at + 20)
    if (dataStart + compressed > zip.length)
      fail(`${JSON.stringify(name)} runs past the end`)
    entries.push({
      name,
      method: zip.readUInt16LE(at + 10),
      compressed,
      size: zip.readUInt32LE(at + 24),
      // Unix (3) keeps the mode in the high half of the external attributes.
      mode: madeBy === 3 ? external >>> 16 : 0,
      dataStart
    })
    at +=
      46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32)
  }
  return entries
}

/**
 * The one file `name` of a zip, at most maxBytes once inflated; anything
 * else in the zip, or any entry that is not a regular file, refuses it.
 */
export function readOnlyFile(
  zip: Buffer,
  name: string,
  maxBytes: number
): string {
  const files = zipEntries(zip).filter((e) => !e.name.endsWith('/'))
  if (files.length !== 1 || files[0]?.name !== name)
    throw new Error(
      `expected the one file ${name}, found ${files.length} file(s)` +
        (files.length
          ? ` (${files.map((f) => JSON.stringify(f.name.slice(0, 80))).join(', ')})`
          : '')
    )
  const entry = files[0]
  const type = entry.mode & S_IFMT
  if (type !== 0 && type !== S_IFREG)
    throw new Error(`${name} is not a regular file (a link, FIFO or device)`)
  if (entry.size > maxBytes)
    throw new Error(
      `${name} says it is ${entry.size} bytes, over the ${maxBytes}-byte cap`
    )
  const data = zip.subarray(entry.dataStart, entry.dataStart + entry.compressed)
  let content: Buffer
  if (entry.method === 0) content = Buffer.from(data)
  else if (entry.method === 8) {
    try {
      // The cap holds whatever the header claimed: a bomb stops here.
      content = inflateRawSync(data, { maxOutputLength: maxBytes })
    } catch (error) {
      throw new Error(
        `${name} inflates past the ${maxBytes}-byte cap or is corrupt (${errorText(error)})`,
        { cause: error }
      )
    }
  } else throw new Error(`${name} uses compression method ${entry.method}`)
  if (content.length !== entry.size)
    throw new Error(
      `${name} is ${content.length} bytes, not the ${entry.size} it says`
    )
  return content.toString('utf8')
}

/**
 * Downloads one artifact as its zip into `dir` and reads its one file.
 * Refused before the download when the service's size is over the cap.
 */
export async function fetchArtifactFile(
  door: ArtifactDoor,
  artifact: { id: number; name: string; size: number },
  dir: string,
  file: string,
  maxBytes: number
): Promise<Fetched> {
  const maxZip = maxBytes + ZIP_OVERHEAD_BYTES
  if (artifact.size > maxZip)
    return {
      ok: false,
      reason: `the artifact is ${artifact.size} bytes, over the ${maxZip}-byte cap`
    }
  try {
    fs.mkdirSync(dir, { recursive: true })
    await door.downloadArtifact(artifact.id, {
      path: dir,
      skipDecompress: true
    })
    const names = fs.readdirSync(dir)
    if (names.length !== 1)
      return { ok: false, reason: `the download gave ${names.length} files` }
    const zipPath = path.join(dir, names[0] as string)
    const stat = fs.lstatSync(zipPath)
    if (!stat.isFile())
      return { ok: false, reason: 'the download is not a file' }
    if (stat.size > maxZip)
      return {
        ok: false,
        reason: `the download is ${stat.size} bytes, over the ${maxZip}-byte cap`
      }
    const zip = fs.readFileSync(zipPath)
    return {
      ok: true,
      text: readOnlyFile(zip, file, maxBytes),
      zipBytes: zip.length
    }
  } catch (error) {
    return { ok: false, reason: errorText(error) }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * This run's artifacts whose names start with prefix, every one of them:
 * a name given twice is hostile (a job uploaded under another's name), and
 * `latest` would hide it by picking one.
 */
export async function artifactsNamed(
  door: ArtifactDoor,
  prefix: string
): Promise<ListedArtifact[]> {
  const { artifacts } = await door.listArtifacts({ latest: false })
  return artifacts
    .filter((a) => a.name.startsWith(prefix))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

/** Uploads one file (already written under dir) as an artifact of its own. */
export async function uploadFile(
  door: ArtifactDoor,
  name: string,
  file: string
): Promise<number | undefined> {
  const uploaded = await door.uploadArtifact(name, [file], path.dirname(file), {
    retentionDays: 7
  })
  return uploaded.id
}

/** This job's run attempt (GITHUB_RUN_ATTEMPT; 1 when unset or not a number). */
export function runAttempt(env: NodeJS.ProcessEnv): number {
  const n = Number(env.GITHUB_RUN_ATTEMPT)
  return Number.isInteger(n) && n >= 1 ? n : 1
}

/**
 * An artifact's name in one run attempt: names are unique in a workflow
 * run across its attempts, so a re-run uploads under its own.
 */
export function attemptName(base: string, attempt: number): string {
  return `${base}-a${attempt}`
}

/** The attempt an artifact named `<base>-a<N>` is of, or undefined for another name. */
export function attemptOf(name: string, base: string): number | undefined {
  if (!name.startsWith(`${base}-a`)) return undefined
  const rest = name.slice(base.length + 2)
  return /^[1-9][0-9]{0,5}$/.test(rest) ? Number(rest) : undefined
}

/**
 * The artifacts of `base` of the latest attempt not later than `attempt`
 * (a later one's cannot be this run's); more than one of them is hostile,
 * and the caller refuses it.
 */
export function latestAttempt<T extends { name: string }>(
  artifacts: readonly T[],
  base: string,
  attempt: number
): T[] {
  const of = (a: T) => attemptOf(a.name, base) ?? 0
  const best = Math.max(0, ...artifacts.map(of).filter((n) => n <= attempt))
  return best ? artifacts.filter((a) => of(a) === best) : []
}
