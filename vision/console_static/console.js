// Xoc Dia console: polls the JSON API, shows the live frame, and posts supervisor actions.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const state = { frame: -1, tokenRequired: false, rounds: new Map(), lastRoundsJson: "" };
  const RULE_SHEET = ["no_shake", "early_lift", "bowl_touched_token"];

  $("by").value = localStorage.getItem("xocdia-by") || "";
  $("by").addEventListener("change", () => localStorage.setItem("xocdia-by", $("by").value.trim()));
  $("token").value = sessionStorage.getItem("xocdia-token") || "";
  $("token").addEventListener("change", () => sessionStorage.setItem("xocdia-token", $("token").value));

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v; else if (k === "text") e.textContent = v; else e.setAttribute(k, v);
    }
    for (const c of children) if (c != null) e.append(c);
    return e;
  }

  function faces(list) {
    const box = el("span", { class: "faces", title: (list || []).join(", ") });
    for (const f of list || []) box.append(el("span", { class: "face " + f }));
    return box;
  }

  function say(text, ok) {
    const m = $("message");
    m.textContent = text;
    m.className = ok ? "ok" : "error";
  }

  // -- live frame: fetch the next frame as soon as it exists ------------------
  async function frameLoop() {
    for (;;) {
      try {
        const r = await fetch("/frame.jpg?after=" + state.frame, { cache: "no-store" });
        if (r.ok) {
          const idx = parseInt(r.headers.get("X-Frame-Index") || "-1", 10);
          if (idx !== state.frame) {
            const url = URL.createObjectURL(await r.blob());
            const old = $("view").src;
            $("view").src = url;
            if (old.startsWith("blob:")) URL.revokeObjectURL(old);
            state.frame = idx;
          } else {
            await new Promise((res) => setTimeout(res, 500));
          }
        } else {
          await new Promise((res) => setTimeout(res, 1000));
        }
      } catch (e) {
        await new Promise((res) => setTimeout(res, 1000));
      }
    }
  }

  // -- state ------------------------------------------------------------------
  async function pollState() {
    try {
      const s = await (await fetch("/api/state", { cache: "no-store" })).json();
      $("conn").textContent = s.loopback ? "loopback " + s.bind : "network " + s.bind;
      $("conn").className = "pill ok";
      $("st-state").textContent = s.state;
      $("st-round").textContent = s.round_id || "none";
      const rd = s.reading || {};
      $("st-reading").textContent = (rd.verdict || "–") + (rd.verdict === "outcome" ? " " + rd.red + " red / " +
        rd.white + " white" : "") + (rd.reason ? " — " + rd.reason : "");
      $("st-source").textContent = s.source_status + " (frame " + s.frame + ")";
      const o = s.outbox || {};
      $("st-outbox").textContent = o.error ? o.error : (o.acked + " delivered, " + o.pending + " pending, " +
        o.rejected + " rejected");
      state.tokenRequired = !!s.token_required;
      $("token-box").hidden = !state.tokenRequired;
    } catch (e) {
      $("conn").textContent = "disconnected";
      $("conn").className = "pill bad";
    }
  }

  // -- rounds -----------------------------------------------------------------
  function actionBox(r) {
    const box = el("div", { class: "actions" });
    const red = el("select", { class: "red", "aria-label": "red count" });
    for (let n = 0; n <= 4; n++) red.append(el("option", { value: String(n), text: n + " red / " + (4 - n) + " white" }));
    const confirm = el("button", { class: "confirm", type: "button", text: "Confirm result" });
    confirm.addEventListener("click", () => act(r.round_id, "confirm", { red: parseInt(red.value, 10) }, box));
    const reason = el("input", { class: "reason", list: "void-reasons", maxlength: "500",
      placeholder: "void reason (no_shake, early_lift, bowl_touched_token, or text)" });
    if (r.code && RULE_SHEET.includes(r.code)) reason.value = r.code;
    const voidBtn = el("button", { class: "void", type: "button", text: "Void round" });
    voidBtn.addEventListener("click", () => act(r.round_id, "void", { reason: reason.value }, box));
    // a result only on a round the monitor could not settle; a monitor void or cancel can only be voided
    if (r.can_confirm) box.append(red, confirm);
    box.append(reason, voidBtn);
    return box;
  }

  function describe(r) {
    if (r.action) {
      const a = r.action;
      return "manual " + a.action + (a.action === "confirm" ? ": " + a.red + " red / " + (4 - a.red) + " white" :
        ": " + a.reason) + " by " + a.by + " (" + a.state + ")";
    }
    if (r.status === "outcome") return r.red + " red / " + r.white + " white (reader)";
    return "";
  }

  function renderRound(r) {
    let node = state.rounds.get(r.round_id);
    if (!node) {
      node = el("article", { class: "round", "data-round": r.round_id });
      node.head = el("div", { class: "head" });
      node.reason = el("div", { class: "reason" });
      node.thumbs = el("div", { class: "thumbs" });
      node.result = el("div", { class: "result" });
      node.append(node.head, node.reason, node.thumbs, node.result);
      state.rounds.set(r.round_id, node);
    }
    const key = JSON.stringify(r);
    if (node.key === key) return node;
    node.key = key;
    node.className = "round " + r.status;
    node.setAttribute("data-status", r.status);
    const delivery = r.delivery ? "record seq " + r.delivery.seq + ": " + r.delivery.state : "no record";
    node.head.replaceChildren(el("span", { class: "rid", text: r.round_id }),
      el("span", { class: "status", text: r.status }), el("span", { class: "delivery", text: delivery }));
    node.reason.textContent = r.reason || "";
    const thumbs = [];
    if (r.before_url) thumbs.push(el("figure", {}, el("a", { href: r.before_url + "?overlay=1", target: "_blank" },
      el("img", { src: r.before_url + "?overlay=1", alt: "before the rearrange" })),
      el("figcaption", {}, "before ", faces(r.before && r.before.faces))));
    if (r.evidence_url) thumbs.push(el("figure", {}, el("a", { href: r.evidence_url + "?overlay=1", target: "_blank" },
      el("img", { src: r.evidence_url + "?overlay=1", alt: "evidence frame" })),
      el("figcaption", {}, r.before ? "after " : "evidence ", r.after ? faces(r.after.faces) : "")));
    node.thumbs.replaceChildren(...thumbs);
    node.result.replaceChildren(el("span", { class: r.action ? "done" : "", text: describe(r) }));
    if (r.actionable && !node.actions) {
      node.actions = actionBox(r);
      node.append(node.actions);
    } else if (!r.actionable && node.actions) {
      node.actions.remove();
      node.actions = null;
    }
    return node;
  }

  async function pollRounds() {
    try {
      const text = await (await fetch("/api/rounds", { cache: "no-store" })).text();
      if (text === state.lastRoundsJson) return;
      state.lastRoundsJson = text;
      const rounds = JSON.parse(text).rounds;
      const list = $("rounds");
      const nodes = rounds.map(renderRound);
      const keep = new Set(rounds.map((r) => r.round_id));
      for (const [rid, node] of state.rounds) if (!keep.has(rid)) { node.remove(); state.rounds.delete(rid); }
      nodes.forEach((n, i) => { if (list.children[i] !== n) list.insertBefore(n, list.children[i] || null); });
    } catch (e) { /* next poll */ }
  }

  async function act(roundId, action, body, box) {
    const by = $("by").value.trim();
    if (!by) { say("Enter your name (Supervisor) first.", false); $("by").focus(); return; }
    body.by = by;
    const headers = { "Content-Type": "application/json", "X-Requested-With": "xocdia-console" };
    if (state.tokenRequired) headers["X-Xocdia-Token"] = $("token").value;
    for (const b of box.querySelectorAll("button")) b.disabled = true;
    try {
      const r = await fetch("/api/rounds/" + encodeURIComponent(roundId) + "/" + action,
        { method: "POST", headers, body: JSON.stringify(body) });
      const j = await r.json();
      if (r.ok) say(action + " " + roundId + ": signed record seq " + j.record.seq + " in the outbox", true);
      else say(action + " " + roundId + " refused (" + r.status + "): " + j.error, false);
    } catch (e) {
      say(action + " " + roundId + " failed: " + e, false);
    }
    for (const b of box.querySelectorAll("button")) b.disabled = false;
    state.lastRoundsJson = "";
    pollRounds();
  }

  const dl = el("datalist", { id: "void-reasons" });
  for (const v of RULE_SHEET.concat(["tokens cannot be read", "camera fault"])) dl.append(el("option", { value: v }));
  document.body.append(dl);

  frameLoop();
  pollState(); pollRounds();
  setInterval(pollState, 700);
  setInterval(pollRounds, 1000);
})();
