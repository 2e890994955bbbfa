// Who changed what, in words; the names and aisles the add form completes from the household's
// lists; when a change was seen.
'use strict';

/// Who made a change, in words: a phone by its name; a person by their login name, with the
/// program they used ("alice (listctl)"); a save of the list file by the person who saves it
/// ("alice (the list file)"); else the program's name or its process.
function whoMade(origin) {
  origin = origin || {};
  if (origin.kind === 'file') {
    if (origin.host) return 'The list file on ' + origin.host;
    return state.fileAuthor ? state.fileAuthor + ' (the list file)' : 'The list file';
  }
  const person = origin.uid !== undefined && !state.devices.includes(origin.name) ? state.people[origin.uid] : '';
  if (person) return origin.name ? person + ' (' + origin.name + ')' : person;
  return origin.name || (origin.pid ? 'pid ' + origin.pid : 'Someone');
}

function note(entry) {
  if (state.recent.some((r) => r.revision === entry.revision)) return;
  const who = whoMade(entry.origin);
  let text = describe(entry.changes, entry.event);
  if (entry.undoes) {
    // In words, not numbers: whose change of what was undone, when this page saw it.
    const undone = state.recent.find((r) => r.revision === entry.undoes);
    text = !undone ? 'undid an earlier change (' + text + ')'
      : 'undid ' + (undone.who === who ? 'its own “' : undone.who + '’s “') + undone.text + '”';
  }
  wantName(entry.origin);
  state.recent.push({ revision: entry.revision, list: entry.list, who, origin: entry.origin, text, time: entry.time });
  state.recent.sort((a, b) => b.revision - a.revision);
  state.recent.length = Math.min(state.recent.length, 200);
}

function describe(changes, event) {
  if (event === 'didCreateShoppingList') return 'created the list';
  if (event === 'didDeleteShoppingList') return 'deleted the list';
  changes = changes || [];
  const ops = new Set(changes.map((c) => c.op));
  const count = (n, what) => n + ' ' + what + (n === 1 ? '' : 's');
  if (changes.length > 1 && ops.size === 1 && ops.has('remove')) return 'cleared ' + count(changes.length, 'item');
  if (changes.length > 1 && ops.has('add') && [...ops].every((op) => op === 'add' || op === 'check')) return 'put back ' + count(changes.filter((c) => c.op === 'add').length, 'item');
  const words = changes.map((c) => {
    switch (c.op) {
      case 'add': return 'added ' + c.item + (c.quantity ? ' (' + c.quantity + ')' : '') + (c.section ? ' to ' + c.section : '');
      case 'remove': return 'removed ' + c.item;
      case 'check': return 'ticked ' + c.item;
      case 'uncheck': return 'unticked ' + c.item;
      case 'replace': return 'changed ' + c.item + ' to ' + c.with;
      case 'move': return 'moved ' + c.item + (c.section ? ' to ' + c.section : ' out of its section');
      case 'quantity': return c.quantity ? 'set ' + c.item + ' to ' + c.quantity : 'cleared the amount of ' + c.item;
      case 'addSection': return 'added section ' + c.section;
      case 'renameSection': return 'renamed section ' + c.from + ' to ' + c.to;
      case 'removeSection': return 'removed section ' + c.section;
      case 'rename': return 'renamed the list to ' + c.to;
      case 'clear': return 'cleared ' + ((c.items && c.items.length) ? c.items.join(', ') : 'the ticked items');
      default: return c.op;
    }
  });
  return words.join(', ') || 'changed the list';
}

/// What the household has bought, to complete the add form on any list: the names seen on every
/// list (this one's first), each with its last amount when a list has one.
function householdNames(list, listKeys) {
  const amounts = new Map();
  for (const other of [...state.lists].sort((a, b) => a.revision - b.revision)) {
    for (const [item, amount] of Object.entries(other.quantities || {})) amounts.set(itemKey(item), amount);
  }
  // What the list has (the keys of its rows) is not offered.
  const seen = new Set();
  const names = [];
  for (const id of [list.id].concat(state.lists.map((l) => l.id).filter((id) => id !== list.id))) {
    for (const name of state.names[id] || []) {
      const key = itemKey(name);
      if (listKeys.has(key) || seen.has(key)) continue;
      seen.add(key);
      names.push([name, amounts.get(key) || '']);
    }
  }
  return names.slice(0, 500);
}

/// The aisle (section) the household gave `item` on another list, with that list's name — as
/// listd will use it when the add names none: the list changed last that has it in a section.
function learnedAisle(item, list) {
  const key = itemKey(item);
  if (!key) return null;
  for (const other of [...state.lists].filter((l) => l.id !== list.id).sort((a, b) => b.revision - a.revision)) {
    for (const section of other.sections || []) {
      if (section.items.some((i) => itemKey(i) === key)) return { section: section.name, list: other.name };
    }
  }
  return null;
}

/// As an item is typed: its aisle from another list, said in the Section field.
document.addEventListener('input', (event) => {
  const form = event.target.form;
  if (!form || form.dataset.add === undefined || event.target.name !== 'item') return;
  const list = currentList();
  const typed = readItem(event.target.value).text;
  const here = list && (list.sections || []).find((s) => s.items.some((i) => same(i, typed)));
  const aisle = list && !here ? learnedAisle(typed, list) : null;
  form.section.placeholder = aisle ? aisle.section + ' (as on ' + aisle.list + ')' : 'Section (optional)';
});

function learnNames(listId, changes) {
  const names = state.names[listId] || (state.names[listId] = []);
  for (const c of changes || []) {
    const name = c.op === 'replace' ? c.with : c.op === 'add' ? c.item : null;
    if (name && !names.some((n) => same(n, name))) names.push(name);
  }
  if (names.length > 500) names.splice(0, names.length - 500);
}

/// When a change was seen: the time today, "yesterday 18:04", the weekday within a week, else
/// the date.
// Made once: a formatter made for every time drawn was most of the cost of drawing Recent.
const hoursFormat = new Intl.DateTimeFormat([], { hour: '2-digit', minute: '2-digit' });
const weekdayFormat = new Intl.DateTimeFormat([], { weekday: 'short' });
const dateFormat = new Intl.DateTimeFormat([], { day: 'numeric', month: 'short' });

function clock(time) {
  const date = new Date(time);
  if (isNaN(date)) return '';
  const hours = hoursFormat.format(date);
  const day = (d) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  const days = Math.round((day(new Date()) - day(date)) / 86400000);
  if (days === 0) return hours;
  if (days === 1) return 'yesterday ' + hours;
  if (days > 1 && days < 7) return weekdayFormat.format(date) + ' ' + hours;
  return dateFormat.format(date) + ' ' + hours;
}

// The list keeps room below it for the footer, whatever the footer holds (the form's notices, the
// Section field while the form is used): the last row is never under it.
new ResizeObserver(() => {
  document.body.style.paddingBottom = (document.querySelector('footer').offsetHeight + 16) + 'px';
}).observe(document.querySelector('footer'));
