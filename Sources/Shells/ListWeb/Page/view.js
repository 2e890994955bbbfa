// What the page shows: the lists as listd said, with this phone's waiting edits on top; the lists'
// names, the problems, Recent, a held queue and the connection's status.
'use strict';

function currentList() {
  return state.lists.find((list) => list.id === state.current) || null;
}

/// The same item: listd's identity (`itemKey`, amounts.js), not a look-alike.
const same = (a, b) => itemKey(a) === itemKey(b);

/// The list with waiting edits applied, each item marked: checked, pending, removing.
function shown(list) {
  const rows = new Map();
  const sectionOf = new Map();
  for (const section of list.sections || []) for (const item of section.items) sectionOf.set(item, section.name);
  const checked = new Set(list.checked);
  const quantities = list.quantities || {};
  for (const item of list.items) {
    const key = itemKey(item);
    rows.set(key, { key, item, section: sectionOf.get(item) || '', checked: checked.has(item), amount: quantities[item] || '', pending: false, removing: false });
  }
  for (const entry of state.queue) {
    if (entry.params.list !== list.id) continue;
    // An add as typed (`6 eggs`) is the item with its amount, as listd-web will read it.
    const added = entry.method === 'addItem' && !entry.params.quantity ? readItem(entry.params.item || '') : null;
    const name = added ? added.text : (entry.params.item || '');
    const key = itemKey(name);
    const row = rows.get(key);
    switch (entry.method) {
      case 'addItem': {
        // On the list already: the same item, whatever the amount typed (listd says so when sent).
        if (row && !row.checked) {
          row.pending = true;
          break;
        }
        const amount = added ? added.quantity : entry.params.quantity;
        // An add naming no section waits in the aisle listd will give it (learned on another list).
        rows.set(key, Object.assign(row || {}, { key, item: name, section: entry.params.section !== undefined ? entry.params.section : (row ? row.section : ((learnedAisle(name, list) || {}).section || '')), amount: amount || (row ? row.amount : ''), checked: false, pending: true, removing: false }));
        break;
      }
      case 'checkItem': if (row) Object.assign(row, { checked: true, pending: true }); break;
      case 'uncheckItem': if (row) Object.assign(row, { checked: false, pending: true }); break;
      case 'removeItem': if (row) Object.assign(row, { removing: true, pending: true }); break;
      case 'setQuantity': if (row) Object.assign(row, { amount: entry.params.quantity || '', pending: true }); break;
      case 'moveItem': if (row && entry.params.section !== undefined) Object.assign(row, { section: entry.params.section, pending: true }); break;
      case 'clearChecked':
        // The items it names (what was shown ticked when it was made), else every ticked one.
        for (const r of rows.values()) {
          const named = !entry.params.items || entry.params.items.some((i) => itemKey(i) === itemKey(r.item));
          if (r.checked && named) Object.assign(r, { removing: true, pending: true });
        }
        break;
    }
  }
  const sections = [''].concat((list.sections || []).map((s) => s.name));
  for (const row of rows.values()) if (!sections.includes(row.section)) sections.push(row.section);
  const groups = sections.map((name) => ({ name, rows: Array.from(rows.values()).filter((r) => r.section === name) }));
  // Every row by key (the list's items and the waiting adds), for the drawing to look up.
  groups.rowsByKey = rows;
  return groups;
}

const escape = (text) => String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));

/// A warning read — on screen for `READ_AFTER` while the page is seen — or older than a day
/// fades out of the list and folds into Recent ("not made: …"): warnings no longer stay for days
/// and push the list down.
let READ_AFTER = 20000;  // a test may shorten it
const DAY = 86400000;
function foldWarnings() {
  const now = Date.now();
  const shown = new Set([...document.querySelectorAll('.problem[data-problem]')].map((p) => p.dataset.problem));
  let folded = false;
  for (const problem of [...state.problems]) {
    problem.made = problem.made || now;
    if (shown.has(problem.id) && document.visibilityState === 'visible' && !problem.seenAt) problem.seenAt = now;
    if ((problem.seenAt && now - problem.seenAt >= READ_AFTER) || now - problem.made >= DAY) {
      state.problems = state.problems.filter((p) => p !== problem);
      const list = state.lists.find((l) => l.id === problem.list) || { id: problem.list, name: problem.listName || '' };
      state.recent.unshift({ revision: state.revision + 0.5, list: { id: list.id, name: list.name }, who: 'Not made:', text: problem.message, time: new Date(problem.made).toISOString() });
      folded = true;
    }
  }
  if (folded) { state.recent.length = Math.min(state.recent.length, 200); saveState(); render(); }
}
setInterval(foldWarnings, 2000);

function render() {
  const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.key : null;
  renderLists();
  renderList();
  renderRecent();
  renderHeld();
  renderStatus();
  // Unpaired, nothing can be sent: the add form says so by being off.
  for (const field of document.querySelectorAll('form[data-add] input, form[data-add] button')) {
    field.disabled = state.connection === 'unpaired' || state.connection === 'notPaired';
  }
  if (focused) {
    const again = document.querySelector('[data-key="' + CSS.escape(focused) + '"]');
    if (again) again.focus();
  }
}

