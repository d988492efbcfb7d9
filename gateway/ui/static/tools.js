// Tools: every tool with its source, tier and enabled switch; which of
// them a caller (agent, provider/model, session) is offered, and which
// policy layer decided (tools.explain).
import { $, st, request, showError, el, button, table, cell, labelled, registerView } from './kit.js';

let tbody, explainBox, summary, form;

registerView({
  name: 'tools',
  label: 'Tools',
  build(section) {
    form = el('form', null, 'filters');
    form.id = 'tools-caller';
    const agent = el('select');
    agent.id = 'tools-agent';
    const provider = el('input');
    provider.id = 'tools-provider';
    provider.placeholder = 'the agent\'s model';
    const session = el('input');
    session.id = 'tools-session';
    session.placeholder = 'the chat\'s session';
    form.append(labelled('Agent', agent), labelled('Provider or provider/model', provider), labelled('Session', session));
    const show = el('button', 'Show');
    show.type = 'submit';
    form.append(show);
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      loadTools().catch((err) => showError(err));
    });
    summary = el('p', '', 'hint');
    summary.id = 'tools-summary';
    const t = table('Name', 'Source', 'Tier', 'Enabled', 'Offered', '');
    tbody = t.tbody;
    tbody.id = 'tools';
    explainBox = el('div');
    explainBox.id = 'tool-explain';
    explainBox.hidden = true;
    section.append(el('h2', 'Tools'), el('h3', 'Offered to'), form, summary, t.wrap, explainBox);
  },
  connected() {
    loadAgents().catch(() => {});
  },
  load: loadTools,
});

async function loadAgents() {
  const res = await request('agents.list', {});
  const list = Array.isArray(res?.agents) ? res.agents : [];
  const sel = $('tools-agent');
  const keep = sel.value;
  const any = el('option', 'the session\'s agent');
  any.value = '';
  sel.replaceChildren(any, ...list.map((a) => {
    const o = el('option', a.name ? `${a.name} (${a.id})` : a.id);
    o.value = a.id;
    return o;
  }));
  sel.value = keep;
}

// caller is whose view the table shows: the form's choices, with the
// chat's session when none is typed.
function caller() {
  const p = {};
  const agent = $('tools-agent').value;
  const provider = $('tools-provider').value.trim();
  const session = $('tools-session').value.trim() || st.sessionKey;
  if (agent) p.agentId = agent;
  if (provider) p.provider = provider;
  if (session && (!agent || session.startsWith(`agent:${agent}:`))) p.sessionKey = session;
  return p;
}

function refreshAfter(p) {
  return p.then(loadTools).catch((err) => {
    showError(err);
    loadTools().catch(() => {});
  });
}

async function loadTools() {
  const who = caller();
  const [list, explained] = await Promise.all([request('tools.list', {}), request('tools.explain', who)]);
  const rows = Array.isArray(list?.tools) ? list.tools : [];
  const decided = new Map((Array.isArray(explained?.tools) ? explained.tools : []).map((d) => [d.tool, d]));
  // The gateway counts what the model receives this turn (enable_tool
  // included) and the extension tools it sees only by name.
  const offered = explained?.offered ?? [...decided.values()].filter((d) => d.state === 'offered').length;
  const registered = explained?.registered ?? rows.length;
  const dormant = explained?.dormant ?? 0;
  const model = explained?.provider ? ` with ${explained.provider}${explained.model ? '/' + explained.model : ''}` : '';
  summary.textContent = `The model gets ${offered} tools (of ${registered} registered) as agent ${explained?.agentId || '?'}${model}` +
    (who.sessionKey ? ` in ${who.sessionKey}` : '') +
    (dormant ? `; ${dormant} extension tools only by name, through enable_tool` : '') +
    (explained?.empty ? ' (the policy leaves no tools)' : '');
  tbody.replaceChildren(...rows.map((t) => {
    const tr = el('tr');
    tr.dataset.name = t.name;
    const tier = el('select', null, 'tier');
    tier.setAttribute('aria-label', `Tier of ${t.name}`);
    for (const v of ['core', 'extension']) {
      const o = el('option', v);
      o.value = v;
      tier.append(o);
    }
    tier.value = t.tier;
    tier.addEventListener('change', () => refreshAfter(request('tools.setTier', { name: t.name, tier: tier.value })));
    const on = el('input', null, 'enabled');
    on.type = 'checkbox';
    on.checked = t.enabled !== false;
    on.setAttribute('aria-label', `Enable ${t.name}`);
    on.addEventListener('change', () => refreshAfter(request('tools.setEnabled', { name: t.name, enabled: on.checked })));
    const d = decided.get(t.name);
    const verdict = cell(d ? verdictText(d) : '—');
    verdict.className = 'offered';
    tr.dataset.offered = d ? String(d.state === 'offered') : '';
    if (d?.state) tr.dataset.state = d.state;
    tr.append(cell(t.name), cell(t.source || ''), cell(tier), cell(on), verdict, cell(button('Explain', () => explainTool(t.name), 'explain')));
    tr.firstChild.className = 'name';
    return tr;
  }));
}

// verdictText is a tool's cell in the Offered column: what the model gets.
function verdictText(d) {
  if (d.state === 'offered') return 'yes';
  if (d.state === 'enable_tool') return 'via enable_tool';
  return `no (${d.layer || 'policy'})`;
}

// explainTool shows one tool's decision for the chosen caller: allowed
// or not, the deciding layer and its reason, and the chain of layers.
async function explainTool(name) {
  const res = await request('tools.explain', { ...caller(), tool: name });
  const d = Array.isArray(res?.tools) ? res.tools[0] : null;
  explainBox.hidden = false;
  explainBox.dataset.tool = name;
  const parts = [el('h3', name)];
  if (d) {
    const how = d.state === 'offered' ? 'Offered' : d.state === 'enable_tool' ? 'Listed in enable_tool only' : 'Not offered';
    const verdict = el('p', `${how} to agent ${res.agentId}: decided by ${d.layer || 'the policy'}${d.reason ? ' — ' + d.reason : ''}`, 'verdict');
    verdict.dataset.allowed = String(d.state === 'offered');
    parts.push(verdict);
  }
  if (Array.isArray(res?.layers) && res.layers.length) {
    const ol = el('ol', null, 'layers');
    ol.append(...res.layers.map((l) => el('li', typeof l === 'string' ? l : JSON.stringify(l))));
    parts.push(el('h4', 'Layers, in order'), ol);
  }
  if (Array.isArray(res?.warnings)) parts.push(...res.warnings.map((w) => el('p', String(w), 'warning')));
  explainBox.replaceChildren(...parts);
  explainBox.scrollIntoView({ block: 'nearest' });
}
