// Control UI views (Approvals, Tools, Cron, and the agent picker and tool
// calls of Chat), on top of the WebChat client, which does the login,
// the connection, the device identity and the chat itself.
import { $, st, request, showError, loadSessions, loadHistory, SESSION_KEY, hooks } from '/webchat/app.js';

// Each view loads its list over the bus when shown and re-renders on the
// events that change it. Text is set with textContent only.

const views = ['chat', 'approvals', 'tools', 'cron'];
const nav = $('nav');

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function button(text, onClick, cls) {
  const b = el('button', text, cls);
  b.type = 'button';
  b.addEventListener('click', () => Promise.resolve(onClick()).catch((err) => showError(err)));
  return b;
}

function showView(name) {
  if (!views.includes(name)) name = 'chat';
  sessionStorage.setItem('openclaw.control.view', name);
  for (const v of views) {
    $('view-' + v).hidden = v !== name;
    nav.querySelector(`[data-view="${v}"]`)?.setAttribute('aria-current', v === name ? 'page' : 'false');
  }
  document.body.dataset.view = name;
  const load = { approvals: loadApprovals, tools: loadTools, cron: loadCron }[name];
  if (load && st.connected) load().catch((err) => showError(err));
}

nav.addEventListener('click', (ev) => {
  const v = ev.target?.dataset?.view;
  if (v) showView(v);
});

hooks.connected.push(function controlConnected() {
  nav.hidden = false;
  loadAgents().catch(() => {});
  showView(sessionStorage.getItem('openclaw.control.view') || 'chat');
  loadApprovals().catch(() => {});
});

hooks.event.push(function controlEvent(name, p) {
  if (name === 'exec.approval.requested' || name === 'exec.approval.resolved') {
    loadApprovals().catch(() => {});
  } else if (name === 'agent') {
    onAgentEvent(p);
  } else if (name === 'cron' && document.body.dataset.view === 'cron') {
    loadCron().catch(() => {});
  }
});

// Agents: choosing one switches the chat to its main session.
async function loadAgents() {
  const res = await request('agents.list', {});
  const list = Array.isArray(res?.agents) ? res.agents : [];
  const sel = $('agent');
  sel.replaceChildren(...list.map((a) => {
    const o = el('option', a.name ? `${a.name} (${a.id})` : a.id);
    o.value = a.id;
    return o;
  }));
  const cur = /^agent:([^:]+):/.exec(st.sessionKey || '');
  if (cur) sel.value = cur[1];
  $('agent-label').hidden = list.length === 0;
}

$('agent').addEventListener('change', () => {
  st.sessionKey = `agent:${$('agent').value}:main`;
  sessionStorage.setItem(SESSION_KEY, st.sessionKey);
  loadSessions().then(loadHistory).catch((err) => showError(err));
});

// Tool calls of a run, shown under its message as they run.
function onAgentEvent(p) {
  if (!p || p.stream !== 'tool' || typeof p.runId !== 'string') return;
  const run = st.runs.get(p.runId);
  if (!run) return;
  const d = p.data || {};
  const id = String(d.toolCallId || d.id || d.name || 'tool');
  let box = run.li.querySelector(`.tools [data-call="${CSS.escape(id)}"]`);
  if (!box) {
    let list = run.li.querySelector('.tools');
    if (!list) {
      list = el('ul', null, 'tools');
      run.li.insertBefore(list, run.li.querySelector('.body'));
    }
    box = el('li', null, 'tool');
    box.dataset.call = id;
    box.append(el('strong', d.name || d.tool || 'tool'), el('code', '', 'args'), el('span', '', 'phase'), el('pre', '', 'result'));
    list.append(box);
  }
  if (d.args !== undefined) box.querySelector('.args').textContent = JSON.stringify(d.args);
  box.querySelector('.phase').textContent = String(d.phase || '');
  box.dataset.phase = String(d.phase || '');
  const result = d.result ?? d.partialResult;
  if (result !== undefined) box.querySelector('.result').textContent = typeof result === 'string' ? result : JSON.stringify(result, null, 1);
}

