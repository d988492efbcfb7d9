// Cron: jobs with their next run and last status, run now, and a job's
// run history with errors.
import { request, el, button, table, cell, when, registerView, emptyState } from './kit.js';

let tbody, empty, runsBox;

registerView({
  name: 'cron',
  label: 'Cron',
  build(section) {
    const t = table('Job', 'Schedule', 'Next run', 'Last status', '');
    tbody = t.tbody;
    tbody.id = 'cron';
    empty = emptyState('cron-empty', 'No scheduled jobs yet',
      'A job runs an agent turn on a schedule and can deliver the answer to a chat. Add one from the gateway host:', {
        command: 'openclaw cron add --name morning --cron "0 8 * * *" --message "Plan my day"',
      });
    runsBox = el('div');
    runsBox.id = 'cron-runs';
    runsBox.hidden = true;
    section.append(el('h2', 'Cron jobs'), empty, t.wrap, runsBox);
  },
  load: loadCron,
  event(name, p, shown) {
    if (name !== 'cron' || !shown) return;
    loadCron().catch(() => {});
    if (!runsBox.hidden && p?.jobId === runsBox.dataset.job && p?.action === 'finished') loadRuns(p.jobId).catch(() => {});
  },
});

function schedule(s) {
  if (!s) return '';
  if (s.kind === 'cron') return s.tz ? `${s.expr} (${s.tz})` : s.expr;
  if (s.kind === 'every') return `every ${Math.round((s.everyMs || 0) / 1000)} s`;
  if (s.kind === 'at') return `at ${s.at}`;
  return s.kind || '';
}

async function loadCron() {
  const res = await request('cron.list', { includeDisabled: true });
  const jobs = Array.isArray(res?.jobs) ? res.jobs : [];
  tbody.replaceChildren(...jobs.map((j) => {
    const tr = el('tr');
    tr.dataset.id = j.id;
    const s = j.state || {};
    const last = s.lastStatus || s.lastRunStatus || '—';
    tr.append(
      cell(j.enabled === false ? `${j.name || j.id} (disabled)` : j.name || j.id),
      cell(schedule(j.schedule)),
      cell(when(s.nextRunAtMs)),
      cell(s.lastError ? `${last}: ${s.lastError}` : last),
      cell(button('Run now', () => request('cron.run', { id: j.id, mode: 'force' }), 'run'), button('History', () => loadRuns(j.id), 'history')),
    );
    tr.firstChild.className = 'name';
    tr.children[3].className = 'last';
    return tr;
  }));
  empty.hidden = jobs.length > 0;
}

async function loadRuns(id) {
  const res = await request('cron.runs', { id, limit: 20 });
  const runs = Array.isArray(res?.entries) ? res.entries : Array.isArray(res?.runs) ? res.runs : [];
  runsBox.hidden = false;
  runsBox.dataset.job = id;
  const ul = el('ul');
  ul.append(...runs.map((r) => {
    const li = el('li', `${when(r.runAtMs || r.ts || r.startedAtMs)} · ${r.status || r.action || ''} ${r.error || r.summary || ''}`, 'run-entry');
    if (r.status) li.dataset.status = r.status;
    return li;
  }));
  runsBox.replaceChildren(el('h3', `History of ${id}`), runs.length ? ul : el('p', 'no runs yet'));
}
