// Approvals: the calls waiting for a decision (exact tool and arguments),
// allow once / allow always / deny, and the audit log of guarded calls.
import { $, request, el, button, table, cell, when, labelled, registerView, emptyState } from './kit.js';

let list, empty, auditBody, auditForm;

registerView({
  name: 'approvals',
  label: 'Approvals',
  build(section) {
    list = el('ul', null, 'cards');
    list.id = 'approvals';
    empty = emptyState('approvals-empty', 'Nothing waits for approval',
      'A tool call that a guard rule holds for a person waits here, and in the chat that made it, until someone answers. '
      + 'To hold every shell command, add a rule to the config:', {
        command: 'tools: { guard: { rules: [{ tool: "exec", action: "require_approval" }] } }',
      });
    auditForm = el('form', null, 'filters');
    auditForm.id = 'audit-filters';
    auditForm.append(
      labelled('Tool', el('input'), 'audit-tool'),
      labelled('Status', options(['', 'succeeded', 'failed', 'blocked']), 'audit-status'),
      labelled('Agent', el('input'), 'audit-agent'),
      labelled('Session', el('input'), 'audit-session'),
    );
    const apply = el('button', 'Filter');
    apply.type = 'submit';
    auditForm.append(apply);
    auditForm.addEventListener('submit', (ev) => {
      ev.preventDefault();
      loadAudit().catch(() => {});
    });
    const t = table('When', 'Tool', 'Status', 'Agent', 'Session');
    auditBody = t.tbody;
    auditBody.id = 'audit';
    section.append(el('h2', 'Pending approvals'), empty, list, el('h2', 'Audit log'), auditForm, t.wrap);
  },
  connected() {
    loadPending().catch(() => {});
  },
  load() {
    return Promise.all([loadPending(), loadAudit()]);
  },
  event(name, p, shown) {
    if (name === 'exec.approval.requested' || name === 'exec.approval.resolved') {
      loadPending().catch(() => {});
      if (shown) loadAudit().catch(() => {});
    }
  },
});

function options(values) {
  const s = el('select');
  for (const v of values) {
    const o = el('option', v || 'any');
    o.value = v;
    s.append(o);
  }
  return s;
}

async function loadPending() {
  const res = await request('exec.approval.list', {});
  const items = Array.isArray(res?.approvals) ? res.approvals : [];
  list.replaceChildren(...items.map((a) => {
    const li = el('li', null, 'card');
    li.dataset.id = a.id;
    const args = typeof a.args === 'string' ? a.args : JSON.stringify(a.args ?? {}, null, 1);
    li.append(el('strong', a.tool || 'exec', 'tool-name'), el('code', args, 'args'),
      el('small', [a.reason, a.agentId, a.sessionKey, a.id].filter(Boolean).join(' · ')));
    const acts = el('div', null, 'actions');
    for (const [label, decision] of [['Allow once', 'allow-once'], ['Allow always', 'allow-always'], ['Deny', 'deny']]) {
      acts.append(button(label, async () => {
        await request('exec.approval.resolve', { id: a.id, decision });
        await loadPending();
      }, 'decide-' + decision));
    }
    li.append(acts);
    return li;
  }));
  empty.hidden = items.length > 0;
  const badge = $('nav').querySelector('[data-view="approvals"]');
  if (badge) badge.textContent = items.length ? `Approvals (${items.length})` : 'Approvals';
}

async function loadAudit() {
  const params = { kind: 'tool_action', limit: 100 };
  const status = $('audit-status').value;
  const agent = $('audit-agent').value.trim();
  const session = $('audit-session').value.trim();
  const tool = $('audit-tool').value.trim();
  if (status) params.status = status;
  if (agent) params.agentId = agent;
  if (session) params.sessionKey = session;
  const res = await request('audit.list', params);
  let events = Array.isArray(res?.events) ? res.events : [];
  if (tool) events = events.filter((e) => (e.toolName || '').includes(tool));
  auditBody.replaceChildren(...events.map((e) => {
    const tr = el('tr', null, 'audit-entry');
    tr.dataset.status = e.status;
    // An exec call's environment is part of what ran (secret values come redacted).
    const env = e.env && typeof e.env === 'object'
      ? Object.keys(e.env).sort().map((k) => `${k}=${e.env[k]}`).join(' ') : '';
    tr.append(cell(when(e.occurredAt)), cell(e.toolName || '', ...(env ? [' ', el('code', env, 'env')] : [])),
      cell(e.errorCode ? `${e.status} (${e.errorCode})` : e.status),
      cell(e.agentId || ''), cell(e.sessionKey || ''));
    return tr;
  }));
}
