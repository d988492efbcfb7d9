// WebChat: a browser client of the OpenClaw gateway bus (protocol v4).
//
// It opens a WebSocket to the origin that served the page, answers the
// connect.challenge event with a connect request, and then uses
// sessions.list, chat.history, chat.send and chat.abort and renders the
// chat events of the chosen session. The gateway token lives in this tab's
// sessionStorage only. Text from the gateway is rendered with textContent
// and DOM nodes, never as HTML (markdown.js builds the replies' Markdown
// from DOM nodes and an allowlist of tags).

import { renderMarkdown } from './markdown.js';

const PROTOCOL = 4;
// A page that embeds this client (the Control UI) names itself on <body>:
// data-client-id, data-client-mode, data-display-name, data-scopes (space
// separated) and data-storage (the sessionStorage key prefix).
const PAGE = document.body.dataset;
const CLIENT = Object.freeze({ id: PAGE.clientId || 'webchat-ui', mode: PAGE.clientMode || 'webchat', version: '1.0.0',
  displayName: PAGE.displayName || 'WebChat' });
const ROLE = 'operator';
const SCOPES = Object.freeze(PAGE.scopes ? PAGE.scopes.split(' ') : ['operator.read', 'operator.write']);
const STORAGE = PAGE.storage || 'openclaw.webchat';
const TOKEN_KEY = STORAGE + '.token';
const SESSION_KEY = STORAGE + '.session';

// hooks let an embedding page add to the client: connected runs after
// each hello, event gets every event this file does not handle itself.
const hooks = { connected: [], event: [] };
const DEFAULT_SESSION = 'agent:main:main';
const BACKOFF_MIN_MS = 1000;
const BACKOFF_MAX_MS = 30000;
const PAIRING_RETRY_MAX_MS = 5000;
const REQUEST_TIMEOUT_MS = 30000;
const CHALLENGE_TIMEOUT_MS = 15000;

// Refusals that retrying cannot fix: the page stops and says why.
const TERMINAL_CODES = new Set([
  'AUTH_TOKEN_MISSING', 'AUTH_TOKEN_MISMATCH', 'AUTH_TOKEN_NOT_CONFIGURED', 'AUTH_PASSWORD_MISSING',
  'AUTH_PASSWORD_MISMATCH', 'AUTH_PASSWORD_NOT_CONFIGURED', 'AUTH_BOOTSTRAP_TOKEN_INVALID',
  'AUTH_RATE_LIMITED', 'AUTH_DEVICE_TOKEN_MISMATCH', 'AUTH_SCOPE_MISMATCH', 'AUTH_UNAUTHORIZED',
  'AUTH_IDENTITY_HEADER_REQUIRED', 'AUTH_VERIFIED_USER_REQUIRED', 'DEVICE_IDENTITY_REQUIRED',
  'CONTROL_UI_DEVICE_IDENTITY_REQUIRED', 'PROTOCOL_MISMATCH', 'CLIENT_VERSION_MISMATCH',
]);
// Refusals after which the typed token is wrong and must be asked again.
const BAD_TOKEN_CODES = new Set([
  'AUTH_TOKEN_MISSING', 'AUTH_TOKEN_MISMATCH', 'AUTH_PASSWORD_MISSING', 'AUTH_PASSWORD_MISMATCH',
]);

const $ = (id) => document.getElementById(id);
const ui = {
  body: document.body,
  state: $('conn-state'),
  notice: $('notice'),
  noticeCode: $('notice-code'),
  noticeMessage: $('notice-message'),
  noticeHint: $('notice-hint'),
  login: $('login'),
  token: $('token'),
  logout: $('logout'),
  chat: $('chat'),
  messages: $('messages'),
  composer: $('composer'),
  input: $('input'),
  send: $('send'),
  stop: $('stop'),
  sessionLabel: $('session-label'),
  session: $('session'),
};

