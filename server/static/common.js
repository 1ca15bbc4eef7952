/* Helpers shared by the lobby (home.js) and the game page (game.js).
 * Every text that came from a client goes into the page as a text node
 * (with control characters made visible), never as markup. */
(function (global) {
  "use strict";

  var INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

  function visible(text) {
    return String(text).replace(INVISIBLE, function (ch) {
      return "\\u" + ("000" + ch.charCodeAt(0).toString(16)).slice(-4);
    });
  }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        if (k === "class") node.className = attrs[k];
        else if (k === "text") node.textContent = visible(attrs[k]);
        else if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), attrs[k]);
        else if (attrs[k] !== null && attrs[k] !== undefined && attrs[k] !== false) node.setAttribute(k, String(attrs[k]));
      });
    }
    (children || []).forEach(function (c) {
      if (c === null || c === undefined || c === false) return;
      node.appendChild(typeof c === "object" ? c : document.createTextNode(visible(c)));
    });
    return node;
  }

  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }

  /* A seat's name as people read it: "person:Ann" is Ann, "remote:bob" is bob (remote). */
  function displayName(name) {
    name = String(name || "");
    if (name.indexOf("person:") === 0) return name.slice(7) === "?" ? "(open seat)" : name.slice(7);
    if (name.indexOf("remote:") === 0) return name.slice(7) + " (connected bot)";
    if (name.indexOf("tcp:") === 0) return "TCP seat " + name.slice(4);
    return name;
  }

  function wsUrl(path) {
    return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + path;
  }

  function postJSON(path, body) {
    return fetch(path, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)})
      .then(function (r) {
        return r.json().then(function (data) {
          if (!r.ok) throw new Error(data.error || ("HTTP " + r.status));
          return data;
        });
      });
  }

  /* A WebSocket that comes back after a drop (1 s, doubling to 15 s). */
  function live(path, handlers) {
    var pause = 1000, socket = null, stopped = false;
    function open() {
      socket = new WebSocket(wsUrl(path));
      socket.onopen = function () { pause = 1000; if (handlers.open) handlers.open(socket); };
      socket.onmessage = function (e) {
        var msg;
        try { msg = JSON.parse(e.data); } catch (err) { return; }
        handlers.message(msg, socket);
      };
      socket.onclose = function (e) {
        if (handlers.close) handlers.close(e);
        if (stopped || (handlers.final && handlers.final(e))) return;
        setTimeout(open, pause);
        pause = Math.min(pause * 2, 15000);
      };
    }
    open();
    return {
      send: function (text) { if (socket && socket.readyState === 1) { socket.send(text); return true; } return false; },
      stop: function () { stopped = true; if (socket) socket.close(); }
    };
  }

  function resultText(names, r) {
    if (!r) return "";
    if (r.aborted) return "cut off (nobody's loss)";
    if (r.cancelled) return "cancelled: " + r.cancelled;
    if (r.fault_seat !== null && r.fault_seat !== undefined) return displayName(names[r.fault_seat]) + " forfeited";
    if (r.winner === null || r.winner === undefined) return "draw";
    return displayName(names[r.winner]) + " won";
  }

  function ago(seconds) {
    var s = Math.max(0, Date.now() / 1000 - seconds);
    if (s < 60) return "just now";
    if (s < 3600) return Math.round(s / 60) + " min ago";
    if (s < 86400) return Math.round(s / 3600) + " h ago";
    return Math.round(s / 86400) + " days ago";
  }

  global.Arena = {el: el, clear: clear, visible: visible, displayName: displayName, wsUrl: wsUrl,
    postJSON: postJSON, live: live, resultText: resultText, ago: ago};
})(window);
