// Wiki: browse an agent's LLM wiki read-only (wiki.list, wiki.search,
// wiki.get): the pages with their dates, a full-text search, and one page
// with its sources and links. Page text is the agents' (and so possibly a
// stranger's) writing: it is shown as text, never as HTML.
import { request, el, button, table, cell, when, labelled, registerView, emptyState } from './kit.js';

let tbody, empty, pageBox, agentSel, queryInput, archivedBox;

registerView({
  name: 'wiki',
  label: 'Wiki',
  build(section) {
    agentSel = el('select');
    queryInput = el('input');
    queryInput.type = 'search';
    queryInput.placeholder = 'words to look for';
    archivedBox = el('input');
    archivedBox.type = 'checkbox';
    const form = el('form', null, 'toolbar');
    form.append(
      labelled('Agent', agentSel, 'wiki-agent'),
      labelled('Search', queryInput, 'wiki-query'),
      labelled('Archived too', archivedBox, 'wiki-archived'),
      button('Show', () => loadPages(), 'refresh'),
    );
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      loadPages().catch(() => {});
    });
    agentSel.addEventListener('change', () => loadPages().catch(() => {}));
    const t = table('Title', 'Slug', 'Updated', '');
    tbody = t.tbody;
    tbody.id = 'wiki-pages';
    empty = emptyState('wiki-empty', 'No wiki pages yet',
      'An agent writes its wiki with the wiki_create_page tool. Ask it in a chat, for example: "keep a wiki page on what we decided today".');
    pageBox = el('article', null, 'wiki-page');
    pageBox.id = 'wiki-page';
    pageBox.hidden = true;
    section.append(el('h2', 'Wiki'), form, empty, t.wrap, pageBox);
  },
  connected() {
    loadAgents().catch(() => {});
  },
  load: loadPages,
});

async function loadAgents() {
  const res = await request('agents.list', {});
  const list = Array.isArray(res?.agents) ? res.agents : [];
  const keep = agentSel.value;
  agentSel.replaceChildren(...list.map((a) => {
    const o = el('option', a.name ? `${a.name} (${a.id})` : a.id);
    o.value = a.id;
    return o;
  }));
  if (keep) agentSel.value = keep;
}

function params(extra) {
  const p = { ...extra };
  if (agentSel.value) p.agentId = agentSel.value;
  if (archivedBox.checked) p.includeArchived = true;
  return p;
}

async function loadPages() {
  const q = queryInput.value.trim();
  const res = q ? await request('wiki.search', params({ query: q })) : await request('wiki.list', params({ limit: 200 }));
  const rows = Array.isArray(res?.pages) ? res.pages : Array.isArray(res?.results) ? res.results : [];
  tbody.replaceChildren(...rows.map((p) => {
    const tr = el('tr');
    tr.dataset.slug = p.slug;
    const title = p.archived ? `${p.title} (archived)` : p.title;
    const updated = p.updated ? when(Date.parse(p.updated)) : (p.snippet || '');
    tr.append(cell(title), cell(p.slug), cell(updated), cell(button('Open', () => openPage(p.slug), 'open')));
    tr.firstChild.className = 'name';
    return tr;
  }));
  empty.hidden = rows.length > 0 || q !== '';
}

async function openPage(slug) {
  const res = await request('wiki.get', params({ slug }));
  const p = res?.page || {};
  const body = el('pre', p.content || '', 'wiki-body');
  const links = el('ul');
  for (const l of res?.linksTo || []) {
    const li = el('li');
    if (l.exists) li.append(button(l.title || l.slug, () => openPage(l.slug), 'link'));
    else li.append(el('span', `${l.slug} (not written yet)`));
    links.append(li);
  }
  const back = el('ul');
  for (const l of res?.linkedBy || []) {
    const li = el('li');
    li.append(button(l.title || l.slug, () => openPage(l.slug), 'link'));
    back.append(li);
  }
  const sources = el('ol');
  for (const s of res?.sources || []) {
    const li = el('li');
    li.append(el('strong', s.ref), el('pre', s.text || ''));
    sources.append(li);
  }
  const head = el('div', null, 'view-head');
  head.append(el('h3', p.archived ? `${p.title} (archived)` : p.title), button('Close', () => { pageBox.hidden = true; }, 'close'));
  pageBox.replaceChildren(
    head,
    el('p', `${p.slug} · updated ${when(Date.parse(p.updated))} · ${(res?.revisions || []).length} earlier versions kept`, 'muted'),
    body,
    el('h4', 'Links to'), links.children.length ? links : el('p', 'none'),
    el('h4', 'Linked from'), back.children.length ? back : el('p', 'none'),
    el('h4', 'Sources'), sources.children.length ? sources : el('p', 'none'),
  );
  pageBox.hidden = false;
  pageBox.dataset.slug = p.slug || '';
}
