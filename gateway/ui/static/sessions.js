// Sessions: every session with its agent, last update and token usage;
// preview one, reset or delete it (each asks for a second click), or open
// it in the chat.
import { st, request, showError, switchSession, el, button, table, cell, when, registerView, emptyState, openView } from './kit.js';

const LIST_LIMIT = 200;
const PREVIEW_LIMIT = 20;
const PREVIEW_CHARS = 600;
const CONFIRM_MS = 5000; // how long a first click on Reset or Delete stays armed

let tbody, empty, more, previewBox;

// armed is the action waiting for its confirming click, so that a refresh
// of the list in between keeps it: { key, action, until }.
let armed = null;

registerView({
  name: 'sessions',
  label: 'Sessions',
  build(section) {
    const t = table('Session', 'Agent', 'Updated', 'Tokens', '');
    tbody = t.tbody;
    tbody.id = 'sessions';
    t.wrap.classList.add('sessions-table');
    empty = emptyState('sessions-empty', 'No conversations yet',
      'Each chat with an agent, from this page or a channel, becomes a session here. Say hello to start the first one.', {
        actions: [['Open the chat', () => { openView('chat'); document.getElementById('input').focus(); }]],
      });
    empty.hidden = true;
    more = el('p', '', 'hint');
    more.id = 'sessions-more';
    more.hidden = true;
    previewBox = el('div');
    previewBox.id = 'session-preview';
    previewBox.hidden = true;
    const head = el('div', null, 'sessions-head');
    head.append(el('h2', 'Sessions'), button('Refresh', refresh, 'refresh'));
    section.append(head, empty, t.wrap, more, previewBox);
  },
  load: refresh,
  event: onEvent,
});

// onEvent refreshes the list when sessions change or a chat run ends
// (its usage and update time changed), while the view is on screen.
function onEvent(name, p, shown) {
  if (!shown) return;
  if (name === 'sessions.changed' || (name === 'chat' && ['final', 'aborted', 'error'].includes(p?.state))) {
    refresh().catch(() => {});
    if (previewBox.hidden || (p?.sessionKey && p.sessionKey !== previewBox.dataset.key)) return;
    if (name === 'sessions.changed' && p?.reason === 'delete') closePreview();
    else showPreview(previewBox.dataset.key).catch(() => {});
  }
}

// refresh reloads the list; calls while a load runs make one more load
// after it instead of racing it.
let loading = null;
let again = false;

function refresh() {
  if (loading) {
    again = true;
    return loading;
  }
  loading = loadList().finally(() => {
    loading = null;
    if (again) {
      again = false;
      refresh().catch(() => {});
    }
  });
  return loading;
}

async function loadList() {
  const res = await request('sessions.list', { limit: LIST_LIMIT });
  const rows = Array.isArray(res?.sessions) ? res.sessions.filter((s) => s && typeof s.key === 'string') : [];
  rows.sort((a, b) => (Number(b.updatedAt) || 0) - (Number(a.updatedAt) || 0));
  tbody.replaceChildren(...rows.map(row));
  empty.hidden = rows.length > 0;
  const total = Number(res?.totalCount) || rows.length;
  more.hidden = total <= rows.length;
  more.textContent = `Showing the ${rows.length} most recent of ${total} sessions.`;
}

function count(n) {
  return typeof n === 'number' && Number.isFinite(n) ? n.toLocaleString() : '—';
}

function row(s) {
  const tr = el('tr');
  tr.dataset.key = s.key;
  if (s.key === st.sessionKey) tr.classList.add('current');

  const title = s.label || s.displayName || s.title || s.subject || '';
  const name = cell();
  name.className = 'name';
  if (title) name.append(el('strong', title, 'title'));
  name.append(el('code', s.key, 'key'));
  if (s.key === st.sessionKey) name.append(el('span', 'in chat', 'badge'));

  const tokens = cell();
  tokens.className = 'tokens';
  const input = Number(s.inputTokens) || 0;
  const output = Number(s.outputTokens) || 0;
  const total = typeof s.totalTokens === 'number' ? s.totalTokens : input + output;
  tokens.dataset.input = String(input);
  tokens.dataset.output = String(output);
  tokens.dataset.total = String(total);
  tokens.append(el('span', `${count(total)} total`, 'total'), el('span', `${count(input)} in · ${count(output)} out`, 'split'));

  const actions = el('div', null, 'row-actions');
  actions.append(
    button('Preview', () => showPreview(s.key).then(() => previewBox.scrollIntoView({ block: 'nearest' })), 'preview'),
    button('Open in chat', () => openInChat(s.key), 'open'),
    confirmButton(s.key, 'reset', 'Reset', 'Confirm reset', () => resetSession(s.key)),
    confirmButton(s.key, 'delete', 'Delete', 'Confirm delete', () => deleteSession(s.key)),
  );
  const act = cell(actions);
  act.className = 'actions';

  const agent = cell(s.agentId || '—');
  agent.className = 'agent';
  const updated = cell(when(s.updatedAt));
  updated.className = 'updated';
  tr.append(name, agent, updated, tokens, act);
  return tr;
}

