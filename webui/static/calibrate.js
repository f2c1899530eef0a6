// The calibration page: the frame (or the live camera) with the fitted lattice, the verdict,
// click-three-corners and drag-a-lattice-point, teaching the tile colours, saving.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const view = $("view");
  const img = $("frame");
  const live = $("calib").dataset.live === "1";
  let status = null;
  let corners = [];  // clicked points in frame pixels (in the fit's order when taken from it)
  let point = null;  // a dragged lattice point: {board: [u, v], image: [x, y]}
  let lattice = [];  // the shown fit's lattice vertices: [u, v, x, y]
  let centre = null;  // the board's centre in board units
  let liveCorners = null;  // the corners of the fit shown over the live picture
  let adjusting = false;  // lattice points shown for dragging
  let dragging = false;
  let busy = false;

  const LABELS = { px_per_unit: "px per tile", tilt_deg: "tilt (deg)", white: "white level",
    span: "contrast", glare: "glare share", separation: "colour separation",
    residual_px: "residual (px)", frames: "frames" };

  function toFrame(event) {
    const r = img.getBoundingClientRect();
    return [(event.clientX - r.left) * img.naturalWidth / r.width,
            (event.clientY - r.top) * img.naturalHeight / r.height];
  }

  function mark(cls, p, label, onDown) {
    const sx = img.clientWidth / img.naturalWidth;
    const sy = img.clientHeight / img.naturalHeight;
    const m = document.createElement("div");
    m.className = cls;
    m.style.left = (p[0] * sx) + "px";
    m.style.top = (p[1] * sy) + "px";
    if (label) m.innerHTML = "<span>" + label + "</span>";
    m.addEventListener("pointerdown", onDown);
    view.appendChild(m);
    return m;
  }

  function drawMarks() {
    view.querySelectorAll(".calib-mark, .calib-dot").forEach((m) => m.remove());
    if (img.naturalWidth) {
      if (adjusting) {
        lattice.forEach(function (v) {
          if (point && point.board[0] === v[0] && point.board[1] === v[1]) return;
          const dot = mark("calib-dot", [v[2], v[3]], "", startDrag);
          dot.dataset.board = v[0] + "," + v[1];
        });
      } else if (corners.length === 3 && !point && centre) {
        // The board's centre, offered to drag (a guess until dragged).
        const c = [0, 1].map((i) => (corners[0][i] + corners[1][i] + corners[2][i]) / 3);
        const dot = mark("calib-dot", c, "", startDrag);
        dot.dataset.board = centre[0] + "," + centre[1];
        dot.title = "the board's centre: drag it onto the centre of the board";
      }
      corners.forEach(function (p, k) {
        mark("calib-mark", p, String(k + 1), startDrag).dataset.index = String(k);
      });
      if (point) mark("calib-mark point", point.image, "C", startDrag).dataset.point = "1";
    }
    $("fit-corners").disabled = busy || corners.length !== 3;
    $("clear-corners").disabled = busy || (corners.length === 0 && !point && !adjusting);
    $("adjust").disabled = busy || lattice.length === 0 || adjusting;
  }

  function startDrag(event) {
    event.preventDefault();
    event.stopPropagation();
    const target = event.currentTarget;
    dragging = true;
    let move;
    if (target.dataset.index !== undefined) {
      const k = Number(target.dataset.index);
      move = function (e) { corners[k] = toFrame(e); drawMarks(); };
    } else {
      if (target.dataset.board !== undefined) {
        const board = target.dataset.board.split(",").map(Number);
        point = { board: board, image: toFrame(event) };
        if (corners.length !== 3 && fitCorners()) corners = fitCorners().slice();
        adjusting = false;
        drawMarks();
      }
      move = function (e) { point.image = toFrame(e); drawMarks(); };
    }
    function up() {
      dragging = false;
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
    }
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
  }

  view.addEventListener("click", function (event) {
    if (busy || event.target !== img || corners.length >= 3) return;
    corners.push(toFrame(event));
    drawMarks();
  });
  img.addEventListener("load", drawMarks);
  window.addEventListener("resize", drawMarks);

  function showVerdict(v, residual, points, extra) {
    const verdict = $("verdict");
    verdict.textContent = v.words;
    verdict.className = "verdict " + v.level;
    $("residual").textContent = (residual === null || residual === undefined
      ? "lattice not matched"
      : "residual " + residual.toFixed(2) + " px over " + points + " lattice points") + extra;
    const table = $("measures");
    table.innerHTML = "";
    Object.entries(v.measures).forEach(function ([name, value]) {
      if (value === null) return;
      const row = table.insertRow();
      row.insertCell().textContent = LABELS[name] || name;
      row.insertCell().textContent = Math.abs(value) < 1 ? value.toFixed(3) : value.toFixed(1);
    });
  }

  function liveImage() { img.src = "/calibrate/live.jpg?t=" + Date.now(); }

  function show(s) {
    status = s;
    centre = s.board_centre || centre;
    if (s.lattice) lattice = s.lattice;
    const hasFrame = s.has_frame || live;
    $("view").hidden = !hasFrame;
    $("no-frame").hidden = hasFrame;
    if (live) liveImage();
    else if (s.has_frame) img.src = "/calibrate/view.jpg?v=" + s.version + "-" + Date.now();
    if (s.verdict) {
      showVerdict(s.verdict, s.residual_px, s.points, "");
    } else if (!live) {
      $("verdict").textContent = s.has_frame ? "board not found" : "no frame yet";
      $("verdict").className = "verdict none";
      $("residual").textContent = "\u00a0";
      $("measures").innerHTML = "";
    }
    $("message").textContent = s.message || (s.live && s.live.note ? s.live.note : "");
    $("save").disabled = busy || !s.found;
    $("teach").disabled = busy || !(s.found || live);
    if (s.teach) showTeach(s.teach);
  }

  function showTeach(t) {
    const list = $("teach-list");
    list.innerHTML = "";
    t.colours.forEach(function (c) {
      const item = document.createElement("li");
      item.textContent = c.message;
      if (c.missing) item.className = "missing";
      list.appendChild(item);
    });
  }

  function showLive(info) {
    if (!info.live || !info.frame) return;
    $("view").hidden = false;
    $("no-frame").hidden = true;
    if (info.lattice) lattice = info.lattice;
    if (info.corners) liveCorners = info.corners;
    if (!info.verdict) {
      $("verdict").textContent = "board not found yet";
      $("verdict").className = "verdict none";
      return;
    }
    let extra = " · live " + info.frame + " · lattice score " + info.score.toFixed(1);
    if (info.reference !== null) extra += " (was " + info.reference.toFixed(1) + ")";
    showVerdict(info.verdict, info.residual_px, info.points, extra);
  }

  function tick() {
    if (busy || dragging || corners.length || point || adjusting) return;
    liveImage();
    fetch("/api/calibration/live", { credentials: "same-origin" })
      .then((r) => r.json()).then(showLive).catch(() => {});
  }

  function setBusy(on, text) {
    busy = on;
    document.body.classList.toggle("busy", on);
    if (on) $("message").textContent = text;
    ["grab", "save", "fit-corners", "clear-corners", "adjust", "teach"].forEach(function (id) {
      if (on) $(id).disabled = true;
    });
    if (!on) {
      $("grab").disabled = $("grab").hasAttribute("title");  // no camera configured
      $("save").disabled = !(status && status.found);
      $("teach").disabled = !(status && (status.found || live));
      drawMarks();
    }
  }

  async function act(promise, text) {
    setBusy(true, text);
    try {
      show(await promise);
    } catch (err) {
      $("message").textContent = err.message;
    } finally {
      setBusy(false);
    }
  }

  function reset() { corners = []; point = null; adjusting = false; }

  $("grab").addEventListener("click", function () {
    reset();
    act(window.postJSON("/api/calibration/frame", {}), "fitting the board…");
  });

  $("upload").addEventListener("change", function () {
    const file = this.files[0];
    if (!file) return;
    reset();
    const form = new FormData();
    form.append("image", file);
    const token = document.querySelector('meta[name="csrf-token"]').content;
    const request = fetch("/api/calibration/frame", {
      method: "POST", body: form, headers: { "X-CSRF-Token": token }, credentials: "same-origin",
    }).then(async function (response) {
      const body = await response.json().catch(() => ({ error: "bad answer from the server" }));
      if (!response.ok) throw new Error(body.error || ("HTTP " + response.status));
      return body;
    });
    act(request, "fitting the board…");
    this.value = "";
  });

  const round1 = (p) => [Math.round(p[0] * 10) / 10, Math.round(p[1] * 10) / 10];

  $("fit-corners").addEventListener("click", function () {
    if (corners.length !== 3) return;
    const body = { corners: corners.map(round1), live: live };
    if (point) body.points = [{ board: point.board, image: round1(point.image) }];
    reset();
    act(window.postJSON("/api/calibration/corners", body), "fitting the lattice from the points…");
  });

  function fitCorners() { return (status && status.corners) || liveCorners; }

  $("adjust").addEventListener("click", function () {
    if (!fitCorners()) return;
    corners = fitCorners().slice();
    point = null;
    adjusting = true;
    drawMarks();
  });

  $("clear-corners").addEventListener("click", function () { reset(); drawMarks(); });

  $("teach").addEventListener("click", function () {
    act(window.postJSON("/api/calibration/teach", { live: live }), "reading the tiles' colours…");
  });

  $("save").addEventListener("click", function () {
    act(window.postJSON("/api/calibration/save", {}), "saving…");
  });

  fetch("/api/calibration", { credentials: "same-origin" })
    .then((r) => r.json()).then(show).catch(() => {});
  if (live) window.setInterval(tick, 1000);
})();
