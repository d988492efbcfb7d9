// Channels: every configured channel account with its state and last
// error (start, stop, log out), linking WhatsApp by QR code or phone
// number, and the DM pairing requests of strangers (approve, dismiss).
import { $, request, showError, el, button, when, registerView, emptyState, openView } from './kit.js';

// Labels of the adapter states (channels.State).
const STATES = {
  starting: 'starting',
  connected: 'connected',
  'backing-off': 'backing off',
  'logged-out': 'logged out',
  stopped: 'stopped',
};

let list, empty, pairList, pairEmpty, pairResult, notify, linkBox;
let lastStatus = '', lastPairing = '';
// linkRun numbers the running WhatsApp link; a new link or Close ends the
// older one's wait loop.
let linkRun = 0;

registerView({
  name: 'channels',
  label: 'Channels',
  build(section) {
    const head = el('div', null, 'channels-head');
    head.append(el('h2', 'Channels'), button('Refresh', () => loadAll(true), 'refresh'));
    list = el('ul', null, 'cards channel-list');
    list.id = 'channels';
    empty = emptyState('channels-empty', 'No channel connected yet',
      'Connect Telegram, Discord, Slack, WhatsApp or another network so people can talk to your agent there. '
      + 'Run this on the gateway host, or add the network under "channels" in the config:', {
        command: 'openclaw channels add --channel telegram --token <bot token>',
        actions: [['Open the config', () => openView('config')]],
      });
    empty.hidden = true;
    linkBox = el('div', null, 'wa-link');
    linkBox.id = 'whatsapp-link';
    linkBox.hidden = true;

    pairList = el('ul', null, 'cards pairing-list');
    pairList.id = 'pairing';
    pairEmpty = el('p', 'No one is waiting for approval.');
    pairEmpty.id = 'pairing-empty';
    pairResult = el('p', null, 'pairing-result');
    pairResult.id = 'pairing-result';
    pairResult.setAttribute('role', 'status');
    pairResult.hidden = true;
    const nl = el('label', null, 'pairing-notify');
    notify = el('input');
    notify.type = 'checkbox';
    notify.id = 'pairing-notify';
    notify.checked = true;
    nl.append(notify, document.createTextNode(' Tell approved people they can start chatting'));
    const hint = el('p', 'People who message a bot with dmPolicy "pairing" get a code; approve them here to let them talk to the agent.', 'hint');

    section.append(head, empty, list, linkBox, el('h2', 'DM pairing requests'), hint, nl, pairResult, pairEmpty, pairList);
  },
  connected() {
    // The navigation's badge counts pairing requests from the start.
    loadPairing().catch(() => {});
  },
  load() {
    return loadAll(true);
  },
  event(name, p, shown) {
    // Channel state changes reach operators as health events; pairing
    // requests as channels.pairing.requested/resolved (the badge counts
    // them even when the view is not shown).
    if (name === 'health' && shown) loadStatus().catch(() => {});
    if (name === 'channels.pairing.requested' || name === 'channels.pairing.resolved') loadPairing().catch(() => {});
  },
});

function loadAll(force) {
  return Promise.all([loadStatus(force), loadPairing(force)]);
}

// ---- accounts ----

async function loadStatus(force) {
  const res = await request('channels.status', {});
  const order = Array.isArray(res?.channelOrder) ? res.channelOrder : [];
  const labels = res?.channelLabels || {};
  const accounts = res?.channelAccounts || {};
  const rows = [];
  for (const ch of order) {
    for (const a of Array.isArray(accounts[ch]) ? accounts[ch] : []) {
      rows.push({ channel: ch, label: labels[ch] || ch, multi: accounts[ch].length > 1, a });
    }
  }
  // Re-render only on a change, so a poll does not undo an armed Log out
  // button or move the focus.
  const key = JSON.stringify(rows);
  if (!force && key === lastStatus) return;
  lastStatus = key;
  list.replaceChildren(...rows.map(accountCard));
  empty.hidden = rows.length > 0;
}

