// Config: the config file's text in an editor, checked by the gateway
// (config.apply with dryRun: its JSON5 parser and schema are the only
// validator) and saved as one transaction against the hash it was read
// at; problems are listed with their line and column and move the cursor
// there. Below, the gateway's log, followed with logs.tail while the view
// is on screen.
import { st, request, el, button, registerView, isShown } from './kit.js';

const LOG_POLL_MS = 3000; // how often the log is read while shown
const LOG_MAX_LINES = 500; // lines kept in the panel
const LOG_FIRST_LINES = 100; // lines shown when the panel opens
const REDACTED = '__OPENCLAW_REDACTED__'; // what config.get shows for a secret; config.apply puts the secret back

let text, lines, pathLine, cursorLine, status, errorList, saveBtn, logList, logFile;
let baseHash = ''; // hash of the file the text was read from
let configPath = '';
let dirty = false; // the text differs from what was loaded
let saving = false;
let issuesShown = 0; // counts showIssues calls, so late schema hints go to the right list
let schema = null; // config.schema's JSON Schema, fetched when first needed
let logCursor = null;
let logTimer = 0;
let logBusy = false;

registerView({
  name: 'config',
  label: 'Config',
  build(section) {
    pathLine = el('p', '', 'config-file');
    pathLine.id = 'config-path';

    text = el('textarea');
    text.id = 'config-text';
    text.spellcheck = false;
    text.setAttribute('wrap', 'off');
    text.setAttribute('autocapitalize', 'off');
    text.setAttribute('autocomplete', 'off');
    text.setAttribute('aria-label', 'Config file (JSON5)');
    text.addEventListener('input', () => {
      dirty = true;
      showLineNumbers();
      if (['clean', 'valid', 'saved'].includes(status.dataset.state)) setStatus('dirty', 'Changed, not saved.');
    });
    text.addEventListener('scroll', () => { lines.scrollTop = text.scrollTop; });
    for (const ev of ['keyup', 'click', 'select', 'focus']) text.addEventListener(ev, showCursor);
    text.addEventListener('keydown', (ev) => {
      if ((ev.ctrlKey || ev.metaKey) && ev.key === 's') {
        ev.preventDefault();
        saveBtn.click();
      }
    });
    lines = el('pre', '1', 'config-lines');
    lines.setAttribute('aria-hidden', 'true');
    const editor = el('div', null, 'config-editor');
    editor.append(lines, text);

    cursorLine = el('p', '', 'config-cursor hint');
    cursorLine.id = 'config-cursor';

    const validateBtn = button('Validate', validate);
    validateBtn.id = 'config-validate';
    saveBtn = button('Save', save);
    saveBtn.id = 'config-save';
    const reloadBtn = button('Reload', () => loadConfig(true));
    reloadBtn.id = 'config-reload';
    reloadBtn.title = 'Discard your changes and read the file again';
    status = el('span', '', 'config-status');
    status.id = 'config-status';
    status.setAttribute('role', 'status');
    status.setAttribute('aria-live', 'polite');
    const actions = el('div', null, 'config-actions');
    actions.append(validateBtn, saveBtn, reloadBtn, status);

    errorList = el('ul');
    errorList.id = 'config-errors';
    errorList.setAttribute('aria-label', 'Problems');
    errorList.hidden = true;
    errorList.addEventListener('click', (ev) => {
      const li = ev.target.closest('li.config-error');
      if (li) goTo(li);
    });
    errorList.addEventListener('keydown', (ev) => {
      const li = ev.target.closest('li.config-error');
      if (li && (ev.key === 'Enter' || ev.key === ' ')) {
        ev.preventDefault();
        goTo(li);
      }
    });

    logFile = el('span', '', 'hint');
    const logHead = el('h3', 'Logs ');
    logHead.append(logFile);
    logList = el('ol');
    logList.id = 'logs';
    logList.setAttribute('aria-label', 'Gateway log');

    section.append(el('h2', 'Config'), pathLine, editor, cursorLine, actions, errorList, logHead, logList);
  },
  load() {
    startLogs();
    return loadConfig(false);
  },
  event(name, p, shown) {
    if (name !== 'config.changed' || saving) return;
    if (p?.hash && p.hash === baseHash) return;
    if (!dirty) {
      if (shown) loadConfig(false).catch(() => {}); // else load() reads it when shown
      return;
    }
    setStatus('conflict', 'The file changed on the gateway since you loaded it: saving will be refused. Reload to get the new text (your changes are lost).');
  },
});

