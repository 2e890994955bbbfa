// The page's state and the phone's copy of it. The page is these scripts, loaded in this order
// (index.html; no build step): state.js (what the page holds, IndexedDB, the device's token, the
// names of people), connection.js (the live connection), changes.js (what others changed),
// edits.js (this phone's queue of edits), view.js (the lists with the waiting edits on top, the
// status and Recent), rows.js (the list drawn row by row), words.js (changes told in words, the
// names the form completes), taps.js (what the person does, and the start). amounts.js before them
// reads amounts, and item keys, as listd does.
//
// The page keeps the lists as last seen and a queue of edits on the phone (IndexedDB), talks to
// listd through listd-web's live connection (JSON-RPC, as on listd's socket), and sends every edit
// with an id and the revision it was made on: listd applies each once and merges an edit made
// offline with what others did meanwhile — it reports, never resurrects. Nothing is decided here
// that listd decides.
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
