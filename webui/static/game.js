// The score page: draws the board, the score track, the scores and the move log from the
// server's state, follows the game through server-sent events, and enters tiles by hand.
"use strict";

(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const COLOURS = {
    red: "#c43d32", green: "#33834e", blue: "#6fa9d2", yellow: "#f0de3f",
    purple: "#7a5ea8", white: "#f5f5f5",
  };
  const LETTERS = { red: "R", green: "G", blue: "B", yellow: "Y", purple: "P", white: "W" };
  const DARK_TEXT = { yellow: true, white: true, blue: true };

  const geometry = JSON.parse(document.getElementById("geometry").textContent);
  let state = JSON.parse(document.getElementById("initial-state").textContent);
  const root = document.getElementById("game");
  const live = root.dataset.live === "true";
  const svg = document.getElementById("board");
  let received = Date.now() / 1000;

  function el(name, attrs, parent, text) {
    const node = document.createElementNS(SVG, name);
    for (const key in attrs) node.setAttribute(key, attrs[key]);
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }
  function html(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const key in attrs || {}) node.setAttribute(key, attrs[key]);
    if (text !== undefined) node.textContent = text;
    return node;
  }
  const pts = (list) => list.map((p) => p[0] + "," + p[1]).join(" ");
  function shrink(cell, k) {
    const [cx, cy] = cell.centroid;
    return cell.vertices.map(([x, y]) => [cx + (x - cx) * k, cy + (y - cy) * k]);
  }
  function holeFor(score) { return score <= 0 ? 0 : ((score - 1) % 100) + 1; }

  // -- a tile drawn in a cell (also used for the small pictures of the choices) ---------
  function drawTile(group, cell, edges, value) {
    const [cx, cy] = cell.centroid;
    for (const edge of ["left", "right", "base"]) {
      const [a, b] = cell.edges[edge];
      const colour = edges[edge];
      el("polygon", { points: pts([a, b, [cx, cy]]), fill: COLOURS[colour] || "#888",
        stroke: "#111", "stroke-width": 0.02, class: "sector sector-" + colour }, group);
      const mx = (a[0] + b[0]) / 2, my = (a[1] + b[1]) / 2;
      el("text", { x: cx + (mx - cx) * 0.68, y: cy + (my - cy) * 0.68, class: "letter",
        fill: DARK_TEXT[colour] ? "#111" : "#fff" }, group, LETTERS[colour] || "?");
    }
    el("circle", { cx: cx, cy: cy, r: 0.15, class: "disc" }, group);
    el("text", { x: cx, y: cy, class: "value" }, group, String(value));
  }

  // -- the board and the track ------------------------------------------------------------
  function drawBoard() {
    svg.textContent = "";
    el("polygon", { points: pts(geometry.band), class: "band" }, svg);
    el("polygon", { points: pts(geometry.board), class: "playfield" }, svg);
    const alertIndex = state.alert ? state.alert.index : null;
    for (const cell of geometry.cells) {
      const placed = state.board ? state.board[cell.index] : null;
      const g = el("g", { class: "cell", "data-index": cell.index }, svg);
      if (placed) {
        g.classList.add("tile");
        g.setAttribute("data-tile", placed.tile);
        drawTile(g, cell, placed.edges, placed.value);
      } else {
        el("polygon", { points: pts(cell.vertices), class: cell.bonus > 1 ? "bonus" : "empty" }, g);
        if (cell.bonus > 1) {
          el("text", { x: cell.centroid[0], y: cell.centroid[1] + 0.02, class: "bonus-number" },
            g, String(cell.bonus));
        } else {
          el("polygon", { points: pts(shrink(cell, 0.5)), class: "window" }, g);
        }
        if (cell.bonus <= 1) {
          el("text", { x: cell.centroid[0], y: cell.centroid[1], class: "cell-index" }, g,
            String(cell.index));
        }
        if (live && state.game && !state.finished) {
          g.classList.add("clickable");
          g.addEventListener("click", () => openEntry(cell.index));
        }
      }
      if (cell.index === state.last) {
        el("polygon", { points: pts(shrink(cell, 0.93)), class: "last" }, svg);
      }
      if (cell.index === alertIndex) {
        el("polygon", { points: pts(shrink(cell, 0.93)), class: "illegal-mark" }, svg);
      }
    }
    drawTrack();
  }

  function drawTrack() {
    const track = el("g", { class: "track" }, svg);
    for (const hole of geometry.track) {
      const cls = hole.n === 0 ? "hole start" : (hole.n % 5 === 0 ? "hole fifth" : "hole");
      if (hole.n === 0) {
        el("polygon", { points: pts([[hole.x, hole.y - 0.07], [hole.x + 0.07, hole.y + 0.05],
          [hole.x - 0.07, hole.y + 0.05]]), class: cls }, track);
      } else {
        el("circle", { cx: hole.x, cy: hole.y, r: 0.045, class: cls, "data-hole": hole.n }, track);
      }
      if (hole.tag) {
        el("text", { x: hole.tag.x, y: hole.tag.y, class: "track-tag" }, track, String(hole.n));
      }
    }
    const pegs = el("g", { class: "pegs" }, svg);
    const used = {};
    (state.track || []).forEach((side, s) => {
      for (const which of ["rear", "front"]) {
        const n = holeFor(side[which]);
        const hole = geometry.track[n];
        const k = used[n] = (used[n] || 0) + 1;
        const off = (k - 1) * 0.07;
        el("circle", { cx: hole.x + off, cy: hole.y - off, r: which === "front" ? 0.085 : 0.07,
          fill: "none", stroke: side.colour, "stroke-width": which === "front" ? 0.05 : 0.035,
          class: "peg peg-" + which, "data-side": s, "data-score": side[which] }, pegs);
      }
    });
  }

  // -- the side panel -----------------------------------------------------------------------
  function drawScores() {
    const box = document.getElementById("scores");
    box.textContent = "";
    if (!state.game) { box.hidden = true; return; }
    box.hidden = false;
    const title = html("h2", {}, state.finished ? "Final scores" : "Scores");
    box.appendChild(title);
    const list = html("ul", { class: "totals", id: "totals" });
    const teams = state.team_totals;
    (state.track || []).forEach((side) => {
      const total = teams ? teams[side.label] : state.totals[side.label];
      const li = html("li", { class: "total", "data-player": side.label });
      if (state.turn && (side.label === state.turn || side.label.split(" & ").includes(state.turn))) {
        li.classList.add("to-play");
      }
      if (state.finished && state.winners.includes(side.label)) li.classList.add("winner");
      const swatch = html("span", { class: "swatch" });
      swatch.style.borderColor = side.colour;
      li.appendChild(swatch);
      li.appendChild(html("span", { class: "name" }, side.label));
      li.appendChild(html("span", { class: "points", "data-total": total }, String(total)));
      if (side.lap > 0) li.appendChild(html("span", { class: "lap" }, "lap " + (side.lap + 1)));
      list.appendChild(li);
    });
    box.appendChild(list);
    if (teams) {
      const members = html("p", { class: "members" },
        Object.entries(state.totals).map(([n, t]) => n + " " + t).join(" · "));
      box.appendChild(members);
    }
    if (state.hands) {
      const hands = html("div", { class: "hands" });
      for (const [name, tiles] of Object.entries(state.hands)) {
        hands.appendChild(html("p", {}, name + ": " + (tiles.join(" ") || "-")));
      }
      box.appendChild(hands);
    }
    if (state.finished && state.winners.length) {
      box.appendChild(html("p", { class: "winners", id: "winners" },
        (state.winners.length > 1 ? "Tie: " : "Winner: ") + state.winners.join(", ")));
    }
  }

  function drawStatus() {
    const turn = document.getElementById("turn");
    const bag = document.getElementById("bag");
    if (!state.game) { turn.textContent = ""; bag.textContent = ""; return; }
    if (state.finished) turn.textContent = "Game over";
    else if (state.turn) turn.textContent = state.turn + " to play";
    else turn.textContent = "Whoever starts: place the first tile";
    bag.textContent = state.bag + " tile" + (state.bag === 1 ? "" : "s") + " in the bag";
    const notice = document.getElementById("notice");
    notice.hidden = !state.notice;
    notice.textContent = state.notice || "";
    drawTimer();
  }

  function drawTimer() {
    const timer = document.getElementById("solo-timer");
    if (!state.solo) { timer.hidden = true; return; }
    timer.hidden = false;
    let elapsed = state.solo.elapsed;
    if (state.solo.running) elapsed += Date.now() / 1000 - received;
    const left = state.solo.limit - elapsed;
    const fmt = (s) => Math.floor(Math.abs(s) / 60) + ":" + String(Math.floor(Math.abs(s) % 60)).padStart(2, "0");
    timer.textContent = "⏱ " + (left >= 0 ? fmt(left) + " left" : fmt(left) + " over") +
      " · " + state.solo.placed + "/" + state.solo.cells;
    timer.classList.toggle("over", left < 0);
  }

  function drawLog() {
    const body = document.querySelector("#log tbody");
    body.textContent = "";
    for (const row of (state.log || []).slice().reverse()) {
      const tr = html("tr", { class: row.legal ? row.kind : row.kind + " illegal", "data-n": row.n });
      tr.appendChild(html("td", {}, String(row.n)));
      tr.appendChild(html("td", {}, row.player || ""));
      const move = html("td", {}, row.text);
      if (live && row.kind === "place") {
        const fix = html("button", { type: "button", class: "fix", title: "fix this tile" }, "fix");
        fix.addEventListener("click", () => {
          document.getElementById("fix-details").open = true;
          document.getElementById("fix-move").value = row.n;
          document.getElementById("fix-placement").focus();
        });
        move.appendChild(fix);
      }
      tr.appendChild(move);
      let score = row.arithmetic || (row.legal ? String(row.points) : "");
      if (!row.legal) score = "illegal: " + row.reason;
      tr.appendChild(html("td", { class: "arithmetic" }, score));
      body.appendChild(tr);
    }
  }

  // The live camera view (/camera/live.jpg): reloaded a few times a second, each load
  // after the last one ended; the new picture replaces the old only once it has loaded.
  const liveView = { url: null, timer: null, busy: false, ended: false };
  function pollLive() {
    liveView.timer = null;
    if (!liveView.url || liveView.busy) return;
    liveView.busy = true;
    const next = new Image();
    next.alt = "camera view";
    next.className = "live";
    const done = (ok) => {
      liveView.busy = false;
      const view = document.getElementById("camera-view");
      if (ok && view && liveView.url) {
        const old = view.querySelector("img");
        if (old) old.replaceWith(next); else { view.textContent = ""; view.appendChild(next); }
      }
      if (liveView.url && !liveView.ended) liveView.timer = setTimeout(pollLive, ok ? 250 : 1000);
    };
    next.onload = () => done(true);
    next.onerror = () => done(false);
    next.src = liveView.url + "?n=" + Date.now();
  }

  function drawCamera() {
    const view = document.getElementById("camera-view");
    const status = document.getElementById("camera-status");
    if (!view || !state.camera) return;
    const cam = state.camera;
    liveView.url = cam.view || null;
    liveView.ended = cam.status === "source ended";
    if (cam.view) {
      if (!view.querySelector("img.live") && !view.querySelector("p.waiting")) {
        view.textContent = "";
        view.appendChild(html("p", { class: "no-camera waiting" }, "waiting for the first frame"));
      }
      // One more load when something changed (the last frame of an ended source, say).
      if (!liveView.busy) { clearTimeout(liveView.timer); pollLive(); }
    } else {
      const url = cam.frame ? "/camera/frame/" + encodeURIComponent(cam.frame) : null;
      let img = view.querySelector("img:not(.live)");
      if (url) {
        if (!img) { view.textContent = ""; img = html("img", { alt: "camera view" }); view.appendChild(img); }
        if (img.getAttribute("src") !== url) img.setAttribute("src", url);
      } else {
        view.textContent = "";
        view.appendChild(html("p", { class: "no-camera" },
          cam.mode === "none" ? "No camera: enter tiles by clicking the board." : "waiting for the first frame"));
      }
    }
    status.textContent = (cam.status || "") + (cam.message ? " — " + cam.message : "");
    status.className = "camera-status " + (cam.status || "").replace(/\s+/g, "-");
  }

  function drawOverlays() {
    if (!live) return;
    const alert = document.getElementById("alert");
    alert.hidden = !state.alert;
    if (state.alert) {
      document.getElementById("alert-tile").textContent =
        (state.alert.player || "") + " put " + state.alert.tile + " on cell " + state.alert.index;
      document.getElementById("alert-reason").textContent = state.alert.reason;
    }
    const unsure = document.getElementById("uncertain");
    unsure.hidden = !state.uncertain || !!state.alert;
    const choices = document.getElementById("uncertain-choices");
    choices.textContent = "";
    if (state.uncertain) {
      state.uncertain.candidates.forEach((cand, i) => {
        choices.appendChild(choiceButton(cand, () => post("/api/pick", { choice: i })));
      });
    }
  }

  const initialGame = state.game ? state.game.id : null;

  function render(next) {
    if (live && (next.game ? next.game.id : null) !== initialGame) {
      window.location.reload();  // another game: its forms (players, hands) differ
      return;
    }
    state = next;
    received = Date.now() / 1000;
    root.classList.toggle("finished", !!state.finished);
    drawBoard();
    drawScores();
    drawStatus();
    drawLog();
    drawCamera();
    drawOverlays();
  }

  // -- manual entry -------------------------------------------------------------------------
  function choiceButton(option, onPick) {
    const button = html("button", { type: "button", class: "choice" + (option.legal ? "" : " not-legal"),
      "data-placement": option.placement, title: option.legal ? option.points + " points" : option.reason });
    const cell = geometry.cells[option.index !== undefined ? option.index : Number(option.placement.split(":")[0])];
    const xs = cell.vertices.map((v) => v[0]), ys = cell.vertices.map((v) => v[1]);
    const pic = el("svg", { viewBox: [Math.min(...xs) - 0.05, Math.min(...ys) - 0.05,
      Math.max(...xs) - Math.min(...xs) + 0.1, Math.max(...ys) - Math.min(...ys) + 0.1].join(" "),
      class: "mini" });
    drawTile(pic, cell, option.edges, option.value);
    button.appendChild(pic);
    button.appendChild(html("span", { class: "choice-label" },
      option.tile + (option.legal ? " · " + option.points : "")));
    button.addEventListener("click", onPick);
    return button;
  }

  async function post(url, data) {
    try {
      const answer = await window.postJSON(url, data);
      if (answer.state) render(answer.state);
      return answer;
    } catch (err) {
      showError(err.message);
      throw err;
    }
  }

  function showError(message) {
    const box = document.getElementById("entry-error");
    const dialog = document.getElementById("entry");
    if (dialog && dialog.open) { box.hidden = false; box.textContent = message; return; }
    const notice = document.getElementById("notice");
    notice.hidden = false;
    notice.textContent = message;
    notice.classList.add("error");
  }

  async function openEntry(index) {
    const dialog = document.getElementById("entry");
    document.getElementById("entry-title").textContent = "Cell " + index + (state.turn ? " — " + state.turn : "");
    document.getElementById("entry-error").hidden = true;
    const legal = document.getElementById("entry-legal");
    const others = document.getElementById("entry-others");
    legal.textContent = "loading…";
    others.textContent = "";
    if (!dialog.open) dialog.showModal();
    let answer;
    try {
      const response = await fetch("/api/options/" + index, { credentials: "same-origin" });
      answer = await response.json();
      if (!response.ok) throw new Error(answer.error || "HTTP " + response.status);
    } catch (err) {
      legal.textContent = "";
      showError(err.message);
      return;
    }
    legal.textContent = "";
    let nLegal = 0;
    for (const option of answer.options) {
      option.index = index;
      const button = choiceButton(option, async () => {
        try {
          await post("/api/place", { placement: option.placement });
          dialog.close();
        } catch (err) { /* shown in the dialog */ }
      });
      if (option.legal) { legal.appendChild(button); nLegal += 1; } else others.appendChild(button);
    }
    if (!nLegal) legal.appendChild(html("p", {}, "No tile can go here legally."));
    document.getElementById("entry-others-box").open = nLegal === 0;
  }

  // -- live updates -------------------------------------------------------------------------
  function connect() {
    const connection = document.getElementById("connection");
    const source = new EventSource("/stream");
    source.addEventListener("state", (e) => {
      connection.textContent = "";
      connection.classList.remove("lost");
      render(JSON.parse(e.data));
    });
    source.onerror = () => {
      connection.textContent = "reconnecting…";
      connection.classList.add("lost");
    };
  }

  render(state);
  if (live) {
    connect();
    setInterval(() => { if (state.solo && state.solo.running) drawTimer(); }, 500);
  }
  window.spectrangle = { render: render, state: () => state };
})();
