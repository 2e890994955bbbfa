// The list drawn by key: each row's markup is kept with its element, and a change replaces only
// the rows whose markup changed (a tick on a list of thousands touches one row), moves the rows
// that moved, and leaves the rest — and the focus, and the scroll — alone.
'use strict';

const drawn = { list: null, rows: new Map(), sections: new Map() };

function element(html) {
  const template = document.createElement('template');
  template.innerHTML = html;
  return template.content.firstElementChild;
}

/// Makes `parent`'s children the elements for `entries` ({key, html}), in order, reusing those
/// whose markup is unchanged (`cache`: key -> {html, element}). An element no longer wanted
/// here (a row ticked into another group, one taken off) is taken out where it stands: moving
/// every row after it instead made a tick on a list of 2,000 move a thousand rows.
///
/// An entry may give `sig` (all its markup depends on) and `html` as a function: its markup is
/// then made only when `sig` changed — a tick on a list of 2,000 makes one row's markup, not all.
let drawing = 0;
function reconcile(parent, entries, cache) {
  // The elements wanted here are marked with this drawing's number (cheaper than a set of keys).
  const now = ++drawing;
  for (const { key } of entries) { const cached = cache.get(key); if (cached) cached.element.listdDrawing = now; }
  let cursor = parent.firstElementChild;
  const skipUnwanted = () => {
    while (cursor && cursor.listdDrawing !== now) { const next = cursor.nextElementSibling; cursor.remove(); cursor = next; }
  };
  skipUnwanted();
  for (const entry of entries) {
    const key = entry.key;
    let cached = cache.get(key);
    if (cached && entry.sig !== undefined && cached.sig === entry.sig) {
      if (cached.element === cursor) { cursor = cursor.nextElementSibling; skipUnwanted(); continue; }
      parent.insertBefore(cached.element, cursor);
      continue;
    }
    const html = typeof entry.html === 'function' ? entry.html() : entry.html;
    if (cached && entry.sig !== undefined) cached.sig = entry.sig;
    if (!cached || cached.html !== html) {
      const fresh = element(html);
      fresh.listdDrawing = now;
      if (cached && cached.element === cursor) { parent.replaceChild(fresh, cursor); cursor = fresh; }
      else if (cached) cached.element.remove();
      cached = { html, element: fresh, sig: entry.sig };
      cache.set(key, cached);
    }
    if (cached.element === cursor) { cursor = cursor.nextElementSibling; skipUnwanted(); continue; }
    parent.insertBefore(cached.element, cursor);
  }
  while (cursor) { const next = cursor.nextElementSibling; cursor.remove(); cursor = next; }
}

/// Whether the item with this key (its text folded) is marked new.
function isFresh(key) {
  const fresh = state.fresh[state.current];
  return !!fresh && fresh[key] !== undefined;
}

/// All a row's markup depends on, as one string: the row is drawn again only when it changes.
function rowSignature(row, key, mine) {
  const editing = state.editing === key ? (currentList().sections || []).map((s) => s.name).join('\u0001') : '';
  const problems = mine.length ? mine.map((p) => p.id + '\u0001' + p.message + '\u0001' + !!p.offer + '\u0001' + !!(p.typed && !formHolds(p.typed))).join('\u0002') : '';
  return row.item + '\u0000' + row.checked + row.pending + row.removing + isFresh(key) + '\u0000' + row.amount + '\u0000' + row.section + '\u0000' + editing + '\u0000' + problems;
}

