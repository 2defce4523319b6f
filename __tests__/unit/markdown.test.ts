import {
  escapeTableCell,
  fenceFor,
  neutralizeMentions,
  safeMarkdown,
  truncateMarkdown
} from '../../src/safety/markdown.js'
import { redactSecrets } from '../../src/safety/redact.js'
import {
  detailsBalance,
  liveBrackets,
  liveHtml,
  liveMentions,
  liveReferences,
  unclosedFence
} from './markdown-oracle.js'

const ZWSP = '\u200B'

describe('neutralizeMentions', () => {
  it('breaks user and team mentions with an invisible character', () => {
    const out = neutralizeMentions('Thanks @octocat, cc @github/security.')
    expect(out).toBe(`Thanks @${ZWSP}octocat, cc @${ZWSP}github/security.`)
    expect(liveMentions(out)).toEqual([])
  })

  it('keeps e-mail addresses, breaks issue references with an invisible character', () => {
    expect(neutralizeMentions('Fixes #123, mail ops@example.com')).toBe(
      `Fixes #${ZWSP}123, mail ops@example.com`
    )
  })

  it('leaves fenced code and code spans as they are', () => {
    const text = [
      'Install `npm i @types/node` then:',
      '```python',
      '@pytest.fixture',
      'def f(): pass',
      '```'
    ].join('\n')
    expect(neutralizeMentions(text)).toBe(text)
  })

  it('moves an indented fence to column 0 so no list can swallow it', () => {
    const out = neutralizeMentions('1. Run:\n   ```sh\n   npm i @x/y\n   ```')
    expect(out).toBe('1. Run:\n```sh\nnpm i @x/y\n```')
  })

  it('closes a fence the text left open', () => {
    expect(neutralizeMentions('```\n@a')).toBe('```\n@a\n```')
  })

  it('escapes backticks that open no span on their line', () => {
    // GitHub would pair these across the two lines and hide @b in code.
    const out = neutralizeMentions('# `x\n@b` `y`')
    expect(out).toBe(`# \\\`x\n@${ZWSP}b\` \`y\\\``)
    expect(liveMentions(out)).toEqual([])
  })

  it('catches mentions GitHub would still link', () => {
    for (const sneaky of [
      '&#64;octocat',
      '&#x40;octocat',
      '\\@octocat',
      '_a_@octocat',
      'a@b.c@octocat',
      'www.x.io@octocat'
    ]) {
      expect(liveMentions(neutralizeMentions(sneaky))).toEqual([])
      expect(neutralizeMentions(sneaky)).toContain(ZWSP)
    }
  })

  it('writes an @ inside a bare URL as %40', () => {
    expect(neutralizeMentions('see https://medium.com/@bob/post')).toBe(
      'see https://medium.com/%40bob/post'
    )
  })

  it('shows raw HTML in prose as text, keeps inline <br>', () => {
    expect(neutralizeMentions('</details><!-- x --> a<br>b')).toBe(
      '&lt;/details>&lt;!-- x --> a<br>b'
    )
    expect(neutralizeMentions('<br>')).toBe('&lt;br>')
  })

  it('is idempotent', () => {
    const once = neutralizeMentions('@a `@b` ``` x\n```js\n@c\n')
    expect(neutralizeMentions(once)).toBe(once)
  })
})