const st = {
  token: '',
  ws: null,
  gen: 0, // bumped per socket; events of an older socket are ignored
  nextId: 0,
  pending: new Map(), // request id -> {resolve, reject, timer}
  attempt: 0,
  timer: 0,
  paused: true,
  pairing: false,
  connected: false,
  hello: null,
  device: null, // promise of the device identity, or of null
  lastFrame: 0,
  tickMs: 30000,
  instanceId: uuid(),
  sessionKey: sessionStorage.getItem(SESSION_KEY) || '',
  runs: new Map(), // runId -> run (see newRun)
};

class GatewayError extends Error {
  constructor(code, message, details, retryAfterMs) {
    super(message || code);
    this.code = code || 'UNKNOWN';
    this.details = details && typeof details === 'object' ? details : {};
    this.retryAfterMs = retryAfterMs;
  }
  get detailCode() {
    return typeof this.details.code === 'string' ? this.details.code : '';
  }
}

// ---- UI state ----

function setState(state, text) {
  ui.body.dataset.state = state;
  ui.state.textContent = text;
}

function showNotice(code, message, hint = '', info = false) {
  ui.notice.hidden = false;
  ui.notice.classList.toggle('info', info);
  ui.noticeCode.textContent = code;
  ui.noticeMessage.textContent = message;
  ui.noticeHint.textContent = hint;
}

function showError(err, hint = '') {
  const code = err.detailCode && err.detailCode !== err.code ? `${err.code} (${err.detailCode})` : err.code;
  ui.notice.dataset.code = err.detailCode || err.code;
  showNotice(code, err.message, hint);
}

function hideNotice() {
  ui.notice.hidden = true;
  delete ui.notice.dataset.code;
  delete ui.notice.dataset.requestId;
}

function setComposerEnabled(on) {
  ui.input.disabled = !on;
  ui.send.disabled = !on;
  updateStop();
}

// ---- login ----

ui.login.addEventListener('submit', (ev) => {
  ev.preventDefault();
  const token = ui.token.value.trim();
  ui.token.value = '';
  if (!token) return;
  sessionStorage.setItem(TOKEN_KEY, token);
  start(token);
});

ui.logout.addEventListener('click', () => {
  sessionStorage.removeItem(TOKEN_KEY);
  stop('logged out');
  hideNotice();
  ui.chat.hidden = true;
  ui.login.hidden = false;
  ui.token.focus();
});

function start(token) {
  st.token = token;
  st.paused = false;
  st.attempt = 0;
  ui.login.hidden = true;
  ui.logout.hidden = false;
  hideNotice();
  connect();
}

// stop closes the socket and schedules nothing more.
function stop(text) {
  st.paused = true;
  st.token = '';
  clearTimeout(st.timer);
  const ws = st.ws;
  st.ws = null;
  st.gen++;
  if (ws) ws.close(1000, 'client stop');
  onDisconnected();
  ui.logout.hidden = true;
  setState('idle', text);
}

// ---- connection ----

// The bus listens where the page's base is (the gateway's root, or
// gateway.controlUi.basePath): the folder above this script's.
const busPath = new URL('../', import.meta.url).pathname;

function connect() {
  clearTimeout(st.timer);
  const gen = ++st.gen;
  st.pairing = false;
  setState('connecting', 'connecting…');
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  let ws;
  try {
    ws = new WebSocket(`${scheme}//${location.host}${busPath}`);
  } catch (err) {
    showNotice('UNAVAILABLE', `cannot open a WebSocket: ${err.message}`);
    scheduleReconnect();
    return;
  }
  st.ws = ws;
  st.lastFrame = Date.now();
  const challengeTimer = setTimeout(() => {
    if (gen === st.gen && !st.connected) {
      showNotice('UNAVAILABLE', 'the gateway sent no connect.challenge in time');
      ws.close(4000, 'connect challenge timeout');
    }
  }, CHALLENGE_TIMEOUT_MS);
  ws.addEventListener('message', (ev) => {
    if (gen !== st.gen) return;
    st.lastFrame = Date.now();
    let frame;
    try {
      frame = JSON.parse(ev.data);
    } catch {
      return; // not a frame
    }
    if (frame && frame.type === 'event' && frame.event === 'connect.challenge') {
      clearTimeout(challengeTimer);
      handshake(gen, frame.payload || {});
      return;
    }
    onFrame(frame);
  });
  ws.addEventListener('close', (ev) => {
    clearTimeout(challengeTimer);
    if (gen !== st.gen) return;
    st.ws = null;
    onDisconnected();
    if (st.paused) return;
    const why = ev.reason ? `${ev.code} ${ev.reason}` : `${ev.code}`;
    scheduleReconnect(why);
  });
}

