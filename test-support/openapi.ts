// GitHub's published OpenAPI description (@octokit/openapi, api.github.com)
// as validators: a route's request body, or a component schema (what a
// route answers). The loopback GitHub checks the bodies it is sent with
// them, so a request GitHub would refuse is refused here too (422).
// OpenAPI 3.0's `nullable` becomes a JSON Schema null type; formats are not
// checked (GitHub's own validation does not check them either).
// Erasable TypeScript, run directly by Node 24.
import { readFileSync } from 'node:fs'
import { Ajv, type ValidateFunction } from 'ajv'

type Json = Record<string, unknown>

const SPEC_FILE = new URL(
  '../node_modules/@octokit/openapi/generated/api.github.com.json',
  import.meta.url
)

let spec: Json | undefined
function loadSpec(): Json {
  // 13 MB: read once, and only by a test that needs a validator.
  spec ??= JSON.parse(readFileSync(SPEC_FILE, 'utf8')) as Json
  return spec
}

function lookup(ref: string): unknown {
  let node: unknown = loadSpec()
  for (const part of ref.replace(/^#\//, '').split('/'))
    node = (node as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')]
  return node
}

/** $refs inlined (each component once per path: GitHub's have no cycles here). */
function resolve(node: unknown, seen: string[] = []): unknown {
  if (Array.isArray(node)) return node.map((x) => resolve(x, seen))
  if (!node || typeof node !== 'object') return node
  const obj = node as Json
  if (typeof obj.$ref === 'string') {
    if (seen.includes(obj.$ref)) return {}
    return resolve(lookup(obj.$ref), [...seen, obj.$ref])
  }
  const out: Json = {}
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'example' || k === 'examples' || k === 'nullable') continue
    out[k] = resolve(v, seen)
  }
  if (obj.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null']
    else if (!out.type) return { anyOf: [out, { type: 'null' }] }
    if (Array.isArray(out.enum)) out.enum = [...(out.enum as unknown[]), null]
  }
  return out
}

const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false })
const cache = new Map<string, ValidateFunction>()

function compiled(key: string, schema: () => unknown): ValidateFunction {
  let fn = cache.get(key)
  if (!fn) {
    fn = ajv.compile(resolve(schema()) as Json)
    cache.set(key, fn)
  }
  return fn
}

function errorsOf(fn: ValidateFunction, data: unknown): string[] {
  if (fn(data)) return []
  return (fn.errors ?? []).map(
    (e) => `${e.instancePath || '(body)'} ${e.message ?? 'is invalid'}`
  )
}

/** What is wrong with a request body for `METHOD /path/{template}`; [] when none. */
export function requestBodyErrors(route: string, body: unknown): string[] {
  const [method, template] = route.split(' ') as [string, string]
  const fn = compiled(`req ${route}`, () => {
    const paths = loadSpec().paths as Json
    const op = (paths[template] as Json)[method.toLowerCase()] as Json
    const content = (op.requestBody as Json).content as Json
    return (content['application/json'] as Json).schema
  })
  return errorsOf(fn, body)
}

/** What is wrong with a value of `#/components/schemas/NAME`; [] when none. */
export function schemaErrors(name: string, data: unknown): string[] {
  const fn = compiled(`schema ${name}`, () =>
    lookup(`#/components/schemas/${name}`)
  )
  return errorsOf(fn, data)
}

/** The value of `#/components/examples/NAME`: what GitHub documents it answers. */
export function exampleValue(name: string): unknown {
  return (lookup(`#/components/examples/${name}`) as Json).value
}
