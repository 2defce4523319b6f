// What every kind of test starts from: the recorded event payloads, fake key
// values to scan for, and the Docker-mode runtime image.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { ROOT } from './run-action.ts'

/** An event payload from __fixtures__/events/ (its README says where each came from). */
export function event(name: string): unknown {
  return JSON.parse(
    fs.readFileSync(
      path.join(ROOT, '__fixtures__', 'events', `${name}.json`),
      'utf8'
    )
  )
}

/** Distinctive fake key values, to scan for leaks. */
export const KEYS = {
  // Real lengths and formats: a shell wraps a long key's encoding over lines
  // (OpenAI project 164, Anthropic 108, Gemini 39, xAI 84 characters).
  openai:
    'sk-proj-Rm0m_xsI-qCWyLEXEI_KWk7hqLUSMoEtLmeA5az8AV5bJs275mRN8UD3WPlMtCdaA3iGUkHfz-a8C8IFr7Iu33ZmMZiiWL-dYPxaxDj2a5EqxyteHL3znhzKiJcnSK1otBNcfsqWmY5xLwKSNobuZXNg7_32',
  google: 'AIzaI7ZAW5K3QF1tYdaHl7QmzNhtB5-QzhLQxPk',
  anthropic:
    'sk-ant-api03-1nxGS5zvXnYqX5VTlOjqhtGgTg5W2akEv2l0Jit7AvuNfat2fnQ1SG-uBFDARS1tVbhdOuWfjMUCt1U6eKOiiWXJnUpOgAA',
  xai: 'xai-sWkM7G6J4BpubDj82UmNKUDyYYB1nv3MIhuFuEp78AogStdOKrIHjLyjLVhYZAya0nDRgNoMQBsZNA23'
}

/** The local runtime image of the Docker-mode tests (scripts/provision.sh builds it). */
export const TEST_IMAGE =
  process.env.MASSGEN_ACTION_TEST_IMAGE ?? 'massgen-action-runtime:test'