function scheduleReconnect(why = '') {
  clearTimeout(st.timer);
  let delay = Math.min(BACKOFF_MIN_MS * 2 ** st.attempt, BACKOFF_MAX_MS);
  if (st.pairing) delay = Math.min(delay, PAIRING_RETRY_MAX_MS);
  st.attempt++;
  const secs = Math.max(1, Math.round(delay / 1000));
  const prefix = st.pairing ? 'waiting for pairing approval' : `disconnected${why ? ` (${why})` : ''}`;
  setState(st.pairing ? 'pairing' : 'reconnecting', `${prefix}; retrying in ${secs} s (attempt ${st.attempt})`);
  st.timer = setTimeout(connect, delay);
}

function onDisconnected() {
  const wasConnected = st.connected;
  st.connected = false;
  st.hello = null;
  for (const [id, p] of st.pending) {
    clearTimeout(p.timer);
    p.reject(new GatewayError('UNAVAILABLE', 'connection closed'));
    st.pending.delete(id);
  }
  // Runs streaming when the socket dropped: their text is in the history
  // once they end; the page reloads it after reconnecting.
  for (const [id, run] of st.runs) {
    if (!run.done) setRunStatus(run, 'connection lost', 'failed');
    run.done = true;
    st.runs.delete(id);
  }
  setComposerEnabled(false);
  if (wasConnected) ui.body.dataset.state = 'reconnecting';
}

async function handshake(gen, challenge) {
  const nonce = typeof challenge.nonce === 'string' ? challenge.nonce : '';
  if (!nonce) {
    showNotice('INVALID_REQUEST', 'connect.challenge without a nonce');
    st.ws?.close(1008, 'challenge without nonce');
    return;
  }
  const platform = browserPlatform();
  const params = {
    minProtocol: PROTOCOL,
    maxProtocol: PROTOCOL,
    client: { ...CLIENT, platform, instanceId: st.instanceId },
    role: ROLE,
    scopes: [...SCOPES],
    caps: [],
    auth: { token: st.token },
    locale: navigator.language || undefined,
    userAgent: navigator.userAgent,
  };
  const device = await deviceIdentity();
  if (gen !== st.gen) return;
  if (device) {
    try {
      const signedAt = Number.isInteger(challenge.ts) ? challenge.ts : Date.now();
      params.device = await signConnect(device, platform, signedAt, nonce);
    } catch (err) {
      console.warn('webchat: cannot sign with the device key', err);
    }
    if (gen !== st.gen) return;
  }
  let hello;
  try {
    hello = await request('connect', params, REQUEST_TIMEOUT_MS);
  } catch (err) {
    if (gen === st.gen) onRefused(err);
    return;
  }
  if (gen === st.gen) onHello(hello, Boolean(params.device));
}

function onRefused(err) {
  if (!(err instanceof GatewayError)) err = new GatewayError('UNKNOWN', String(err));
  if (err.code === 'UNAVAILABLE' && err.message === 'connection closed') return; // the close handler reports it
  const code = err.detailCode || err.code;
  if (code === 'PAIRING_REQUIRED') {
    const id = typeof err.details.requestId === 'string' ? err.details.requestId : '';
    st.pairing = true;
    showError(err, id
      ? `This browser is a new device for the gateway. Approve it on the gateway host with: openclaw devices approve ${id} — the page retries by itself.`
      : 'Approve this device on the gateway host (openclaw devices list); the page retries by itself.');
    ui.notice.dataset.requestId = id;
    if (err.details.pauseReconnect === true) st.paused = true;
    return;
  }
  if (TERMINAL_CODES.has(code)) {
    st.paused = true;
    let hint = '';
    if (BAD_TOKEN_CODES.has(code)) {
      sessionStorage.removeItem(TOKEN_KEY);
      st.token = '';
      ui.chat.hidden = true;
      ui.logout.hidden = true;
      ui.login.hidden = false;
      hint = 'Enter the gateway token again (gateway.auth.token or OPENCLAW_GATEWAY_TOKEN on the gateway host).';
    } else if (code === 'AUTH_RATE_LIMITED' && err.retryAfterMs) {
      hint = `Try again in ${Math.ceil(err.retryAfterMs / 1000)} s.`;
      ui.login.hidden = false;
    } else {
      ui.login.hidden = false;
    }
    showError(err, hint);
    setState('error', 'not connected');
    return;
  }
  showError(err, 'Retrying.');
}

