// This phone's edits: queued first (so nothing is lost if the phone has no signal, or the page is
// closed), then sent in order; what listd refused, and this device's undo.
'use strict';

let flushing = false;
let retryTimer = null;

function edit(method, params) {
  const list = state.lists.find((l) => l.id === params.list);
  const entry = {
    editId: editId(),
    method,
    params,
    // Its list's name, to say which list a refusal was for when that list is gone by then.
    listName: list ? list.name : null,
    basedOn: state.revision,
    instance: state.instance,
    made: Date.now(),
    sequence: state.queue.length ? state.queue[state.queue.length - 1].sequence + 1 : 0,
  };
  state.queue.push(entry);
  const stored = store('queue', 'readwrite', (s) => s.put(entry));
  render();
  stored.then(flush, flush);
  return entry.editId;
}

async function flush() {
  if (flushing || state.connection !== 'live' || state.held) return;
  flushing = true;
  try {
    while (state.queue.length) {
      const entry = state.queue[0];
      const params = Object.assign({}, entry.params, { editId: entry.editId });
      // A revision of another instance means nothing to listd: the edit is sent as new.
      if (entry.instance === state.instance) params.basedOn = entry.basedOn;
      let problem = null;
      try {
        const result = await call(entry.method, params);
        take(result, entry);
        addConfirmed(entry.editId);
      } catch (error) {
        if (error.transport) break;
        // 1102 busy: this device sent too much too fast; the edit goes again once allowed.
        if (error.code === 1102) {
          clearTimeout(retryTimer);
          retryTimer = setTimeout(flush, (error.data && error.data.retryAfterMs) || 1000);
          break;
        }
        // 1100 storageFailed, 1101 unavailable: nothing was decided; 1103 outcomeUnknown: it may
        // have been made. Either way it is sent again a little later, with its editId: listd
        // answers a resend of an edit it made from its record, and makes one it did not.
        if (error.code === 1100 || error.code === 1101 || error.code === 1103) {
          clearTimeout(retryTimer);
          retryTimer = setTimeout(flush, 5000);
          showStatus(error.message);
          break;
        }
        problem = refusal(entry, error);
      }
      state.queue.shift();
      await store('queue', 'readwrite', (s) => s.delete(entry.editId));
      if (problem) state.problems.push(problem);
      saveState();
      render();
    }
  } finally {
    flushing = false;
  }
}

/// What listd refused, for the person: the item it concerns, why (a delegate's own words), what
/// was typed (to put back in the form), and the change its sentence suggests, offered.
function refusal(entry, error) {
  const data = error.data || {};
  // An add as typed (`6 eggs`) concerns the item it names (eggs).
  const typedAdd = entry.method === 'addItem' && !entry.params.quantity && entry.params.item;
  const item = (typedAdd ? readItem(entry.params.item).text : entry.params.item) || null;
  let message = error.message;
  if (data.reason === 'deniedByDelegate') {
    const why = (data.denials || []).map((d) => d.reason + ' (' + d.delegate + ')')
      .concat((data.timedOut || []).map((name) => name + ' did not answer in time'));
    message = (item ? item + ': ' : '') + why.join('; ');
  } else if (item && !message.includes(item)) {
    message = item + ': ' + message;
  }
  if (data.reason === 'listNotFound') {
    const name = entry.listName ? '“' + entry.listName + '”' : 'Its list';
    message = (item ? item + ': ' : '') + name + ' was deleted meanwhile; this change was not made.';
  }
  const problem = { id: entry.editId, list: entry.params.list, listName: entry.listName || null, item, message };
  if (entry.method === 'addItem') {
    problem.typed = { item: entry.params.item, quantity: entry.params.quantity || '', section: entry.params.section || '' };
    if (data.reason === 'itemExists' && data.quantity) {
      problem.offer = { label: 'Set its amount to ' + data.quantity, method: 'setQuantity', params: { list: entry.params.list, item: data.item, quantity: data.quantity } };
    }
  }
  return problem;
}

/// A confirm's list, and what a clear kept (each with its delegates' reasons).
function take(result, entry) {
  const list = result && (result.list || (result.items ? result : null));
  if (list && list.id !== undefined && list.items) {
    const index = state.lists.findIndex((l) => l.id === list.id);
    if (index >= 0 && state.lists[index].revision <= list.revision) {
      state.lists[index] = Object.assign({}, state.lists[index], list);
    }
  }
  for (const kept of (result && result.kept) || []) {
    const reasons = kept.denials.map((d) => d.reason).concat(kept.timedOut.map((name) => name + ' did not answer in time'));
    state.problems.push({ id: entry.editId + kept.item, list: entry.params.list, item: kept.item, message: '“' + kept.item + '” was kept: ' + reasons.join('; ') });
  }
}

function editId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/// Undoes this device's own latest change that is not undone yet (listd picks it: `mine`), never
/// someone else's; says which it was.
async function undoMine() {
  const list = currentList();
  if (!list) return;
  const id = 'undo' + Date.now();
  try {
    const result = await call('undo', { mine: true });
    take(result, { editId: id, params: { list: result.list.id } });
    showStatus('Undone: your change “' + describe(result.undone.changes, result.undone.event) + '” on ' + result.undone.list.name + '.');
  } catch (error) {
    if (!error.transport) state.problems.push({ id, list: list.id, item: null, message: error.message });
  }
  saveState();
  render();
}
