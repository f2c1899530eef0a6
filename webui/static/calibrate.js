// The calibration page: the frame with the fitted lattice, the verdict, click-three-corners.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const view = $("view");
  const img = $("frame");
  let status = null;
  let corners = [];  // clicked points in frame pixels
  let busy = false;

  const LABELS = { px_per_unit: "px per tile", tilt_deg: "tilt (deg)", white: "white level",
    span: "contrast", glare: "glare share", separation: "colour separation",
    residual_px: "residual (px)", frames: "frames" };

  function toFrame(event) {
    const r = img.getBoundingClientRect();
    return [(event.clientX - r.left) * img.naturalWidth / r.width,
            (event.clientY - r.top) * img.naturalHeight / r.height];
  }

  function drawMarks() {
    view.querySelectorAll(".calib-mark").forEach((m) => m.remove());
    if (!img.naturalWidth) return;
    const sx = img.clientWidth / img.naturalWidth;
    const sy = img.clientHeight / img.naturalHeight;
    corners.forEach(function (p, k) {
      const mark = document.createElement("div");
      mark.className = "calib-mark";
      mark.style.left = (p[0] * sx) + "px";
      mark.style.top = (p[1] * sy) + "px";
      mark.innerHTML = "<span>" + (k + 1) + "</span>";
      mark.dataset.index = String(k);
      mark.addEventListener("pointerdown", startDrag);
      view.appendChild(mark);
    });
    $("fit-corners").disabled = busy || corners.length !== 3;
    $("clear-corners").disabled = busy || corners.length === 0;
  }

  function startDrag(event) {
    event.preventDefault();
    event.stopPropagation();
    const k = Number(event.currentTarget.dataset.index);
    function move(e) { corners[k] = toFrame(e); drawMarks(); }
    function up() {
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

  function show(s) {
    status = s;
    $("view").hidden = !s.has_frame;
    $("no-frame").hidden = s.has_frame;
    if (s.has_frame) img.src = "/calibrate/view.jpg?v=" + s.version + "-" + Date.now();
    const verdict = $("verdict");
    if (s.verdict) {
      verdict.textContent = s.verdict.words;
      verdict.className = "verdict " + s.verdict.level;
      $("residual").textContent = s.residual_px === null ? "lattice not matched"
        : "residual " + s.residual_px.toFixed(2) + " px over " + s.points + " lattice points";
    } else {
      verdict.textContent = s.has_frame ? "board not found" : "no frame yet";
      verdict.className = "verdict none";
      $("residual").textContent = "\u00a0";
    }
    $("message").textContent = s.message || "";
    const table = $("measures");
    table.innerHTML = "";
    if (s.verdict) {
      Object.entries(s.verdict.measures).forEach(function ([name, value]) {
        if (value === null) return;
        const row = table.insertRow();
        row.insertCell().textContent = LABELS[name] || name;
        row.insertCell().textContent = Math.abs(value) < 1 ? value.toFixed(3) : value.toFixed(1);
      });
    }
    $("save").disabled = busy || !s.found;
  }

  function setBusy(on, text) {
    busy = on;
    document.body.classList.toggle("busy", on);
    if (on) $("message").textContent = text;
    ["grab", "save", "fit-corners", "clear-corners"].forEach(function (id) {
      if (on) $(id).disabled = true;
    });
    if (!on) {
      $("grab").disabled = $("grab").hasAttribute("title");  // no camera configured
      $("save").disabled = !(status && status.found);
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

  $("grab").addEventListener("click", function () {
    corners = [];
    act(window.postJSON("/api/calibration/frame", {}), "grabbing a frame and fitting the board…");
  });

  $("upload").addEventListener("change", function () {
    const file = this.files[0];
    if (!file) return;
    corners = [];
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

  $("fit-corners").addEventListener("click", function () {
    if (corners.length !== 3) return;
    const sent = corners.map((p) => [Math.round(p[0] * 10) / 10, Math.round(p[1] * 10) / 10]);
    corners = [];
    act(window.postJSON("/api/calibration/corners", { corners: sent }),
        "fitting the lattice from the corners…");
  });

  $("clear-corners").addEventListener("click", function () { corners = []; drawMarks(); });

  $("save").addEventListener("click", function () {
    act(window.postJSON("/api/calibration/save", {}), "saving…");
  });

  fetch("/api/calibration", { credentials: "same-origin" })
    .then((r) => r.json()).then(show).catch(() => {});
})();
