// Builds zips by hand, to hand the aggregate what a taken-over shard could
// upload: a bomb (a small deflated entry that claims or inflates to more than
// the cap), links and FIFOs (Unix modes), extra files. Erasable TypeScript.
import { deflateRawSync } from 'node:zlib'

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

/** zlib.crc32 is Node 22's; the tests also run on 20. */
function crc32(data: Buffer): number {
  let c = 0xffffffff
  for (const byte of data) c = (CRC_TABLE[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

export interface ZipFile {
  name: string
  data: Buffer
  /** 0 stored, 8 deflated (default). */
  method?: 0 | 8
  /** Unix mode, e.g. 0o120777 for a link; default a regular file. */
  mode?: number
  /** The uncompressed size written in the headers (default the real one). */
  claimedSize?: number
}

export function makeZip(files: ZipFile[]): Buffer {
  const locals: Buffer[] = []
  const central: Buffer[] = []
  let offset = 0
  for (const f of files) {
    const method = f.method ?? 8
    const body = method === 8 ? deflateRawSync(f.data) : f.data
    const name = Buffer.from(f.name, 'utf8')
    const crc = crc32(f.data)
    const size = f.claimedSize ?? f.data.length
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4)
    local.writeUInt16LE(method, 8)
    local.writeUInt32LE(crc, 14)
    local.writeUInt32LE(body.length, 18)
    local.writeUInt32LE(size, 22)
    local.writeUInt16LE(name.length, 26)
    const dir = Buffer.alloc(46)
    dir.writeUInt32LE(0x02014b50, 0)
    dir.writeUInt16LE((3 << 8) | 20, 4)
    dir.writeUInt16LE(20, 6)
    dir.writeUInt16LE(method, 10)
    dir.writeUInt32LE(crc, 16)
    dir.writeUInt32LE(body.length, 20)
    dir.writeUInt32LE(size, 24)
    dir.writeUInt16LE(name.length, 28)
    dir.writeUInt32LE(((f.mode ?? 0o100644) << 16) >>> 0, 38)
    dir.writeUInt32LE(offset, 42)
    locals.push(local, name, body)
    central.push(dir, name)
    offset += local.length + name.length + body.length
  }
  const dirBytes = Buffer.concat(central)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(files.length, 8)
  end.writeUInt16LE(files.length, 10)
  end.writeUInt32LE(dirBytes.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, dirBytes, end])
}