function setStatus(state, msg) {
  status.dataset.state = state;
  status.textContent = msg;
}

// loadConfig reads the file's text and hash. It keeps unsaved changes
// unless force is set (the Reload button).
async function loadConfig(force) {
  if (dirty && !force) return;
  const res = await request('config.get', {});
  configPath = res?.path || '';
  pathLine.textContent = configPath ? `File: ${configPath}` : '';
  if (typeof res?.raw !== 'string' && res?.exists !== false) {
    text.value = '';
    text.readOnly = true;
    saveBtn.disabled = true;
    baseHash = res?.hash || '';
    setStatus('error', 'The file\'s text is not available to this connection (it needs the operator.admin scope).');
    showLineNumbers();
    return;
  }
  text.readOnly = false;
  saveBtn.disabled = false;
  text.value = typeof res.raw === 'string' ? res.raw : '{\n}\n';
  dirty = false;
  showLineNumbers();
  showCursor();
  const issues = Array.isArray(res.issues) ? res.issues : [];
  if (res.valid === false) {
    // The text is the running config's; saving replaces the broken file,
    // so the save is checked against the file's own hash.
    baseHash = res.configRevisionHash || res.hash || '';
    showIssues(issues, false);
    setStatus('invalid', 'The file on disk has problems (listed below, at their places in that file); the gateway keeps running the last valid config, shown here. Saving replaces the file.');
    return;
  }
  baseHash = res.hash || '';
  showIssues([]);
  if (res.exists === false) setStatus('clean', 'There is no config file yet: the gateway runs on its defaults. Saving creates it.');
  else if (text.value.includes(REDACTED)) setStatus('clean', `Loaded. Secrets show as ${REDACTED}: leave that in place to keep a secret as it is.`);
  else setStatus('clean', 'Loaded.');
}

function rawText() {
  if (text.readOnly) throw new Error('the config text is not available');
  if (text.value.trim() === '') {
    setStatus('invalid', 'The config cannot be empty: write {} for the defaults.');
    return null;
  }
  return text.value;
}

async function validate() {
  const raw = rawText();
  if (raw === null) return;
  setStatus('busy', 'Checking…');
  let res;
  try {
    res = await request('config.apply', { raw, baseHash, dryRun: true });
  } catch (err) {
    refused(err, false);
    return;
  }
  const issues = Array.isArray(res?.issues) ? res.issues : [];
  showIssues(issues);
  if (res?.valid === false || issues.length) {
    setStatus('invalid', `${plural(issues.length, 'problem')}: fix ${issues.length === 1 ? 'it' : 'them'} before saving.`);
    return;
  }
  setStatus('valid', `Valid.${restartNote(res?.restartRequired)}${warningNote(res?.warnings)}`);
}

async function save() {
  const raw = rawText();
  if (raw === null) return;
  setStatus('busy', 'Saving…');
  saving = true;
  let res;
  try {
    res = await request('config.apply', { raw, baseHash });
  } catch (err) {
    refused(err, true);
    return;
  } finally {
    saving = false;
  }
  showIssues([]);
  dirty = false;
  await loadConfig(false).catch(() => {}); // the gateway may be restarting
  let msg = `Saved and applied.${restartNote(res?.restartRequired)}${warningNote(res?.warnings)}`;
  if (res?.restartScheduled) msg += ' The gateway is restarting.';
  setStatus('saved', msg);
}