function accountCard({ channel, label, multi, a }) {
  const li = el('li', null, 'card channel');
  const state = a.healthState || (a.connected ? 'connected' : 'stopped');
  li.dataset.channel = channel;
  li.dataset.account = a.accountId;
  li.dataset.state = state;
  li.dataset.running = String(!!a.running);

  const title = el('div', null, 'channel-title');
  const name = a.name ? `${label} · ${a.name}` : label;
  title.append(el('strong', multi || a.accountId !== 'default' ? `${name} (${a.accountId})` : name, 'channel-name'));
  const badge = el('span', STATES[state] || state, 'state');
  badge.dataset.state = state;
  title.append(badge);
  li.append(title);

  const facts = [];
  if (a.bot) facts.push(a.bot);
  if (a.mode) facts.push(a.mode);
  if (a.dmPolicy) facts.push(`DMs: ${a.dmPolicy}`);
  if (a.enabled === false) facts.push('disabled in the config');
  if (a.connected && a.lastConnectedAt) facts.push(`since ${when(a.lastConnectedAt)}`);
  if (a.reconnectAttempts > 0 && !a.connected) facts.push(`${a.reconnectAttempts} attempts`);
  li.append(el('small', facts.join(' · '), 'facts'));
  if (a.running) {
    // Running but deaf shows as no message in since a while, with replies
    // still going out.
    const traffic = el('small', `last message in: ${when(a.lastInboundAt)} · out: ${when(a.lastOutboundAt)}`, 'traffic');
    traffic.dataset.in = String(a.lastInboundAt || '');
    traffic.dataset.out = String(a.lastOutboundAt || '');
    li.append(traffic);
  }
  if (a.detail) li.append(el('span', a.detail, 'detail'));
  if (a.lastError) li.append(el('span', a.lastError, 'last-error'));

  const acts = el('div', null, 'actions');
  const ref = { channel, accountId: a.accountId };
  if (a.running) {
    acts.append(button('Stop', () => act('channels.stop', ref), 'stop'));
  } else {
    acts.append(button('Start', () => act('channels.start', ref), 'start'));
  }
  // Linking needs the account running (a stopped one is started first).
  if (channel === 'whatsapp' && a.running && !a.connected) {
    // The link runs on (for minutes) in its own panel, not in the button.
    acts.append(button('Link WhatsApp', () => { linkWhatsApp(a.accountId, '').catch((err) => showError(err)); }, 'link'));
  }
  // Logging out unlinks a WhatsApp device for good: the first press arms
  // the button, the second does it.
  const out = el('button', 'Log out', 'logout');
  out.type = 'button';
  out.addEventListener('click', () => {
    if (out.dataset.armed !== 'true') {
      out.dataset.armed = 'true';
      out.textContent = channel === 'whatsapp' ? 'Unlink this device?' : 'Really log out?';
      return;
    }
    out.disabled = true;
    act('channels.logout', ref).catch((err) => showError(err)).finally(() => { out.disabled = false; });
  });
  acts.append(out);
  li.append(acts);
  return li;
}

async function act(method, ref) {
  try {
    await request(method, ref);
  } finally {
    await loadStatus(true).catch(() => {});
  }
}

// ---- WhatsApp link ----

