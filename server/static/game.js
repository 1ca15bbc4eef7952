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
  // Pacing: the table shows step `shown` of the view; it walks to the newest step,
  // lingering on a revealed bid or a fight (LINGER ms at 1x) so it can be read.
  var shown = -1, follow = true, paceTimer = null, LINGER = 2500, STEP = 350;
  var seenEvents = -1;  // the view's steps up to here were listed in "just happened"
  var autoKey = "economancy-autopass";

  function names() {
    return game ? game.seats.map(function (s) { return A.displayName(s.name); }) : [];
  }

  function viewAt(i) {
    var step = view.steps[i];
    return {cards: cards, names: names(), shop: view.shop, state: view.states[step.s], step: step};
  }

  /* -- drawing ---------------------------------------------------------- */

  /* The day of the game of a state that only says its day of the 3-day
     cycle (a question): counted on from the newest step the view holds. */
  function gameDay(cycleDay) {
    if (!view || !view.steps.length) return cycleDay;
    var last = view.steps[view.steps.length - 1], st = view.states[last.s];
    return last.D + (((cycleDay - st.day) % 3) + 3) % 3;
  }

  function speed() { var s = $("speed"); return s ? parseFloat(s.value) || 1 : 1; }

  /* Walk `shown` towards the newest step, pausing on reveals and fights. */
  function pace() {
    if (paceTimer || !view || !follow) return;
    var newest = view.steps.length - 1;
    if (shown >= newest) { shown = newest; return; }
    var cur = shown >= 0 ? view.steps[shown] : null;
    var wait = cur && (cur.k === "reveal" || cur.k === "fight") ? LINGER : STEP;
    if (shown < 0 || newest - shown > 60) wait = 0;  // joining late: no replay of the whole game
    paceTimer = setTimeout(function () {
      paceTimer = null;
      if (!view) return;
      if (shown < 0 || view.steps.length - 1 - shown > 60) shown = view.steps.length - 1;
      else shown++;
      draw();
      pace();
    }, wait / speed());
  }

  function draw() {
    if (!cards) return;
    var table = $("table");
    if (ask && !answered) {
      var v = T.fromWire(ask.state, cards, names());
      v.state.D = gameDay(ask.state.day);
      T.render(table, v, legalOptions(v));
    } else if (view && view.steps.length) {
      var at = shown >= 0 && shown < view.steps.length ? shown : view.steps.length - 1;
      T.render(table, viewAt(at), {perspective: mySeat});
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
    drawRecent();
    drawPace();
  }

  /* What resolved since the person last answered (bids revealed, fights),
     shown beside the question: the table already shows the new state. */
  function drawRecent() {
    var box = A.clear($("recent"));
    box.hidden = true;
    if (!view || !cards || !ask || answered) return;
    var lines = [];
    for (var i = Math.max(seenEvents + 1, view.steps.length - 12); i < view.steps.length; i++) {
      var s = view.steps[i];
      if (s.k === "reveal" || s.k === "fight") lines.push(T.describe(viewAt(i)));
    }
    if (!lines.length) return;
    box.hidden = false;
    box.appendChild(el("b", {text: "Just happened: "}));
    lines.forEach(function (t) { box.appendChild(el("span", {class: "recent-line", text: t})); });
  }

  /* A spectator's pace: step back and forth, back to live, speed. */
  function drawPace() {
    var box = $("pace");
    var watching = view && view.steps.length && !(ask && !answered);
    box.hidden = !watching;
    if (!watching) return;
    var at = shown >= 0 ? shown : view.steps.length - 1;
    $("pace-where").textContent = follow ? (at < view.steps.length - 1 ? "catching up\u2026" : "live") :
      "step " + (at + 1) + " of " + view.steps.length;
    $("pace-back").disabled = at <= 0;
    $("pace-live").disabled = follow;
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
      seenEvents = view ? view.steps.length - 1 : -1;
      if (view) shown = view.steps.length - 1;  // the person saw the newest table while choosing
      draw();
    }
  }

  function autoPass() {
    try { return localStorage.getItem(autoKey) === "1"; } catch (e) { return false; }
  }

  /* The move made for a person whose time runs out (instead of a forfeit):
     invest nothing, pass, stop attacking, or defend with the first card allowed. */
  function defaultMove() {
    var legal = ask.legal || {};
    if (legal.invest) return 0;
    if (legal.shop) return "Pass";
    if (legal.stop) return 0;
    if (legal.cards && legal.cards.length) return legal.cards[0];
    return null;
  }

  function cardAt(seat, i) {
    var c = ask.state.players[seat] && ask.state.players[seat].cards[i];
    if (!c) return null;
    for (var k = 0; k < cards.length; k++) if (cards[k].name === c.name) return cards[k];
    return null;
  }

  /* "Thug D4 holds against Worker A1": what each allowed defender would do. */
  function defensePreview(i) {
    var ph = ask.state.phase, att = cardAt(ph.attacker, ph.attacker_card), mine = cardAt(mySeat, i);
    if (!att || !mine) return "";
    var holds = !(att.atk > mine.def), hits = mine.atk > att.def;
    return mine.name + " D" + mine.def + (holds ? " holds" : " faints") + " against " + att.name + " A" + att.atk +
      (hits ? "; and " + att.name + " faints (A" + mine.atk + " > D" + att.def + ")" : "");
  }

  function drawControls() {
    var box = A.clear($("controls"));
    box.hidden = !(ask && !answered);
    if (box.hidden) return;
    var legal = ask.legal || {}, phase = ask.state.phase;
    if (legal.shop && !legal.shop.length && legal.pass && autoPass()) {  // nothing to buy: pass, as asked
      setTimeout(function () { move("Pass"); }, 0);
      return;
    }
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
      box.appendChild(el("span", {class: "prompt", text: "You invested the most: attack with one of your highlighted cards, or"}));
      box.appendChild(el("button", {type: "button", id: "stop", class: "secondary", text: "Stop attacking", onclick: function () { move(0); }}));
      box.appendChild(choices((legal.cards || []).map(function (i) {
        var c = cardAt(mySeat, i);
        return {id: "attack-" + i, text: "#" + i + " " + (c ? c.name + " A" + c.atk : ""), move: i};
      })));
    } else if (phase.name === "attacking") {
      box.appendChild(el("span", {class: "prompt", text: "You are attacked: defend with one of your highlighted cards."}));
      box.appendChild(choices((legal.cards || []).map(function (i) {
        return {id: "defend-" + i, text: "#" + i + " " + defensePreview(i), move: i};
      })));
    } else if (phase.name === "buy") {
      if (legal.shop && legal.shop.length) {
        box.appendChild(el("span", {class: "prompt", text: "Buy a highlighted card in the shop (hidden until everyone has chosen), or"}));
      } else {
        box.appendChild(el("span", {class: "prompt", id: "nothing", text: "You cannot afford any card in the shop: pass."}));
      }
      box.appendChild(el("button", {type: "button", id: "pass", class: "secondary", text: "Pass", onclick: function () { move("Pass"); }}));
      var auto = el("input", {type: "checkbox", id: "autopass"});
      auto.checked = autoPass();
      auto.addEventListener("change", function () { try { localStorage.setItem(autoKey, auto.checked ? "1" : "0"); } catch (e) { /* private mode */ } });
      box.appendChild(el("label", {class: "check-inline"}, [auto, " pass by myself when I can buy nothing"]));
    }
    box.appendChild(el("span", {class: "clock", id: "clock"}));
    tick();
  }

  function choices(items) {
    return el("div", {class: "choices"}, items.map(function (it) {
      return el("button", {type: "button", class: "choice secondary", id: it.id, text: it.text, onclick: function () { move(it.move); }});
    }));
  }

  /* The clock; a warning from WARN seconds before the limit, and just
     before it the default move (a person's slow answer is not a forfeit). */
  var WARN = 15, SAFETY = 2;

  function tick() {
    var c = $("clock");
    if (!c || !ask || answered) return;
    var left = ask.timeout - (Date.now() - askedAt) / 1000;
    var shownLeft = Math.max(0, Math.ceil(left));
    var fallback = defaultMove();
    c.textContent = shownLeft + " s left";
    c.className = "clock" + (shownLeft <= WARN ? " urgent" : "");
    if (shownLeft <= WARN && fallback !== null) {
      c.textContent = shownLeft + " s left: then " + (fallback === "Pass" ? "you pass" : fallback === 0 && ask.legal.invest ? "you invest 0" :
        fallback === 0 ? "you stop attacking" : "you defend with card #" + fallback);
    }
    if (left <= SAFETY && fallback !== null) move(fallback);
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
    if (m.full) { view = m.full; if (shown >= view.steps.length) shown = view.steps.length - 1; return; }
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
    if (m.type === "view" && !(ask && !answered)) pace();
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
    $("pace-back").addEventListener("click", function () {
      follow = false; clearTimeout(paceTimer); paceTimer = null;
      shown = Math.max(0, (shown >= 0 ? shown : view.steps.length - 1) - 1); draw();
    });
    $("pace-next").addEventListener("click", function () {
      if (!view) return;
      follow = false; clearTimeout(paceTimer); paceTimer = null;
      shown = Math.min(view.steps.length - 1, (shown >= 0 ? shown : view.steps.length - 1) + 1); draw();
    });
    $("pace-live").addEventListener("click", function () { follow = true; pace(); draw(); });
    clock = setInterval(tick, 250);
  }

  setup();
})();