// refused shows why the gateway would not take (or check) the text.
function refused(err, saved) {
  const code = err?.details?.code || '';
  const lead = saved ? 'Not saved: ' : '';
  if (code === 'INVALID_CONFIG' && Array.isArray(err.details.issues)) {
    showIssues(err.details.issues);
    const n = err.details.issues.length;
    setStatus('invalid', `${lead}${plural(n, 'problem')}. The file was not changed.`);
  } else if (code === 'CONFIG_BASE_HASH_MISMATCH') {
    setStatus('conflict', `${lead}the file was changed by someone else since you loaded it${saved ? '' : ', so saving would be refused'}. Reload to get the new text, then make your change again.`);
  } else {
    setStatus('error', `${lead}${err?.message || err}`);
  }
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function restartNote(fields) {
  return Array.isArray(fields) && fields.length ? ` Needs a restart to take effect: ${fields.join(', ')}.` : '';
}

function warningNote(warnings) {
  if (!Array.isArray(warnings) || !warnings.length) return '';
  return ` ${plural(warnings.length, 'warning')}: ${warnings.map((w) => w.text || w.message).join('; ')}`;
}

// showIssues lists problems; those in the edited text (not an $include,
// nor the file on disk when another text is shown) with a position move
// the cursor there when clicked.
function showIssues(issues, inText = true) {
  errorList.replaceChildren(...issues.map((i) => {
    const inFile = !i.file || !configPath || i.file === configPath;
    const line = Number(i.line) || 0;
    const column = Number(i.column) || 0;
    let where = '';
    if (!inFile) where = `${i.file}${line > 0 ? `, line ${line}, column ${column}` : ''}: `;
    else if (line > 0) where = `line ${line}, column ${column}: `;
    const li = el('li', null, 'config-error');
    li.append(el('span', `${where}${i.path ? `${i.path}: ` : ''}${i.message || i.text || ''}`, 'config-error-text'));
    if (i.path) li.dataset.path = i.path;
    if (inText && inFile && line > 0) {
      li.dataset.line = String(line);
      li.dataset.column = String(column || 1);
      li.tabIndex = 0;
      li.setAttribute('role', 'button');
      li.title = 'Show in the editor';
    }
    return li;
  }));
  errorList.hidden = issues.length === 0;
  explainIssues(issues, ++issuesShown).catch(() => {});
}

// offsetOf turns a 1-based line and column (in characters, as the gateway
// counts them) into an index in the textarea's value.
function offsetOf(value, line, column) {
  let off = 0;
  for (let l = 1; l < line; l++) {
    const nl = value.indexOf('\n', off);
    if (nl < 0) return value.length;
    off = nl + 1;
  }
  let end = value.indexOf('\n', off);
  if (end < 0) end = value.length;
  let chars = 1;
  while (chars < column && off < end) {
    const cp = value.codePointAt(off);
    off += cp > 0xffff ? 2 : 1;
    chars++;
  }
  return off;
}

function goTo(li) {
  const line = Number(li.dataset.line);
  const column = Number(li.dataset.column) || 1;
  if (!line) return;
  const v = text.value;
  const start = offsetOf(v, line, column);
  // Select the token there, so the spot is visible.
  const m = /^[^\s,:{}[\]]+/.exec(v.slice(start, start + 200));
  const end = m ? start + m[0].length : Math.min(start + 1, v.length);
  text.closest('.config-editor').scrollIntoView({ block: 'nearest' });
  text.focus({ preventScroll: true });
  text.setSelectionRange(start, end);
  const lh = parseFloat(getComputedStyle(text).lineHeight) || 18;
  text.scrollTop = Math.max(0, (line - 1) * lh - text.clientHeight / 3);
  showCursor();
}

function showLineNumbers() {
  const n = text.value.split('\n').length;
  if (Number(lines.dataset.count) === n) return;
  lines.dataset.count = String(n);
  const out = [];
  for (let i = 1; i <= n; i++) out.push(i);
  lines.textContent = out.join('\n') + '\n';
  lines.scrollTop = text.scrollTop;
}

function showCursor() {
  const before = text.value.slice(0, text.selectionStart);
  const line = before.split('\n').length;
  const column = [...before.slice(before.lastIndexOf('\n') + 1)].length + 1;
  cursorLine.textContent = `Line ${line}, column ${column}`;
}

// explainIssues adds what a key means (from config.schema) under the
// problems that name one: its description, or for an unknown key the
// keys that are known there.
async function explainIssues(issues, gen) {
  if (!issues.some((i) => i.path)) return;
  if (!schema) {
    const res = await request('config.schema', {});
    schema = res?.schema || {};
  }
  if (gen !== issuesShown) return; // another list replaced this one
  for (const li of errorList.querySelectorAll('li.config-error[data-path]')) {
    const hint = explain(li.dataset.path, li.textContent.includes('unknown key'));
    if (hint) li.append(el('span', ` ${hint}`, 'hint'));
  }
}

function splitPath(path) {
  const segs = [];
  const re = /([^.[\]]+)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]/g;
  let m;
  while ((m = re.exec(path))) segs.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : JSON.parse(`"${m[3]}"`)));
  return segs;
}

