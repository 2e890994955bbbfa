// The lists page. It keeps the lists as last seen and a queue of edits on the phone
// (IndexedDB), talks to listd through listd-web's live connection (JSON-RPC, as on listd's
// socket), and sends every edit with an id and the revision it was made on: listd applies each
// once and merges an edit made offline with what others did meanwhile — it reports, never
// resurrects. Nothing is decided here that listd decides.
'use strict';

const state = {
  instance: null,      // the state listd serves (revisions mean nothing across instances)
  revision: 0,         // the last revision this page has seen
  lists: [],           // as listd last said
  current: null,       // the id of the list shown
  queue: [],           // edits not yet confirmed or denied, oldest first
  problems: [],        // what listd did not apply, with its reason
  recent: [],          // recent changes, newest first: {revision, list, who, text, time}
  names: {},           // list id -> item names seen in its history (for completion)
  connection: 'connecting', // connecting | live | offline | notPaired | unpaired | listdDown | busy | tooLarge
  editing: null,       // the item whose amount and section are being changed (its key)
  device: null,        // the paired device's id, as listd-web said (/whoami)
  deviceName: null,    // and its name: changes made under it are this phone's own
  seen: {},            // list id -> the revision it had when the person last left it
  fresh: {},           // list id -> {item key: revision}: added by others since it was last left
  tickOrder: {},       // list id -> {item key: revision}: when each item was ticked, as this page saw it
  hideTicked: false,   // the ticked items, below the rest, folded away
  held: false,         // the queue was made before this phone was unpaired: sent only if the person says
  people: {},          // uid -> login name, as listd-web said: a change is named by its person
  devices: [],         // the paired devices' names: a change made under one is a phone's
  fileAuthor: '',      // who saves the list file (the person listd runs as), when a person
};

// ---------------------------------------------------------------------------------------------
// The phone's copy: IndexedDB, one store for the page's state, one for the queue.

let database = null;

function openDatabase() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open('listd-web', 1);
    request.onupgradeneeded = () => {
      request.result.createObjectStore('state');
      request.result.createObjectStore('queue', { keyPath: 'editId' });
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function store(name, mode, work) {
  return new Promise((resolve, reject) => {
    const transaction = database.transaction(name, mode);
    const result = work(transaction.objectStore(name));
    transaction.oncomplete = () => resolve(result && result.result);
    transaction.onerror = () => reject(transaction.error);
    transaction.onabort = () => reject(transaction.error);
  });
}

/// The page's copy saved after the frame that shows a change, once for a burst of them: a copy
/// a moment older only means the changes since are heard again (`subscribe {since}`).
let saveTimer = null;
function saveSoon() {
  if (saveTimer === null) saveTimer = setTimeout(() => { saveTimer = null; saveState(); }, 100);
}

function saveState() {
  if (!database) return Promise.resolve();
  const { instance, revision, lists, current, problems, recent, names, device, deviceName, seen, fresh, tickOrder, hideTicked, held, people, devices, fileAuthor } = state;
  return store('state', 'readwrite', (s) => s.put({ instance, revision, lists, current, problems, recent, names, device, deviceName, seen, fresh, tickOrder, hideTicked, held, people, devices, fileAuthor }, 'page'));
}

async function loadState() {
  const saved = await store('state', 'readonly', (s) => s.get('page'));
  if (saved) Object.assign(state, saved);
  const queued = await store('queue', 'readonly', (s) => s.getAll());
  state.queue = (queued || []).sort((a, b) => a.made - b.made || a.sequence - b.sequence);
}

// ---------------------------------------------------------------------------------------------
// This device's token: kept by the page in its own origin's storage, which no other port or
// program of this machine can read (a cookie went to every port of the host), and sent by the
// page itself: in the live connection's subprotocol, and as a bearer token to /whoami.

const TOKEN_KEY = 'listd-web-token';

function deviceToken() {
  try { return localStorage.getItem(TOKEN_KEY); } catch { return null; }
}

function forgetToken() {
  try { localStorage.removeItem(TOKEN_KEY); } catch { /* nothing kept */ }
}

/// With the uids of changes whose person the page does not know yet, to learn their names.
function whoami() {
  const uids = [...unnamed].slice(0, 64);
  return fetch('/whoami' + (uids.length ? '?uids=' + uids.join(',') : ''),
    { cache: 'no-store', headers: { Authorization: 'Bearer ' + deviceToken() } });
}

/// The uids of changes seen whose person's name was not asked yet.
const unnamed = new Set();
let naming = null;

/// Takes what /whoami said of people: their names, the phones', who saves the file.
function learnPeople(answer) {
  if (answer.devices !== undefined) state.devices = answer.devices;
  if (answer.fileAuthor !== undefined) state.fileAuthor = answer.fileAuthor;
  for (const [uid, name] of Object.entries(answer.people || {})) state.people[uid] = name;
}

/// A change by a user whose name the page lacks: asked for soon, one request for a burst.
function wantName(origin) {
  if (!origin || origin.kind !== 'client' || origin.uid === undefined || state.devices.includes(origin.name)) return;
  if (state.people[origin.uid] !== undefined || unnamed.has(origin.uid)) return;
  unnamed.add(origin.uid);
  if (naming) return;
  naming = setTimeout(async () => {
    naming = null;
    try {
      const asked = [...unnamed];
      const response = await whoami();
      if (!response.ok) return;
      learnPeople(await response.json());
      // A uid the user database does not know is not asked again.
      for (const uid of asked) { unnamed.delete(uid); if (state.people[uid] === undefined) state.people[uid] = ''; }
      saveState();
      render();
    } catch { /* offline: asked again with the next /whoami, when the page connects again */ }
  }, 50);
}

// ---------------------------------------------------------------------------------------------
// The live connection.

let socket = null;
let nextRequest = 1;
const waiting = new Map();
let reconnectDelay = 1000;
let reconnectTimer = null;

function connect() {
  if (socket && socket.readyState <= WebSocket.OPEN) return;
  if (!navigator.onLine) { setConnection('offline'); return; }
  if (state.connection === 'unpaired' || state.connection === 'notPaired') return;
  const token = deviceToken();
  if (!token) { setConnection('notPaired'); return; }
  clearTimeout(reconnectTimer);
  setConnection(state.connection === 'live' ? 'connecting' : state.connection);
  socket = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/live',
    ['listd-web', 'listd-web.token.' + token]);
  socket.onopen = async () => { reconnectDelay = 1000; await knowDevice(); subscribe(); };
  socket.onmessage = (event) => receive(event.data);
  socket.onclose = (event) => closed(event);
}

