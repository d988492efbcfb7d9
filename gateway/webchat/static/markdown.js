// A small Markdown renderer for chat text from models and strangers.
//
// It never parses HTML: the output is built with createElement and text
// nodes only, so a "<script>" or an "onerror=" in the text is shown as the
// characters it is. The only elements it makes are those in TAGS, the only
// attributes those in ATTRS, and a link is made only for an absolute
// http:, https: or mailto: URL. Images are never loaded (an image URL in a
// reply is a way to send what the model read to another host): they
// become links naming the image. Nesting is bounded, and every scan is
// linear or bounded, so hostile input cannot stall the page.
//
// What it knows: fenced code blocks (``` or ~~~, with a language), ATX
// headings, block quotes, bullet, numbered and task lists, pipe tables,
// rules, paragraphs with their line breaks; inline code, **strong**,
// *emphasis*, ~~strike~~, [links](url), <autolinks>, bare URLs and
// backslash escapes.

// TAGS and ATTRS are what the renderer may emit; the tests check output
// against the same lists.
export const TAGS = Object.freeze(['P', 'H3', 'H4', 'H5', 'H6', 'BLOCKQUOTE', 'UL', 'OL', 'LI', 'PRE', 'CODE', 'STRONG',
  'EM', 'DEL', 'A', 'HR', 'TABLE', 'THEAD', 'TBODY', 'TR', 'TH', 'TD', 'DIV', 'SPAN', 'BUTTON']);
export const ATTRS = Object.freeze(['class', 'href', 'rel', 'target', 'title', 'type', 'data-lang', 'data-align',
  'data-checked', 'start', 'aria-label']);
export const SCHEMES = Object.freeze(['http:', 'https:', 'mailto:']);

const MAX_DEPTH = 6; // block quotes and lists inside each other
const MAX_INLINE_DEPTH = 4; // emphasis inside emphasis
const MAX_LINK_TEXT = 500;
const MAX_URL = 2048;

// renderMarkdown replaces container's children with text rendered.
export function renderMarkdown(container, text) {
  const lines = String(text ?? '').replace(/\r\n?/g, '\n').split('\n');
  container.replaceChildren(...blocks(lines, 0));
}

// safeURL returns the normalised URL when s is an absolute URL of an
// allowed scheme, else ''.
export function safeURL(s) {
  if (typeof s !== 'string' || s.length > MAX_URL || /[\u0000-\u0020\u007f]/.test(s)) return '';
  let u;
  try {
    u = new URL(s);
  } catch {
    return '';
  }
  return SCHEMES.includes(u.protocol) ? u.href : '';
}

function make(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// ---- blocks ----

// The block patterns are anchored and free of overlapping quantifiers
// (no backtracking on long lines); a heading's closing hashes are cut by
// hand for the same reason.
const FENCE = /^ {0,3}(`{3,}|~{3,})[ \t]*([^`\s]*)(.*)$/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]|$)/;
const RULE = /^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$/;
const QUOTE = /^ {0,3}> ?/;
const ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])([ \t]+|$)/;
const TABLE_SEP = /^\|?(?::?-+:?\|)*:?-+:?\|?$/;

// fence matches an opening fence: ``` may not have a backtick after its
// language (that is inline code).
function fence(line) {
  const m = FENCE.exec(line);
  return m && !(m[1][0] === '`' && m[3].includes('`')) ? m : null;
}

// tableSep reports whether line is a table's delimiter row.
function tableSep(line) {
  return line !== undefined && line.length <= 4000 && line.includes('-') && TABLE_SEP.test(line.replace(/[ \t]/g, ''));
}

// headingText is a heading line's text without its closing hashes.
function headingText(line, level) {
  let s = line.trim().slice(level).trim();
  let end = s.length;
  while (end > 0 && s[end - 1] === '#') end--;
  if (end === 0) return '';
  if (end < s.length && (s[end - 1] === ' ' || s[end - 1] === '\t')) s = s.slice(0, end).trim();
  return s;
}

function blank(line) {
  return !line.trim();
}

