// Nodes & devices: pending node pairings (approve / reject), the known
// nodes with their platform, connection, capabilities and commands
// (rename, remove, describe, invoke a command with JSON params), and the
// paired devices (browsers, CLIs, node hosts) with their pairing requests
// (approve / reject, remove, and rename when the gateway serves
// device.pair.rename).
//
// A card is kept per node across reloads and only its text is refreshed,
// so an open rename field, the params being typed or the last invoke
// result survive the events that reload the lists.
import { $, st, request, showError, el, button, when, registerView, emptyState } from './kit.js';

// Commands operators may not send through node.invoke (see
// nodes.OperatorRefusal): they run through exec approvals.
const notInvocable = (c) => c === 'system.run' || c === 'system.run.prepare' || c.startsWith('system.execApprovals.');

const INVOKE_TIMEOUT_MS = 30000;

let nodeReqList, nodeReqEmpty, nodeList, nodeEmpty, devReqList, devReqEmpty, devList, devEmpty;
const nodeCards = new Map(); // nodeId -> card (see nodeCard)
const deviceRename = new Map(); // deviceId -> draft label while its rename field is open

registerView({
  name: 'nodes',
  label: 'Nodes & devices',
  build(section) {
    nodeReqList = list('node-requests');
    nodeReqEmpty = para('node-requests-empty', 'No node waits for approval.');
    nodeList = list('nodes');
    nodeEmpty = emptyState('nodes-empty', 'No nodes yet',
      'A node is another machine (a laptop, a phone, a server) whose commands, screen or camera your agent may use. '
      + 'Start one there and approve its pairing here:', { command: 'openclaw node run --host <this gateway>' });
    devReqList = list('device-requests');
    devReqEmpty = para('device-requests-empty', 'No device waits for approval.');
    devList = list('devices');
    devEmpty = para('devices-empty', 'No paired devices.');
    const refresh = button('Refresh', () => loadAll(), 'refresh');
    refresh.id = 'nodes-refresh';
    const head = el('div', null, 'view-head');
    head.append(el('h2', 'Nodes & devices'), refresh);
    section.classList.add('nodes-view');
    section.append(
      head,
      el('h3', 'Pending node pairings'), nodeReqEmpty, nodeReqList,
      el('h3', 'Nodes'), nodeEmpty, nodeList,
      el('h3', 'Pending device pairings'), devReqEmpty, devReqList,
      el('h3', 'Devices (browsers, CLIs, node hosts)'), devEmpty, devList,
    );
  },
  connected() {
    loadBadge().catch(() => {});
  },
  load: loadAll,
  event(name, p, shown) {
    switch (name) {
      case 'node.pair.requested':
      case 'node.pair.resolved':
        if (shown) loadNodes().catch(() => {});
        else loadBadge().catch(() => {});
        break;
      case 'node.presence':
        if (shown) loadNodes().catch(() => {});
        break;
      case 'device.pair.requested':
      case 'device.pair.resolved':
      case 'device.pair.changed':
        if (shown) loadDevices().catch(() => {});
        else loadBadge().catch(() => {});
        break;
    }
  },
});

function list(id) {
  const ul = el('ul', null, 'cards');
  ul.id = id;
  return ul;
}

function para(id, text) {
  const p = el('p', text, 'empty');
  p.id = id;
  return p;
}

function loadAll() {
  return Promise.all([loadNodes(), loadDevices()]);
}

// ---- nav badge: how many pairings wait ----

let pendingNodes = 0;
let pendingDevices = 0;

function setBadge() {
  const b = $('nav').querySelector('[data-view="nodes"]');
  const n = pendingNodes + pendingDevices;
  if (b) b.textContent = n ? `Nodes & devices (${n})` : 'Nodes & devices';
}

async function loadBadge() {
  const [nodes, devices] = await Promise.all([request('node.pair.list', {}), request('device.pair.list', {})]);
  pendingNodes = arr(nodes?.pending).length;
  pendingDevices = arr(devices?.pending).length;
  setBadge();
}

