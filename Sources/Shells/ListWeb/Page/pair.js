// The pairing page: sends the one-time code from the link's fragment (never in a request line),
// keeps the device's token in this origin's storage (no cookie: a browser sends a cookie to
// every port of the host, so to any other user's server there too), and goes to the lists.
'use strict';
(async () => {
  const status = document.getElementById('pair-status');
  const code = location.hash.slice(1);
  history.replaceState(null, '', '/pair');
  if (!code) {
    status.textContent = 'This link has no pairing code. Run “listctl web pair NAME” on the computer and open the link it prints.';
    return;
  }
  // Over plain HTTP (but on this computer) the token would cross the network in clear, and be
  // kept for an origin the phone will not open again: said, and the code kept.
  if (!window.isSecureContext) {
    status.textContent = 'This page was opened over plain HTTP (' + location.host + '), where this device’s pairing ' +
      'would travel unprotected. Open listd-web over HTTPS — behind a reverse proxy such as Caddy, a VPN’s certificate, ' +
      'or listd-web --tls-cert (web.md, “Phones on the household’s network”) — and pair with a new link. This link was not used.';
    return;
  }
  try {
    const response = await fetch('/pair', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ code }),
      credentials: 'omit',
    });
    const body = await response.json().catch(() => ({}));
    if (!response.ok) {
      status.textContent = body.message || ('Pairing failed (' + response.status + ').');
      return;
    }
    // Kept? (Storage a browser refuses, a private window that forgets it.)
    let kept = false;
    try {
      localStorage.setItem('listd-web-token', body.token);
      kept = localStorage.getItem('listd-web-token') === body.token;
    } catch { /* refused */ }
    if (!kept) {
      status.textContent = 'Paired as “' + body.device + '”, but this browser did not keep the pairing (is site ' +
        'storage blocked for this site?). Allow it, then on the computer: listctl web revoke “' + body.device + '” and pair again.';
      return;
    }
    status.textContent = 'Paired as “' + body.device + '”. Opening the lists…';
    location.replace('/');
  } catch (error) {
    status.textContent = 'listd-web cannot be reached: ' + error.message;
  }
})();
