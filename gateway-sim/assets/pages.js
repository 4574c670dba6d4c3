/*
 * Script of the simulator's own pages (docs/gateway-simulator.md "Pages"): the checkout iframe
 * (Pay / Fail), the mandate and Reserve Pay authorise page (Approve / Reject) and the payment
 * link page (Pay / Fail). Same-origin JSON posts; the checkout page tells its parent the result
 * with postMessage, addressed to the parent's origin only.
 */
(function () {
  'use strict';

  var body = document.body;
  var page = body.getAttribute('data-page');
  var status = document.getElementById('status');
  var buttons = document.querySelectorAll('button[data-action]');
  var vpaInput = document.getElementById('vpa');

  function setBusy(busy) {
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].disabled = busy;
    }
  }

  function say(text, kind) {
    status.textContent = text;
    status.setAttribute('data-kind', kind);
  }

  function post(url, data) {
    return fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(data)
    }).then(function (res) {
      return res.json().then(function (json) {
        return { ok: res.ok, json: json };
      });
    });
  }

  function onAction(handler) {
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].addEventListener('click', function (event) {
        var action = event.currentTarget.getAttribute('data-action');
        setBusy(true);
        say('Working\u2026', 'busy');
        handler(action, vpaInput ? vpaInput.value : null).catch(function () {
          say('The gateway could not be reached. Try again.', 'error');
          setBusy(false);
        });
      });
    }
  }

  function errorText(json) {
    return json && json.error && json.error.description ? json.error.description : 'Something went wrong';
  }

  if (page === 'checkout') {
    var keyId = body.getAttribute('data-key-id');
    var orderId = body.getAttribute('data-order-id');
    var parentOrigin = body.getAttribute('data-parent-origin');
    var tell = function (message) {
      message.source = 'gateway-checkout';
      message.order_id = orderId;
      if (parentOrigin && window.parent !== window) {
        window.parent.postMessage(message, parentOrigin);
      }
    };
    onAction(function (action, vpa) {
      return post('/checkout/embedded/pay', { key_id: keyId, order_id: orderId, action: action, vpa: vpa })
        .then(function (r) {
          if (r.ok) {
            say('Payment successful.', 'success');
            tell({ type: 'payment.success', response: r.json });
          } else {
            say('Payment failed: ' + errorText(r.json) + '. You can try again.', 'error');
            setBusy(false);
            tell({ type: 'payment.failed', error: r.json.error });
          }
        });
    });
  } else if (page === 'authorize') {
    var target = body.getAttribute('data-target');
    onAction(function (action, vpa) {
      return post('/authorize/' + encodeURIComponent(target), { approve: action === 'approve', vpa: vpa })
        .then(function (r) {
          if (r.ok) {
            say(action === 'approve' ? 'Approved.' : 'Rejected.', action === 'approve' ? 'success' : 'error');
          } else {
            say('Not done: ' + errorText(r.json) + '.', 'error');
            setBusy(false);
          }
        });
    });
  } else if (page === 'link') {
    var linkId = body.getAttribute('data-link-id');
    onAction(function (action, vpa) {
      return post('/l/' + encodeURIComponent(linkId) + '/pay', { action: action, vpa: vpa }).then(function (r) {
        if (r.ok) {
          say('Payment successful.', 'success');
          if (r.json.redirect) {
            window.location.assign(r.json.redirect);
          }
        } else {
          say('Payment failed: ' + errorText(r.json) + '. You can try again.', 'error');
          setBusy(false);
        }
      });
    });
  }
})();