function arr(v) {
  return Array.isArray(v) ? v : [];
}

function words(l) {
  return arr(l).length ? arr(l).join(', ') : '—';
}

function line(label, value, cls) {
  const p = el('p', null, 'line' + (cls ? ' ' + cls : ''));
  p.append(el('span', label + ': ', 'label'), el('span', value, 'value'));
  return p;
}

function actions(...buttons) {
  const d = el('div', null, 'actions');
  d.append(...buttons);
  return d;
}

// errorText is how a failed request reads inside a card.
function errorText(err) {
  const code = err?.detailCode && err.detailCode !== err.code ? `${err.code} (${err.detailCode})` : err?.code;
  return code ? `${code}: ${err.message}` : String(err?.message || err);
}

function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
}

// ---- nodes ----

// Loads overlap when events come in bursts; only the latest one draws.
let nodesGen = 0;
let devicesGen = 0;

async function loadNodes() {
  const gen = ++nodesGen;
  const [pairs, nodes] = await Promise.all([request('node.pair.list', {}), request('node.list', {})]);
  if (gen !== nodesGen) return;
  const pending = arr(pairs?.pending);
  pendingNodes = pending.length;
  setBadge();
  nodeReqList.replaceChildren(...pending.map(nodeRequestCard));
  nodeReqEmpty.hidden = pending.length > 0;

  const all = arr(nodes?.nodes);
  const seen = new Set();
  const order = all.map((n) => {
    seen.add(n.nodeId);
    let c = nodeCards.get(n.nodeId);
    if (!c) {
      c = nodeCard(n.nodeId);
      nodeCards.set(n.nodeId, c);
    }
    fillNodeCard(c, n);
    return c.li;
  });
  for (const [id, c] of nodeCards) {
    if (!seen.has(id)) {
      c.li.remove();
      nodeCards.delete(id);
    }
  }
  // Move cards only when the order changed: moving one would blur a field
  // being typed in.
  const current = [...nodeList.children];
  if (current.length !== order.length || order.some((li, i) => current[i] !== li)) nodeList.replaceChildren(...order);
  nodeEmpty.hidden = all.length > 0;
}

function nodeRequestCard(q) {
  const li = el('li', null, 'card node-request');
  li.dataset.requestId = q.requestId;
  li.dataset.nodeId = q.nodeId;
  const title = el('strong', q.displayName || q.nodeId, 'name');
  const meta = [q.platform, q.version, q.remoteIp, q.isRepair ? 'asks for more than before' : 'new node'].filter(Boolean).join(' · ');
  const perms = Object.entries(q.permissions || {}).filter(([, v]) => v).map(([k]) => k);
  li.append(title, el('small', meta, 'meta'),
    line('Commands', words(q.commands), 'commands'),
    line('Capabilities', words(q.caps), 'caps'));
  if (perms.length) li.append(line('Permissions', perms.join(', '), 'permissions'));
  li.append(el('small', `requested ${when(q.ts)} · ${q.nodeId}`, 'meta'));
  li.append(actions(
    button('Approve', async () => {
      await request('node.pair.approve', { requestId: q.requestId });
      await loadNodes();
    }, 'approve'),
    button('Reject', async () => {
      await request('node.pair.reject', { requestId: q.requestId });
      await loadNodes();
    }, 'reject'),
  ));
  return li;
}

