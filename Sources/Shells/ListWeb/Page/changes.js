// A change from anyone (listctl, the file, another phone, another machine): taken into the page's
// lists, with what it marks (new items, ticks for the shop order) and the shop order itself.
'use strict';

/// How long each change took from its arrival to the frame that shows it, in ms (the last
/// thousand): `make bench` reads it (figure 11).
const repaints = [];
window.listdRepaints = repaints;

/// A change from anyone: listctl, the file, another phone, another machine.
function changed(event, params) {
  const arrived = performance.now();
  requestAnimationFrame(() => setTimeout(() => {
    repaints.push(performance.now() - arrived);
    if (repaints.length > 1000) repaints.shift();
  }, 0));
  const list = params.list;
  if (params.revision > state.revision) {
    state.revision = params.revision;
    const index = state.lists.findIndex((l) => l.id === list.id);
    if (event === 'didDeleteShoppingList') {
      if (index >= 0) state.lists.splice(index, 1);
      if (state.current === list.id) {
        state.current = state.lists.length ? state.lists[0].id : null;
        // Said where the person looks, and kept until read: the list did not just jump.
        state.problems.push({ id: 'deleted' + params.revision, list: null, listName: list.name, item: null,
          message: '“' + list.name + '” was deleted' + (params.origin ? ' by ' + whoMade(params.origin) : '') + ' while you had it open.' });
      }
    } else if (index >= 0) {
      state.lists[index] = list;
    } else {
      state.lists.push(list);
      if (state.current === null) state.current = list.id;
    }
  }
  markFresh(list.id, params);
  noteTicks(list.id, params);
  // Replayed changes (after `since`) are older than the snapshot: only told, not applied.
  note({ revision: params.revision, event, list: { id: list.id, name: list.name }, changes: params.changes, origin: params.origin, undoes: params.undoes, time: new Date().toISOString() });
  learnNames(list.id, params.changes);
  saveSoon();
  render();
}

/// Items someone else added to a list since the person last left it are marked until they
/// leave it again (a replayed change, made while the page was closed, is marked too).
function markFresh(listId, params) {
  const origin = params.origin || {};
  const mine = state.deviceName && origin.name === state.deviceName;
  if (mine || state.seen[listId] === undefined || params.revision <= state.seen[listId]) return;
  for (const change of params.changes || []) {
    const item = change.op === 'add' ? change.item : change.op === 'replace' ? change.with : null;
    if (!item) continue;
    state.fresh[listId] = Object.assign(state.fresh[listId] || {}, { [itemKey(item)]: params.revision });
  }
}

/// When each item was ticked, for the shop order: ticked items sink in the order they were ticked.
function noteTicks(listId, params) {
  for (const change of params.changes || []) {
    if (change.op !== 'check' && change.op !== 'uncheck') continue;
    const order = state.tickOrder[listId] || (state.tickOrder[listId] = {});
    if (change.op === 'check') order[itemKey(change.item)] = params.revision;
    else delete order[itemKey(change.item)];
  }
}

/// The shop order of `groups` (`shown`): what is left to buy first, by aisle (section) as the list
/// has them; the ticked items below in one group, in the order they were ticked (those ticked
/// before this page knew first, in the list's order; this phone's own waiting ticks last), or
/// folded away. The file and other clients keep the list's own order.
const TICKED = '\u0000ticked';
function shopOrder(groups, listId) {
  const ticked = [];
  const open = groups.map((g) => ({ name: g.name, rows: g.rows.filter((r) => (r.checked ? (ticked.push(r), false) : true)) }));
  const order = state.tickOrder[listId] || {};
  const when = (r) => (r.pending ? Number.MAX_SAFE_INTEGER : order[r.key] ?? -1);
  ticked.sort((a, b) => when(a) - when(b));
  return open.concat([{ name: TICKED, rows: state.hideTicked ? [] : ticked, count: ticked.length }]);
}

/// The person leaves a list (another list shown, or the page put away): what was new there is
/// seen.
function leave(listId) {
  if (listId === null || listId === undefined) return;
  state.seen[listId] = state.revision;
  delete state.fresh[listId];
}

async function loadHistory() {
  if (state.current === null) return;
  try {
    const reply = await call('getHistory', { list: state.current, limit: 100 });
    for (const entry of reply.changes) { note(entry); learnNames(entry.list.id, entry.changes); }
    saveState();
    render();
  } catch { /* the history is a help, not a need */ }
}
