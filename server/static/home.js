/* The lobby: start a game, join one, games in progress and finished, the
 * ladder and the connected bots, kept up to date over /ws/lobby. */
(function () {
  "use strict";
  var A = window.Arena, el = A.el, $ = function (id) { return document.getElementById(id); };
  var lobby = {ours: [], remote: [], games: [], finished: [], ladder: {rows: []}};
  var MAX_OPPONENTS = 3;

  function opponentChoices(select, keep) {
    A.clear(select);
    var ours = el("optgroup", {label: "Our bots"}, lobby.ours.map(function (b) {
      return el("option", {value: b.name, title: b.description, text: b.name + " \u2014 " + b.description});
    }));
    select.appendChild(ours);
    var idle = lobby.remote.filter(function (r) { return r.idle > 0; });
    var remote = el("optgroup", {label: "Connected bots"}, idle.length ? idle.map(function (r) {
      return el("option", {value: "remote:" + r.name, text: r.name});
    }) : [el("option", {disabled: true, text: "(none idle right now)"})]);
    select.appendChild(remote);
    select.appendChild(el("optgroup", {label: "People"}, [el("option", {value: "person", text: "another person (share the link)"})]));
    if (keep && Array.prototype.some.call(select.options, function (o) { return o.value === keep && !o.disabled; })) select.value = keep;
  }

  function addOpponent(value) {
    var rows = $("opponents");
    if (rows.children.length >= MAX_OPPONENTS) return;
    var select = el("select", {"aria-label": "opponent " + (rows.children.length + 1), class: "opponent"});
    select.dataset.want = value || "random";  // kept until the lobby has listed it
    select.addEventListener("change", function () { select.dataset.want = select.value; });
    opponentChoices(select, select.dataset.want);
    var row = el("div", {class: "opponent-row"}, [select,
      el("button", {type: "button", class: "secondary small", title: "remove this opponent", text: "remove",
        onclick: function () { if (rows.children.length > 1) rows.removeChild(row); refreshButtons(); }})]);
    rows.appendChild(row);
    refreshButtons();
  }

  function refreshButtons() {
    var n = $("opponents").children.length;
    $("add-opponent").disabled = n >= MAX_OPPONENTS;
    Array.prototype.forEach.call($("opponents").querySelectorAll("button"), function (b) { b.disabled = n <= 1; });
  }

  function start(e) {
    e.preventDefault();
    var form = $("new-game");
    var opponents = Array.prototype.map.call(document.querySelectorAll("select.opponent"), function (s) { return s.value; });
    var body = {
      name: form.name.value, opponents: opponents, base: form.set.value === "base",
      people_timeout: parseInt(form.people_timeout.value, 10), max_days: parseInt(form.max_days.value, 10) || 100,
      play: !form.watch.checked
    };
    $("start").disabled = true;
    $("create-error").textContent = "";
    try { localStorage.setItem("economancy-name", form.name.value); } catch (err) { /* private mode */ }
    A.postJSON("/api/games", body).then(function (res) {
      location.href = res.url;
    }).catch(function (err) {
      $("create-error").textContent = A.visible(err.message);
      $("start").disabled = false;
    });
  }

  function gameItem(g) {
    var names = g.seats.map(function (s) { return A.displayName(s.name); });
    var open = g.seats.filter(function (s) { return s.open; }).length;
    var status = g.status === "waiting" ? (open ? open + " open seat" + (open > 1 ? "s" : "") + ": join!" : "waiting for players")
      : "day " + g.day + (g.asked.length ? ", waiting for " + g.asked.map(function (i) { return names[i]; }).join(", ") : "");
    return el("li", {class: "game"}, [
      el("a", {href: "/game/" + g.id, class: "game-link"}, [el("b", {text: names.join(" vs ")})]),
      el("span", {class: "meta", text: status + " \u00b7 " + (g.base ? "base" : "simple") + " set" + (g.origin === "tcp" ? " \u00b7 TCP" : "")}),
      el("a", {href: "/game/" + g.id, class: "button small", text: g.status === "waiting" && open ? "join" : "watch"})
    ]);
  }

  function finishedItem(f) {
    var names = f.seats.map(A.displayName);
    return el("li", {class: "game"}, [
      el("a", {href: "/replay/" + encodeURIComponent(f.id), class: "game-link"}, [el("b", {text: names.join(" vs ")})]),
      el("span", {class: "meta", text: A.resultText(f.seats, f) + (f.days ? " after " + f.days + " days" : "") + " \u00b7 " + A.ago(f.finished)}),
      el("a", {href: "/replay/" + encodeURIComponent(f.id), class: "button small secondary", text: "replay"})
    ]);
  }

  function list(node, items, render, empty) {
    A.clear(node);
    if (!items.length) node.appendChild(el("li", {class: "empty", text: empty}));
    items.forEach(function (x) { node.appendChild(render(x)); });
  }

  function ladder(data) {
    var box = A.clear($("ladder"));
    if (!data.rows || !data.rows.length) {
      box.appendChild(el("p", {class: "empty"}, ["The ladder is empty. ", el("code", {text: "ladder add NAME BOT"}),
        " adds a bot, ", el("code", {text: "ladder run --games 20"}), " plays games; standings appear here as they finish."]));
      return;
    }
    var WIDE = {"95% interval": 1, drawn: 1, lost: 1, forfeits: 1};  // left out on a phone (app.css)
    var head = el("tr", null, ["#", "bot", "rating", "95% interval", "games", "won", "drawn", "lost", "forfeits"].map(function (h) {
      return el("th", {text: h, class: WIDE[h] ? "wide" : ""});
    }));
    var rows = data.rows.map(function (r, i) {
      var num = function (x) { return x === null || x === undefined ? "\u2013" : Math.round(x); };
      var rated = r.games > 0;  // a bot without games has no rating yet (the ladder says 0, "no games")
      return el("tr", null, [el("td", {text: i + 1}), el("td", {class: "name", text: r.name}), el("td", {class: "num", text: rated ? num(r.elo) : "\u2013"}),
        el("td", {class: "num muted wide", text: rated ? "[" + num(r.elo_low) + ", " + num(r.elo_high) + "]" : "no games"}),
        el("td", {class: "num", text: r.games}), el("td", {class: "num", text: r.wins}), el("td", {class: "num wide", text: r.draws}),
        el("td", {class: "num wide", text: r.losses}), el("td", {class: "num wide", text: r.forfeits})]);
    });
    box.appendChild(el("table", {class: "standings"}, [el("thead", null, [head]), el("tbody", null, rows)]));
    box.appendChild(el("p", {class: "hint", text: (data.games || 0) + " ladder games. Ratings: Elo scale, pool mean 0."}));
  }

  function render() {
    Array.prototype.forEach.call(document.querySelectorAll("select.opponent"), function (s) { opponentChoices(s, s.dataset.want); });
    list($("live"), lobby.games, gameItem, "No game in progress.");
    list($("finished"), lobby.finished, finishedItem, "No finished game yet.");
    list($("remote"), lobby.remote, function (r) {
      return el("li", {class: "game"}, [el("b", {text: r.name}),
        el("span", {class: "meta", text: r.connections + " connection" + (r.connections > 1 ? "s" : "") + ", " + r.idle + " idle"})]);
    }, "None right now.");
    ladder(lobby.ladder || {});
    if (lobby.tcp_port) $("tcp-port").textContent = String(lobby.tcp_port);
  }

  function setup() {
    $("connect-cmd").textContent = "driver connect " + location.origin + " ./my_bot";
    try { $("new-game").name.value = localStorage.getItem("economancy-name") || ""; } catch (err) { /* private mode */ }
    $("new-game").addEventListener("submit", start);
    $("add-opponent").addEventListener("click", function () { addOpponent("random"); });
    $("join").addEventListener("submit", function (e) {
      e.preventDefault();
      var id = $("join").id.value.trim();
      if (id) location.href = "/game/" + encodeURIComponent(id);
    });
    addOpponent("random");
    A.live("/ws/lobby", {message: function (msg) {
      if (msg.type === "lobby") { lobby = msg; render(); }
    }});
  }

  setup();
})();