// nodeCard builds the lasting parts of a node's card: the text parts that
// fillNodeCard refreshes, and the rename, invoke and details controls.
function nodeCard(nodeId) {
  const c = { nodeId, node: null };
  const li = el('li', null, 'card node');
  li.dataset.nodeId = nodeId;
  c.li = li;
  c.name = el('strong', nodeId, 'name');
  c.state = el('span', '', 'state');
  const head = el('div', null, 'head');
  head.append(c.name, c.state);
  c.meta = el('small', '', 'meta');
  c.commands = line('Commands', '—', 'commands');
  c.waiting = line('Awaiting approval', '—', 'waiting');
  c.caps = line('Capabilities', '—', 'caps');
  c.seen = el('small', '', 'meta seen');

  // Rename: an inline field, shown by the Rename button.
  c.renameForm = el('form', null, 'rename-form');
  c.renameForm.hidden = true;
  c.renameInput = el('input', null, 'rename-input');
  c.renameInput.type = 'text';
  c.renameInput.maxLength = 256;
  c.renameInput.setAttribute('aria-label', 'New name of ' + nodeId);
  const save = el('button', 'Save', 'rename-save');
  save.type = 'submit';
  const cancel = button('Cancel', () => { c.renameForm.hidden = true; }, 'rename-cancel');
  c.renameForm.append(c.renameInput, save, cancel);
  c.renameForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const name = c.renameInput.value.trim();
    if (!name) {
      c.renameInput.focus();
      return;
    }
    save.disabled = true;
    request('node.rename', { nodeId, displayName: name })
      .then(() => {
        c.renameForm.hidden = true;
        return loadNodes();
      })
      .catch((err) => showError(err))
      .finally(() => { save.disabled = false; });
  });

  // Invoke: one of the node's commands with JSON params.
  c.invokeForm = el('form', null, 'invoke-form');
  c.command = el('select', null, 'invoke-command');
  c.command.setAttribute('aria-label', 'Command to invoke on ' + nodeId);
  c.params = el('textarea', null, 'invoke-params');
  c.params.rows = 3;
  c.params.value = '{}';
  c.params.spellcheck = false;
  c.params.setAttribute('aria-label', 'JSON params');
  c.invoke = el('button', 'Invoke', 'invoke');
  c.invoke.type = 'submit';
  c.result = el('pre', '', 'invoke-result');
  c.result.hidden = true;
  c.result.setAttribute('aria-live', 'polite');
  const cmdLabel = el('label', 'Command ');
  cmdLabel.append(c.command);
  const paramsLabel = el('label', 'Params (JSON)', 'params-label');
  paramsLabel.append(c.params);
  c.invokeForm.append(cmdLabel, paramsLabel, c.invoke);
  c.invokeForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    invokeOn(c).catch((err) => showError(err));
  });
  c.noInvoke = el('p', '', 'no-invoke');

  c.details = el('pre', '', 'details');
  c.details.hidden = true;

  c.renameButton = button('Rename', () => {
    c.renameForm.hidden = !c.renameForm.hidden;
    if (!c.renameForm.hidden) {
      c.renameInput.value = c.node?.displayName || '';
      c.renameInput.focus();
      c.renameInput.select();
    }
  }, 'rename');
  c.removeButton = button('Remove', async () => {
    await request('node.pair.remove', { nodeId });
    await loadNodes();
  }, 'remove');
  c.detailsButton = button('Details', async () => {
    if (!c.details.hidden) {
      c.details.hidden = true;
      return;
    }
    const res = await request('node.describe', { nodeId });
    c.details.textContent = JSON.stringify(res, null, 2);
    c.details.hidden = false;
  }, 'describe');

  li.append(head, c.meta, c.commands, c.waiting, c.caps, c.seen,
    actions(c.renameButton, c.detailsButton, c.removeButton),
    c.renameForm, c.invokeForm, c.noInvoke, c.result, c.details);
  return c;
}

