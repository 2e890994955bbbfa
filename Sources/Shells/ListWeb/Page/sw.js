// The service worker: keeps the page's own files so that it opens in a shop with no signal.
// Network first (a new version, or "this device is no longer paired", is seen at once when
// there is a network), the kept copy when there is none. The lists themselves are kept by the
// page (IndexedDB), not here.
'use strict';
const CACHE = 'listd-web-4';
const SHELL = [
  '/', '/amounts.js', '/state.js', '/connection.js', '/changes.js', '/edits.js', '/view.js', '/rows.js', '/words.js', '/taps.js',
  '/app.css', '/manifest.webmanifest', '/icon.svg', '/apple-touch-icon.png'];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((key) => key !== CACHE).map((key) => caches.delete(key))))
      .then(() => self.clients.claim())
  );
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin || !SHELL.includes(url.pathname)) return;
  event.respondWith(networkFirst(event.request, url.pathname));
});

async function networkFirst(request, path) {
  const cache = await caches.open(CACHE);
  try {
    // A phone with a bar of signal can wait a long time for nothing: the kept copy after 4 s.
    const response = await Promise.race([
      fetch(request),
      new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), 4000)),
    ]);
    if (response.ok) await cache.put(path, response.clone());
    return response;
  } catch (error) {
    return (await cache.match(path)) || Response.error();
  }
}
