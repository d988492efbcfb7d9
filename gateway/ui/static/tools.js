// Tools: every tool with its source, tier and enabled switch, and why one
// is or is not offered in the chat's session (tools.explain).
import { st, request, showError, el, button, table, cell, registerView } from './kit.js';

let tbody, explainBox;

registerView({
  name: 'tools',
  label: 'Tools',
  build(section) {
    const t = table('Name', 'Source', 'Tier', 'Enabled', '');
    tbody = t.tbody;
    tbody.id = 'tools';
    explainBox = el('div');
    explainBox.id = 'tool-explain';
    explainBox.hidden = true;
    section.append(el('h2', 'Tools'), t.wrap, explainBox);
  },
  load: loadTools,
});

function refreshAfter(p) {
  return p.then(loadTools).catch((err) => {
    showError(err);
    loadTools().catch(() => {});
  });
}

async function loadTools() {
  const res = await request('tools.list', {});
  const rows = Array.isArray(res?.tools) ? res.tools : [];
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
    tr.append(cell(t.name), cell(t.source || ''), cell(tier), cell(on), cell(button('Explain', () => explainTool(t.name), 'explain')));
    tr.firstChild.className = 'name';
    return tr;
  }));
}

async function explainTool(name) {
  const res = await request('tools.explain', { name, sessionKey: st.sessionKey });
  explainBox.hidden = false;
  explainBox.replaceChildren(el('h3', name), el('pre', JSON.stringify(res, null, 2)));
}