// startsBlock reports whether line interrupts a paragraph.
function startsBlock(line, next) {
  return fence(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || ITEM.test(line)
    || (line.includes('|') && tableSep(next));
}

function blocks(lines, depth) {
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (blank(line)) {
      i++;
      continue;
    }
    let m;
    if ((m = fence(line))) {
      const open = m[1];
      const body = [];
      i++;
      while (i < lines.length) {
        const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(lines[i]);
        if (close && close[1][0] === open[0] && close[1].length >= open.length) break;
        body.push(lines[i]);
        i++;
      }
      i++; // the closing fence (or the end: a block still streaming)
      out.push(codeBlock(m[2], body.join('\n')));
      continue;
    }
    if ((m = HEADING.exec(line))) {
      // A reply's headings sit below the page's own.
      const h = make('H' + Math.min(6, m[1].length + 2));
      inline(h, headingText(line, m[0].trim().length), 0);
      out.push(h);
      i++;
      continue;
    }
    if (RULE.test(line)) {
      out.push(make('hr'));
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const inner = [];
      while (i < lines.length && QUOTE.test(lines[i])) inner.push(lines[i++].replace(QUOTE, ''));
      if (depth >= MAX_DEPTH) {
        out.push(paragraph(inner));
        continue;
      }
      const q = make('blockquote');
      q.append(...blocks(inner, depth + 1));
      out.push(q);
      continue;
    }
    if ((m = ITEM.exec(line))) {
      i = list(lines, i, depth, out);
      continue;
    }
    if (line.includes('|') && tableSep(lines[i + 1])) {
      i = tableBlock(lines, i, out);
      continue;
    }
    const para = [line];
    i++;
    while (i < lines.length && !blank(lines[i]) && !startsBlock(lines[i], lines[i + 1])) para.push(lines[i++]);
    out.push(paragraph(para));
  }
  return out;
}

function paragraph(lines) {
  const p = make('p');
  inline(p, lines.map((l) => l.replace(/^[ \t]+/, '')).join('\n'), 0);
  return p;
}

function codeBlock(lang, code) {
  const wrap = make('div', 'codeblock');
  const head = make('div', 'code-head');
  const label = make('span', 'code-lang', lang.slice(0, 40));
  const copy = make('button', 'copy', 'Copy');
  copy.type = 'button';
  copy.setAttribute('aria-label', 'Copy code');
  head.append(label, copy);
  const pre = make('pre');
  const c = make('code', '', code);
  if (lang) c.dataset.lang = lang.slice(0, 40);
  pre.append(c);
  wrap.append(head, pre);
  return wrap;
}

// list reads the list starting at lines[i] into out and returns the index
// after it. An item holds its first line and the lines indented under it
// (or lazily continuing it); its content is rendered as blocks.
function list(lines, i, depth, out) {
  const first = ITEM.exec(lines[i]);
  const ordered = /\d/.test(first[2]);
  const kind = ordered ? first[2].slice(-1) : first[2];
  const el = make(ordered ? 'ol' : 'ul');
  if (ordered) {
    const n = parseInt(first[2], 10);
    if (n !== 1) el.setAttribute('start', String(n));
  }
  const items = [];
  let cur = { lines: [], indent: 4 }; // replaced by the first item
  let sawBlank = false;
  while (i < lines.length) {
    const line = lines[i];
    const m = ITEM.exec(line);
    const sameKind = m && m[1].length < cur.indent && (ordered ? /\d/.test(m[2]) && m[2].slice(-1) === kind : m[2] === kind);
    if (m && sameKind) {
      cur = { lines: [line.slice(m[0].length)], indent: m[0].length };
      items.push(cur);
      sawBlank = false;
      i++;
      continue;
    }
    if (blank(line)) {
      sawBlank = true;
      cur.lines.push('');
      i++;
      continue;
    }
    const indent = line.length - line.replace(/^[ \t]+/, '').length;
    if (indent >= Math.min(cur.indent, 4) && indent > 0) {
      cur.lines.push(line.slice(Math.min(indent, cur.indent)));
      sawBlank = false;
      i++;
      continue;
    }
    if (!sawBlank && !startsBlock(line, lines[i + 1])) {
      cur.lines.push(line); // a lazy continuation of the item's paragraph
      i++;
      continue;
    }
    break;
  }
  for (const it of items) {
    while (it.lines.length && blank(it.lines[it.lines.length - 1])) it.lines.pop();
    const li = make('li');
    const task = /^\[([ xX])\][ \t]+/.exec(it.lines[0] || '');
    if (task) {
      it.lines[0] = it.lines[0].slice(task[0].length);
      const checked = task[1] !== ' ';
      li.className = 'task';
      li.dataset.checked = String(checked);
      li.append(make('span', 'check', checked ? '☑ ' : '☐ '));
    }
    if (depth >= MAX_DEPTH) {
      li.append(...inlineNodes(it.lines.join('\n'), 0));
    } else {
      li.append(...blocks(it.lines, depth + 1));
    }
    el.append(li);
  }
  out.push(el);
  return i;
}