function onHello(hello, withDevice) {
  st.hello = hello || {};
  st.attempt = 0;
  st.pairing = false;
  st.tickMs = Number(hello?.policy?.tickIntervalMs) || 30000;
  const granted = Array.isArray(hello?.auth?.scopes) ? hello.auth.scopes : [];
  if (!granted.includes('operator.admin') && !granted.includes('operator.write')) {
    st.paused = true;
    const got = granted.length ? `only ${granted.join(', ')}` : 'no scopes';
    const hint = withDevice
      ? 'Ask the gateway operator to approve this device with operator.read and operator.write.'
      : 'This browser made no device identity (Ed25519 needs a secure context: https or localhost), and the gateway gives device-less browser clients no scopes.';
    ui.notice.dataset.code = 'MISSING_SCOPE';
    showNotice('MISSING_SCOPE', `The gateway accepted the connection but granted ${got}; chat needs operator.read and operator.write.`, hint);
    setState('error', 'connected without chat scopes');
    st.ws?.close(1000, 'missing scopes');
    return;
  }
  st.connected = true;
  hideNotice();
  setState('connected', 'connected');
  ui.login.hidden = true;
  ui.chat.hidden = false;
  setComposerEnabled(true);
  loadSessions().then(loadHistory).catch((err) => showError(err));
  for (const f of hooks.connected) f();
}

function onFrame(frame) {
  if (!frame || typeof frame !== 'object') return;
  if (frame.type === 'res') {
    const p = st.pending.get(frame.id);
    if (!p) return;
    if (frame.ok && frame.payload && frame.payload.status === 'accepted') return; // interim; the final answer follows
    st.pending.delete(frame.id);
    clearTimeout(p.timer);
    if (frame.ok) {
      p.resolve(frame.payload);
    } else {
      const e = frame.error || {};
      p.reject(new GatewayError(e.code, e.message, e.details, e.retryAfterMs));
    }
    return;
  }
  if (frame.type !== 'event') return;
  switch (frame.event) {
    case 'chat':
      onChatEvent(frame.payload);
      break;
    case 'shutdown':
      setState('reconnecting', 'the gateway is shutting down');
      break;
    case 'sessions.changed':
      if (st.connected) loadSessions().catch(() => {});
      break;
  }
  // Pages built on this client (the Control UI) see every event too.
  for (const f of hooks.event) f(frame.event, frame.payload);
}

function request(method, params, timeoutMs = REQUEST_TIMEOUT_MS) {
  const ws = st.ws;
  if (!ws || ws.readyState !== WebSocket.OPEN) {
    return Promise.reject(new GatewayError('UNAVAILABLE', 'not connected'));
  }
  st.nextId++;
  const id = `${st.nextId}:${uuid()}`;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      st.pending.delete(id);
      reject(new GatewayError('UNAVAILABLE', `${method}: no answer in ${Math.round(timeoutMs / 1000)} s`));
    }, timeoutMs);
    st.pending.set(id, { resolve, reject, timer });
    ws.send(JSON.stringify({ type: 'req', id, method, params }));
  });
}

// A silent socket (no frame, not even a tick, for two tick intervals) is
// dead; closing it starts a reconnect.
setInterval(() => {
  if (st.connected && st.ws && Date.now() - st.lastFrame > 2 * st.tickMs) {
    st.ws.close(4000, 'tick timeout');
  }
}, 5000);

// ---- device identity ----

