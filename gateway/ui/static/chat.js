// Chat: WebChat's view (index.html, driven by the WebChat client) plus an
// agent picker and each run's tool calls as they run.
import { $, st, request, showError, switchSession, el, button, registerView } from './kit.js';

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

// Tool calls of a run, shown under its message as they run: name,
// arguments, phase, result and how long the call took.
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
    box.dataset.started = String(Date.now());
    box.append(el('strong', d.name || d.tool || 'tool'), el('code', '', 'args'), el('span', '', 'phase'), el('span', '', 'duration'), el('pre', '', 'result'));
    list.append(box);
  }
  if (d.args !== undefined) box.querySelector('.args').textContent = JSON.stringify(d.args);
  const phase = String(d.phase || '');
  box.querySelector('.phase').textContent = phase;
  box.dataset.phase = phase;
  if (phase === 'result' || phase === 'end' || phase === 'error') {
    const ms = typeof d.durationMs === 'number' ? d.durationMs : Date.now() - Number(box.dataset.started);
    box.querySelector('.duration').textContent = ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
  }
  const result = d.result ?? d.partialResult;
  if (result !== undefined) box.querySelector('.result').textContent = typeof result === 'string' ? result : JSON.stringify(result, null, 1);
}

// A call of this session waiting for approval shows in the conversation:
// what wants to run, why, its id, and Allow/Deny. The gateway decides
// who may answer (operator.approvals); a refusal is shown on the card.
function onApprovalRequested(p) {
  const r = p?.request;
  if (!r || typeof p.id !== 'string' || r.sessionKey !== st.sessionKey) return;
  if ($('messages').querySelector(`[data-approval="${CSS.escape(p.id)}"]`)) return;
  const li = el('li', null, 'msg system approval');
  li.dataset.approval = p.id;
  li.append(el('strong', `Approval required: ${r.tool || 'tool'}`),
    el('code', typeof r.args === 'string' ? r.args : JSON.stringify(r.args ?? {}), 'args'),
    el('small', [r.reason, `id ${p.id}`].filter(Boolean).join(' · ')));
  const acts = el('div', null, 'actions');
  const state = el('span', '', 'approval-state');
  for (const [label, decision] of [['Allow once', 'allow-once'], ['Allow always', 'allow-always'], ['Deny', 'deny']]) {
    acts.append(button(label, async () => {
      try {
        await request('exec.approval.resolve', { id: p.id, decision });
      } catch (err) {
        state.textContent = String(err?.message || err);
      }
    }, 'decide-' + decision));
  }
  li.append(acts, state);
  $('messages').append(li);
}

function onApprovalResolved(p) {
  if (!p || typeof p.id !== 'string') return;
  const li = $('messages').querySelector(`[data-approval="${CSS.escape(p.id)}"]`);
  if (!li) return;
  li.querySelector('.actions')?.remove();
  li.querySelector('.approval-state').textContent = p.decision ? `answered: ${p.decision}` : `ended: ${p.status || 'expired'}`;
}