function cells(line) {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  const out = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && s[i + 1] === '|') {
      cur += '|';
      i++;
    } else if (s[i] === '|') {
      out.push(cur.trim());
      cur = '';
    } else {
      cur += s[i];
    }
  }
  out.push(cur.trim());
  return out;
}

function tableBlock(lines, i, out) {
  const head = cells(lines[i]);
  const align = cells(lines[i + 1]).map((c) => (c.startsWith(':') && c.endsWith(':') ? 'center' : c.endsWith(':') ? 'right' : c.startsWith(':') ? 'left' : ''));
  const wrap = make('div', 'table');
  const t = make('table');
  const thead = make('thead');
  const tbody = make('tbody');
  const row = (values, tag) => {
    const tr = make('tr');
    for (let c = 0; c < head.length; c++) {
      const cell = make(tag);
      if (align[c]) cell.dataset.align = align[c];
      inline(cell, values[c] ?? '', 0);
      tr.append(cell);
    }
    return tr;
  };
  thead.append(row(head, 'th'));
  i += 2;
  while (i < lines.length && !blank(lines[i]) && lines[i].includes('|')) tbody.append(row(cells(lines[i++]), 'td'));
  t.append(thead, tbody);
  wrap.append(t);
  out.push(wrap);
  return i;
}

// ---- inline ----

function inline(parent, text, depth) {
  parent.append(...inlineNodes(text, depth));
}