function rowHTML(row, mine) {
  const key = itemKey(row.item);
  const classes = ['item', row.checked ? 'checked' : '', row.pending ? 'pending' : '', row.removing ? 'removing' : ''].join(' ');
  const editing = state.editing === key;
  let html = '<li class="' + classes + '" data-row="' + escape(key) + '"><div class="line">' +
    '<button type="button" class="tick" role="checkbox" aria-checked="' + row.checked + '" data-key="tick-' + escape(row.item) + '" data-tick="' + escape(row.item) + '"' + (row.removing ? ' disabled' : '') + '>' +
    '<span class="box" aria-hidden="true">' + (row.checked ? '✓' : '') + '</span>' +
    '<span class="label"><span class="name">' + escape(row.item) + (row.removing ? ' (being removed)' : '') + '</span>' +
    (row.pending ? '<span class="waiting">waiting to be sent</span>' : '') + '</span>' +
    (isFresh(key) ? '<span class="fresh">new</span>' : '') +
    (row.amount ? '<span class="amount">' + escape(row.amount) + '</span>' : '') +
    '</button>' +
    '<button type="button" class="edit" aria-label="Amount or section of ' + escape(row.item) + '" aria-expanded="' + editing + '" data-key="edit-' + escape(row.item) + '" data-edit="' + escape(row.item) + '"' + (row.removing ? ' disabled' : '') + '>✎</button>' +
    '<button type="button" class="remove" aria-label="Remove ' + escape(row.item) + '" data-key="remove-' + escape(row.item) + '" data-remove="' + escape(row.item) + '"' + (row.removing ? ' disabled' : '') + '>✕</button>' +
    '</div>';
  if (editing) {
    const sections = (currentList().sections || []).map((s) => s.name);
    html += '<form class="editor" data-editor="' + escape(row.item) + '" aria-label="Change ' + escape(row.item) + '">' +
      '<label>Amount <input name="quantity" value="' + escape(row.amount) + '" placeholder="none" autocomplete="off" data-key="edit-amount"></label>' +
      '<label>Section <select name="section" data-key="edit-section"><option value="">(none)</option>' +
      sections.map((n) => '<option' + (n === row.section ? ' selected' : '') + ' value="' + escape(n) + '">' + escape(n) + '</option>').join('') +
      '</select></label>' +
      '<button type="submit" data-key="edit-save">Save</button><button type="button" data-key="edit-cancel" data-cancel>Cancel</button></form>';
  }
  if (mine.length) html += mine.map(problemHTML).join('');
  return html + '</li>';
}

