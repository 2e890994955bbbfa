// The pairing page: sends the one-time code from the link's fragment (never in a request line),
// and goes to the lists once listd-web has set this device's cookie.
'use strict';
(async () => {
  const status = document.getElementById('pair-status');
  const code = location.hash.slice(1);
  history.replaceState(null, '', '/pair');
  if (!code) {
    status.textContent = 'This link has no pairing code. Run “listctl web pair NAME” on the computer and open the link it prints.';
    return;
  }
  // Over plain HTTP (but on this computer) a browser drops the device's cookie, which is Secure:
  // the code would be used up for a pairing that does not last. Said, and the code kept.
  if (!window.isSecureContext) {
    status.textContent = 'This page was opened over plain HTTP (' + location.host + '), where the browser cannot keep this ' +
      'device’s pairing. Open listd-web over HTTPS — behind a reverse proxy such as Caddy, a VPN’s certificate, or ' +
      'listd-web --tls-cert (web.md, “Phones on the household’s network”) — and pair with a new link. This link was not used.';
    return;
  }
  try {
    const response = await fetch('/pair', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ code }),
      credentials: 'same-origin',
    });
    const body = await response.json().catch(() => ({}));
    if (!response.ok) {
      status.textContent = body.message || ('Pairing failed (' + response.status + ').');
      return;
    }
    // The cookie kept? (Blocked cookies, a private window that forgets them.)
    const kept = await fetch('/whoami', { cache: 'no-store', credentials: 'same-origin' }).then((r) => r.ok, () => true);
    if (!kept) {
      status.textContent = 'Paired as “' + body.device + '”, but this browser did not keep the pairing (are cookies ' +
        'blocked for this site?). Allow them, then on the computer: listctl web revoke “' + body.device + '” and pair again.';
      return;
    }
    status.textContent = 'Paired as “' + body.device + '”. Opening the lists…';
    location.replace('/');
  } catch (error) {
    status.textContent = 'listd-web cannot be reached: ' + error.message;
  }
})();