// deviceIdentity returns this browser's Ed25519 identity, made once and
// kept in IndexedDB with a non-extractable private key, or null when the
// browser cannot make one (no secure context, no Ed25519 in WebCrypto).
function deviceIdentity() {
  if (!st.device) {
    st.device = loadDevice().catch((err) => {
      console.warn('webchat: no device identity', err);
      return null;
    });
  }
  return st.device;
}

async function loadDevice() {
  if (!window.isSecureContext || !window.crypto?.subtle || !window.indexedDB) return null;
  const db = await openStore();
  const stored = await storeOp(db, 'readonly', (s) => s.get('device'));
  if (stored && stored.id && stored.publicKey && stored.privateKey) return stored;
  const pair = await crypto.subtle.generateKey({ name: 'Ed25519' }, false, ['sign', 'verify']);
  const raw = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', raw));
  const device = { id: toHex(digest), publicKey: base64url(raw), privateKey: pair.privateKey, createdAtMs: Date.now() };
  await storeOp(db, 'readwrite', (s) => s.put(device, 'device'));
  return device;
}

function openStore() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open('openclaw-webchat', 1);
    req.onupgradeneeded = () => req.result.createObjectStore('identity');
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function storeOp(db, mode, op) {
  return new Promise((resolve, reject) => {
    const tx = db.transaction('identity', mode);
    const req = op(tx.objectStore('identity'));
    tx.oncomplete = () => resolve(req.result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

// signConnect signs the v3 device payload over this socket's challenge.
async function signConnect(device, platform, signedAt, nonce) {
  const payload = [
    'v3', device.id, CLIENT.id, CLIENT.mode, ROLE, SCOPES.join(','), String(signedAt),
    st.token, nonce, platform.trim().toLowerCase(), '',
  ].join('|');
  const sig = await crypto.subtle.sign({ name: 'Ed25519' }, device.privateKey, new TextEncoder().encode(payload));
  return { id: device.id, publicKey: device.publicKey, signature: base64url(new Uint8Array(sig)), signedAt, nonce };
}

// ---- sessions and history ----

ui.session.addEventListener('change', () => {
  st.sessionKey = ui.session.value;
  sessionStorage.setItem(SESSION_KEY, st.sessionKey);
  updateStop();
  loadHistory().catch((err) => showError(err));
});

// switchSession makes key the chat's session (for pages built on this
// client): the picker lists it and its history is shown.
function switchSession(key) {
  st.sessionKey = key;
  sessionStorage.setItem(SESSION_KEY, key);
  updateStop();
  return loadSessions().then(loadHistory);
}

async function loadSessions() {
  const defaults = st.hello?.snapshot?.sessionDefaults;
  const main = (defaults && defaults.mainSessionKey) || DEFAULT_SESSION;
  const rows = [{ key: main, label: main }];
  try {
    const res = await request('sessions.list', { limit: 100 });
    for (const s of Array.isArray(res?.sessions) ? res.sessions : []) {
      if (typeof s.key !== 'string' || rows.some((r) => r.key === s.key)) continue;
      const name = s.label || s.displayName;
      rows.push({ key: s.key, label: name ? `${name} (${s.key})` : s.key });
    }
  } catch (err) {
    if (err.code === 'UNAVAILABLE') throw err;
    console.warn('webchat: sessions.list failed', err);
  }
  if (!st.sessionKey) st.sessionKey = main;
  if (!rows.some((r) => r.key === st.sessionKey)) rows.push({ key: st.sessionKey, label: st.sessionKey });
  ui.session.replaceChildren(...rows.map((r) => {
    const opt = document.createElement('option');
    opt.value = r.key;
    opt.textContent = r.label;
    return opt;
  }));
  ui.session.value = st.sessionKey;
  ui.sessionLabel.hidden = false;
}

async function loadHistory() {
  const key = st.sessionKey;
  const res = await request('chat.history', { sessionKey: key, limit: 200 });
  if (key !== st.sessionKey) return;
  const msgs = Array.isArray(res?.messages) ? res.messages : [];
  // A tool's result is its own message; it is shown under the call.
  const results = new Map();
  for (const m of msgs) {
    if (m && m.role === 'toolResult' && typeof m.toolCallId === 'string') results.set(m.toolCallId, m);
  }
  const items = [];
  for (const m of msgs) {
    const li = historyItem(m, results);
    if (li) items.push(li);
  }
  // Runs still streaming stay below the history.
  for (const run of st.runs.values()) {
    if (!run.done && run.sessionKey === key) items.push(run.li);
  }
  ui.messages.replaceChildren(...items);
  ui.messages.dataset.loaded = String(Date.now());
  scrollToEnd();
}

function historyItem(m, results) {
  if (!m || (m.role !== 'user' && m.role !== 'assistant')) return null;
  const text = messageText(m);
  const tools = Array.isArray(m.content) ? m.content.filter((p) => p && p.type === 'toolCall') : [];
  if (!text.trim() && tools.length === 0) return null;
  const li = messageItem(m.role);
  renderText(li.querySelector('.body'), text);
  if (tools.length) {
    // The same shape as a live run's tool calls: name, arguments, how it
    // ended, result.
    const list = document.createElement('ul');
    list.className = 'tools';
    for (const t of tools) {
      const r = results.get(t.id);
      const card = toolCard(String(t.id || t.name || 'tool'), t.name);
      setToolCard(card, {
        args: t.arguments ?? {},
        phase: r ? (r.isError ? 'error' : 'result') : 'no result',
        result: r ? messageText(r) : undefined,
      });
      list.append(card);
    }
    li.insertBefore(list, li.querySelector('.body'));
  }
  if (m.role === 'assistant' && m.stopReason === 'error') setRunStatus({ li }, 'error', 'error');
  return li;
}

// toolCard makes a tool call's card: a summary line (name, the start of
// the arguments, status, duration) that opens onto the arguments and the
// result. Live runs (the Control UI) and the history fill the same card.
function toolCard(id, name) {
  const li = document.createElement('li');
  li.className = 'tool';
  li.dataset.call = id;
  li.dataset.phase = '';
  const details = document.createElement('details');
  const summary = document.createElement('summary');
  const icon = document.createElement('span');
  icon.className = 'tool-icon';
  icon.setAttribute('aria-hidden', 'true');
  const title = document.createElement('strong');
  title.textContent = name || 'tool';
  const preview = document.createElement('code');
  preview.className = 'args-preview';
  const phase = document.createElement('span');
  phase.className = 'phase';
  const duration = document.createElement('span');
  duration.className = 'duration';
  summary.append(icon, title, preview, phase, duration);
  const body = document.createElement('div');
  body.className = 'tool-body';
  const argsLabel = document.createElement('span');
  argsLabel.className = 'tool-label';
  argsLabel.textContent = 'Arguments';
  const args = document.createElement('pre');
  args.className = 'args';
  const resultLabel = document.createElement('span');
  resultLabel.className = 'tool-label result-label';
  resultLabel.textContent = 'Result';
  resultLabel.hidden = true;
  const result = document.createElement('pre');
  result.className = 'result';
  result.hidden = true;
  body.append(argsLabel, args, resultLabel, result);
  details.append(summary, body);
  li.append(details);
  return li;
}

// PHASES names a tool call's phases for people.
const PHASES = { start: 'running', update: 'running', result: 'done', end: 'done', error: 'failed', 'no result': 'no result' };

// setToolCard updates a card with what is known: arguments (an object or
// JSON text), phase, result, duration in milliseconds.
function setToolCard(li, { args, phase, result, durationMs } = {}) {
  if (args !== undefined) {
    let v = args;
    if (typeof v === 'string') {
      try {
        v = JSON.parse(v);
      } catch {
        // not JSON: shown as it is
      }
    }
    const text = typeof v === 'string' ? v : JSON.stringify(v, null, 2);
    li.querySelector('.args').textContent = text;
    const flat = typeof v === 'string' ? v : JSON.stringify(v);
    li.querySelector('.args-preview').textContent = flat.length > 80 ? flat.slice(0, 79) + '…' : flat;
  }
  if (phase !== undefined) {
    li.dataset.phase = phase;
    li.querySelector('.phase').textContent = PHASES[phase] || phase;
  }
  if (durationMs !== undefined) {
    li.querySelector('.duration').textContent = durationMs < 1000 ? `${durationMs} ms` : `${(durationMs / 1000).toFixed(1)} s`;
  }
  if (result !== undefined) {
    const out = li.querySelector('.result');
    out.textContent = typeof result === 'string' ? result : JSON.stringify(result, null, 2);
    out.hidden = false;
    li.querySelector('.result-label').hidden = false;
  }
}

// messageText joins the text parts of a message in OpenClaw's shape.
function messageText(m) {
  if (!m) return '';
  if (typeof m.content === 'string') return m.content;
  if (!Array.isArray(m.content)) return typeof m.text === 'string' ? m.text : '';
  return m.content.filter((p) => p && p.type === 'text' && typeof p.text === 'string').map((p) => p.text).join('\n');
}

function messageItem(role) {
  const li = document.createElement('li');
  li.className = `msg ${role}`;
  li.dataset.role = role;
  const label = document.createElement('span');
  label.className = 'role';
  label.textContent = role === 'user' ? 'You' : 'Assistant';
  const body = document.createElement('div');
  body.className = 'body';
  const status = document.createElement('span');
  status.className = 'status';
  li.append(label, body, status);
  return li;
}

// scrollToEnd brings the newest message into view: always after the user
// sends or a history loads, and while a reply streams only when the
// reader has not scrolled up to read something older. The list is the
// scrolling box on every width (the page itself does not scroll), so this
// holds on a phone too.
function scrollToEnd(force = true) {
  const m = ui.messages;
  if (!force && m.scrollHeight - m.scrollTop - m.clientHeight > 120) return;
  m.scrollTop = m.scrollHeight;
  ui.body.dataset.empty = String(m.childElementCount === 0);
}

// A code block's Copy button copies its code.
ui.messages.addEventListener('click', (ev) => {
  const b = ev.target instanceof Element ? ev.target.closest('.codeblock button.copy') : null;
  if (!b) return;
  const code = b.closest('.codeblock').querySelector('pre').textContent;
  navigator.clipboard?.writeText(code).then(() => {
    b.textContent = 'Copied';
    setTimeout(() => { b.textContent = 'Copy'; }, 1500);
  }, () => { b.textContent = 'Cannot copy'; });
});

// ---- sending and streaming ----

ui.composer.addEventListener('submit', (ev) => {
  ev.preventDefault();
  sendMessage();
});

ui.input.addEventListener('keydown', (ev) => {
  if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
    ev.preventDefault();
    sendMessage();
  }
});

ui.stop.addEventListener('click', async () => {
  const run = activeRun();
  if (!run) return;
  ui.stop.disabled = true;
  try {
    await request('chat.abort', { sessionKey: run.sessionKey, runId: run.id });
  } catch (err) {
    showError(err);
    updateStop();
  }
});

async function sendMessage() {
  const text = ui.input.value;
  if (!text.trim() || !st.connected) return;
  ui.input.value = '';
  const sessionKey = st.sessionKey;
  const userLi = messageItem('user');
  renderText(userLi.querySelector('.body'), text);
  ui.messages.append(userLi);
  const run = newRun(uuid(), sessionKey, true);
  setRunStatus(run, 'waiting', 'streaming');
  scrollToEnd();
  try {
    const res = await request('chat.send', { sessionKey, message: text, idempotencyKey: run.id });
    if (res && typeof res.runId === 'string' && res.runId !== run.id) {
      st.runs.delete(run.id);
      run.id = res.runId;
      st.runs.set(run.id, run);
    }
  } catch (err) {
    setRunStatus({ li: userLi }, `not sent: ${err.code}: ${err.message}`, 'failed');
    run.li.remove();
    run.done = true;
    st.runs.delete(run.id);
    showError(err);
    updateStop();
  }
}

// newRun tracks one run's assistant message. The text of a run is the
// text of its finished steps (before tool calls) plus the current one.
function newRun(id, sessionKey, ours) {
  const run = { id, sessionKey, ours, done: false, base: '', step: '', li: messageItem('assistant') };
  run.li.dataset.runId = id;
  st.runs.set(id, run);
  if (sessionKey === st.sessionKey) ui.messages.append(run.li);
  updateStop();
  return run;
}

function runText(run) {
  return run.base && run.step ? `${run.base}\n\n${run.step}` : run.base || run.step;
}

function setRunStatus(run, text, cls) {
  run.li.classList.remove('streaming', 'failed', 'error', 'stopped');
  if (cls) run.li.classList.add(cls);
  run.li.querySelector('.status').textContent = text;
}

function onChatEvent(p) {
  if (!p || typeof p.runId !== 'string' || p.sessionKey !== st.sessionKey) return;
  let run = st.runs.get(p.runId);
  if (!run) {
    if (p.state !== 'delta' && p.state !== 'status' && p.state !== 'final') return;
    run = newRun(p.runId, p.sessionKey, false);
  }
  if (run.done) return;
  const body = run.li.querySelector('.body');
  switch (p.state) {
    case 'status':
      setRunStatus(run, String(p.phase || 'working').replaceAll('_', ' '), 'streaming');
      break;
    case 'delta': {
      const piece = typeof p.deltaText === 'string' ? p.deltaText : null;
      const cumulative = p.message ? messageText(p.message) : null;
      if (p.replace) {
        run.step = cumulative ?? '';
      } else if (piece === null) {
        run.step = cumulative ?? run.step; // v3 style: cumulative text only
      } else if (cumulative !== null && cumulative === piece && run.step !== '' && piece !== '') {
        run.base = runText(run); // the first piece of a step after tool calls
        run.step = piece;
      } else {
        run.step += piece;
      }
      const follow = ui.messages.scrollHeight - ui.messages.scrollTop - ui.messages.clientHeight <= 120;
      renderText(body, runText(run));
      setRunStatus(run, 'streaming', 'streaming');
      if (follow) scrollToEnd();
      break;
    }
    case 'final': {
      const text = messageText(p.message);
      if (!runText(run) && text) run.step = text;
      renderText(body, runText(run));
      finishRun(run, '', '');
      scrollToEnd(false);
      // Another client's run: its user message is in the history.
      if (!run.ours) loadHistory().catch(() => {});
      break;
    }
    case 'aborted':
      finishRun(run, runText(run) ? 'stopped' : 'stopped before any reply', 'stopped');
      break;
    case 'error': {
      const kind = p.errorKind && p.errorKind !== 'unknown' ? ` (${p.errorKind})` : '';
      finishRun(run, `error${kind}: ${p.errorMessage || 'the run failed'}`, 'error');
      break;
    }
  }
}

function finishRun(run, text, cls) {
  run.done = true;
  st.runs.delete(run.id);
  setRunStatus(run, text, cls);
  run.li.dataset.done = 'true';
  updateStop();
}

function activeRun() {
  let last = null;
  for (const run of st.runs.values()) {
    if (!run.done && run.sessionKey === st.sessionKey) last = run;
  }
  return last;
}

function updateStop() {
  ui.stop.disabled = !st.connected || !activeRun();
}

// ---- text rendering ----

// renderText renders a message's Markdown (markdown.js: DOM nodes from an
// allowlist, never HTML).
function renderText(container, text) {
  renderMarkdown(container, text);
}

// ---- helpers ----

function browserPlatform() {
  const p = String(navigator.userAgentData?.platform || navigator.platform || '').toLowerCase();
  if (p.includes('android')) return 'android';
  if (p.includes('iphone') || p.includes('ipad') || p.includes('ios')) return 'ios';
  if (p.includes('mac')) return 'macos';
  if (p.includes('win')) return 'windows';
  if (p.includes('linux') || p.includes('x11')) return 'linux';
  return 'web';
}

function uuid() {
  if (window.crypto?.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = toHex(b);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function base64url(bytes) {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

// ---- start ----

{
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) {
    start(token);
  } else {
    ui.login.hidden = false;
    setState('idle', 'not connected');
    ui.token.focus();
  }
}

// What an embedding page (the Control UI) builds on.
export { $, st, request, showError, switchSession, hooks, toolCard, setToolCard, scrollToEnd, renderText };