function child(node, seg) {
  if (!node || typeof node !== 'object') return null;
  if (typeof seg === 'number') return node.items || null;
  if (node.properties && node.properties[seg]) return node.properties[seg];
  if (node.additionalProperties && typeof node.additionalProperties === 'object') return node.additionalProperties;
  return null;
}

function explain(path, unknown) {
  const segs = splitPath(path);
  let node = schema;
  for (let i = 0; i < segs.length && node; i++) {
    const next = child(node, segs[i]);
    if (!next && unknown && i === segs.length - 1 && node.properties) {
      const keys = Object.keys(node.properties).sort();
      return keys.length ? `Keys this gateway implements here: ${keys.slice(0, 20).join(', ')}${keys.length > 20 ? ', …' : ''}` : '';
    }
    node = next;
  }
  if (!node) return '';
  const type = Array.isArray(node.type) ? node.type.join(' or ') : node.type;
  const parts = [];
  if (node.description) parts.push(node.description);
  if (type) parts.push(`Type: ${type}${Array.isArray(node.enum) ? ` (${node.enum.join(', ')})` : ''}.`);
  return parts.join(' ');
}

// ---- logs ----

function startLogs() {
  if (!logTimer && !logBusy) pollLogs();
}

async function pollLogs() {
  logTimer = 0;
  if (!isShown('config') || !st.connected) return; // shown again: load() restarts it
  logBusy = true;
  let again = LOG_POLL_MS;
  try {
    const params = logCursor === null ? { limit: LOG_FIRST_LINES } : { cursor: logCursor, limit: 200 };
    const res = await request('logs.tail', params);
    if (res?.reset) logList.replaceChildren();
    if (typeof res?.cursor === 'number') logCursor = res.cursor;
    if (res?.file) logFile.textContent = res.file;
    appendLogs(Array.isArray(res?.lines) ? res.lines : []);
    if (res?.truncated && logCursor !== null) again = 250;
  } catch (err) {
    logFile.textContent = `(cannot read the log: ${err?.message || err})`;
  } finally {
    logBusy = false;
  }
  if (isShown('config') && st.connected) logTimer = setTimeout(pollLogs, again);
}

function appendLogs(rows) {
  if (!rows.length) return;
  const atEnd = logList.scrollHeight - logList.scrollTop - logList.clientHeight < 8;
  for (const line of rows) {
    if (line === '') continue;
    const { shown, level } = formatLog(line);
    const li = el('li', shown, 'log-line');
    if (level) li.dataset.level = level;
    logList.append(li);
  }
  while (logList.childElementCount > LOG_MAX_LINES) logList.firstElementChild.remove();
  if (atEnd) logList.scrollTop = logList.scrollHeight;
}

// formatLog shows a JSON log line as "time level [subsystem] message
// key=value …"; other lines as they are.
function formatLog(line) {
  let rec;
  try {
    rec = JSON.parse(line);
  } catch {
    return { shown: line, level: '' };
  }
  if (!rec || typeof rec !== 'object' || Array.isArray(rec)) return { shown: line, level: '' };
  const { time, level, subsystem, message, msg, ...rest } = rec;
  const t = typeof time === 'string' ? time.replace('T', ' ').replace(/\.\d+/, '').replace(/(Z|[+-]\d\d:\d\d)$/, '') : '';
  const lvl = typeof level === 'string' ? level.toLowerCase() : '';
  const attrs = Object.entries(rest).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  const shown = [t, lvl.toUpperCase(), subsystem ? `[${subsystem}]` : '', message ?? msg ?? '', ...attrs].filter((s) => s !== '').join(' ');
  return { shown, level: lvl };
}
