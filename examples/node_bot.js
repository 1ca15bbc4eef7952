#!/usr/bin/env node
// A complete Economancy bot in plain Node.js (no npm packages), to show the
// protocol is all a bot needs: read one JSON state per line, answer with a
// one-element JSON array when asked, send nothing after "end" or "fault",
// stop at end of input.
//
// Strategy (legal, not clever): invest 0; as attacker stop at once; as
// defender use the first card that can still defend; buy the first card in
// the shop that is in stock and affordable, else Pass.
"use strict";
const readline = require("readline");

const COST = {
  "Board of Monopoly": 2, "Incantation": 4, "Worker": 1, "Magic Bean Stock": 1,
  "Bubble": 2, "Ghost": 2, "Senior Worker": 2, "Gold Fish": 3,
  "Wall of Wealth": 1, "Apprentice": 3, "Thug": 3, "Shield of Greed": 4, "Golem": 5,
};
// Defenses per attack phase; every card but the Stipend can defend.
const DEFENSES = { "Sorcerer's Stipend": 0, "Wall of Wealth": 2 };

function decide(state) {
  const me = state.players[state.player];
  const phase = state.phase;
  if (phase.name === "investing") return 0;
  if (phase.name === "attacking") {
    if (phase.attacker === state.player) return 0; // stop attacking
    return me.cards.findIndex((c) => c.uses < (DEFENSES[c.name] ?? 1));
  }
  if (phase.name === "buy") {
    const card = Object.keys(state.shop).find(
      (name) => state.shop[name] > 0 && COST[name] <= me.coins);
    return card ?? "Pass";
  }
  return null; // end or fault: the game is over, answer nothing
}

// If the driver goes away mid-answer, just stop.
process.stdout.on("error", () => process.exit(0));
const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (line.trim() === "") return;
  const move = decide(JSON.parse(line));
  if (move !== null) process.stdout.write(JSON.stringify([move]) + "\n");
});
