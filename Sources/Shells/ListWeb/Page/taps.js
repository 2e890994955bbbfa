// What the person does — taps, the add form, the item editor — and what the phone does (back
// from sleep, on or off a network); then the page starts.
'use strict';

document.addEventListener('click', (event) => {
  const target = event.target.closest('button');
  if (!target) return;
  const list = currentList();
  if (target.dataset.list) {
    if (Number(target.dataset.list) !== state.current) leave(state.current);
    state.current = Number(target.dataset.list);
    saveState();
    render();
    loadHistory();
  } else if (target.dataset.tick !== undefined && list) {
    const row = shown(list).flatMap((g) => g.rows).find((r) => r.item === target.dataset.tick);
    if (row) edit(row.checked ? 'uncheckItem' : 'checkItem', { list: list.id, item: row.item });
  } else if (target.dataset.remove !== undefined && list) {
    edit('removeItem', { list: list.id, item: target.dataset.remove });
  } else if (target.dataset.clear !== undefined && list) {
    // What is shown ticked now, this phone's own unsent ticks among them: only those are
    // cleared (an item ticked elsewhere meanwhile stays), as the button said.
    const ticked = shown(list).flatMap((g) => g.rows).filter((r) => r.checked && !r.removing).map((r) => r.item);
    edit('clearChecked', { list: list.id, items: ticked });
  } else if (target.dataset.undo !== undefined) {
    undoMine();
  } else if (target.dataset.toggleTicked !== undefined) {
    state.hideTicked = !state.hideTicked;
    saveState();
    render();
  } else if (target.dataset.held !== undefined) {
    settleHeld(target.dataset.held);
  } else if (target.dataset.recent !== undefined) {
    const panel = document.getElementById('recent-changes');
    panel.hidden = !panel.hidden;
    target.setAttribute('aria-expanded', String(!panel.hidden));
  } else if (target.dataset.edit !== undefined && list) {
    const key = itemKey(target.dataset.edit);
    state.editing = state.editing === key ? null : key;
    render();
    const editor = document.querySelector('form[data-editor] [name="quantity"]');
    if (editor) editor.focus();
  } else if (target.dataset.cancel !== undefined) {
    state.editing = null;
    render();
  } else if (target.dataset.offer !== undefined) {
    const problem = state.problems.find((p) => p.id === target.dataset.offer);
    if (problem && problem.offer) {
      state.problems = state.problems.filter((p) => p !== problem);
      edit(problem.offer.method, problem.offer.params);
    }
  } else if (target.dataset.refill !== undefined) {
    const problem = state.problems.find((p) => p.id === target.dataset.refill);
    if (problem && problem.typed) {
      const form = document.querySelector('form[data-add]');
      form.item.value = problem.typed.item;
      form.quantity.value = problem.typed.quantity;
      form.section.value = problem.typed.section;
      state.problems = state.problems.filter((p) => p !== problem);
      saveState();
      render();
      form.item.focus();
    }
  } else if (target.dataset.dismiss !== undefined) {
    state.problems = state.problems.filter((p) => p.id !== target.dataset.dismiss);
    saveState();
    render();
  }
});

/// Whether the add form holds what was typed for a refused add (then nothing needs putting back).
function formHolds(typed) {
  const form = document.querySelector('form[data-add]');
  return !!form && form.item.value.trim() === typed.item && form.quantity.value.trim() === typed.quantity && form.section.value.trim() === typed.section;
}

/// The add that the form holds until listd confirms it (then the form is emptied, unless the
/// person typed on meanwhile); refused, what was typed stays, to change and send again.
let formEdit = null;

function addConfirmed(editId) {
  if (formEdit !== editId) return;
  formEdit = null;
  const form = document.querySelector('form[data-add]');
  if (form.dataset.sent === JSON.stringify([form.item.value, form.quantity.value, form.section.value])) form.reset();
}

document.addEventListener('submit', (event) => {
  const editor = event.target.closest('form[data-editor]');
  if (editor) {
    event.preventDefault();
    changeItem(editor);
    return;
  }
  const form = event.target.closest('form[data-add]');
  if (!form) return;
  event.preventDefault();
  const list = currentList();
  const data = Object.fromEntries(new FormData(form));
  const item = (data.item || '').trim();
  if (!list || !item) return;
  const params = { list: list.id, item };
  if ((data.section || '').trim()) params.section = data.section.trim();
  if ((data.quantity || '').trim()) params.quantity = data.quantity.trim();
  const editId = edit('addItem', params);
  if (state.connection === 'live') {
    // Sent now: kept in the form until listd says yes.
    formEdit = editId;
    form.dataset.sent = JSON.stringify([form.item.value, form.quantity.value, form.section.value]);
  } else {
    // Queued on the phone, shown on the list as waiting: the form is free for the next item.
    form.reset();
  }
  form.querySelector('[name="item"]').focus();
});

/// The item editor's Save: its amount set, and moved to the section chosen, as two edits when
/// both changed.
function changeItem(editor) {
  const list = currentList();
  const item = editor.dataset.editor;
  const row = list && shown(list).flatMap((g) => g.rows).find((r) => r.item === item);
  state.editing = null;
  if (!row) { render(); return; }
  const quantity = editor.quantity.value.trim();
  const section = editor.section.value;
  if (quantity !== (row.amount || '')) edit('setQuantity', { list: list.id, item, quantity: quantity || null });
  if (section !== (row.section || '')) edit('moveItem', { list: list.id, item, section });
  render();
}

// Back from sleep, or on another network: make sure the connection is alive, and catch up.
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState !== 'visible') {
    leave(state.current);
    saveState();
    return;
  }
  if (socket && socket.readyState === WebSocket.OPEN) subscribe(); else { reconnectDelay = 1000; connect(); }
});
window.addEventListener('online', () => { reconnectDelay = 1000; connect(); });
// The phone says it has no network: a connection it had may linger unusable for minutes, so
// edits are queued from now on, not sent into it.
window.addEventListener('offline', () => { if (socket) socket.close(); });

(async () => {
  try {
    database = await openDatabase();
    await loadState();
  } catch (error) {
    showStatus('This browser keeps nothing offline: ' + error.message);
  }
  render();
  connect();
  if ('serviceWorker' in navigator) navigator.serviceWorker.register('/sw.js').catch(() => {});
})();
