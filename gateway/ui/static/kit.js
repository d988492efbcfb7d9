// The Control UI's shared pieces: the WebChat client's connection (login,
// device identity, requests, events) re-exported, DOM builders that set
// text only (never HTML), and the view registry the shell in views.js
// turns into the navigation.
import { $, st, request, showError, switchSession, hooks, toolCard, setToolCard, scrollToEnd } from '../webchat/app.js';

export { $, st, request, showError, switchSession, hooks, toolCard, setToolCard, scrollToEnd };

// el makes an element with text (set as textContent) and a class.
export function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

// button makes a button whose click handler's errors reach the notice bar.
export function button(text, onClick, cls) {
  const b = el('button', text, cls);
  b.type = 'button';
  b.addEventListener('click', () => {
    b.disabled = true;
    Promise.resolve()
      .then(onClick)
      .catch((err) => showError(err))
      .finally(() => { b.disabled = false; });
  });
  return b;
}

// labelled wraps a form control in its <label>, giving it id when set.
export function labelled(text, input, id) {
  const l = el('label', text + ' ');
  if (id) input.id = id;
  l.append(input);
  return l;
}

// when formats epoch milliseconds for people; '—' when there is none.
export function when(ms) {
  return typeof ms === 'number' && ms > 0 ? new Date(ms).toLocaleString() : '—';
}

// table makes a scrollable table with the given headings; it returns the
// wrapper and the body to fill.
export function table(...headings) {
  const wrap = el('div', null, 'scroll');
  const t = el('table');
  const tr = el('tr');
  tr.append(...headings.map((h) => el('th', h)));
  const thead = el('thead');
  thead.append(tr);
  const tbody = el('tbody');
  t.append(thead, tbody);
  wrap.append(t);
  return { wrap, tbody };
}

// cell makes a <td> holding text or nodes.
export function cell(...content) {
  const td = el('td');
  for (const c of content) td.append(c instanceof Node ? c : document.createTextNode(c == null ? '' : String(c)));
  return td;
}

// emptyState makes the block a view shows when it has nothing to list: a
// title, what to do next, and optionally a command to run (shown as code)
// and buttons ([label, onClick] pairs).
export function emptyState(id, title, text, { command, actions } = {}) {
  const box = el('div', null, 'empty-state');
  box.id = id;
  box.append(el('h3', title), el('p', text));
  if (command) box.append(el('pre', command));
  if (actions && actions.length) {
    const row = el('div', null, 'actions');
    row.append(...actions.map(([label, onClick]) => button(label, onClick)));
    box.append(row);
  }
  return box;
}

// openView shows another view (set by the shell in views.js).
export let openView = () => {};
export function setOpenView(f) {
  openView = f;
}

// Views, in registration order (the order of imports in views.js). A
// view is { name, label, build(section), load(), event(name, payload) };
// build runs once to fill its <section>, load whenever it is shown and
// connected, event on every bus event.
export const views = [];

export function registerView(v) {
  views.push(v);
}

// isShown reports whether the named view is the one on screen.
export function isShown(name) {
  return document.body.dataset.view === name;
}
