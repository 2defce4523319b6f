// The floor plan of src/: the stage folders in pipeline order, from the
// ground up, written once here. A file may import its own folder and any
// folder on a lower floor, never one above it nor a neighbour on its own
// floor. `node_modules/.bin/jest __tests__/unit/layering.test.ts` lists every
// import that breaks the order; CONTRIBUTING.md ("Where code goes") explains
// each floor.
import * as fs from 'node:fs'
import * as path from 'node:path'
import ts from 'typescript'

const SRC = path.resolve('src')

/** Ground first. '.' is src/ itself: index.ts, main.ts, post.ts, read-server.ts. */
const STAGE_ORDER: string[][] = [
  ['core'], // values and door interfaces: types of every stage, constants, the log, process and GitHub contracts
  ['safety'], // guards on hostile text and files
  ['process', 'github'], // the two doors' implementations
  ['inputs'], // the action's inputs into Settings
  ['event'], // the event into a Trigger, and the intake's decision
  ['context'], // what the run reads from GitHub and files, narrowed into the question's notes
  ['plan'], // pure planning from what context read: the agents, the MassGen config
  ['prepare'], // everything run before MassGen starts
  ['run'], // MassGen running: the process, its lines, status.json
  ['results'], // the run's files into one RunResult
  ['review'], // `review: inline`: findings into a pull-request review
  ['vote'], // `finding-vote: true`: the ballot put to the agents in a second MassGen run
  ['report'], // the comment, the job summary, the outputs, the logs artifact
  ['shards'], // a review fanned out over a job matrix: the matrix roles' stages, variants the pipeline walks
  ['pipeline'], // decide, then every role's prepare, execute and finish, in order
  ['.'] // the entry points
]

function floorOf(file: string): { folder: string; floor: number } {
  const parts = path.relative(SRC, file).split(path.sep)
  const folder = parts.length > 1 ? (parts[0] ?? '.') : '.'
  return { folder, floor: STAGE_ORDER.findIndex((f) => f.includes(folder)) }
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(file)
    return entry.name.endsWith('.ts') ? [file] : []
  })
}

/** Every relative import, static, dynamic or type-only, with its target. */
function relativeImports(
  file: string
): Array<{ spec: string; target: string }> {
  const text = fs.readFileSync(file, 'utf8')
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((ref) => ref.fileName)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => ({
      spec,
      target: path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts')
    }))
}

const files = sourceFiles(SRC)

describe('the layering of src/', () => {
  it('places every folder of src/ on one floor', () => {
    const folders = new Set(files.map((f) => floorOf(f).folder))
    const unplaced = [...folders].filter(
      (folder) => !STAGE_ORDER.some((floor) => floor.includes(folder))
    )
    expect(unplaced).toEqual([])
  })

  it('has every relative import point at a file that exists', () => {
    const missing = files.flatMap((file) =>
      relativeImports(file)
        .filter(({ target }) => !fs.existsSync(target))
        .map(({ spec }) => `${path.relative(SRC, file)} imports ${spec}`)
    )
    expect(missing).toEqual([])
  })

  it('has no import run up the stage order or across a floor', () => {
    const wrong = files.flatMap((file) => {
      const from = floorOf(file)
      return relativeImports(file)
        .filter(({ target }) => {
          const to = floorOf(target)
          return (
            to.floor > from.floor ||
            (to.floor === from.floor && to.folder !== from.folder)
          )
        })
        .map(
          ({ target }) =>
            `${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`
        )
    })
    expect(wrong).toEqual([])
  })

  it('sees the imports it checks (a parse that finds none proves nothing)', () => {
    const count = files.reduce((n, f) => n + relativeImports(f).length, 0)
    expect(count).toBeGreaterThan(files.length)
  })
})