async function linkWhatsApp(accountId, phone) {
  const run = ++linkRun;
  const msg = el('p', phone ? 'Asking WhatsApp for a pairing code…' : 'Asking WhatsApp for a QR code…', 'link-message');
  const img = el('img', null, 'qr');
  img.alt = 'WhatsApp QR code: scan it in WhatsApp under Settings, Linked devices, Link a device';
  img.hidden = true;
  const code = el('code', null, 'link-code');
  code.hidden = true;
  const form = el('form', null, 'link-phone');
  const input = el('input');
  input.type = 'tel';
  input.id = 'whatsapp-phone';
  input.placeholder = '+49 151 …';
  input.autocomplete = 'tel';
  const lab = el('label', 'Or link with a phone number ');
  lab.append(input);
  const sub = el('button', 'Get a code', 'link-by-phone');
  sub.type = 'submit';
  form.append(lab, sub);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const number = input.value.trim();
    if (number) linkWhatsApp(accountId, number).catch((err) => showError(err));
  });
  const close = button('Close', () => closeLink(), 'link-close');
  linkBox.dataset.channel = 'whatsapp';
  linkBox.dataset.account = accountId;
  linkBox.dataset.state = 'waiting';
  linkBox.replaceChildren(el('h3', 'Link WhatsApp'), msg, img, code, form, close);
  linkBox.hidden = false;
  linkBox.scrollIntoView({ block: 'nearest' });

  const show = (res) => {
    if (res?.message) msg.textContent = res.message;
    const url = typeof res?.qrDataUrl === 'string' && res.qrDataUrl.startsWith('data:image/png;base64,') ? res.qrDataUrl : '';
    if (url && img.src !== url) img.src = url;
    img.hidden = !url || !!res?.connected;
    code.textContent = res?.pairingCode || '';
    code.hidden = !res?.pairingCode || !!res?.connected;
    if (res?.connected) linkBox.dataset.state = 'linked';
    else if (res?.error) linkBox.dataset.state = 'failed';
  };
  try {
    let res = await request('web.login.start', { channel: 'whatsapp', accountId, phone: phone || undefined, force: !!phone, timeoutMs: 30000 }, 40000);
    while (run === linkRun) {
      show(res);
      if (res?.connected || res?.error) break;
      // wait answers when the code changes or the link ends (or after its
      // timeout, with nothing new: then ask again).
      res = await request('web.login.wait', { channel: 'whatsapp', accountId, currentQr: res?.qr || res?.pairingCode || '', timeoutMs: 60000 }, 70000);
    }
  } catch (err) {
    if (run === linkRun) {
      linkBox.dataset.state = 'failed';
      msg.textContent = err?.message || String(err);
    }
    throw err;
  } finally {
    if (run === linkRun) loadStatus(true).catch(() => {});
  }
}

function closeLink() {
  linkRun++;
  linkBox.hidden = true;
  linkBox.replaceChildren();
}

// ---- DM pairing ----

async function loadPairing(force) {
  const res = await request('channels.pairing.list', {});
  const reqs = Array.isArray(res?.requests) ? res.requests : [];
  const badge = $('nav').querySelector('[data-view="channels"]');
  if (badge) badge.textContent = reqs.length ? `Channels (${reqs.length})` : 'Channels';
  const key = JSON.stringify(reqs.map((r) => [r.requestId, r.senderLabel, r.metadata?.code, r.expiresAt]));
  if (!force && key === lastPairing) return;
  lastPairing = key;
  pairList.replaceChildren(...reqs.map(pairingCard));
  pairEmpty.hidden = reqs.length > 0;
}

function pairingCard(r) {
  const li = el('li', null, 'card pairing');
  const code = r.metadata?.code || '';
  li.dataset.channel = r.channel;
  li.dataset.account = r.accountId;
  li.dataset.request = r.requestId;
  li.dataset.code = code;
  li.dataset.sender = r.senderId;
  const who = r.senderLabel && r.senderLabel !== r.senderId ? `${r.senderLabel} · ${r.senderId}` : r.senderId;
  li.append(el('strong', who, 'sender'));
  const where = `${r.channelLabel || r.channel}${r.accountId && r.accountId !== 'default' ? ` (${r.accountId})` : ''}`;
  const line = el('span', `${where} · code `, 'where');
  line.append(el('code', code, 'code'));
  li.append(line);
  li.append(el('small', `asked ${when(Date.parse(r.createdAt))} · expires ${when(Date.parse(r.expiresAt))}`, 'times'));
  const ref = { channel: r.channel, accountId: r.accountId, requestId: r.requestId };
  const acts = el('div', null, 'actions');
  acts.append(
    button('Approve', async () => {
      const res = await request('channels.pairing.approve', { ...ref, notify: notify.checked });
      const told = res?.notification === 'sent' ? ' and told them' : res?.notification === 'failed' ? ', but could not tell them' : '';
      said(`Approved ${who}${told}.`, 'approved');
      await loadPairing(true);
    }, 'approve'),
    button('Dismiss', async () => {
      await request('channels.pairing.dismiss', ref);
      said(`Dismissed ${who}.`, 'dismissed');
      await loadPairing(true);
    }, 'dismiss'),
  );
  li.append(acts);
  return li;
}

function said(text, outcome) {
  pairResult.textContent = text;
  pairResult.dataset.outcome = outcome;
  pairResult.hidden = false;
}