const PUNCT = /[!-/:-@[-`{-~]/;
const AUTOLINK = /<((?:https?:\/\/|mailto:)[^\s<>]{1,2040})>/y;
const BARE_URL = /https?:\/\/[^\s<>"]+/iy;
const SPECIAL = /[\\`[!<hH*_~]/g;

// inlineNodes scans text once. An opener whose closer is not found is
// text; a failed search is remembered so later openers of the same kind do
// not search again (which keeps a line of a thousand "*" linear).
function inlineNodes(text, depth, inLink = false) {
  const out = [];
  let buf = '';
  const flush = () => {
    if (buf) out.push(document.createTextNode(buf));
    buf = '';
  };
  const noCloser = new Set();
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '\\' && i + 1 < text.length && PUNCT.test(text[i + 1])) {
      buf += text[i + 1];
      i += 2;
      continue;
    }
    if (ch === '`') {
      let n = 1;
      while (text[i + n] === '`') n++;
      const run = '`'.repeat(n);
      let j = noCloser.has(run) ? -1 : text.indexOf(run, i + n);
      while (j !== -1 && text[j + n] === '`') {
        let k = j;
        while (text[k] === '`') k++;
        j = text.indexOf(run, k);
      }
      if (j === -1) {
        noCloser.add(run);
        buf += run;
        i += n;
        continue;
      }
      flush();
      let code = text.slice(i + n, j).replace(/\n/g, ' ');
      if (code.length > 2 && code[0] === ' ' && code[code.length - 1] === ' ' && code.trim()) code = code.slice(1, -1);
      out.push(make('code', '', code));
      i = j + n;
      continue;
    }
    if (!inLink && (ch === '[' || (ch === '!' && text[i + 1] === '['))) {
      const link = linkAt(text, ch === '!' ? i + 1 : i);
      if (link) {
        flush();
        out.push(ch === '!' ? imageLink(link) : anchor(link, depth));
        i = link.end;
        continue;
      }
    }
    if (!inLink && ch === '<') {
      AUTOLINK.lastIndex = i;
      const m = AUTOLINK.exec(text);
      const href = m && safeURL(m[1]);
      if (href) {
        flush();
        out.push(link(href, m[1]));
        i += m[0].length;
        continue;
      }
    }
    if (!inLink && (ch === 'h' || ch === 'H') && (i === 0 || /[\s(*_~]/.test(text[i - 1]))) {
      BARE_URL.lastIndex = i;
      const m = BARE_URL.exec(text);
      if (m && m[0].length > MAX_URL) {
        buf += m[0]; // too long to be a link: text
        i += m[0].length;
        continue;
      }
      if (m) {
        let url = m[0];
        // Punctuation ending a sentence is not part of the URL; nor is a
        // closing parenthesis without its opening one.
        const open = count(url, '(');
        let close = count(url, ')');
        for (;;) {
          const last = url[url.length - 1];
          if (/[.,;:!?'*_~]/.test(last)) {
            url = url.slice(0, -1);
          } else if (last === ')' && open < close) {
            url = url.slice(0, -1);
            close--;
          } else {
            break;
          }
        }
        const href = safeURL(url);
        if (href) {
          flush();
          out.push(link(href, url));
          i += url.length;
          continue;
        }
      }
    }
    if ((ch === '*' || ch === '_' || ch === '~') && depth < MAX_INLINE_DEPTH) {
      let n = 1;
      while (text[i + n] === ch) n++;
      const run = ch.repeat(n);
      const before = i > 0 ? text[i - 1] : ' ';
      const after = text[i + n] ?? ' ';
      // An opener is followed by text; "_" also needs no word before it
      // (snake_case stays as written); "~" counts only doubled.
      const opens = n <= 3 && !/\s/.test(after) && (ch !== '_' || !/[\p{L}\p{N}]/u.test(before)) && (ch !== '~' || n === 2);
      if (opens && !noCloser.has(run)) {
        const j = closerOf(text, i + n, run);
        if (j === -1) {
          noCloser.add(run);
        } else {
          flush();
          const inner = inlineNodes(text.slice(i + n, j), depth + 1, inLink);
          let node;
          if (ch === '~') {
            node = make('del');
            node.append(...inner);
          } else if (n === 1) {
            node = make('em');
            node.append(...inner);
          } else if (n === 2) {
            node = make('strong');
            node.append(...inner);
          } else {
            const em = make('em');
            em.append(...inner);
            node = make('strong');
            node.append(em);
          }
          out.push(node);
          i = j + n;
          continue;
        }
      }
      buf += run;
      i += n;
      continue;
    }
    // Plain text up to the next character that may start something.
    SPECIAL.lastIndex = i + 1;
    const next = SPECIAL.exec(text);
    const end = next ? next.index : text.length;
    buf += text.slice(i, end);
    i = end;
  }
  flush();
  return out;
}

function count(s, c) {
  return s.split(c).length - 1;
}

// closerOf finds the run that closes an opener: the same characters,
// exactly as many, after text (not space) and, for "_", before no word.
function closerOf(text, from, run) {
  let j = text.indexOf(run, from);
  while (j !== -1) {
    let end = j + run.length;
    let start = j;
    while (text[end] === run[0]) end++;
    while (start > from && text[start - 1] === run[0]) start--;
    const exact = end - start === run.length;
    const prev = text[start - 1];
    const next = text[end] ?? ' ';
    if (exact && start > from && !/\s/.test(prev) && (run[0] !== '_' || !/[\p{L}\p{N}]/u.test(next))) return start;
    j = text.indexOf(run, end);
  }
  return -1;
}

// linkAt reads "[text](url "title")" at text[i] === '['; null when it is
// not one.
function linkAt(text, i) {
  let depth = 0;
  let j = i;
  const limit = Math.min(text.length, i + MAX_LINK_TEXT);
  for (; j < limit; j++) {
    const c = text[j];
    if (c === '\\') {
      j++;
    } else if (c === '[') {
      depth++;
    } else if (c === ']') {
      depth--;
      if (depth === 0) break;
    } else if (c === '\n' && text[j + 1] === '\n') {
      return null;
    }
  }
  if (j >= limit || text[j + 1] !== '(') return null;
  const m = /^\(\s*(<[^<>\n]*>|[^\s()<>]*(?:\([^\s()<>]*\)[^\s()<>]*)*)(?:\s+("[^"\n]*"|'[^'\n]*'))?\s*\)/.exec(text.slice(j + 1, j + 1 + MAX_URL + 300));
  if (!m) return null;
  let url = m[1];
  if (url.startsWith('<')) url = url.slice(1, -1);
  return { label: text.slice(i + 1, j), url, title: m[2] ? m[2].slice(1, -1) : '', end: j + 1 + m[0].length };
}

function link(href, text) {
  const a = make('a', '', text);
  a.href = href;
  a.rel = 'noopener noreferrer nofollow';
  a.target = '_blank';
  return a;
}

// anchor makes a link when its URL is allowed; otherwise the label alone
// stays, as text, with the refused URL beside it so the reader sees what
// was there.
function anchor(l, depth) {
  const href = safeURL(l.url);
  const label = inlineNodes(l.label, depth + 1, true);
  if (!href) {
    const s = make('span', 'refused-link');
    s.title = 'link not followed: only http, https and mailto links are';
    s.append(...label, document.createTextNode(l.url ? ` (${l.url})` : ''));
    return s;
  }
  const a = link(href, '');
  a.append(...label);
  if (l.title) a.title = l.title;
  return a;
}

// imageLink shows an image as a link to it (never loaded); an image URL
// of another scheme (data:, javascript:) is named, not linked.
function imageLink(l) {
  const href = safeURL(l.url);
  const name = `image: ${l.label || l.url}`;
  if (!href) return make('span', 'refused-link', `[${name}]`);
  const a = link(href, name);
  a.className = 'image-link';
  return a;
}
