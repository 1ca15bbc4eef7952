/* A game page: play your seat (with the token in the address's fragment)
 * or watch. The table is the replay's renderer (table.js); this script
 * adds the live updates, the move controls, the clock and the log.
 *
 * Messages (docs/server.md): "hello" (cards), "status" (the game's
 * summary), "view" (the replay model so far: full, or what changed),
 * and for a player "seat", "ask" (a state with the legal moves) and
 * "final". A move is sent as the protocol's JSON array. */
(function () {
  "use strict";
  var A = window.Arena, T = window.EconomancyTable, el = A.el, $ = function (id) { return document.getElementById(id); };
  var gameId = decodeURIComponent(location.pathname.split("/").pop());
  var args = {};
  location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
    var p = kv.split("=");
    if (p[0]) args[p[0]] = decodeURIComponent(p[1] || "");
  });
  var token = args.token || null;
  var cards = null, game = null, view = null, ask = null, askedAt = 0, answered = false, mySeat = null;
  var finalState = null, clock = null, conn = null, closedFor = null;
  var LOG_STEPS = 400;  // the log shows the game's last steps (a 100-day game has a few thousand)

  function names() {
    return game ? game.seats.map(function (s) { return A.displayName(s.name); }) : [];
  }

  function viewAt(i) {
    var step = view.steps[i];
    return {cards: cards, names: names(), shop: view.shop, state: view.states[step.s], step: step};
  }

  /* -- drawing ---------------------------------------------------------- */

  function draw() {
    if (!cards) return;
    var table = $("table");
    if (ask && !answered) {
      var v = T.fromWire(ask.state, cards, names());
      T.render(table, v, legalOptions(v));
    } else if (view && view.steps.length) {
      T.render(table, viewAt(view.steps.length - 1), {perspective: mySeat});
    } else if (finalState) {
      T.render(table, T.fromWire(finalState, cards, names()), {perspective: mySeat});
    } else if (game && game.status !== "waiting" && game.status !== "playing") {
      A.clear(table).appendChild(el("p", {class: "empty big", text: "This game is over: its replay shows every move."}));
    } else {
      A.clear(table).appendChild(el("p", {class: "empty big", text: game && game.status === "waiting" ?
        "The game starts when every seat is taken." : "Waiting for the first move\u2026"}));
    }
    drawControls();
    drawBanner();
    drawLog();
  }

  function legalOptions(v) {
    var legal = ask.legal || {};
    var options = {perspective: mySeat, legal: {cards: [], shop: []}};
    if (legal.cards) {
      options.legal.cards = legal.cards.map(function (i) { return [mySeat, i]; });
      options.onCard = function (seat, i) { if (seat === mySeat) move(i); };
    }
    if (legal.shop) {
      var index = {};
      cards.forEach(function (c, i) { index[c.name] = i; });
      options.legal.shop = legal.shop.map(function (n) { return index[n]; });
      options.onShop = function (id) { move(cards[id].name); };
    }
    return options;
  }

  function move(value) {
    if (!ask || answered) return;
    if (conn.send(JSON.stringify([value]))) {
      answered = true;
      draw();
    }
  }

  function drawControls() {
    var box = A.clear($("controls"));
    box.hidden = !(ask && !answered);
    if (box.hidden) return;
    var legal = ask.legal || {}, phase = ask.state.phase;
    if (legal.invest) {
      var max = legal.invest[1];
      var input = el("input", {type: "number", min: 0, max: max, value: Math.min(1, max), id: "invest-amount",
        "aria-label": "coins to invest", class: "invest"});
      var step = function (d) { input.value = String(Math.max(0, Math.min(max, (parseInt(input.value, 10) || 0) + d))); };
      box.appendChild(el("span", {class: "prompt", text: "Invest coins (hidden from the others until everyone has chosen):"}));
      box.appendChild(el("button", {type: "button", class: "secondary small", text: "\u2212", "aria-label": "one less", onclick: function () { step(-1); }}));
      box.appendChild(input);
      box.appendChild(el("button", {type: "button", class: "secondary small", text: "+", "aria-label": "one more", onclick: function () { step(1); }}));
      box.appendChild(el("span", {class: "muted", text: "of " + max}));
      box.appendChild(el("button", {type: "button", id: "invest", text: "Invest", onclick: function () {
        var n = parseInt(input.value, 10);
        if (isNaN(n) || n < 0 || n > max) { input.focus(); return; }
        move(n);
      }}));
      input.addEventListener("keydown", function (e) { if (e.key === "Enter") document.getElementById("invest").click(); });
    } else if (phase.name === "attacking" && phase.attacker === mySeat && phase.attacker_card === false) {
      box.appendChild(el("span", {class: "prompt", text: "You invested the most: click one of your highlighted cards to attack with it, or"}));
      box.appendChild(el("button", {type: "button", id: "stop", class: "secondary", text: "Stop attacking", onclick: function () { move(0); }}));
    } else if (phase.name === "attacking") {
      box.appendChild(el("span", {class: "prompt", text: "You are attacked: click one of your highlighted cards to defend with it."}));
    } else if (phase.name === "buy") {
      box.appendChild(el("span", {class: "prompt", text: "Click a highlighted card in the shop to buy it (hidden until everyone has chosen), or"}));
      box.appendChild(el("button", {type: "button", id: "pass", class: "secondary", text: "Pass", onclick: function () { move("Pass"); }}));
    }
    box.appendChild(el("span", {class: "clock", id: "clock"}));
    tick();
  }

  function tick() {
    var c = $("clock");
    if (!c || !ask) return;
    var left = Math.max(0, Math.ceil(ask.timeout - (Date.now() - askedAt) / 1000));
    c.textContent = left + " s left";
    c.className = "clock" + (left <= 10 ? " urgent" : "");
  }

  function drawBanner() {
    var b = A.clear($("banner"));
    b.className = "banner";
    var n = names();
    if (closedFor) {
      b.appendChild(el("span", {text: closedFor}));
      b.classList.add("bad");
      return;
    }
    if (!game) return;
    if (game.status === "waiting") {
      var open = game.seats.filter(function (s) { return s.open; }).length;
      b.appendChild(el("span", {text: open ? "Waiting for " + open + " more player" + (open > 1 ? "s" : "") + ". Share this link: " :
        "Waiting for every player to connect\u2026 "}));
      if (open) {
        var link = location.origin + "/game/" + encodeURIComponent(gameId);
        b.appendChild(el("code", {class: "share", text: link}));
        b.appendChild(el("button", {type: "button", class: "secondary small", text: "copy", onclick: function () {
          if (navigator.clipboard) navigator.clipboard.writeText(link);
        }}));
        if (!token) joinForm(b);
      }
      return;
    }
    if (game.status === "playing") {
      if (ask && !answered) {
        b.classList.add("yours");
        b.appendChild(el("b", {text: "Your move."}));
      } else {
        var waiting = game.asked.filter(function (i) { return !(answered && i === mySeat); })
          .map(function (i) { return i === mySeat ? "you" : n[i]; });
        b.appendChild(el("span", {text: (mySeat === null ? "Watching live. " : answered ? "Answer sent. " : "") +
          (waiting.length ? "Waiting for " + waiting.join(", ") + "\u2026" : "Waiting for the others\u2026")}));
      }
      return;
    }
    b.classList.add("over");
    b.appendChild(el("b", {text: "Game over: " + A.resultText(game.seats.map(function (s) { return s.name; }), game.result) + "."}));
    if (game.status !== "cancelled") {
      b.appendChild(el("a", {class: "button", href: "/replay/" + encodeURIComponent(gameId), id: "replay-link", text: "Watch the replay"}));
    }
    b.appendChild(el("a", {class: "button secondary", href: "/", text: "New game"}));
  }

  function joinForm(parent) {
    var input = el("input", {placeholder: "your name", maxlength: 32, "aria-label": "your name"});
    try { input.value = localStorage.getItem("economancy-name") || ""; } catch (e) { /* private mode */ }
    parent.appendChild(el("span", {class: "join"}, [input, el("button", {type: "button", id: "join-seat", text: "Take the open seat", onclick: function () {
      A.postJSON("/api/games/" + encodeURIComponent(gameId) + "/join", {name: input.value}).then(function (res) {
        location.replace(res.url);
        location.reload();
      }).catch(function (err) { closedFor = err.message; draw(); });
    }})]));
  }

  function drawLog() {
    var log = A.clear($("log"));
    if (!view || !cards) return;
    var first = Math.max(0, view.steps.length - LOG_STEPS);
    for (var i = first; i < view.steps.length; i++) {
      var s = view.steps[i];
      if (s.k === "ask" && s.a === undefined) continue;
      log.appendChild(el("li", {class: "log-" + s.k, text: "Day " + s.D + ": " + T.describe(viewAt(i))}));
    }
    log.scrollTop = log.scrollHeight;
  }

  /* -- updates ---------------------------------------------------------- */

  function applyView(m) {
    if (m.full) { view = m.full; return; }
    if (!view) return;
    view.states = view.states.slice(0, m.states_from).concat(m.states);
    view.steps = view.steps.slice(0, m.steps_from).concat(m.steps);
    view.chart = m.chart;
    view.result = m.result;
  }

  function onMessage(m) {
    if (m.error) { closedFor = m.error; draw(); return; }
    if (m.type === "hello") cards = m.cards;
    else if (m.type === "status") game = m.game;
    else if (m.type === "view") applyView(m);
    else if (m.type === "seat") mySeat = m.seat;
    else if (m.type === "ask") { ask = m; askedAt = Date.now(); answered = false; }
    else if (m.type === "final") { ask = null; finalState = m.state; }
    if (game && game.status !== "playing" && game.status !== "waiting") ask = null;
    draw();
  }

  function setup() {
    $("game-id").textContent = gameId;
    document.title = "Economancy game " + gameId;
    var path = (token ? "/ws/play/" : "/ws/watch/") + encodeURIComponent(gameId);
    conn = A.live(path, {
      open: function (socket) { closedFor = null; if (token) socket.send(JSON.stringify({token: token})); },
      message: onMessage,
      close: function (e) {
        if (e.code === 4004 && !token) { location.replace("/replay/" + encodeURIComponent(gameId)); return; }
        if (e.code >= 4000) { closedFor = e.reason || "the server closed the connection"; draw(); }
      },
      final: function (e) { return e.code >= 4000 || (game && game.status !== "playing" && game.status !== "waiting"); }
    });
    $("status").textContent = token ? "you play seat " + (args.seat || "?") : "watching";
    clock = setInterval(tick, 250);
  }

  setup();
})();
