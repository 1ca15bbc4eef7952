/* Economancy table renderer: draws one moment of a game.
 *
 * Shared by the replay page (viewer/static/replay.js) and the game
 * server's live pages. It applies no rule: everything it draws comes from
 * the view it is given (built by viewer/model.py, or by fromWire below).
 * Every text that came from a bot (names, answers, reasons, standard
 * error) goes into the page through textContent only, with control and
 * invisible characters made visible.
 *
 * API (global `EconomancyTable`):
 *
 *   EconomancyTable.render(container, view, options) -> void
 *     Replaces the contents of `container` with the table.
 *     view = {
 *       cards: [{name, cost, atk, def, points, attacks, defends, text}],  // card table, index = card id
 *       names: ["alpha", "beta"],                 // one per seat
 *       shop:  [1, 3, ...],                       // card ids in display order
 *       state: {day, D, phase, shop: [count per view.shop entry],
 *               players: [[coins, buys, [card, uses, card, uses, ...]], ...]},
 *       step:  {k, p, a, m, sealed, ev} or null   // what happened here (see viewer/model.py)
 *     }
 *     options = {
 *       perspective: seat or null,   // highlight this seat as "you" (live play)
 *       onCard(seat, index),         // a card in a hand was clicked (with legal.cards)
 *       onShop(cardId),              // a shop pile was clicked (with legal.shop)
 *       legal: {cards: [[seat, index], ...], shop: [cardId, ...]}  // clickable moves
 *     }
 *   EconomancyTable.describe(view) -> string   one line saying what happened
 *   EconomancyTable.fromWire(wireState, cards, names) -> view   a live wire state as a view
 *   EconomancyTable.visible(text) -> string    control characters made visible
 *   EconomancyTable.points(view, seat) -> number
 */
