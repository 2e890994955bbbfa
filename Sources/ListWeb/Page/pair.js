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
    status.textContent = 'Paired as “' + body.device + '”. Opening the lists…';
    location.replace('/');
  } catch (error) {
    status.textContent = 'listd-web cannot be reached: ' + error.message;
  }
})();