function renderList() {
  const main = document.getElementById('list');
  const list = currentList();
  if (!list) {
    drawn.list = null;
    setHTML(document.getElementById('actions'), '');
    // What was not made, and why, is shown even with no list to show it on.
    const notices = state.problems.map((p) => '<li>' + problemHTML(p) + '</li>').join('');
    main.innerHTML = (notices ? '<ul class="problems">' + notices + '</ul>' : '') +
      '<p class="empty">' + (state.lists.length || state.connection === 'unpaired' || state.connection === 'notPaired'
        ? '' : 'No lists yet. Make one with <code>listctl create Groceries</code>.') + '</p>';
    return;
  }
  setText(document.getElementById('title'), list.name);
  if (document.title !== list.name + ' — shopping lists') document.title = list.name + ' — shopping lists';
  if (drawn.list !== list.id || !document.getElementById('groups')) {
    drawn.list = list.id;
    drawn.rows.clear();
    drawn.sections.clear();
    main.innerHTML = '<div id="loose"></div><div id="groups"></div><p class="empty" id="nothing" hidden>Nothing on this list.</p>';
  }
  // A refusal of an add made with the form is shown by the form, where the person is (a
  // duplicate typed at the bottom of a long list was refused by its row, a screen's height up).
  const byForm = (p) => !!p.typed;
  setHTML(document.getElementById('form-notices'),
    state.problems.filter((p) => byForm(p) && (p.list === list.id || p.list === list.name)).map((p) => '<li>' + problemHTML(p) + '</li>').join(''));
  const problems = state.problems.filter((p) => !byForm(p) && (p.list === list.id || p.list === list.name));
  // Refusals of edits for another list are counted here, with a way there; those for a list
  // that is gone (and notices that belong to no list) are shown whole: nowhere else shows them.
  const elsewhere = new Map();
  const orphans = [];
  for (const p of state.problems) {
    if (p.list === list.id || p.list === list.name) continue;
    const other = state.lists.find((l) => l.id === p.list || l.name === p.list);
    if (other) elsewhere.set(other, (elsewhere.get(other) || 0) + 1); else orphans.push(p);
  }
  const all = shown(list);
  // What the person sees ticked, their own waiting ticks included (folded away or not).
  const checkedCount = all.reduce((n, g) => n + g.rows.filter((r) => r.checked && !r.removing).length, 0);
  // Empty sections are folded away; the ticked group stays while anything is ticked.
  const groups = shopOrder(all, list.id).filter((g) => g.rows.length || (g.name === TICKED && g.count));
  // Every item the list has, and the rows drawn (the same unless ticked ones are folded away).
  const listKeys = all.rowsByKey;
  let onList = listKeys;
  if (state.hideTicked) {
    onList = new Set();
    for (const g of groups) for (const r of g.rows) onList.add(r.key);
  }
  const loose = problems.filter((p) => !p.item || !onList.has(itemKey(p.item)));
  const sections = (list.sections || []).map((s) => s.name);
  // The add form stays where it is (fixed at the bottom): only its completions follow the list.
  setHTML(document.getElementById('names'), householdNames(list, listKeys).map(([name, amount]) =>
    '<option value="' + escape(name) + '"' + (amount ? ' label="' + escape(amount) + '"' : '') + '>').join(''));
  setHTML(document.getElementById('sections'), sections.map((n) => '<option value="' + escape(n) + '">').join(''));
  setHTML(document.getElementById('actions'),
    '<button type="button" data-key="clear" data-clear' + (checkedCount ? '' : ' disabled') + '>Clear ' + checkedCount + ' ticked</button>' +
    '<button type="button" data-key="undo" data-undo' + (state.connection === 'live' ? '' : ' disabled') + '>Undo mine</button>');
  const notices = (state.missingDelegates || []).map((m) => '<li><p class="problem rule" role="alert"><span class="why">⚠ The rule “' +
      escape(m.name) + '” is not running (since ' + escape(clock(m.since)) + ': ' + escape(m.reason) + '): what it vets is not vetted.</span></p></li>')
    .concat(orphans.map((p) => '<li>' + problemHTML(p) + '</li>')).concat(
    Array.from(elsewhere, ([other, count]) => '<li><p class="problem elsewhere" role="alert"><span>⚠ ' +
      (count === 1 ? 'A change' : count + ' changes') + ' on “' + escape(other.name) + '” not made</span><span class="choices">' +
      '<button type="button" data-key="elsewhere-' + other.id + '" data-list="' + other.id + '">Show</button></span></p></li>'),
    loose.map((p) => '<li>' + problemHTML(p) + '</li>'));
  setHTML(document.getElementById('loose'), notices.length
    ? '<h2 class="visually-hidden">Not applied</h2><ul class="problems">' + notices.join('') + '</ul>'
    : '');
  const sectionEntries = groups.map((group) => ({
    key: group.name,
    // The ticked group takes no header's height above its rows (what is left to buy keeps the
    // screen): its toggle comes after them, a row's width. Its count is set below, on the same
    // elements: markup that changed with it was drawn anew, its rows put back one by one.
    html: group.name === TICKED
      ? '<section class="ticked-group" data-ticked-group><ul class="items" aria-label="Ticked"></ul>' +
        '<button type="button" class="toggle-ticked" data-key="toggle-ticked" data-toggle-ticked></button></section>'
      : '<section data-section="' + escape(group.name) + '">' + (group.name ? '<h3>' + escape(group.name) + '</h3>' : '') +
        '<ul class="items" aria-label="' + escape(group.name || 'Items') + '"></ul></section>',
  }));
  const container = document.getElementById('groups');
  reconcile(container, sectionEntries, drawn.sections);
  const tickedGroup = groups.find((g) => g.name === TICKED);
  if (tickedGroup) {
    const section = drawn.sections.get(TICKED).element;
    const toggle = section.querySelector('[data-toggle-ticked]');
    const label = 'Ticked (' + tickedGroup.count + ')';
    if (section.getAttribute('aria-label') !== label) section.setAttribute('aria-label', label);
    if (toggle.getAttribute('aria-expanded') !== String(!state.hideTicked)) toggle.setAttribute('aria-expanded', String(!state.hideTicked));
    setText(toggle, (state.hideTicked ? 'Show ' : 'Hide ') + tickedGroup.count + ' ticked');
  }
  // Each row's refusals, found once (not by every row looking through them all).
  const problemsOf = new Map();
  for (const p of problems) {
    if (!p.item) continue;
    const key = itemKey(p.item);
    problemsOf.set(key, (problemsOf.get(key) || []).concat([p]));
  }
  for (const group of groups) {
    const ul = drawn.sections.get(group.name).element.querySelector('ul');
    reconcile(ul, group.rows.map((row) => {
      const key = row.key;
      const mine = problemsOf.get(key) || [];
      return { key, sig: rowSignature(row, key, mine), html: () => rowHTML(row, mine) };
    }), drawn.rows);
  }
  // Rows no longer on the list are let go.
  if (drawn.rows.size > onList.size) for (const key of drawn.rows.keys()) if (!onList.has(key)) drawn.rows.delete(key);
  for (const key of drawn.sections.keys()) if (!groups.some((g) => g.name === key)) drawn.sections.delete(key);
  document.getElementById('nothing').hidden = groups.length > 0;
}

/// Replaces an element's markup only when it differs (a focused button stays focused).
function setHTML(node, html) {
  if (node.dataset.html !== html) { node.innerHTML = html; node.dataset.html = html; }
}

/// Sets an element's text only when it differs: the same text set again is drawn again.
function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}