(function (global) {
  "use strict";

  var INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

  function visible(text) {
    return String(text).replace(INVISIBLE, function (ch) {
      var code = ch.charCodeAt(0);
      if (code === 10) return "\\n";
      if (code === 9) return "\\t";
      if (code === 13) return "\\r";
      var hex = code.toString(16);
      return code < 256 ? "\\x" + ("0" + hex).slice(-2) : "\\u" + ("000" + hex).slice(-4);
    });
  }

  /* Text shown as a block (a bot's standard error): its line breaks and
     tabs kept, every other control character made visible. */
  function visibleBlock(text) {
    return String(text).replace(INVISIBLE, function (ch) { return ch === "\n" || ch === "\t" ? ch : visible(ch); });
  }

  function el(tag, cls, children) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (children !== undefined) append(node, children);
    return node;
  }

  function append(node, children) {
    if (children === null || children === undefined || children === false) return node;
    if (Array.isArray(children)) {
      children.forEach(function (c) { append(node, c); });
    } else if (typeof children === "object" && children.nodeType) {
      node.appendChild(children);
    } else {
      node.appendChild(document.createTextNode(visible(children)));
    }
    return node;
  }

  function attr(node, name, value) { node.setAttribute(name, String(value)); return node; }

  function seatName(view, seat) {
    var n = view.names && view.names[seat];
    return n ? n : "Seat " + seat;
  }

  function cardOf(view, id) {
    return view.cards[id] || {name: "card " + id, cost: null, atk: null, def: null, points: 0, attacks: 0, defends: 0, text: ""};
  }

  function hand(view, seat) {
    var flat = view.state.players[seat][2];
    var out = [];
    for (var i = 0; i + 1 < flat.length; i += 2) out.push({id: flat[i], uses: flat[i + 1]});
    return out;
  }

  function points(view, seat) {
    return hand(view, seat).reduce(function (sum, c) { return sum + (cardOf(view, c.id).points || 0); }, 0);
  }

  function initials(name) {
    var words = name.replace(/[^A-Za-z ]/g, "").split(" ").filter(function (w) { return w && w !== "of"; });
    return (words.length > 1 ? words[0][0] + words[1][0] : (words[0] || "?").slice(0, 2)).toUpperCase();
  }

  function family(card) {
    if (card.name === "Sorcerer's Stipend") return "stipend";
    if (card.points) return "points";
    if (card.cost === null || card.cost === undefined) return "unknown";
    if ((card.atk || 0) >= 4 || (card.def || 0) >= 4 || card.name === "Bubble" || card.name === "Ghost") return "fighter";
    return "economy";
  }

  var ICONS = {  // our own simple glyphs, one per family
    stipend: "M12 3 L21 12 L12 21 L3 12 Z",
    points: "M12 2 L14.6 8.6 L21.5 9 L16.2 13.5 L17.9 20.5 L12 16.7 L6.1 20.5 L7.8 13.5 L2.5 9 L9.4 8.6 Z",
    economy: "M12 3 A9 9 0 1 0 12.01 3 Z M12 7 L12 17 M9 9.5 L15 9.5 M9 14.5 L15 14.5",
    fighter: "M5 19 L17 7 M14 4 L20 4 L20 10 M4 14 L10 20",
    unknown: "M8 8 A4 4 0 1 1 12 12 L12 15 M12 18 L12 19"
  };

  function glyph(card) {
    var ns = "http://www.w3.org/2000/svg";
    var svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    svg.setAttribute("class", "ect-glyph");
    svg.setAttribute("aria-hidden", "true");
    var path = document.createElementNS(ns, "path");
    path.setAttribute("d", ICONS[family(card)]);
    svg.appendChild(path);
    return svg;
  }

  function statBadge(kind, value, title) {
    var b = el("span", "ect-stat ect-" + kind, value === null || value === undefined ? "\u2013" : String(value));
    attr(b, "title", title);
    return b;
  }

  /* One card: name, attack, defense, uses, and (in the shop) cost. Built
     once per look and cloned after (a replay draws the same cards again and again). */
  var cardCache = typeof WeakMap !== "undefined" ? new WeakMap() : null;

  function cardNode(view, id, opts) {
    if (!cardCache) return buildCard(view, id, opts);
    var byTable = cardCache.get(view.cards);
    if (!byTable) { byTable = {}; cardCache.set(view.cards, byTable); }
    var key = [id, opts.index, opts.uses, opts.attacking, opts.attackPhase, opts.cost, opts.last].join("|");
    if (!byTable[key]) byTable[key] = buildCard(view, id, opts);
    return byTable[key].cloneNode(true);
  }

  function buildCard(view, id, opts) {
    var card = cardOf(view, id);
    var node = el("div", "ect-card ect-fam-" + family(card));
    attr(node, "data-card", card.name);
    append(node, el("div", "ect-card-head", el("span", "ect-card-name", card.name)));
    var art = el("div", "ect-card-art", [glyph(card), el("span", "ect-card-initials", initials(card.name)),
      opts.index !== undefined ? el("span", "ect-card-index", "#" + opts.index + (opts.last !== undefined ? "\u2013" + opts.last : "")) : null]);
    append(node, art);
    var stats = el("div", "ect-card-stats", [
      statBadge("atk", card.atk, "attack " + (card.atk === null ? "none" : card.atk) + (card.attacks ? "" : " (cannot attack)")),
      statBadge("def", card.def, "defense " + (card.def === null ? "none" : card.def) + (card.defends > 1 ? " (defends " + card.defends + "\u00d7)" : "")),
    ]);
    if (card.points) append(stats, statBadge("pts", card.points, card.points + (card.points > 1 ? " points" : " point")));
    append(node, stats);
    if (opts.cost) append(node, el("div", "ect-card-cost", [el("span", "ect-coin-icon"), String(card.cost === null ? "\u2013" : card.cost)]));
    if (card.text) append(node, el("div", "ect-card-text", card.text));  // readable on a touch screen, where a tooltip is not
    if (opts.uses !== undefined) {
      var limit = opts.attacking ? card.attacks : card.defends;
      var used = opts.uses > 0;
      if (used) node.classList.add("ect-used");
      var label = used ? "used " + opts.uses + (limit ? "/" + limit : "") : (opts.attackPhase ? "ready" : "");
      if (label) append(node, el("div", "ect-card-uses", label));
    }
    var tip = card.name + (card.cost !== null && card.cost !== undefined ? " \u2014 cost " + card.cost : "") +
      " \u2014 attack " + (card.atk === null ? "\u2013" : card.atk) + ", defense " + (card.def === null ? "\u2013" : card.def) +
      (card.text ? ". " + card.text : "");
    attr(node, "title", tip);
    return node;
  }

  function phaseLabel(phase) {
    switch (phase.name) {
      case "investing": return "Investing";
      case "attacking": return phase.attacker_card === false ? "Attack: choosing a card" : "Attack: defending";
      case "buy": return "Buying";
      case "end": return "Game over";
      case "fault": return "Forfeit";
      default: return String(phase.name);
    }
  }

  /* The phase as the step shows it: an event names itself, the state its phase otherwise. */
  function stepLabel(view) {
    var step = view.step;
    if (step && step.k === "fight") return "Attack resolved";
    if (step && step.k === "reveal") return step.ev.type === "invest" ? "Investments revealed" : "Buys revealed";
    if (step && (step.k === "aborted" || step.k === "cut")) return step.k === "aborted" ? "Cut off" : "Unfinished";
    return phaseLabel(view.state.phase);
  }

  function seconds(t) {
    return t < 10 ? t.toFixed(t < 1 ? 2 : 1) + " s" : Math.round(t) + " s";
  }

  function fmt(n) {  // numbers may be strings (beyond 2^53): show as they are, grouped
    var s = String(n);
    return /^-?\d{5,}$/.test(s) ? s.replace(/\B(?=(\d{3})+(?!\d))/g, "\u2009") : s;
  }

  function answerText(view, step, yours) {
    if (!step || step.k !== "ask") return "";
    var m = step.m || {};
    if (step.a === undefined) return yours ? "your move" : "thinking\u2026";
    if (step.a === null) return "gave no answer";
    if (m.timeout) return "ran out of time";
    if (m.invest !== undefined) return "invests " + fmt(m.invest);
    if (m.pass) return "passes";
    if (m.buy !== undefined) return "buys " + cardOf(view, m.buy).name;
    if (m.stop) return "stops attacking";
    if (m.card !== undefined) {
      var attacking = view.state.phase.name === "attacking" && view.state.phase.attacker === step.p &&
        view.state.phase.attacker_card === false;
      return (attacking ? "attacks with " : "defends with ") + cardOf(view, m.c).name + " (#" + m.card + ")";
    }
    return "answers " + step.a;
  }

  function asking(view, step) {
    var ph = view.state.phase;
    if (ph.name === "investing") return "how much to invest (hidden from the others)";
    if (ph.name === "buy") return "what to buy (hidden from the others)";
    if (ph.name === "attacking") return ph.attacker_card === false && ph.attacker === step.p ?
      "which card attacks, or to stop attacking" : "which card defends";
    return "a move";
  }

  /* One line saying what happened at this step, for logs and titles. */
  function describe(view) {
    var step = view.step;
    if (!step) return phaseLabel(view.state.phase);
    var ev = step.ev || {};
    switch (step.k) {
      case "ask":
        if (step.a === undefined) return "Waiting for " + seatName(view, step.p) + ": " + asking(view, step);
        var m = step.m || {};
        return seatName(view, step.p) + " " + answerText(view, step) +
          (m.bad && step.a !== null && !m.timeout ? " (not a legal move)" : "") +
          (step.o ? " (opening move, set by the referee)" : "");
      case "reveal":
        if (ev.type === "invest") {
          var amounts = ev.amounts.map(function (a) { return seatName(view, a[0]) + " " + fmt(a[1]); }).join(", ");
          return "Investments revealed: " + amounts + ". " + (ev.attacker === null ? "Tie: nobody attacks." :
            seatName(view, ev.attacker) + (ev.attacks ? " attacks." : " invested most but has no card that can attack."));
        }
        var parts = ev.choices.map(function (c) {
          return seatName(view, c[0]) + (c[1] === null ? " passes" : (c[2] ? " buys " : " pays for but does not get ") + cardOf(view, c[1]).name);
        });
        return "Buys revealed: " + parts.join(", ") + ".";
      case "fight":
        var att = cardOf(view, ev.c).name;
        var text = seatName(view, ev.attacker) + "'s " + att + " attacks";
        if (ev.defs.length) {
          text += ": " + ev.defs.map(function (d) {
            return seatName(view, d.p) + "'s " + cardOf(view, d.c).name + (d.faint ? " faints" : " holds");
          }).join(", ");
        }
        if (ev.faint) text += "; " + att + " faints";
        if (ev.out.length) text += "; " + ev.out.map(function (p) { return seatName(view, p); }).join(", ") + " eliminated";
        return text + ".";
      case "end":
        if (ev.winner === null) return "Draw: the day limit was reached with no winner.";
        return seatName(view, ev.winner) + (ev.how === "elimination" ? " wins: everyone else is eliminated." :
          " wins the points race with " + ev.points[ev.winner] + " points.");
      case "fault":
        return (ev.seat === null ? "A player" : seatName(view, ev.seat)) + " forfeits: " + ev.reason;
      case "aborted":
        return "Game cut off: " + ev.reason;
      case "cut":
        return "The trace ends here (the game did not finish)" + (ev.reason ? ": " + ev.reason : "") + ".";
    }
    return "";
  }

  function outcomeOf(view) {
    var step = view.step;
    var ph = view.state.phase;
    var res = {winner: null, fault: null, out: []};
    if (ph.name === "end" && typeof ph.winner === "number") res.winner = ph.winner;
    if (ph.name === "fault" && typeof ph.forfiet === "number") res.fault = ph.forfiet;
    if (step && step.ev && step.ev.out) res.out = step.ev.out;
    return res;
  }

  function attackPhase(view) { return view.state.phase.name === "attacking"; }

  function playerPanel(view, seat, options) {
    var st = view.state;
    var p = st.players[seat];
    var step = view.step;
    var ph = st.phase;
    var outcome = outcomeOf(view);
    var alive = p[2].length > 0;
    var panel = el("section", "ect-player ect-seat-" + seat);
    attr(panel, "data-seat", seat);
    var asked = step && step.k === "ask" && step.p === seat;
    if (asked) panel.classList.add("ect-asked");
    if (!alive) panel.classList.add("ect-out");
    if (outcome.winner === seat) panel.classList.add("ect-winner");
    if (outcome.fault === seat) panel.classList.add("ect-faulted");
    if (options.perspective === seat) panel.classList.add("ect-you");

    var badges = [];
    if (outcome.winner === seat) badges.push(el("span", "ect-badge ect-badge-win", "winner"));
    if (outcome.fault === seat) badges.push(el("span", "ect-badge ect-badge-fault", "forfeited"));
    if (!alive) badges.push(el("span", "ect-badge ect-badge-out", outcome.out.indexOf(seat) >= 0 ? "eliminated now" : "out"));
    if (ph.name === "attacking" && ph.attacker === seat) badges.push(el("span", "ect-badge ect-badge-attacker", "attacker"));
    if (asked) badges.push(el("span", "ect-badge ect-badge-asked", "to move"));
    if (options.perspective === seat) badges.push(el("span", "ect-badge", "you"));
    append(panel, el("header", "ect-player-head", [
      el("span", "ect-seat", String(seat)), el("span", "ect-name", seatName(view, seat)), badges,
    ]));

    var pts = points(view, seat);
    var coins = el("span", "ect-coins", [el("span", "ect-coin-icon"), el("b", "ect-coins-n", fmt(p[0]))]);
    attr(coins, "title", "coins");
    var buys = el("span", "ect-buys", ["buys ", el("b", "ect-buys-n", fmt(p[1]))]);
    attr(buys, "title", "buys left today");
    var ptsNode = el("span", "ect-points", [el("span", "ect-star", "\u2605"), el("b", "ect-points-n", String(pts)), " pts"]);
    attr(ptsNode, "title", pts + " points (7 and strictly the most wins)");
    var meter = el("span", "ect-meter");
    var fill = el("span", "ect-meter-fill");
    fill.style.width = Math.min(100, pts / 7 * 100) + "%";
    append(meter, fill);
    append(panel, el("div", "ect-stats", [coins, buys, ptsNode, meter]));

    var handNode = el("div", "ect-hand");
    var legalCards = (options.legal && options.legal.cards) || [];
    var inAttack = attackPhase(view);
    var cardsHeld = hand(view, seat);
    var marked = function (i) {
      return (inAttack && ph.attacker === seat && ph.attacker_card === i) ||
        (step && step.k === "ask" && step.p === seat && step.m && step.m.card === i) ||
        legalCards.some(function (lc) { return lc[0] === seat && lc[1] === i; });
    };
    for (var i = 0; i < cardsHeld.length; i++) {
      var c = cardsHeld[i];
      // Identical cards in a row (same card, same uses, none marked) are drawn once, "x3".
      var j = i;
      if (!marked(i)) {
        while (j + 1 < cardsHeld.length && cardsHeld[j + 1].id === c.id && cardsHeld[j + 1].uses === c.uses && !marked(j + 1)) j++;
      }
      var node = cardNode(view, c.id, {index: i, last: j > i ? j : undefined, uses: c.uses,
        attacking: inAttack && ph.attacker === seat, attackPhase: inAttack});
      if (j > i) {
        node.classList.add("ect-group");
        attr(node, "data-count", j - i + 1);
        node.appendChild(el("span", "ect-count-badge", "\u00d7" + (j - i + 1)));
      }
      if (inAttack && ph.attacker === seat && ph.attacker_card === i) node.classList.add("ect-attacking");
      if (step && step.k === "ask" && step.p === seat && step.m && step.m.card === i) node.classList.add("ect-chosen");
      var isLegal = legalCards.some(function (lc) { return lc[0] === seat && lc[1] === i; });
      if (isLegal && options.onCard) {
        node.classList.add("ect-clickable");
        attr(node, "tabindex", 0);
        node.addEventListener("click", (function (k) { return function () { options.onCard(seat, k); }; })(i));
        node.addEventListener("keydown", (function (k) { return function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); options.onCard(seat, k); } }; })(i));
      }
      handNode.appendChild(node);
      i = j;
    }
    if (!alive) append(handNode, el("div", "ect-empty", "no cards: out of the game"));
    append(panel, handNode);

    // This seat's answer at this step, or its sealed answer earlier in the round.
    if (asked) {
      var sealed = ph.name === "investing" || ph.name === "buy";
      var bubble = el("div", "ect-answer" + (step.m && step.m.bad ? " ect-bad" : "") + (step.o ? " ect-opening" : ""), [
        el("span", "ect-answer-q", "asked " + asking(view, step) + ": "),
        el("b", "ect-answer-a", answerText(view, step, options.perspective === seat)),
        step.o ? el("span", "ect-mark", "opening move, set by the referee") : null,
        typeof step.t === "number" ? el("span", "ect-took", "thought " + seconds(step.t)) : null,
        step.a === undefined ? null : el("code", "ect-raw", step.a === null ? "(nothing)" : step.a),  // undefined: still thinking (live)
        sealed ? el("span", "ect-sealed", "sealed until everyone has answered") : null,
      ]);
      append(panel, bubble);
    } else if (step && step.k === "ask" && step.sealed && step.sealed.indexOf(seat) >= 0) {
      append(panel, el("div", "ect-answer ect-answer-sealed", "has answered (sealed)"));
    }
    var ev = step && step.ev;
    if (ev && step.k === "reveal") {
      var mine = ev.type === "invest" ? ev.amounts.filter(function (a) { return a[0] === seat; })[0]
        : ev.choices.filter(function (c) { return c[0] === seat; })[0];
      if (mine) {
        var said = ev.type === "invest" ? "invested " + fmt(mine[1]) :
          (mine[1] === null ? "passed" : (mine[2] ? "bought " : "lost the contest for ") + cardOf(view, mine[1]).name);
        append(panel, el("div", "ect-answer ect-revealed" + (ev.type === "buy" && mine[1] !== null && !mine[2] ? " ect-bad" : ""), said));
      }
    }
    return panel;
  }

  function shopPanel(view, options) {
    var st = view.state;
    var ev = view.step && view.step.k === "reveal" && view.step.ev.type === "buy" ? view.step.ev : null;
    var box = el("section", "ect-shop", el("h3", null, "Shop"));
    var grid = el("div", "ect-shop-grid");
    var legal = (options.legal && options.legal.shop) || [];
    view.shop.forEach(function (id, k) {
      var count = st.shop[k];
      var pile = el("div", "ect-pile" + (String(count) === "0" ? " ect-soldout" : ""));
      attr(pile, "data-card", cardOf(view, id).name);
      pile.appendChild(cardNode(view, id, {cost: true}));
      var cnt = el("div", "ect-count", [el("b", "ect-count-n", fmt(count)), " left"]);
      pile.appendChild(cnt);
      if (ev) {
        var buyers = ev.choices.filter(function (c) { return c[1] === id; });
        if (buyers.length) {
          pile.classList.add(buyers[0][2] ? "ect-bought" : "ect-contested");
          append(pile, el("div", "ect-pile-note", (buyers[0][2] ? "bought by " : "nobody got it: ") +
            buyers.map(function (c) { return seatName(view, c[0]); }).join(", ")));
        }
      }
      if (legal.indexOf(id) >= 0 && options.onShop) {
        pile.classList.add("ect-clickable");
        attr(pile, "tabindex", 0);
        pile.addEventListener("click", function () { options.onShop(id); });
      }
      grid.appendChild(pile);
    });
    box.appendChild(grid);
    return box;
  }

  function fightPanel(view, ev) {
    var att = cardOf(view, ev.c);
    var box = el("div", "ect-fight");
    var left = el("div", "ect-fight-side", [
      el("div", "ect-fight-who", seatName(view, ev.attacker) + " attacks with"),
      cardNode(view, ev.c, {index: ev.i}),
      el("div", "ect-verdict " + (ev.faint ? "ect-faints" : "ect-holds"), ev.faint ? "faints" : "survives"),
    ]);
    if (ev.faint) left.children[1].classList.add("ect-fainted");
    box.appendChild(left);
    box.appendChild(el("div", "ect-vs", "vs"));
    var right = el("div", "ect-fight-defs");
    ev.defs.forEach(function (d) {
      var card = cardOf(view, d.c);
      var node = cardNode(view, d.c, {index: d.i});
      if (d.faint) node.classList.add("ect-fainted");
      var why = "attack " + att.atk + (d.faint ? " > " : " \u2264 ") + "defense " + card.def;
      right.appendChild(el("div", "ect-fight-side", [
        el("div", "ect-fight-who", seatName(view, d.p) + " defends with"), node,
        el("div", "ect-verdict " + (d.faint ? "ect-faints" : "ect-holds"), (d.faint ? "faints" : "holds") + " (" + why + ")"),
        d.shield ? el("div", "ect-note", "+1 coin (Shield of Greed)") : null,
      ]));
    });
    ev.nodef.forEach(function (p) {
      right.appendChild(el("div", "ect-fight-side ect-nodef", [
        el("div", "ect-fight-who", seatName(view, p)),
        el("div", "ect-verdict ect-faints", ev.out.indexOf(p) >= 0 ? "no card can defend: eliminated" : "cannot defend"),
      ]));
    });
    if (!ev.defs.length && !ev.nodef.length) right.appendChild(el("div", "ect-note", "nobody defends"));
    box.appendChild(right);
    var rule = ev.defs.length ? "A defender faints when the attack is greater than its defense; the attacker faints when a defender's attack (" +
      ev.defs.map(function (d) { return cardOf(view, d.c).atk; }).join(", ") + ") is greater than its defense (" + att.def + ")." : "";
    return el("div", "ect-event ect-event-fight", [el("h3", null, "Attack"), box, rule ? el("p", "ect-rule", rule) : null]);
  }

  /* While defenders answer: the attacking card they face. */
  function pendingAttack(view) {
    var ph = view.state.phase;
    if (ph.name !== "attacking" || typeof ph.attacker_card !== "number") return null;
    var att = view.state.players[ph.attacker];
    if (!att) return null;
    var card = hand(view, ph.attacker)[ph.attacker_card];
    if (!card) return null;
    return el("div", "ect-event ect-event-fight", [
      el("h3", null, "Attack in progress"),
      el("div", "ect-fight", [
        el("div", "ect-fight-side", [el("div", "ect-fight-who", seatName(view, ph.attacker) + " attacks with"),
          cardNode(view, card.id, {index: ph.attacker_card})]),
        el("p", "ect-rule", "Each other player still in picks one card to defend, in seat order; a player with no card able to defend is eliminated."),
      ]),
    ]);
  }

  function eventPanel(view) {
    var step = view.step;
    if (!step) return pendingAttack(view);
    var ev = step.ev || {};
    if (step.k === "fight") return fightPanel(view, ev);
    if (step.k === "reveal" && ev.type === "invest") {
      var chips = ev.amounts.map(function (a) {
        return el("span", "ect-chip" + (a[0] === ev.attacker ? " ect-chip-top" : ""), [seatName(view, a[0]) + " ", el("b", null, fmt(a[1]))]);
      });
      var verdict = ev.attacker === null ? "Tie for the highest investment: nobody attacks today." :
        seatName(view, ev.attacker) + (ev.attacks ? " invested the most and attacks." : " invested the most but has no card that can attack.");
      return el("div", "ect-event ect-event-invest", [el("h3", null, "Investments revealed"), el("div", "ect-chips", chips), el("p", null, verdict)]);
    }
    if (step.k === "reveal" && ev.type === "buy") {
      var rows = ev.choices.map(function (c) {
        return el("li", c[1] !== null && !c[2] ? "ect-bad" : null, [el("b", null, seatName(view, c[0])), " ",
          c[1] === null ? "passes" : (c[2] ? "buys " + cardOf(view, c[1]).name : "pays for " + cardOf(view, c[1]).name + " but gets nothing")]);
      });
      var notes = ev.contested.map(function (c) {
        var who = c[1].map(function (p) { return seatName(view, p); }).join(" and ");
        return el("p", "ect-contested-note", String(c[2]) === "0" && c[1].length === 1 ?
          who + " wanted " + cardOf(view, c[0]).name + " but none was left: paid, got nothing." :
          who + " all wanted " + cardOf(view, c[0]).name + " (" + fmt(c[2]) + " left): contested, so nobody got it, and each paid.");
      });
      return el("div", "ect-event ect-event-buy", [el("h3", null, "Buys revealed"), el("ul", null, rows), notes]);
    }
    if (step.k === "end" || step.k === "fault" || step.k === "aborted" || step.k === "cut") {
      var title = {end: ev.winner === null ? "Draw" : seatName(view, ev.winner) + " wins", fault: "Forfeit",
        aborted: "Game cut off", cut: "Trace ends"}[step.k];
      var body = [el("h3", null, title), el("p", "ect-end-text", describe(view))];
      if (step.k === "end" && ev.days) body.push(el("p", "ect-note", "after " + ev.days + " days"));
      if (step.k === "fault" && ev.stderr) {
        body.push(el("div", "ect-note", "Last standard error of " + (ev.seat === null ? "the bot" : seatName(view, ev.seat)) + ":"));
        var pre = el("pre", "ect-stderr");
        pre.appendChild(document.createTextNode(visibleBlock(ev.stderr)));
        body.push(pre);
      }
      return el("div", "ect-event ect-event-end ect-end-" + step.k, body);
    }
    return pendingAttack(view);
  }

  function render(container, view, options) {
    options = options || {};
    var st = view.state;
    var root = el("div", "ect ect-n" + st.players.length);
    attr(root, "data-phase", st.phase.name);
    attr(root, "data-day", st.D);
    var cycle = el("span", "ect-cycle", "(day " + st.day + " of the 3-day cycle)");
    attr(cycle, "title", "Income depends on the day of the cycle: 1, 2, 3, 1, 2, 3, ...");
    var top = el("div", "ect-top", [
      el("span", "ect-day", ["Day ", el("b", "ect-day-n", String(st.D))]), cycle,
      el("span", "ect-phase ect-phase-" + st.phase.name, stepLabel(view)),
      el("span", "ect-status", describe(view)),
    ]);
    root.appendChild(top);
    var players = el("div", "ect-players");
    for (var s = 0; s < st.players.length; s++) players.appendChild(playerPanel(view, s, options));
    var side = el("div", "ect-side", [eventPanel(view), shopPanel(view, options)]);
    root.appendChild(el("div", "ect-main", [players, side]));
    while (container.firstChild) container.removeChild(container.firstChild);
    container.appendChild(root);
  }

  /* A wire state (as a bot receives it) as a view, for live games. */
  function fromWire(wire, cards, names) {
    var index = {};
    cards.forEach(function (c, i) { index[c.name] = i; });
    var shop = Object.keys(wire.shop).map(function (n) { return index[n]; }).filter(function (i) { return i !== undefined; });
    shop.sort(function (a, b) { return (cards[a].cost || 0) - (cards[b].cost || 0) || a - b; });
    return {
      cards: cards, names: names || [], shop: shop,
      state: {
        day: wire.day, D: wire.D || wire.day, phase: wire.phase,
        shop: shop.map(function (i) { return wire.shop[cards[i].name]; }),
        players: wire.players.map(function (p) {
          var flat = [];
          p.cards.forEach(function (c) { flat.push(index[c.name] === undefined ? -1 : index[c.name], c.uses); });
          return [p.coins, p.buys, flat];
        }),
      },
      step: typeof wire.player === "number" ? {k: "ask", p: wire.player, a: undefined, m: {}} : null,
    };
  }

  global.EconomancyTable = {render: render, describe: describe, fromWire: fromWire, visible: visible, points: points};
})(typeof window !== "undefined" ? window : this);
