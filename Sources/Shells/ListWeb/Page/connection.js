// The live connection to listd through listd-web: connect and reconnect, requests and their
// replies, the subscription and the snapshot it brings.
'use strict';

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
