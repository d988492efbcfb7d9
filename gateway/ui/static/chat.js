// Chat: WebChat's view (index.html, driven by the WebChat client) plus an
// agent picker, each run's tool calls as cards while they run, approvals
// asked inline with their buttons, the empty conversation's suggestions
// and a composer that grows with its text.
import { $, st, request, showError, switchSession, el, button, registerView, toolCard, setToolCard, scrollToEnd } from './kit.js';

registerView({
  name: 'chat',
  label: 'Chat',
  connected() {
    loadAgents().catch(() => {});
  },
  event(name, p) {
    if (name === 'agent') onAgentEvent(p);
    if (name === 'exec.approval.requested') onApprovalRequested(p);
    if (name === 'exec.approval.resolved') onApprovalResolved(p);
  },
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
  switchSession(`agent:${$('agent').value}:main`).catch((err) => showError(err));
});

// "/new" and "/reset" start the session over on the gateway (the rest of
// the message opens the new conversation), so the old messages leave the
// screen too. This runs in the capture phase, before the WebChat client
// shows the message being sent.
document.addEventListener('submit', (ev) => {
  if (ev.target?.id !== 'composer') return;
  if (/^\/(new|reset)(\s|$)/.test($('input').value.trim())) $('messages').replaceChildren();
}, true);

// The composer grows with its text, up to the stylesheet's max-height.
const input = $('input');
function fit() {
  input.style.height = 'auto';
  input.style.height = `${input.scrollHeight}px`;
}
input.addEventListener('input', fit);
// The WebChat client empties the box after sending; shrink it back.
$('composer').addEventListener('submit', () => setTimeout(fit, 0));
input.addEventListener('keydown', (ev) => {
  if (ev.key === 'Enter' && !ev.shiftKey) setTimeout(fit, 0);
});

// The empty conversation offers a few first messages.
for (const text of ['What can you do?', 'Summarise my day', 'Write a shell one-liner to find large files']) {
  const b = button(text, () => {
    input.value = text;
    fit();
    input.focus();
  });
  $('suggestions').append(b);
}

// Tool calls of a run, shown under its message as they run: name,
// arguments, status, result and how long the call took.
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
    box = toolCard(id, d.name || d.tool);
    box.dataset.started = String(Date.now());
    list.append(box);
    scrollToEnd(false);
  }
  const phase = String(d.phase || '');
  const update = { phase };
  if (d.args !== undefined) update.args = d.args;
  if (phase === 'result' || phase === 'end' || phase === 'error') {
    update.durationMs = typeof d.durationMs === 'number' ? d.durationMs : Date.now() - Number(box.dataset.started);
  }
  const result = d.result ?? d.partialResult;
  if (result !== undefined) update.result = result;
  setToolCard(box, update);
}

// A call of this session waiting for approval shows in the conversation:
// what wants to run, why, and Allow once / Always / Deny, which answer
// with exec.approval.resolve. The gateway decides who may answer
// (operator.approvals); a refusal is shown on the card.
function onApprovalRequested(p) {
  const r = p?.request;
  if (!r || typeof p.id !== 'string' || r.sessionKey !== st.sessionKey) return;
  if ($('messages').querySelector(`[data-approval="${CSS.escape(p.id)}"]`)) return;
  const li = el('li', null, 'msg system approval');
  li.dataset.approval = p.id;
  li.setAttribute('aria-label', `Approval required for ${r.tool || 'a tool'}`);
  let args = r.args;
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      // shown as it is
    }
  }
  li.append(el('span', `${r.tool || 'A tool'} wants to run`, 'approval-title'),
    el('pre', typeof args === 'string' ? args : JSON.stringify(args ?? {}, null, 2), 'args'),
    el('small', [r.reason, `id ${p.id}`].filter(Boolean).join(' · ')));
  const acts = el('div', null, 'actions');
  const state = el('span', '', 'approval-state');
  state.setAttribute('role', 'status');
  for (const [label, decision] of [['Allow once', 'allow-once'], ['Always', 'allow-always'], ['Deny', 'deny']]) {
    const b = button(label, async () => {
      try {
        await request('exec.approval.resolve', { id: p.id, decision });
      } catch (err) {
        state.textContent = String(err?.message || err);
      }
    }, 'decide-' + decision);
    if (decision === 'allow-always') b.title = 'Allow this call now and from now on';
    acts.append(b);
  }
  li.append(acts, state);
  $('messages').append(li);
  scrollToEnd();
}

function onApprovalResolved(p) {
  if (!p || typeof p.id !== 'string') return;
  const li = $('messages').querySelector(`[data-approval="${CSS.escape(p.id)}"]`);
  if (!li) return;
  li.querySelector('.actions')?.remove();
  const words = { 'allow-once': 'Allowed once', 'allow-always': 'Always allowed', deny: 'Denied' };
  li.dataset.decision = p.decision || 'expired';
  li.querySelector('.approval-state').textContent = p.decision ? words[p.decision] || `answered: ${p.decision}` : `ended: ${p.status || 'expired'}`;
}

// After the history is (re)loaded, calls of this session that still wait
// are asked again, so a reload does not hide them.
new MutationObserver(() => {
  request('exec.approval.list', {}).then((res) => {
    for (const a of Array.isArray(res?.approvals) ? res.approvals : []) onApprovalRequested({ id: a.id, request: a });
  }).catch(() => {});
}).observe($('messages'), { attributes: true, attributeFilter: ['data-loaded'] });
