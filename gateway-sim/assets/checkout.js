/*
 * Gateway simulator checkout widget (docs/gateway-simulator.md "Checkout widget").
 * Served from the simulator's origin as /v1/checkout.js; defines window.GatewayCheckout:
 *
 *   var checkout = new GatewayCheckout({ key, order_id, amount, currency, name, description,
 *     callback_url, redirect, handler: function (resp) {}, modal: { ondismiss: function () {} } });
 *   checkout.on('payment.failed', function (resp) {});
 *   checkout.open();
 *
 * The overlay holds an iframe of <simulator>/checkout/embedded. Messages from it are accepted only
 * from the simulator's origin and from that iframe, for this order; the iframe posts only to the
 * page's own origin. Plain ES5, no external resources.
 */
(function () {
  'use strict';

  var script = document.currentScript;
  var SIM_ORIGIN = script && script.src ? new URL(script.src).origin : null;

  function GatewayCheckout(options) {
    if (!(this instanceof GatewayCheckout)) {
      throw new Error('GatewayCheckout must be called with new');
    }
    if (!options || typeof options.key !== 'string' || typeof options.order_id !== 'string') {
      throw new Error('GatewayCheckout needs key and order_id');
    }
    if (options.redirect && typeof options.callback_url !== 'string') {
      throw new Error('GatewayCheckout with redirect needs callback_url');
    }
    this.options = options;
    this.listeners = {};
    this.overlay = null;
    this.frame = null;
    this.onMessage = this.onMessage.bind(this);
    this.onKey = this.onKey.bind(this);
  }

  GatewayCheckout.prototype.on = function (event, fn) {
    (this.listeners[event] = this.listeners[event] || []).push(fn);
    return this;
  };

  GatewayCheckout.prototype.emit = function (event, payload) {
    var fns = this.listeners[event] || [];
    for (var i = 0; i < fns.length; i++) {
      fns[i](payload);
    }
  };

  GatewayCheckout.prototype.open = function () {
    if (this.overlay) {
      return;
    }
    if (!SIM_ORIGIN) {
      throw new Error('checkout.js must be loaded with a <script src> from the gateway');
    }
    var o = this.options;
    var overlay = document.createElement('div');
    overlay.setAttribute('role', 'dialog');
    overlay.setAttribute('aria-modal', 'true');
    overlay.setAttribute('aria-label', 'Payment');
    overlay.setAttribute('data-gateway-checkout', 'overlay');
    assign(overlay.style, {
      position: 'fixed', top: '0', left: '0', right: '0', bottom: '0', zIndex: '2147483647',
      background: 'rgba(0,0,0,0.6)', display: 'flex', alignItems: 'center', justifyContent: 'center'
    });

    var box = document.createElement('div');
    assign(box.style, {
      position: 'relative', width: '100%', maxWidth: '420px', height: '560px', maxHeight: '100%',
      background: '#fff', borderRadius: '8px', overflow: 'hidden'
    });

    var close = document.createElement('button');
    close.type = 'button';
    close.textContent = '\u00d7';
    close.setAttribute('aria-label', 'Close the payment window');
    close.setAttribute('data-gateway-checkout', 'close');
    assign(close.style, {
      position: 'absolute', top: '4px', right: '4px', width: '44px', height: '44px', border: '0',
      background: 'transparent', fontSize: '28px', cursor: 'pointer', color: '#222'
    });
    close.addEventListener('click', this.close.bind(this, true));

    var params = new URLSearchParams({
      key_id: o.key,
      order_id: o.order_id,
      origin: window.location.origin
    });
    if (o.name) { params.set('name', String(o.name)); }
    if (o.description) { params.set('description', String(o.description)); }
    var frame = document.createElement('iframe');
    frame.src = SIM_ORIGIN + '/checkout/embedded?' + params.toString();
    frame.title = 'Pay with the gateway';
    frame.setAttribute('data-gateway-checkout', 'frame');
    assign(frame.style, { width: '100%', height: '100%', border: '0' });

    box.appendChild(frame);
    box.appendChild(close);
    overlay.appendChild(box);
    document.body.appendChild(overlay);
    this.overlay = overlay;
    this.frame = frame;
    window.addEventListener('message', this.onMessage);
    document.addEventListener('keydown', this.onKey);
  };

  GatewayCheckout.prototype.close = function (dismissed) {
    if (!this.overlay) {
      return;
    }
    window.removeEventListener('message', this.onMessage);
    document.removeEventListener('keydown', this.onKey);
    this.overlay.parentNode.removeChild(this.overlay);
    this.overlay = null;
    this.frame = null;
    if (dismissed && this.options.modal && typeof this.options.modal.ondismiss === 'function') {
      this.options.modal.ondismiss();
    }
  };

  GatewayCheckout.prototype.onKey = function (event) {
    if (event.key === 'Escape') {
      this.close(true);
    }
  };

  GatewayCheckout.prototype.onMessage = function (event) {
    if (event.origin !== SIM_ORIGIN || !this.frame || event.source !== this.frame.contentWindow) {
      return;
    }
    var data = event.data;
    if (!data || data.source !== 'gateway-checkout' || data.order_id !== this.options.order_id) {
      return;
    }
    if (data.type === 'payment.success') {
      var r = data.response || {};
      var fields = {
        gateway_payment_id: String(r.gateway_payment_id),
        gateway_order_id: String(r.gateway_order_id),
        gateway_signature: String(r.gateway_signature)
      };
      this.close(false);
      if (this.options.redirect) {
        postForm(this.options.callback_url, fields);
      } else if (typeof this.options.handler === 'function') {
        this.options.handler(fields);
      }
    } else if (data.type === 'payment.failed') {
      // The overlay stays open: the payer may try again on the same order.
      this.emit('payment.failed', { error: data.error });
    }
  };

  function postForm(url, fields) {
    var form = document.createElement('form');
    form.method = 'POST';
    form.action = url;
    form.style.display = 'none';
    for (var name in fields) {
      if (Object.prototype.hasOwnProperty.call(fields, name)) {
        var input = document.createElement('input');
        input.type = 'hidden';
        input.name = name;
        input.value = fields[name];
        form.appendChild(input);
      }
    }
    document.body.appendChild(form);
    form.submit();
  }

  function assign(target, values) {
    for (var k in values) {
      if (Object.prototype.hasOwnProperty.call(values, k)) {
        target[k] = values[k];
      }
    }
  }

  window.GatewayCheckout = GatewayCheckout;
})();