// confirmButton acts on its second click within CONFIRM_MS; the first one
// only changes its text to ask for that.
function confirmButton(key, action, label, confirmLabel, run) {
  const isArmed = () => armed && armed.key === key && armed.action === action && armed.until > Date.now();
  let b;
  const show = () => {
    const on = isArmed();
    b.textContent = on ? confirmLabel : label;
    b.classList.toggle('confirming', !!on);
    b.dataset.confirm = on ? 'true' : 'false';
  };
  b = button(label, async () => {
    if (!isArmed()) {
      armed = { key, action, until: Date.now() + CONFIRM_MS };
      // Other armed buttons go back to their first state.
      for (const other of tbody.querySelectorAll('button.confirming')) other.dispatchEvent(new Event('disarm'));
      show();
      setTimeout(() => {
        if (b.isConnected) show();
      }, CONFIRM_MS + 50);
      return;
    }
    armed = null;
    show();
    await run();
  }, action + ' danger');
  b.addEventListener('disarm', show);
  show();
  return b;
}

// previewSeq numbers preview loads and closes, so that an answer to an
// older load neither reopens a closed preview nor replaces a newer one.
let previewSeq = 0;

async function showPreview(key) {
  const seq = ++previewSeq;
  const res = await request('sessions.preview', { keys: [key], limit: PREVIEW_LIMIT, maxChars: PREVIEW_CHARS });
  if (seq !== previewSeq) return;
  const p = (Array.isArray(res?.previews) ? res.previews : []).find((x) => x && x.key === key) || { status: 'missing', items: [] };
  const items = Array.isArray(p.items) ? p.items : [];
  previewBox.hidden = false;
  previewBox.dataset.key = key;
  previewBox.dataset.status = String(p.status || '');
  const head = el('div', null, 'sessions-head');
  head.append(el('h3', `Preview of ${key}`), button('Close', closePreview, 'close'));
  let body;
  if (p.status === 'missing') {
    body = el('p', 'This session does not exist any more.', 'hint');
  } else if (items.length === 0) {
    body = el('p', 'No messages.', 'hint empty');
  } else {
    body = el('ol', null, 'preview-items');
    body.append(...items.map((m) => {
      const li = el('li', null, 'preview-item');
      li.dataset.role = String(m?.role || '');
      li.append(el('strong', m?.role === 'user' ? 'You' : m?.role === 'assistant' ? 'Assistant' : String(m?.role || '?'), 'role'), el('span', m?.text ?? '', 'text'));
      return li;
    }));
  }
  previewBox.replaceChildren(head, body);
}

function closePreview() {
  previewSeq++;
  previewBox.hidden = true;
  delete previewBox.dataset.key;
  previewBox.replaceChildren();
}

function openInChat(key) {
  switchSession(key).catch((err) => showError(err));
  document.querySelector('#nav [data-view="chat"]')?.click();
}

// afterChange reloads the list and, when the session was the chat's,
// the chat's picker and history too.
async function afterChange(key) {
  if (key === st.sessionKey) switchSession(key).catch(() => {});
  await refresh();
}

async function resetSession(key) {
  try {
    await request('sessions.reset', { key, reason: 'reset' });
  } finally {
    await afterChange(key).catch(() => {});
  }
  if (!previewBox.hidden && previewBox.dataset.key === key) await showPreview(key);
}

async function deleteSession(key) {
  try {
    await request('sessions.delete', { key });
  } finally {
    await afterChange(key).catch(() => {});
  }
  if (!previewBox.hidden && previewBox.dataset.key === key) closePreview();
}