// Approvals.
async function loadApprovals() {
  const res = await request('exec.approval.list', {});
  const list = Array.isArray(res?.approvals) ? res.approvals : [];
  const ul = $('approvals');
  ul.replaceChildren(...list.map((a) => {
    const li = el('li', null, 'card');
    li.dataset.id = a.id;
    const args = typeof a.args === 'string' ? a.args : JSON.stringify(a.args ?? {});
    li.append(el('strong', a.tool || 'exec', 'tool-name'), el('code', args, 'args'), el('small', [a.reason, a.sessionKey, a.id].filter(Boolean).join(' · ')));
    const acts = el('div', null, 'actions');
    for (const [label, decision] of [['Allow once', 'allow-once'], ['Allow always', 'allow-always'], ['Deny', 'deny']]) {
      acts.append(button(label, async () => {
        await request('exec.approval.resolve', { id: a.id, decision });
        await loadApprovals();
      }, 'decide-' + decision));
    }
    li.append(acts);
    return li;
  }));
  $('approvals-empty').hidden = list.length > 0;
  const badge = nav.querySelector('[data-view="approvals"]');
  badge.textContent = list.length ? `Approvals (${list.length})` : 'Approvals';
}

// Tools.
async function loadTools() {
  const res = await request('tools.list', {});
  const rows = Array.isArray(res?.tools) ? res.tools : [];
  const tbody = $('tools');
  tbody.replaceChildren(...rows.map((t) => {
    const tr = el('tr');
    tr.dataset.name = t.name;
    const tier = el('select', null, 'tier');
    for (const v of ['core', 'extension']) {
      const o = el('option', v);
      o.value = v;
      tier.append(o);
    }
    tier.value = t.tier;
    tier.addEventListener('change', () => request('tools.setTier', { name: t.name, tier: tier.value })
      .then(loadTools).catch((err) => { showError(err); loadTools().catch(() => {}); }));
    const on = el('input', null, 'enabled');
    on.type = 'checkbox';
    on.checked = t.enabled !== false;
    on.addEventListener('change', () => request('tools.setEnabled', { name: t.name, enabled: on.checked })
      .then(loadTools).catch((err) => { showError(err); loadTools().catch(() => {}); }));
    const tdTier = el('td'); tdTier.append(tier);
    const tdOn = el('td'); tdOn.append(on);
    const tdExplain = el('td'); tdExplain.append(button('Explain', () => explainTool(t.name), 'explain'));
    tr.append(el('td', t.name, 'name'), el('td', t.source || ''), tdTier, tdOn, tdExplain);
    return tr;
  }));
}

async function explainTool(name) {
  const res = await request('tools.explain', { name, sessionKey: st.sessionKey });
  const out = $('tool-explain');
  out.hidden = false;
  out.replaceChildren(el('h3', name), el('pre', JSON.stringify(res, null, 2)));
}

// Cron.
function when(ms) {
  return typeof ms === 'number' && ms > 0 ? new Date(ms).toLocaleString() : '—';
}

async function loadCron() {
  const res = await request('cron.list', { includeDisabled: true });
  const jobs = Array.isArray(res?.jobs) ? res.jobs : [];
  const tbody = $('cron');
  tbody.replaceChildren(...jobs.map((j) => {
    const tr = el('tr');
    tr.dataset.id = j.id;
    const s = j.state || {};
    const acts = el('td');
    acts.append(button('Run now', async () => {
      await request('cron.run', { id: j.id, mode: 'force' });
      setTimeout(() => loadRuns(j.id).catch(() => {}), 500);
    }, 'run'), button('History', () => loadRuns(j.id), 'history'));
    tr.append(el('td', j.name || j.id, 'name'), el('td', when(s.nextRunAtMs)), el('td', s.lastStatus || s.lastRunStatus || '—', 'last'), acts);
    return tr;
  }));
  $('cron-empty').hidden = jobs.length > 0;
}

async function loadRuns(id) {
  const res = await request('cron.runs', { id, limit: 20 });
  const runs = Array.isArray(res?.entries) ? res.entries : Array.isArray(res?.runs) ? res.runs : [];
  const box = $('cron-runs');
  box.hidden = false;
  box.dataset.job = id;
  const ul = el('ul');
  ul.append(...runs.map((r) => el('li', `${when(r.runAtMs || r.ts || r.startedAtMs)} · ${r.status || r.action || ''} ${r.summary || r.error || ''}`, 'run-entry')));
  box.replaceChildren(el('h3', `History of ${id}`), runs.length ? ul : el('p', 'no runs yet'));
}