function fillNodeCard(c, n) {
  c.node = n;
  const li = c.li;
  li.dataset.connected = String(!!n.connected);
  li.dataset.approval = n.approvalState || '';
  c.name.textContent = n.displayName || n.nodeId;
  c.state.textContent = n.connected ? 'connected' : 'offline';
  c.state.dataset.connected = String(!!n.connected);
  c.meta.textContent = [n.platform, n.version, n.deviceFamily, n.modelIdentifier, n.remoteIp,
    n.approvalState === 'pending' ? 'pairing pending' : n.approvalState].filter(Boolean).join(' · ');
  const commands = arr(n.commands);
  c.commands.lastChild.textContent = words(commands);
  const waiting = arr(n.declaredCommands).filter((x) => !commands.includes(x));
  c.waiting.hidden = waiting.length === 0;
  c.waiting.firstChild.textContent = n.approvalState === 'pending' ? 'Awaiting approval: ' : 'Not approved or not allowed by policy: ';
  c.waiting.lastChild.textContent = words(waiting);
  c.caps.lastChild.textContent = words(n.caps);
  c.seen.textContent = n.connected
    ? `connected since ${when(n.connectedAtMs)} · ${n.nodeId}`
    : `last seen ${when(n.lastSeenAtMs)}${n.lastSeenReason ? ' (' + n.lastSeenReason + ')' : ''} · ${n.nodeId}`;
  // Forget refuses a connected node; say so instead of failing.
  c.removeButton.disabled = !!n.connected;
  c.removeButton.title = n.connected ? 'Disconnect the node first' : 'Forget this node';

  const invocable = commands.filter((x) => !notInvocable(x));
  const keep = c.command.value;
  const have = [...c.command.options].map((o) => o.value);
  if (have.length !== invocable.length || have.some((v, i) => v !== invocable[i])) {
    c.command.replaceChildren(...invocable.map((x) => {
      const o = el('option', x);
      o.value = x;
      return o;
    }));
    if (invocable.includes(keep)) c.command.value = keep;
  }
  const canInvoke = n.connected && invocable.length > 0;
  c.invokeForm.hidden = !canInvoke;
  c.noInvoke.hidden = canInvoke;
  c.noInvoke.textContent = !n.connected ? 'Offline: nothing to invoke.' : 'No approved command to invoke.';
}

async function invokeOn(c) {
  const command = c.command.value;
  if (!command) return;
  let params;
  const text = c.params.value.trim();
  if (text) {
    try {
      params = JSON.parse(text);
    } catch (err) {
      showResult(c, 'error', `Params are not JSON: ${err.message}`);
      return;
    }
  }
  c.invoke.disabled = true;
  c.result.hidden = false;
  c.result.dataset.status = 'running';
  c.result.textContent = `${command}…`;
  try {
    const body = { nodeId: c.nodeId, command, timeoutMs: INVOKE_TIMEOUT_MS, idempotencyKey: newKey() };
    if (params !== undefined) body.params = params;
    const res = await request('node.invoke', body, INVOKE_TIMEOUT_MS + 5000);
    let payload = res?.payload;
    if (payload === undefined && typeof res?.payloadJSON === 'string') {
      try {
        payload = JSON.parse(res.payloadJSON);
      } catch {
        payload = res.payloadJSON;
      }
    }
    showResult(c, 'ok', payload === undefined || payload === null ? `${command}: ok` : JSON.stringify(payload, null, 2));
  } catch (err) {
    showResult(c, 'error', errorText(err));
  } finally {
    c.invoke.disabled = false;
  }
}

function showResult(c, status, text) {
  c.result.hidden = false;
  c.result.dataset.status = status;
  c.result.textContent = text;
}

// ---- devices ----

function canRenameDevices() {
  const m = st.hello?.features?.methods;
  return Array.isArray(m) && m.includes('device.pair.rename');
}

async function loadDevices() {
  const gen = ++devicesGen;
  const [res, me] = await Promise.all([request('device.pair.list', {}), Promise.resolve(st.device).catch(() => null)]);
  if (gen !== devicesGen) return;
  const pending = arr(res?.pending);
  const paired = arr(res?.paired);
  pendingDevices = pending.length;
  setBadge();
  devReqList.replaceChildren(...pending.map(deviceRequestCard));
  devReqEmpty.hidden = pending.length > 0;
  // Keep the focus in an open rename field across the redraw.
  const focused = document.activeElement?.closest?.('#devices li[data-device-id]')?.dataset.deviceId;
  devList.replaceChildren(...paired.map((d) => deviceCard(d, me?.id)));
  if (focused) devList.querySelector(`li[data-device-id="${CSS.escape(focused)}"] .rename-input`)?.focus();
  devEmpty.hidden = paired.length > 0;
}