/// Which paired device this is. A queue made under another one (this phone was unpaired, and
/// paired again since) is held: shown, and sent only if the person says so.
async function knowDevice() {
  try {
    const response = await whoami();
    if (!response.ok) return;
    const answer = await response.json();
    const { id, device } = answer;
    learnPeople(answer);
    if (state.device && id && id !== state.device && state.queue.length) state.held = true;
    if (id) state.device = id;
    if (device) state.deviceName = device;
    saveState();
  } catch { /* known next time */ }
}

/// This phone was unpaired: nothing of the lists stays, edits stop, and its queue is held.
function unpaired() {
  forgetToken();
  forgetLists();
  if (state.queue.length) state.held = true;
  saveState();
  setConnection('unpaired');
}

function closed(event) {
  socket = null;
  for (const { reject, timer } of waiting.values()) { clearTimeout(timer); reject({ transport: true }); }
  waiting.clear();
  if (event.code === 1008) { unpaired(); return; }
  // Refused before it opened: offline, or unpaired while away (listd-web refuses the upgrade
  // of an unpaired device like any request, and the page cannot see why): asked.
  if (event.code === 1006 && navigator.onLine) {
    whoami().then((response) => { if (response.status === 401) unpaired(); }, () => {});
  }
  // 1013 "try again later": listd is not running, or listd-web is full ("busy: …").
  if (event.code === 1013) setConnection(event.reason.startsWith('busy') ? 'busy' : 'listdDown');
  else if (event.code === 1009) setConnection('tooLarge');
  else setConnection('offline');
  reconnectTimer = setTimeout(connect, reconnectDelay);
  reconnectDelay = Math.min(reconnectDelay * 2, 15000);
}

/// One request; resolves with its result, rejects with its error ({code, message, data}) or
/// {transport: true} when the connection went (the edit stays queued and is sent again).
function call(method, params, timeout = 15000) {
  return new Promise((resolve, reject) => {
    if (!socket || socket.readyState !== WebSocket.OPEN) { reject({ transport: true }); return; }
    const id = nextRequest++;
    // A reply that never comes means a connection that is gone without saying so (a phone
    // that slept, a network that changed): close it, and everything queued is sent again.
    const timer = setTimeout(() => { if (socket) socket.close(); }, timeout);
    waiting.set(id, { resolve, reject, timer });
    socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  });
}

function receive(text) {
  let message;
  try { message = JSON.parse(text); } catch { return; }
  if (message.id !== undefined && message.id !== null && waiting.has(message.id)) {
    const { resolve, reject, timer } = waiting.get(message.id);
    clearTimeout(timer);
    waiting.delete(message.id);
    if (message.error) reject(message.error); else resolve(message.result);
    return;
  }
  if (message.method === 'didChangeDelegates' && message.params) {
    // A rule stopped or came back: said on every list as it happens.
    state.missingDelegates = message.params.missingDelegates || [];
    render();
    return;
  }
  if (message.method && message.method.startsWith('did') && message.params) changed(message.method, message.params);
}

/// What the page hears: every change, and a household's rule stopping or coming back.
const EVENTS = ['didCreateShoppingList', 'didUpdateShoppingList', 'didRenameShoppingList', 'didDeleteShoppingList',
  'didRejectFileEdit', 'didChangeDelegates'];

