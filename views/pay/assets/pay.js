// Hosted payment pages: a countdown to the quote's expiry and, on the status page, a re-check
// every few seconds until the payment ends. Same-origin, no dependencies; the pages work without it
// (the status page then refreshes itself with <meta http-equiv="refresh">).
// On the gateway rail the payment page's panel opens the gateway's checkout widget (its script
// comes from the gateway's origin, the only third party the page's CSP allows): start the
// checkout on our API, open the widget on its order, post the widget's three fields back to our
// API (the server verifies them), then go to the status page. A failed attempt stays on the same
// order: the person can pay again in the widget, or press Pay again.
(function () {
  'use strict';
  // The words come from the page (data- attributes in its language); "%s" marks where a value goes.
  var words = function (el, name, value) {
    return (el.getAttribute('data-' + name) || '').replace('%s', value === undefined ? '' : value);
  };
  var countdown = document.getElementById('countdown');
  if (countdown) {
    var ends = Date.parse(countdown.getAttribute('data-expires-at') || '');
    var tick = function () {
      var left = Math.max(0, Math.floor((ends - Date.now()) / 1000));
      if (left === 0) {
        countdown.textContent = words(countdown, 'expired');
        var buttons = document.querySelectorAll('[data-test="sandbox-panel"] button');
        for (var i = 0; i < buttons.length; i++) {buttons[i].disabled = true;}
        return;
      }
      var h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), s = left % 60;
      var span = (h ? h + ' ' + words(countdown, 'h') + ' ' : '') + m + ' ' + words(countdown, 'min') + ' ' +
        (s < 10 ? '0' : '') + s + ' ' + words(countdown, 's');
      countdown.textContent = words(countdown, 'left', span);
      setTimeout(tick, 1000);
    };
    if (!isNaN(ends)) {tick();}
  }
  var panel = document.getElementById('gateway-panel');
  if (panel && window.fetch) {
    var payButton = document.getElementById('gateway-pay');
    var message = document.getElementById('gateway-message');
    var say = function (text, stop) {
      message.textContent = text;
      message.className = stop ? 'notice notice-stop' : 'notice';
      message.hidden = false;
    };
    var post = function (url, body) {
      return fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify(body || {}),
        credentials: 'omit',
        cache: 'no-store'
      }).then(function (r) {
        return r.json().then(function (json) { return { ok: r.ok, body: json }; });
      });
    };
    // The API's own words (English) only on an English page; otherwise the page's.
    var apiWords = panel.getAttribute('data-api-words') === 'yes';
    var problem = function (r, fallback) {
      return (apiWords && r && r.body && r.body.error && r.body.error.message) || fallback;
    };
    var statusPath = function (checkoutId) {
      return panel.getAttribute('data-page-path') + '/status?checkout=' + encodeURIComponent(checkoutId);
    };
    payButton.addEventListener('click', function () {
      if (typeof window.GatewayCheckout !== 'function') {
        say(words(panel, 'not-loaded'), true);
        return;
      }
      payButton.disabled = true;
      post(panel.getAttribute('data-start-url'), {}).then(function (started) {
        var c = started.body;
        if (!started.ok || !c.order_id) {
          payButton.disabled = false;
          say(problem(started, words(panel, 'not-started')), true);
          return;
        }
        var widget = new window.GatewayCheckout({
          key: c.key_id,
          order_id: c.order_id,
          amount: c.amount,
          currency: c.currency,
          name: c.name,
          description: c.description,
          callback_url: c.callback_url,
          handler: function (resp) {
            say(words(panel, 'confirming'));
            post(panel.getAttribute('data-complete-base') + encodeURIComponent(c.id) + '/complete', {
              gateway_payment_id: resp.gateway_payment_id,
              gateway_order_id: resp.gateway_order_id,
              gateway_signature: resp.gateway_signature
            }).then(function (done) {
              if (done.ok) {
                window.location.assign(statusPath(c.id));
              } else {
                payButton.disabled = false;
                say(problem(done, words(panel, 'not-confirmed')), true);
              }
            }).catch(function () {
              window.location.assign(statusPath(c.id));
            });
          },
          modal: { ondismiss: function () { payButton.disabled = false; } }
        });
        widget.on('payment.failed', function (resp) {
          var why = resp && resp.error && resp.error.description;
          say(why && apiWords ? words(panel, 'failed-why', why) : words(panel, 'failed'), true);
        });
        widget.open();
      }).catch(function () {
        payButton.disabled = false;
        say(words(panel, 'not-started-offline'), true);
      });
    });
  }
  var print = document.getElementById('print-receipt');
  if (print && window.print) {
    print.hidden = false;
    print.addEventListener('click', function () { window.print(); });
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