function describeClient(d) {
  return [d.clientId, d.clientMode].filter(Boolean).join(' / ');
}

function deviceRequestCard(q) {
  const li = el('li', null, 'card device-request');
  li.dataset.requestId = q.requestId;
  li.dataset.deviceId = q.deviceId;
  li.append(
    el('strong', q.displayName || q.clientId || q.deviceId, 'name'),
    el('small', [describeClient(q), q.platform, q.remoteIp, q.isRepair ? 'asks for more than before' : 'new device'].filter(Boolean).join(' · '), 'meta'),
    line('Role', q.role || words(q.roles), 'role'),
    line('Scopes', words(q.scopes), 'scopes'),
    el('small', `requested ${when(q.ts)} · ${q.deviceId}`, 'meta'),
    actions(
      button('Approve', async () => {
        await request('device.pair.approve', { requestId: q.requestId });
        await loadDevices();
      }, 'approve'),
      button('Reject', async () => {
        await request('device.pair.reject', { requestId: q.requestId });
        await loadDevices();
      }, 'reject'),
    ),
  );
  return li;
}

function deviceCard(d, myId) {
  const li = el('li', null, 'card device');
  li.dataset.deviceId = d.deviceId;
  li.dataset.connected = String(!!d.connected);
  const mine = myId && myId === d.deviceId;
  const head = el('div', null, 'head');
  const state = el('span', d.connected ? 'connected' : 'offline', 'state');
  state.dataset.connected = String(!!d.connected);
  head.append(el('strong', d.operatorLabel || d.displayName || d.clientId || d.deviceId, 'name'), state);
  if (mine) head.append(el('span', 'this browser', 'mine'));
  const tokens = arr(d.tokens).map((t) => `${t.role}${t.revokedAtMs ? ' (revoked)' : ''}`);
  li.append(head,
    el('small', [d.operatorLabel && d.displayName !== d.operatorLabel ? d.displayName : '', describeClient(d), d.platform,
      d.deviceFamily, d.remoteIp].filter(Boolean).join(' · '), 'meta'),
    line('Roles', words(d.roles), 'roles'),
    line('Scopes', words(d.scopes), 'scopes'),
    line('Tokens', tokens.length ? tokens.join(', ') : '—', 'tokens'),
    el('small', `approved ${when(d.approvedAtMs)} · last seen ${when(d.lastSeenAtMs)} · ${d.deviceId}`, 'meta'));

  const acts = actions();
  if (canRenameDevices()) {
    const form = el('form', null, 'rename-form');
    const input = el('input', null, 'rename-input');
    input.type = 'text';
    input.maxLength = 64;
    input.setAttribute('aria-label', 'New name of ' + d.deviceId);
    const save = el('button', 'Save', 'rename-save');
    save.type = 'submit';
    const close = () => {
      deviceRename.delete(d.deviceId);
      form.hidden = true;
    };
    form.append(input, save, button('Cancel', close, 'rename-cancel'));
    form.hidden = !deviceRename.has(d.deviceId);
    input.value = deviceRename.get(d.deviceId) ?? '';
    input.addEventListener('input', () => deviceRename.set(d.deviceId, input.value));
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const label = input.value.trim();
      if (!label) return;
      save.disabled = true;
      request('device.pair.rename', { deviceId: d.deviceId, label })
        .then(() => {
          close();
          return loadDevices();
        })
        .catch((err) => showError(err))
        .finally(() => { save.disabled = false; });
    });
    acts.append(button('Rename', () => {
      if (!form.hidden) return close();
      deviceRename.set(d.deviceId, d.operatorLabel || d.displayName || '');
      input.value = deviceRename.get(d.deviceId);
      form.hidden = false;
      input.focus();
      input.select();
    }, 'rename'));
    li.append(acts, form);
  } else {
    li.append(acts);
  }
  acts.append(button(mine ? 'Remove (logs this browser out)' : 'Remove', async () => {
    await request('device.pair.remove', { deviceId: d.deviceId });
    await loadDevices();
  }, 'remove'));
  return li;
}
