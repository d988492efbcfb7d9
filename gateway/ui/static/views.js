// The Control UI's shell: it loads each view module (each registers
// itself with the kit), builds the navigation and a <section> per view,
// and shows one at a time, and handles the keyboard shortcuts (listed in
// index.html's dialog, opened with "?"). The Chat view's markup is in
// index.html because the WebChat client drives it.
import { $, st, showError, hooks, el, views, isShown, setOpenView } from './kit.js';
import './chat.js';
import './approvals.js';
import './sessions.js';
import './channels.js';
import './nodes.js';
import './tools.js';
import './cron.js';
import './config.js';
import './wiki.js';

const nav = $('nav');
const main = $('chat');

for (const v of views) {
  const b = el('button', v.label);
  b.type = 'button';
  b.dataset.view = v.name;
  nav.append(b);
  let section = document.getElementById('view-' + v.name);
  if (!section) {
    section = el('section');
    section.id = 'view-' + v.name;
    section.hidden = true;
    section.setAttribute('aria-label', v.label);
    main.append(section);
  }
  if (v.build) v.build(section);
}

function showView(name) {
  if (!views.some((v) => v.name === name)) name = views[0].name;
  sessionStorage.setItem('openclaw.control.view', name);
  for (const v of views) {
    $('view-' + v.name).hidden = v.name !== name;
    nav.querySelector(`[data-view="${v.name}"]`).setAttribute('aria-current', v.name === name ? 'page' : 'false');
  }
  document.body.dataset.view = name;
  const v = views.find((x) => x.name === name);
  if (v.load && st.connected) v.load().catch((err) => showError(err));
}

setOpenView(showView);

nav.addEventListener('click', (ev) => {
  const name = ev.target?.dataset?.view;
  if (name) showView(name);
});

// ---- keyboard shortcuts ----

const dialog = $('shortcuts');
$('shortcuts-button').addEventListener('click', () => dialog.showModal());
$('shortcuts-close').addEventListener('click', () => dialog.close());
dialog.addEventListener('click', (ev) => {
  if (ev.target === dialog) dialog.close(); // a click on the backdrop
});

function typing(t) {
  return t instanceof HTMLElement && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName));
}

document.addEventListener('keydown', (ev) => {
  if (ev.defaultPrevented || ev.isComposing) return;
  const connected = st.connected && !main.hidden;
  if ((ev.ctrlKey || ev.metaKey) && !ev.altKey && ev.key.toLowerCase() === 'k') {
    if (!connected) return;
    ev.preventDefault();
    showView('chat');
    $('input').focus();
    return;
  }
  if (ev.key === 'Escape' && !dialog.open) {
    // Stop the reply that is running; a second Esc leaves the box.
    const stop = $('stop');
    if (connected && !stop.disabled && isShown('chat')) {
      ev.preventDefault();
      stop.click();
    } else if (document.activeElement === $('input')) {
      $('input').blur();
    }
    return;
  }
  if (ev.altKey && !ev.ctrlKey && !ev.metaKey && /^Digit[1-9]$/.test(ev.code)) {
    const v = views[Number(ev.code.slice(5)) - 1];
    if (v && connected) {
      ev.preventDefault();
      showView(v.name);
    }
    return;
  }
  if (ev.key === '?' && !typing(ev.target) && !dialog.open) {
    ev.preventDefault();
    dialog.showModal();
  }
});

hooks.connected.push(function controlConnected() {
  nav.hidden = false;
  for (const v of views) if (v.connected) v.connected();
  showView(sessionStorage.getItem('openclaw.control.view') || 'chat');
});

hooks.event.push(function controlEvent(name, payload) {
  for (const v of views) {
    if (v.event) {
      try {
        v.event(name, payload, isShown(v.name));
      } catch (err) {
        showError(err);
      }
    }
  }
});
