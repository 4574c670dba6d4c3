// Hosted payment pages: a countdown to the quote's expiry and, on the status page, a re-check
// every few seconds until the payment ends. Same-origin, no dependencies; the pages work without it
// (the status page then refreshes itself with <meta http-equiv="refresh">).
(function () {
  'use strict';
  var countdown = document.getElementById('countdown');
  if (countdown) {
    var ends = Date.parse(countdown.getAttribute('data-expires-at') || '');
    var tick = function () {
      var left = Math.max(0, Math.floor((ends - Date.now()) / 1000));
      if (left === 0) {
        countdown.textContent = '(expired)';
        var buttons = document.querySelectorAll('[data-test="sandbox-panel"] button');
        for (var i = 0; i < buttons.length; i++) {buttons[i].disabled = true;}
        return;
      }
      var h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), s = left % 60;
      countdown.textContent = '(' + (h ? h + ' h ' : '') + m + ' min ' + (s < 10 ? '0' : '') + s + ' s left)';
      setTimeout(tick, 1000);
    };
    if (!isNaN(ends)) {tick();}
  }
  var main = document.querySelector('[data-poll-url]');
  if (main && window.fetch) {
    var url = main.getAttribute('data-poll-url');
    var poll = function () {
      fetch(url, { headers: { Accept: 'application/json' }, credentials: 'omit', cache: 'no-store' })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (c) {
          if (c && c.status !== 'created' && c.status !== 'processing') {
            window.location.reload();
          } else {
            setTimeout(poll, 3000);
          }
        })
        .catch(function () { setTimeout(poll, 5000); });
    };
    setTimeout(poll, 3000);
  }
})();