async function subscribe() {
  let snapshot;
  try {
    snapshot = state.instance
      ? await call('subscribe', { since: state.revision, instance: state.instance, events: EVENTS })
      : await call('subscribe', { events: EVENTS });
  } catch (error) {
    if (error.transport) return;
    // 1104 replyTooLarge: the lists are more than listd-web passes to a page.
    if (error.code === 1104) { setConnection('tooLarge'); return; }
    // 1010 historyCompacted, 1011 instanceChanged: the changes since are not all kept, or
    // listd serves other lists now. Take the lists as they are.
    state.instance = null;
    try { snapshot = await call('subscribe', { events: EVENTS }); } catch (again) {
      if (again.code === 1104) setConnection('tooLarge');
      return;
    }
  }
  adopt(snapshot);
  setConnection('live');
  loadHistory();
  flush();
}

function adopt(snapshot) {
  state.instance = snapshot.instance || null;
  // A household's rule (a delegate) that stopped: said on every list until it is back.
  state.missingDelegates = snapshot.missingDelegates || [];
  state.revision = Math.max(snapshot.revision, 0);
  state.lists = snapshot.lists;
  if (!state.lists.some((list) => list.id === state.current)) state.current = state.lists.length ? state.lists[0].id : null;
  saveState();
  render();
}

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
    state.fresh[listId] = Object.assign(state.fresh[listId] || {}, { [item.toLocaleLowerCase()]: params.revision });
  }
}

/// When each item was ticked, for the shop order: ticked items sink in the order they were ticked.
function noteTicks(listId, params) {
  for (const change of params.changes || []) {
    if (change.op !== 'check' && change.op !== 'uncheck') continue;
    const order = state.tickOrder[listId] || (state.tickOrder[listId] = {});
    if (change.op === 'check') order[change.item.toLocaleLowerCase()] = params.revision;
    else delete order[change.item.toLocaleLowerCase()];
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

// ---------------------------------------------------------------------------------------------
// Edits: queued first (so nothing is lost if the phone has no signal, or the page is closed),
// then sent in order.

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

// ---------------------------------------------------------------------------------------------
// What the page shows: the lists as listd said, with this phone's waiting edits on top.

function currentList() {
  return state.lists.find((list) => list.id === state.current) || null;
}

const same = (a, b) => a.trim().toLocaleLowerCase() === b.trim().toLocaleLowerCase();

/// The list with waiting edits applied, each item marked: checked, pending, removing.
function shown(list) {
  const rows = new Map();
  const sectionOf = new Map();
  for (const section of list.sections || []) for (const item of section.items) sectionOf.set(item, section.name);
  const checked = new Set(list.checked);
  const quantities = list.quantities || {};
  for (const item of list.items) {
    const key = item.toLocaleLowerCase();
    rows.set(key, { key, item, section: sectionOf.get(item) || '', checked: checked.has(item), amount: quantities[item] || '', pending: false, removing: false });
  }
  for (const entry of state.queue) {
    if (entry.params.list !== list.id) continue;
    // An add as typed (`6 eggs`) is the item with its amount, as listd-web will read it.
    const added = entry.method === 'addItem' && !entry.params.quantity ? readItem(entry.params.item || '') : null;
    const name = added ? added.text : (entry.params.item || '');
    const key = name.toLocaleLowerCase();
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
          const named = !entry.params.items || entry.params.items.some((i) => i.toLocaleLowerCase() === r.item.toLocaleLowerCase());
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

// The list is drawn by key: each row's markup is kept with its element, and a change replaces
// only the rows whose markup changed (a tick on a list of thousands touches one row), moves
// the rows that moved, and leaves the rest — and the focus, and the scroll — alone.
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
  const key = row.item.toLocaleLowerCase();
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
  const loose = problems.filter((p) => !p.item || !onList.has(p.item.toLocaleLowerCase()));
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
    const key = p.item.trim().toLocaleLowerCase();
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

// ---------------------------------------------------------------------------------------------
// Who changed what, in words.

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
    for (const [item, amount] of Object.entries(other.quantities || {})) amounts.set(item.toLocaleLowerCase(), amount);
  }
  // What the list has (the keys of its rows) is not offered.
  const seen = new Set();
  const names = [];
  for (const id of [list.id].concat(state.lists.map((l) => l.id).filter((id) => id !== list.id))) {
    for (const name of state.names[id] || []) {
      const key = name.toLocaleLowerCase();
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
  const key = item.trim().toLocaleLowerCase();
  if (!key) return null;
  for (const other of [...state.lists].filter((l) => l.id !== list.id).sort((a, b) => b.revision - a.revision)) {
    for (const section of other.sections || []) {
      if (section.items.some((i) => i.toLocaleLowerCase() === key)) return { section: section.name, list: other.name };
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

// ---------------------------------------------------------------------------------------------
// Taps.

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
    const key = target.dataset.edit.toLocaleLowerCase();
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