function renderLists() {
  const nav = document.getElementById('lists');
  setHTML(nav, state.lists.map((list) =>
    '<button type="button" data-key="list-' + list.id + '" data-list="' + list.id + '" aria-current="' + (list.id === state.current) + '">' + escape(list.name) + '</button>'
  ).join(''));
}

function problemHTML(problem) {
  const typed = problem.typed && !formHolds(problem.typed);
  return '<p class="problem" role="alert" data-problem="' + escape(problem.id) + '"><span class="why">⚠ ' + escape(problem.message) + '</span><span class="choices">' +
    (problem.offer ? '<button type="button" data-key="offer-' + escape(problem.id) + '" data-offer="' + escape(problem.id) + '">' + escape(problem.offer.label) + '</button>' : '') +
    (typed ? '<button type="button" data-key="refill-' + escape(problem.id) + '" data-refill="' + escape(problem.id) + '">Edit and add again</button>' : '') +
    '<button type="button" data-key="dismiss-' + escape(problem.id) + '" data-dismiss="' + escape(problem.id) + '">Dismiss</button></span></p>';
}

function renderRecent() {
  const list = document.getElementById('recent-changes');
  const entries = state.recent.filter((entry) => state.current === null || entry.list.id === state.current).slice(0, 15);
  setHTML(list, entries.map((entry) =>
    '<li>' + escape(entry.origin ? whoMade(entry.origin) : entry.who) + ' ' + escape(entry.text) + ' <time datetime="' + escape(entry.time) + '">' + escape(clock(entry.time)) + '</time></li>'
  ).join(''));
}

/// A queue held from before this phone was unpaired: what it holds, and the person's choice
/// (once paired again and live).
function renderHeld() {
  const held = document.getElementById('held');
  const count = state.queue.length;
  if (!state.held || !count) { setHTML(held, ''); held.hidden = true; return; }
  held.hidden = false;
  const what = state.queue.map((entry) => describe([editStep(entry)], '')).join(', ');
  setHTML(held, '<p>' + count + (count === 1 ? ' change' : ' changes') + ' made on this phone before it was unpaired, not sent: ' + escape(what) + '.</p>' +
    (state.connection === 'live'
      ? '<p class="choices"><button type="button" data-key="held-send" data-held="send">Send ' + (count === 1 ? 'it' : 'them') + '</button>' +
        '<button type="button" data-key="held-discard" data-held="discard">Discard</button></p>'
      : ''));
}

/// A queued edit as a change step, to be told in words.
function editStep(entry) {
  const p = entry.params;
  switch (entry.method) {
    case 'addItem': return { op: 'add', item: p.item };
    case 'removeItem': return { op: 'remove', item: p.item };
    case 'checkItem': return { op: 'check', item: p.item };
    case 'uncheckItem': return { op: 'uncheck', item: p.item };
    case 'setQuantity': return { op: 'quantity', item: p.item, quantity: p.quantity };
    case 'moveItem': return { op: 'move', item: p.item, section: p.section };
    case 'clearChecked': return { op: 'clear', items: p.items };
    default: return { op: entry.method };
  }
}

async function settleHeld(choice) {
  if (choice === 'discard') {
    const entries = state.queue;
    state.queue = [];
    await store('queue', 'readwrite', (s) => { for (const entry of entries) s.delete(entry.editId); });
  }
  state.held = false;
  saveState();
  render();
  flush();
}

function renderStatus() {
  const waitingCount = state.queue.length;
  const waitingText = waitingCount ? ' — ' + waitingCount + (waitingCount === 1 ? ' change' : ' changes') + ' waiting to be sent' : '';
  const text = {
    connecting: 'Connecting…' + waitingText,
    live: 'Live' + waitingText,
    offline: 'Offline: the lists as last seen' + waitingText,
    listdDown: 'listd is not running: the lists as last seen' + waitingText,
    busy: 'Busy: trying again shortly' + waitingText,
    tooLarge: 'A list or its history is too large for this page: the lists as last seen' + waitingText,
    unpaired: 'This device is no longer paired. Pair it again with “listctl web pair NAME” (on a household’s server, as root).',
    notPaired: 'This device is not paired. On the computer that runs listd, run “listctl web pair NAME” (any name for ' +
      'this device) and open the link it prints, or scan its QR code, here. On a household’s server, as root: ' +
      '“sudo listctl web pair NAME --control-socket /run/listd-web/control.sock”.',
  }[state.connection];
  const status = document.getElementById('status');
  if (!status.dataset.message) setText(status, text);
}

function showStatus(message) {
  const status = document.getElementById('status');
  status.dataset.message = '1';
  status.textContent = message;
  setTimeout(() => { delete status.dataset.message; renderStatus(); }, 4000);
}

/// A revoked device keeps nothing of the household's lists: not on the screen, not on the phone.
/// (Its queue of unsent edits is kept, unsent.)
function forgetLists() {
  Object.assign(state, { instance: null, revision: 0, lists: [], current: null, problems: [], recent: [], names: {}, seen: {}, fresh: {}, tickOrder: {} });
  saveState();
}

function setConnection(connection) {
  state.connection = connection;
  render();
}