describe('what an answer may show', () => {
  it('breaks every issue and pull request reference GitHub would backlink', () => {
    for (const sneaky of [
      'Fixes #123.',
      'see octo-org/octo-repo#7',
      'GH-42 and gh-43',
      '\\#12',
      '&#35;12',
      '&num;12',
      '#&#49;2',
      '&#x23;9',
      'https://github.com/octo-org/octo-repo/issues/7',
      'http://www.github.com/o/r/pull/8/files',
      'github.com/o/r/discussions/9',
      '[the fix](https://github.com/o/r/pull/10)',
      '<https://github.com/o/r/issues/11>'
    ]) {
      const out = neutralizeMentions(sneaky)
      expect([sneaky, liveReferences(out)]).toEqual([sneaky, []])
      expect(neutralizeMentions(out)).toBe(out)
    }
  })

  it('shows issue URLs in full, as code', () => {
    expect(
      neutralizeMentions('See https://github.com/o/r/issues/7#issuecomment-1.')
    ).toBe('See `https://github.com/o/r/issues/7#issuecomment-1.`')
    // Next to a backtick or a backslash, it cannot merge with it.
    expect(neutralizeMentions('`x`https://github.com/o/r/pull/1`y`')).toBe(
      `\`x\`${ZWSP}\`https://github.com/o/r/pull/1\`${ZWSP}\`y\``
    )
    expect(neutralizeMentions('\\https://github.com/o/r/pull/1')).toBe(
      `\\${ZWSP}\`https://github.com/o/r/pull/1\``
    )
  })

  it('shows links as their text and URL, so no link hides where it goes', () => {
    expect(neutralizeMentions('[Click here](https://evil.example/x)')).toBe(
      'Click here (https://evil.example/x)'
    )
    expect(
      neutralizeMentions('[safe](https://evil.example/x "Totally safe")')
    ).toBe('safe (https://evil.example/x)')
    expect(neutralizeMentions('<https://evil.example/x>')).toBe(
      '&lt;https://evil.example/x>'
    )
    expect(neutralizeMentions('[https://a.io](https://a.io) []()')).toBe(
      'https://a.io \\[]()'
    )
  })

  it('renders no image: an image becomes its text and URL', () => {
    expect(neutralizeMentions('![build passing](https://x.io/p.png)')).toBe(
      'build passing (https://x.io/p.png)'
    )
    expect(
      neutralizeMentions('[![ci](https://x.io/b.svg)](https://x.io/ci)')
    ).toBe('ci (https://x.io/b.svg) (https://x.io/ci)')
    expect(neutralizeMentions('<img src="https://x.io/p.png">')).toBe(
      '&lt;img src="https://x.io/p.png">'
    )
  })

  it('escapes reference links, definitions and any other bracket', () => {
    const text = [
      'Read [the docs][1] or [this].',
      '[1]: https://evil.example/a',
      '[this]: https://evil.example/b "hidden"',
      'Footnote[^1].',
      '&lsqb;x](https://evil.example/c)'
    ].join('\n')
    const out = neutralizeMentions(text)
    expect(liveBrackets(out)).toEqual([])
    expect(out).toContain('\\[1]: https://evil.example/a')
    expect(neutralizeMentions(out)).toBe(out)
  })

  it('keeps task-list boxes and brackets in code', () => {
    const text = '- [ ] todo\n1. [x] done\n`a[0]` and\n```\n[x](y)\n```'
    expect(neutralizeMentions(text)).toBe(text)
  })

  it('injects no HTML: tags that could fake the page are shown as text', () => {
    const text = [
      '<details open><summary>✅ Approved</summary>',
      '<sub>by the maintainers</sub>',
      '</details>',
      '<a href="https://evil.example">docs</a>',
      '<br>'
    ].join('\n')
    const out = neutralizeMentions(text)
    expect(liveHtml(out)).toEqual([])
    expect(detailsBalance(out)).toBe(0)
  })
})

describe('redactSecrets', () => {
  it('replaces given secrets of 4+ characters, longest first', () => {
    expect(redactSecrets('key=abcd1234 short=abc', ['abcd1234', 'abc'])).toBe(
      'key=*** short=abc'
    )
  })

  it('redacts each line of a multi-line secret', () => {
    expect(redactSecrets('x line-one y', ['line-one\nline-two'])).toBe(
      'x *** y'
    )
  })

  it('redacts provider keys and GitHub tokens by shape', () => {
    const text = [
      'sk-ant-api03-abcdefghijklmnop',
      'sk-proj-abcdefghijklmnopqrstuvwx',
      'AIzaSyA1234567890abcdefghijklmnopqrstu',
      'xai-abcdefghijklmnopqrstuv',
      'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      'github_pat_11ABCDEFG0123456789_abcdefghij'
    ].join(' ')
    expect(redactSecrets(text, [])).toBe(Array(6).fill('***').join(' '))
  })

  it('leaves no secret behind even when a replacement joins halves', () => {
    const out = redactSecrets('a****b', ['****'])
    expect(out).not.toContain('****')
  })
})

