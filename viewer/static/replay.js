/* Replay navigation: steps, rounds, days, the scrubber, the URL fragment,
 * the day's log and the coins/points charts. Draws the table with
 * EconomancyTable.render (table.js) and nothing else; reads the model
 * that viewer/page.py embedded as JSON in #replay-data.
 *
 * Fragment: #step=N (0-based), #day=D (first step of day D), #end,
 * each optionally with game=G (1-based) when the trace holds several games:
 * #game=2&day=7.
 */
(function () {
  "use strict";
  var T = window.EconomancyTable;
  var data = JSON.parse(document.getElementById("replay-data").textContent);
  var gameIndex = 0, stepIndex = 0, timer = null;
  var $ = function (id) { return document.getElementById(id); };

  function game() { return data.games[gameIndex]; }

  function viewAt(g, i) {
    var step = g.steps[i];
    return {cards: data.cards, names: g.names, shop: g.shop, state: g.states[step.s], step: step};
  }

  function clamp(i) { return Math.max(0, Math.min(game().steps.length - 1, i)); }

  function go(i, keepHash) {
    stepIndex = clamp(i);
    draw();
    if (!keepHash) {
      var h = (data.games.length > 1 ? "game=" + (gameIndex + 1) + "&" : "") + "step=" + stepIndex;
      history.replaceState(null, "", "#" + h);
    }
  }

  /* The first step of the next (dir=1) or previous (dir=-1) unit whose key differs. */
  function jump(dir, key) {
    var steps = game().steps, cur = key(steps[stepIndex]), i = stepIndex;
    if (dir > 0) {
      while (i < steps.length - 1 && key(steps[i]) === cur) i++;
      return i;
    }
    while (i > 0 && key(steps[i - 1]) === cur) i--;  // start of the current unit
    if (i === stepIndex && i > 0) {  // already there: the previous unit's start
      var prev = key(steps[i - 1]);
      i--;
      while (i > 0 && key(steps[i - 1]) === prev) i--;
    }
    return i;
  }
  var byRound = function (s) { return s.r; };
  var byDay = function (s) { return s.D; };

  function draw() {
    var g = game(), view = viewAt(g, stepIndex), step = g.steps[stepIndex];
    T.render($("table"), view, {});
    $("scrub").max = g.steps.length - 1;
    $("scrub").value = stepIndex;
    $("where").textContent = "step " + (stepIndex + 1) + " of " + g.steps.length + " \u00b7 day " + step.D + " of " +
      g.steps[g.steps.length - 1].D + " \u00b7 round " + (step.r + 1) + " \u00b7 trace line " + step.ln;
    $("prev").disabled = $("start").disabled = $("prev-round").disabled = $("prev-day").disabled = stepIndex === 0;
    var last = stepIndex === g.steps.length - 1;
    $("next").disabled = $("end").disabled = $("next-round").disabled = $("next-day").disabled = last;
    if (last) stop();
    drawLog(g);
    drawCharts(g, step.D);
  }

  function drawLog(g) {
    var log = $("log"), step = g.steps[stepIndex];
    while (log.firstChild) log.removeChild(log.firstChild);
    var head = document.createElement("h3");
    head.textContent = "Day " + step.D;
    log.appendChild(head);
    var list = document.createElement("ol");
    g.steps.forEach(function (s, i) {
      if (s.D !== step.D) return;
      var li = document.createElement("li");
      li.textContent = T.describe(viewAt(g, i)) + (typeof s.t === "number" ? " \u00b7 " + secs(s.t) : "");
      li.className = "log-" + s.k + (i === stepIndex ? " log-current" : "");
      li.setAttribute("data-step", i);
      li.addEventListener("click", function () { go(i); });
      list.appendChild(li);
    });
    log.appendChild(list);
    var cur = list.querySelector(".log-current");
    // Scroll the log's own list, never the window: on a phone the table stays where the reader put it.
    if (cur) {
      var top = cur.offsetTop - list.offsetTop, bottom = top + cur.offsetHeight;
      if (top < list.scrollTop) list.scrollTop = top;
      else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight;
    }
  }

  function secs(t) { return t < 10 ? t.toFixed(t < 1 ? 2 : 1) + " s" : Math.round(t) + " s"; }

  var SEAT = ["#2a62c9", "#d0711b", "#1d8a4a", "#9b3fb8"];
  var NS = "http://www.w3.org/2000/svg";

  function svg(tag, attrs, text) {
    var n = document.createElementNS(NS, tag);
    for (var k in attrs) n.setAttribute(k, attrs[k]);
    if (text !== undefined) n.textContent = text;
    return n;
  }

  function chart(holder, title, days, series, currentDay, names, log) {
    while (holder.firstChild) holder.removeChild(holder.firstChild);
    var W = 320, H = 136, L = 38, R = 8, Tp = 8, B = 22;
    var root = svg("svg", {viewBox: "0 0 " + W + " " + H, width: "100%", role: "img", "aria-label": title + (log ? " (log scale)" : "")});
    var caption = document.createElement("div");  // HTML, so a long title wraps instead of being cut
    caption.className = "chart-title";
    caption.textContent = title + (log ? " (log scale)" : "");
    holder.appendChild(caption);
    var f = log ? function (v) { return Math.log10(1 + Math.max(0, v)); } : function (v) { return v; };
    var maxY = 1;
    series.forEach(function (s) { s.forEach(function (v) { maxY = Math.max(maxY, f(v)); }); });
    var maxX = Math.max(days[days.length - 1] || 1, 2), minX = days[0] || 1;
    var x = function (d) { return L + (d - minX) / Math.max(1, maxX - minX) * (W - L - R); };
    var y = function (v) { return H - B - f(v) / maxY * (H - B - Tp); };
    root.appendChild(svg("line", {x1: L, y1: H - B, x2: W - R, y2: H - B, "class": "axis"}));
    root.appendChild(svg("line", {x1: L, y1: Tp, x2: L, y2: H - B, "class": "axis"}));
    ticks(log, maxY).forEach(function (v) {
      var ty = y(v);
      root.appendChild(svg("line", {x1: L - 3, y1: ty, x2: L, y2: ty, "class": "axis"}));
      root.appendChild(svg("text", {x: L - 4, y: ty + 3, "text-anchor": "end", "class": "tick"}, tickText(v)));
    });
    root.appendChild(svg("text", {x: L, y: H - 6, "class": "tick"}, "day " + minX));
    root.appendChild(svg("text", {x: W - R, y: H - 6, "text-anchor": "end", "class": "tick"}, "end"));
    root.appendChild(svg("line", {x1: x(currentDay), y1: Tp, x2: x(currentDay), y2: H - B, "class": "now"}));
    series.forEach(function (s, p) {
      var pts = s.map(function (v, k) { return x(days[k]).toFixed(1) + "," + y(v).toFixed(1); }).join(" ");
      var line = svg("polyline", {points: pts, fill: "none", stroke: SEAT[p % 4], "stroke-width": 2});
      line.appendChild(svg("title", {}, T.visible(names[p])));
      root.appendChild(line);
      if (s.length < 30) s.forEach(function (v, k) {
        root.appendChild(svg("circle", {cx: x(days[k]).toFixed(1), cy: y(v).toFixed(1), r: 2.5, fill: SEAT[p % 4]}));
      });
    });
    root.addEventListener("click", function (e) {
      var box = root.getBoundingClientRect();
      var d = Math.round(minX + ((e.clientX - box.left) / box.width * W - L) / (W - L - R) * Math.max(1, maxX - minX));
      goDay(d);
    });
    holder.appendChild(root);
  }

  /* Axis values: 0 and a few round numbers; on a log axis 0 and powers of ten. */
  function ticks(log, maxY) {
    var out = [0];
    if (log) {
      var top = Math.floor(maxY - 1e-9), every = Math.max(1, Math.ceil(top / 4));
      for (var k = every; k <= top; k += every) out.push(Math.pow(10, k));
      return out;
    }
    var step = Math.pow(10, Math.floor(Math.log10(Math.max(1, maxY))));
    if (maxY / step < 2) step /= 5; else if (maxY / step < 5) step /= 2;
    step = Math.max(1, step);
    for (var v = step; v <= maxY + 1e-9; v += step) out.push(v);
    return out;
  }

  function tickText(v) {
    if (v >= 1e4) {
      var k = Math.round(Math.log10(v));
      return Math.abs(Math.pow(10, k) - v) < v * 1e-9 ? "1e" + k : v.toExponential(0).replace("e+", "e");
    }
    return String(Math.round(v));
  }

  function drawCharts(g, day) {
    var c = g.chart;
    var big = c.coins.some(function (s) { return s.some(function (v) { return v > 1e4; }); });
    chart($("chart-coins"), "Coins: each day\u2019s start, and the end", c.days, c.coins, day, g.names, big);
    chart($("chart-points"), "Points: each day\u2019s start, and the end", c.days, c.points, day, g.names, false);
    var legend = $("legend");
    while (legend.firstChild) legend.removeChild(legend.firstChild);
    g.names.forEach(function (n, p) {
      var item = document.createElement("span");
      item.className = "legend-item";
      var sw = document.createElement("span");
      sw.className = "swatch";
      sw.style.background = SEAT[p % 4];
      item.appendChild(sw);
      item.appendChild(document.createTextNode(T.visible(n)));
      legend.appendChild(item);
    });
  }

  function goDay(d, keepHash) {
    var steps = game().steps;
    for (var i = 0; i < steps.length; i++) if (steps[i].D >= d) return go(i, keepHash);
    go(steps.length - 1, keepHash);
  }

  /* Playing: one step, round or day at a time at the chosen speed; a
     revealed bid, a fight and the end stay on screen longer, to be read. */
  var BASE = 900, LINGER = 2.5;

  function delayFor(step) {
    var speed = parseFloat($("speed").value) || 1, unit = $("unit").value;
    var base = (unit === "day" ? 2.2 : unit === "round" ? 1.5 : 1) * BASE / speed;
    return step.k === "reveal" || step.k === "fight" ? base * LINGER : base;
  }

  function advance() {
    var unit = $("unit").value;
    if (unit === "round") go(jump(1, byRound));
    else if (unit === "day") go(jump(1, byDay));
    else go(stepIndex + 1);
  }

  function play() {
    if (timer) return stop();
    setPlayLabel(true);
    var tickOnce = function () {
      advance();
      if (timer) timer = setTimeout(tickOnce, delayFor(game().steps[stepIndex]));
    };
    timer = setTimeout(tickOnce, delayFor(game().steps[stepIndex]) / LINGER);
  }

  function stop() {
    if (timer) clearTimeout(timer);
    timer = null;
    setPlayLabel(false);
  }

  function setPlayLabel(playing) {
    var b = $("play");
    while (b.firstChild) b.removeChild(b.firstChild);
    b.appendChild(document.createTextNode(playing ? "\u275a\u275a" : "\u25b6"));
    var w = document.createElement("span");
    w.className = "w";
    w.textContent = playing ? " pause" : " play";
    b.appendChild(w);
  }

  function fromHash() {
    var h = location.hash.replace(/^#/, ""), args = {};
    h.split("&").forEach(function (kv) { var p = kv.split("="); if (p[0]) args[p[0]] = p[1] === undefined ? "" : decodeURIComponent(p[1]); });
    var gi = parseInt(args.game, 10);
    gameIndex = gi >= 1 && gi <= data.games.length ? gi - 1 : 0;
    $("game").value = String(gameIndex);
    // #day=D and #end stay as typed until the reader moves (then #step=N says where they are).
    if (args.day !== undefined && /^\d+$/.test(args.day)) return goDay(parseInt(args.day, 10), true), undefined;
    if (args.end !== undefined) return go(game().steps.length - 1, true);
    var s = parseInt(args.step, 10);
    go(isNaN(s) ? 0 : s, isNaN(s));
  }

  function setup() {
    document.title = data.title;
    $("title").textContent = data.title;
    var sel = $("game");
    data.games.forEach(function (g, i) {
      var o = document.createElement("option");
      o.value = String(i);
      o.textContent = "Game " + (i + 1) + ": " + g.names.map(T.visible).join(" vs ") + " \u2014 " + resultText(g);
      sel.appendChild(o);
    });
    $("games").hidden = data.games.length < 2;
    sel.addEventListener("change", function () { gameIndex = +sel.value; go(0); });
    var buttons = {
      start: function () { go(0); }, "prev-day": function () { go(jump(-1, byDay)); },
      "prev-round": function () { go(jump(-1, byRound)); }, prev: function () { go(stepIndex - 1); },
      next: function () { go(stepIndex + 1); }, "next-round": function () { go(jump(1, byRound)); },
      "next-day": function () { go(jump(1, byDay)); }, end: function () { go(game().steps.length - 1); },
      play: play,
    };
    Object.keys(buttons).forEach(function (id) {
      $(id).addEventListener("click", function () { if (id !== "play") stop(); buttons[id](); });
    });
    $("scrub").addEventListener("input", function () { stop(); go(+this.value); });
    document.addEventListener("keydown", function (e) {
      if (e.target && (e.target.tagName === "SELECT" || e.target.tagName === "INPUT" && e.target.type !== "range")) return;
      var k = e.key, act = null;
      if (k === "ArrowRight") act = e.shiftKey ? "next-round" : "next";
      else if (k === "ArrowLeft") act = e.shiftKey ? "prev-round" : "prev";
      else if (k === "ArrowDown" || k === "n") act = "next-round";
      else if (k === "ArrowUp" || k === "p") act = "prev-round";
      else if (k === "PageDown" || k === "]") act = "next-day";
      else if (k === "PageUp" || k === "[") act = "prev-day";
      else if (k === "Home") act = "start";
      else if (k === "End") act = "end";
      else if (k === " ") act = "play";
      if (act) { e.preventDefault(); if (act !== "play") stop(); buttons[act](); }
    });
    var mode = /(?:^#|&)print=(day|round|step)/.exec(location.hash);
    if (mode) return printFrames(mode[1]);
    window.addEventListener("hashchange", fromHash);
    fromHash();
  }

  function resultText(g) {
    var r = g.result || {};
    var name = function (s) { return typeof s === "number" && g.names[s] ? T.visible(g.names[s]) : "?"; };
    switch (r.kind) {
      case "elimination": return name(r.winner) + " wins by elimination";
      case "points": return name(r.winner) + " wins on points";
      case "draw": return "draw";
      case "fault": return name(r.seat) + " forfeits";
      case "aborted": return "cut off";
      default: return "unfinished";
    }
  }

  /* Print mode (#print=day|round|step): every frame one under the other, one per printed page. */
  function printFrames(every) {
    var g = game(), steps = g.steps, key = every === "day" ? "D" : "r";
    document.body.classList.add("printing");
    var holder = $("table");
    while (holder.firstChild) holder.removeChild(holder.firstChild);
    steps.forEach(function (s, i) {
      if (every !== "step" && i < steps.length - 1 && steps[i + 1][key] === s[key]) return;
      var frame = document.createElement("div");
      frame.className = "frame";
      holder.appendChild(frame);
      T.render(frame, viewAt(g, i), {});
    });
  }

  window.EconomancyReplay = {go: go, goDay: goDay, data: data, current: function () { return {game: gameIndex, step: stepIndex}; }};
  setup();
})();