describe('truncateMarkdown', () => {
  it('closes a <details> opened inside an HTML block, where backticks make no code span', () => {
    // Found by the GFM oracle: the block runs to a blank line as raw HTML.
    const out = truncateMarkdown('<details>```'.repeat(60), 35, '')
    expect(out.length).toBeLessThanOrEqual(35)
    expect(out).toMatch(/^<details>/)
    expect(detailsBalance(out)).toBe(0)
  })

  it('returns text that fits unchanged', () => {
    expect(truncateMarkdown('short', 10, 'note')).toBe('short')
  })

  it('cuts at a line boundary and appends the note within the limit', () => {
    const text = 'first line\nsecond line\nthird line'
    const out = truncateMarkdown(text, 25, '[cut]')
    expect(out).toBe('first line\n\n[cut]')
  })

  it('closes an open fence with the same character and length', () => {
    const text = 'intro\n\n~~~~py\n' + 'x = 1\n'.repeat(100)
    const out = truncateMarkdown(text, 120, '_cut_')
    expect(out.length).toBeLessThanOrEqual(120)
    expect(out).toMatch(/\n~~~~\n\n_cut_$/)
    expect(unclosedFence(out)).toBeUndefined()
  })

  it('closes open <details> after the fence', () => {
    const text =
      '<details>\n<summary>s</summary>\n\n```\n' + 'code\n'.repeat(99)
    const out = truncateMarkdown(text, 100, 'n')
    expect(out).toMatch(/```\n<\/details>\n\nn$/)
    expect(detailsBalance(out)).toBe(0)
  })

  it('never splits a surrogate pair, an entity or a code span', () => {
    expect(truncateMarkdown('😀'.repeat(10), 5, '')).toBe('😀😀')
    expect(truncateMarkdown('a&amp;b', 4, '')).toBe('a')
    const span = truncateMarkdown('see `npm i @a/b` now', 12, '')
    expect(span).toBe('see ')
  })

  it('drops the note, then everything, when nothing else fits', () => {
    expect(truncateMarkdown('abcdef ghijkl', 8, 'a long note')).toBe('abcdef')
    expect(truncateMarkdown('abcdef', 0, 'n')).toBe('')
  })
})

describe('escapeTableCell', () => {
  it('keeps a cell on one line with pipes, backticks and HTML escaped', () => {
    expect(escapeTableCell('a|b\n`c` <b>\\')).toBe('a\\|b \\`c\\` &lt;b>\\\\')
  })

  it('neutralises every mention, code or not', () => {
    expect(escapeTableCell('`@octocat`')).toBe(`\\\`@${ZWSP}octocat\\\``)
  })

  it('links nothing: no link, image, reference or issue URL', () => {
    const out = escapeTableCell(
      '![x](https://e.io/p.png) [y](https://e.io) #12 GH-3 &#35;4 https://github.com/o/r/issues/5'
    )
    expect(out).toBe(
      `!\\[x](https://e.io/p.png) \\[y](https://e.io) #${ZWSP}12 GH-${ZWSP}3 &amp;#${ZWSP}35;4 \`https://github.com/o/r/issues/5\``
    )
    expect(liveReferences(`| ${out} |`)).toEqual([])
    expect(liveBrackets(`| ${out} |`)).toEqual([])
  })
})

describe('fenceFor', () => {
  it('is longer than any backtick run inside', () => {
    expect(fenceFor('plain')).toBe('```')
    expect(fenceFor('a ```` b')).toBe('`````')
  })
})

describe('safeMarkdown', () => {
  it('redacts before anything else', () => {
    expect(safeMarkdown('token sekrit-value @x', ['sekrit-value'])).toBe(
      `token *** @${ZWSP}x`
    )
  })
})

describe('the oracle: a fence that swallows what follows', () => {
  it('finds one left open at the top level, never one its container closes', () => {
    expect(unclosedFence('intro\n\n~~~\ncode')).toBe('~~~')
    expect(unclosedFence('   ````\ncode')).toBe('````')
    expect(unclosedFence('```\ncode\n```')).toBeUndefined()
    // fast-check's counterexample (seed -1787072952): the quote's end closes it.
    expect(unclosedFence('> ~~~')).toBeUndefined()
    expect(unclosedFence('- ```\n  code')).toBeUndefined()
  })
})
