// The scanner page: sends each scan to /admin/scan/checkins and shows the answer; when the server
// cannot be reached, keeps the scan (with its time, gate and event) in localStorage and sends the
// waiting scans as one /admin/scan/checkins:batch call once it can (retrying every 2 s, doubling up
// to 15 s, and at once on the `online` event or a reload). The count is refreshed after every scan
// and every 30 s. A scan is what a keyboard-wedge scanner types, a check code typed by hand (the
// server looks it up among the chosen event's tickets), or a QR code the camera sees: read by the
// browser's BarcodeDetector where it has one that reads QR codes, else by the server from a few
// downscaled frames a second (/admin/scan/decode), which needs the server to be reachable.
(function () {
  "use strict";
  var root = document.getElementById("scanner");
  if (!root || !window.fetch || root.getAttribute("data-can-scan") !== "true") { return; }
  var csrf = root.getAttribute("data-csrf");
  var QUEUE = "passserver.scanner.waiting", EVENT = "passserver.scanner.event", GATE = "passserver.scanner.gate";
  var MAX_BATCH = 1000, FIRST_RETRY = 2000, LAST_RETRY = 15000;
  var form = document.getElementById("scan-form");
  var input = document.getElementById("scan-code");
  var eventSelect = document.getElementById("f-event");
  var gateInput = document.getElementById("f-gate");
  var result = document.getElementById("scan-result");
  var title = document.getElementById("scan-title");
  var detail = document.getElementById("scan-detail");
  var waiting = document.getElementById("scan-waiting");
  var sentBox = document.getElementById("scan-sent-box");
  var sentList = document.getElementById("scan-sent");
  var count = document.getElementById("scan-count");
  var retryDelay = FIRST_RETRY, retryTimer = null, sending = false;
  var startButton = document.getElementById("scan-camera-start");
  var stopButton = document.getElementById("scan-camera-stop");
  var cameraStatus = document.getElementById("scan-camera-status");
  var video = document.getElementById("scan-video");

  function stored(key) { try { return window.localStorage.getItem(key); } catch (e) { return null; } }
  function store(key, value) { try { window.localStorage.setItem(key, value); } catch (e) { /* private mode: kept in memory only */ } }
  var memoryQueue = null;
  function queue() {
    if (memoryQueue) { return memoryQueue.slice(); }
    try { var list = JSON.parse(stored(QUEUE) || "[]"); return Array.isArray(list) ? list : []; } catch (e) { return []; }
  }
  function saveQueue(list) {
    try { window.localStorage.setItem(QUEUE, JSON.stringify(list)); memoryQueue = null; } catch (e) { memoryQueue = list.slice(); }
    showWaiting();
  }
  function showWaiting() {
    var n = queue().length;
    waiting.hidden = n === 0;
    waiting.textContent = n === 1 ? "1 scan waiting to be sent" : n + " scans waiting to be sent";
  }

  // The event: ?event= chooses it, else the one chosen last time.
  function chosenEvent() { return eventSelect ? eventSelect.value : ""; }
  if (eventSelect) {
    var remembered = stored(EVENT);
    if (!eventSelect.value && remembered) {
      for (var i = 0; i < eventSelect.options.length; i++) {
        if (eventSelect.options[i].value === remembered) { eventSelect.value = remembered; }
      }
    }
    if (eventSelect.value) { store(EVENT, eventSelect.value); }
    eventSelect.addEventListener("change", function () {
      store(EVENT, eventSelect.value);
      if (window.history && window.history.replaceState) {
        window.history.replaceState(null, "", eventSelect.value ? "?event=" + encodeURIComponent(eventSelect.value) : "?");
      }
      refreshCount();
      input.focus();
    });
  }
  if (gateInput) {
    gateInput.value = stored(GATE) || "";
    gateInput.addEventListener("change", function () { store(GATE, gateInput.value.trim()); });
  }
  function gate() { var value = gateInput ? gateInput.value.trim() : ""; return value || undefined; }

  function refreshCount() {
    var id = chosenEvent();
    if (!id) { count.textContent = "–"; return; }
    fetch("/admin/scan/events/" + encodeURIComponent(id) + "/checkins", { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (response) { if (!response.ok) { throw new Error(String(response.status)); } return response.json(); })
      .then(function (body) { if (body.eventId === chosenEvent()) { count.textContent = body.checkedIn + " / " + body.total; } })
      .catch(function () { /* kept as it was; the next scan refreshes it */ });
  }

  var ADJUSTED = { ahead: "ahead of the server's clock", too_old: "older than 48 hours", before_issue: "before the ticket was issued" };
  // Times as the dashboard shows them: in the event's own zone, the zone named ("2026-10-17 20:30
  // (Europe/Lisbon)"). The page lists each offered event's zone in data-zones ("id=zone ...").
  var zones = {};
  (root.getAttribute("data-zones") || "").split(" ").forEach(function (pair) {
    var at = pair.indexOf("=");
    if (at > 0) { zones[pair.slice(0, at)] = pair.slice(at + 1); }
  });
  function time(text, eventId) {
    var date = new Date(text);
    if (isNaN(date.getTime())) { return String(text); }
    var zone = (eventId ? zones[eventId] : zones[chosenEvent()]) || "UTC";
    try {
      var local = new Intl.DateTimeFormat("sv-SE", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit",
                                                     hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(date);
      return local + " (" + zone + ")";
    } catch (e) {
      return date.toISOString().slice(0, 16).replace("T", " ") + " (UTC)";
    }
  }
  // What an answer means, as text: [class, title, detail lines]. Never markup.
  function describe(status, body) {
    var lines = [];
    var name = body.attendeeName ? String(body.attendeeName) : "";
    if (body.result === "checked_in") {
      if (name) { lines.push(name); }
      if (body.seat) { lines.push("Seat " + body.seat); }
      if (body.checkCode) { lines.push("Check code " + body.checkCode); }
      if (body.scannedAtAdjusted) {
        lines.push("Scan time " + time(body.scannedAtAdjusted.sent, body.eventId) + " not taken (" +
                   (ADJUSTED[body.scannedAtAdjusted.reason] || "out of bounds") + "): recorded when it reached the server");
      }
      if (body.unsigned) { lines.push("Old code without a signature"); }
      // The check-in API takes any event's ticket: make one of another event stand out.
      if (body.eventId && chosenEvent() && body.eventId !== chosenEvent()) {
        lines.push("This ticket is for another event than the one chosen");
        return ["warn", "Checked in: another event", lines];
      }
      return ["ok", "Checked in", lines];
    }
    if (body.result === "already_checked_in") {
      if (name) { lines.push(name); }
      lines.push("First checked in " + time(body.checkedInAt, body.eventId) + (body.gate ? " at gate " + body.gate : ""));
      if (body.seat) { lines.push("Seat " + body.seat); }
      return ["warn", "Already checked in", lines];
    }
    if (body.result === "cancelled") {
      if (name) { lines.push(name); }
      lines.push(body.reason ? "Reason: " + body.reason : "No reason given");
      return ["bad", "Cancelled", lines];
    }
    if (body.result === "unknown_code" || body.result === "ambiguous_code" || body.result === "event_archived" || body.result === "event_ended") {
      return describeRefusal(body, name);
    }
    if (body.result === "other_event") {
      return ["bad", "Another event", ["This ticket is for another event: it does not check in at this door. Do not let in."]];
    }
    if (body.result === "signature_required") {
      return ["bad", "Serial number only", ["This ticket has a signed QR code: scan the QR code on the pass. " +
                                            "A serial number alone does not let anyone in. Do not let in."]];
    }
    var message = body.error && body.error.message ? String(body.error.message) : "The server answered " + status + ".";
    return ["bad", "Not checked in", [message]];
  }
  var CHECK_CODE = /^\s*[0-9A-Za-z]{4}[- ]?[0-9A-Za-z]{4}\s*$/;
  // The red answers about the code or the day.
  function describeRefusal(body, name) {
    if (body.result === "unknown_code") {
      var lines = ["No ticket has this code (unknown or forged). Do not let in."];
      if (body.code && CHECK_CODE.test(body.code)) {
        lines.push(chosenEvent() ? "A check code is looked up among the chosen event's tickets only."
                                 : "Choose the event above: a check code is looked up among its tickets.");
      }
      return ["bad", "Unknown code", lines];
    }
    if (body.result === "ambiguous_code") {
      return ["bad", "Ambiguous code", ["More than one ticket of this event has this check code: scan the QR code on the pass."]];
    }
    var lines2 = name ? [name] : [];
    if (body.result === "event_archived") {
      lines2.push("This ticket's event is archived: its tickets no longer check in. Do not let in.");
      return ["bad", "Event archived", lines2];
    }
    lines2.push("This ticket's event ended " + time(body.eventEndedAt, body.eventId) + ": its tickets no longer check in. Do not let in.");
    return ["bad", "Event over", lines2];
  }
  function show(kind, heading, lines) {
    result.className = "scan-result " + kind;
    title.textContent = heading;
    detail.textContent = lines.join("\n");
  }
  function unreachable(status) { return status === 502 || status === 503 || status === 504; }

  function post(path, payload) {
    return fetch(path, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "Accept": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(payload)
    }).then(function (response) {
      return response.json().then(function (body) { return { status: response.status, body: body || {} }; },
                                  function () { return { status: response.status, body: {} }; });
    });
  }

  function keep(scan) {
    var list = queue();
    list.push(scan);
    saveQueue(list);
    show("wait", "Saved offline", ["The server cannot be reached. This scan is kept and sent when it is back.", scan.code]);
    scheduleRetry();
  }

  function scan(code) {
    var item = { code: code, scannedAt: new Date().toISOString() };
    var g = gate(), eventId = chosenEvent();
    if (g) { item.gate = g; }
    // The event a typed check code is looked up in.
    if (eventId) { item.eventId = eventId; }
    // Waiting scans go first, so everything reaches the server in scan order.
    if (queue().length > 0) { keep(item); sendWaiting(); return; }
    show("wait", "Checking…", [code]);
    var single = { code: code };
    if (g) { single.gate = g; }
    if (eventId) { single.eventId = eventId; }
    post("/admin/scan/checkins", single).then(function (answer) {
      if (unreachable(answer.status)) { keep(item); return; }
      if (answer.body.result === "unknown_code") { answer.body.code = code; }
      var shown = describe(answer.status, answer.body);
      show(shown[0], shown[1], shown[2]);
      refreshCount();
    }, function () { keep(item); });
  }

  function scheduleRetry() {
    if (retryTimer !== null) { return; }
    retryTimer = setTimeout(function () { retryTimer = null; sendWaiting(); }, retryDelay);
    retryDelay = Math.min(retryDelay * 2, LAST_RETRY);
  }

  // One line of the list of sent scans; returns its class (ok, warn or bad).
  function listSent(scan, status, body, into) {
    var shown = describe(status, body);
    var item = document.createElement("li");
    item.className = shown[0];
    item.textContent = shown[1] + ": " + (shown[2].length ? shown[2].join(" · ") : "") + " (" + scan.code + ", scanned " + time(scan.scannedAt) + ")";
    into.appendChild(item);
    return shown[0];
  }

  function sendWaiting() {
    var list = queue();
    if (sending || list.length === 0) { showWaiting(); return; }
    sending = true;
    var batch = list.slice(0, MAX_BATCH);
    post("/admin/scan/checkins:batch", { scans: batch }).then(function (answer) {
      sending = false;
      if (answer.status !== 200 || !Array.isArray(answer.body.results)) {
        var message = answer.body.error && answer.body.error.message ? String(answer.body.error.message) : "The server answered " + answer.status + ".";
        if (!unreachable(answer.status)) { show("bad", "Waiting scans not sent", [message]); }
        scheduleRetry();
        return;
      }
      // Scans made meanwhile were appended: remove only the ones sent.
      saveQueue(queue().slice(batch.length));
      retryDelay = FIRST_RETRY;
      // The newest batch on top, its scans in the order they were made.
      var items = document.createDocumentFragment(), kinds = {};
      answer.body.results.forEach(function (one) {
        kinds[listSent(batch[one.index] || { code: "?", scannedAt: "" }, one.status, one, items)] = true;
      });
      sentList.insertBefore(items, sentList.firstChild);
      sentBox.hidden = false;
      // One scan is shown as a scan made now would be; more are summed up in the colour
      // of the worst result, so a refused scan is seen.
      if (answer.body.results.length === 1) {
        var one = answer.body.results[0], alone = describe(one.status, one);
        show(alone[0], alone[1], alone[2].concat(["Sent after reconnecting (scanned " + time(batch[0].scannedAt) + ")."]));
        refreshCount();
        if (queue().length > 0) { sendWaiting(); }
        return;
      }
      var counts = answer.body.counts || {}, lines = [];
      [["checked_in", "checked in"], ["already_checked_in", "already checked in"], ["cancelled", "cancelled"], ["unknown_code", "unknown code"],
       ["signature_required", "serial number only (refused)"], ["ambiguous_code", "ambiguous check code (refused)"],
       ["event_archived", "of an archived event (refused)"], ["event_ended", "of an event that is over (refused)"]].forEach(function (pair) {
        if (counts[pair[0]]) { lines.push(counts[pair[0]] + " " + pair[1]); }
      });
      lines.push("Each result is listed below.");
      show(kinds.bad ? "bad" : kinds.warn ? "warn" : "ok",
           batch.length + (batch.length === 1 ? " waiting scan sent" : " waiting scans sent"), lines);
      refreshCount();
      if (queue().length > 0) { sendWaiting(); }
    }, function () {
      sending = false;
      showWaiting();
      scheduleRetry();
    });
  }

  // The camera. One frame every FRAME_EVERY ms at most, one at a time; the same code seen again
  // within DEBOUNCE ms of its last sighting is the same ticket still in view, not a new scan.
  var FRAME_EVERY = 250, FRAME_SIDE = 640, DEBOUNCE = 2000;
  var camera = null, lastCode = null, lastSeen = 0;
  var canvas = document.createElement("canvas");
  function cameraSays(text) { cameraStatus.hidden = !text; cameraStatus.textContent = text || ""; }
  // "detector" where the browser reads QR codes itself (Chrome on Android), else "server".
  function choosePath() {
    if (typeof window.BarcodeDetector !== "function") { return Promise.resolve({ path: "server" }); }
    var formats = window.BarcodeDetector.getSupportedFormats ? window.BarcodeDetector.getSupportedFormats() : Promise.resolve(["qr_code"]);
    return Promise.resolve(formats).then(function (list) {
      if (list.indexOf("qr_code") < 0) { return { path: "server" }; }
      return { path: "detector", detector: new window.BarcodeDetector({ formats: ["qr_code"] }) };
    }, function () { return { path: "server" }; });
  }
  function found(code) {
    var now = Date.now();
    if (code === lastCode && now - lastSeen < DEBOUNCE) { lastSeen = now; return; }
    lastCode = code;
    lastSeen = now;
    scan(code);
  }
  function frameRead(current) { if (camera === current) { current.busy = false; } }
  function tick() {
    var current = camera;
    if (!current || current.busy || video.readyState < 2 || !video.videoWidth) { return; }
    current.busy = true;
    if (current.path === "detector") {
      current.detector.detect(video).then(function (codes) {
        frameRead(current);
        if (camera === current && codes.length > 0 && codes[0].rawValue) { found(String(codes[0].rawValue)); }
      }, function () { frameRead(current); });
      return;
    }
    var scale = Math.min(1, FRAME_SIDE / Math.max(video.videoWidth, video.videoHeight));
    canvas.width = Math.round(video.videoWidth * scale);
    canvas.height = Math.round(video.videoHeight * scale);
    canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
    canvas.toBlob(function (blob) {
      if (!blob || camera !== current) { frameRead(current); return; }
      fetch("/admin/scan/decode", {
        method: "POST", credentials: "same-origin", body: blob,
        headers: { "Content-Type": blob.type || "image/jpeg", "Accept": "application/json", "X-CSRF-Token": csrf }
      }).then(function (response) {
        return response.json().then(function (body) { return { status: response.status, body: body || {} }; },
                                    function () { return { status: response.status, body: {} }; });
      }).then(function (answer) {
        frameRead(current);
        if (camera !== current) { return; }
        if (answer.status === 200 && Array.isArray(answer.body.codes)) {
          current.failing = false;
          cameraSays(current.ready);
          if (answer.body.codes.length > 0) { found(String(answer.body.codes[0])); }
        } else if (answer.status === 401 || answer.status === 403) {
          cameraSays(answer.body.error && answer.body.error.message ? String(answer.body.error.message) : "The server refused the camera's frames.");
        }
      }, function () {
        frameRead(current);
        if (camera === current && !current.failing) {
          current.failing = true;
          cameraSays("The server cannot be reached, and this browser cannot read codes without it: type the check code or use a scanner meanwhile (those scans are kept).");
        }
      });
    }, "image/jpeg", 0.8);
  }
  function stopCamera() {
    if (camera) {
      clearInterval(camera.timer);
      camera.stream.getTracks().forEach(function (track) { track.stop(); });
      camera = null;
    }
    video.pause();
    video.srcObject = null;
    video.hidden = true;
    stopButton.hidden = true;
    startButton.hidden = false;
  }
  function startCamera() {
    startButton.hidden = true;
    cameraSays("Opening the camera…");
    navigator.mediaDevices.getUserMedia({ audio: false, video: { facingMode: { ideal: "environment" }, width: { ideal: 1280 }, height: { ideal: 720 } } })
      .then(function (stream) {
        video.srcObject = stream;
        video.hidden = false;
        stopButton.hidden = false;
        return Promise.resolve(video.play()).then(choosePath).then(function (chosen) {
          var ready = chosen.path === "detector" ? "Camera on: hold the QR code of a ticket in view."
                                                 : "Camera on: hold the QR code of a ticket in view (read by the server).";
          camera = { stream: stream, path: chosen.path, detector: chosen.detector, busy: false, failing: false, ready: ready };
          camera.timer = setInterval(tick, FRAME_EVERY);
          root.setAttribute("data-camera-path", chosen.path);
          cameraSays(ready);
        }, function (error) { stream.getTracks().forEach(function (track) { track.stop(); }); throw error; });
      })
      .catch(function (error) {
        stopCamera();
        cameraSays("The camera could not be opened (" + (error && error.name ? error.name : "error") + "): use a scanner or type the check code.");
      });
  }
  if (navigator.mediaDevices && navigator.mediaDevices.getUserMedia && startButton) {
    startButton.hidden = false;
    startButton.addEventListener("click", startCamera);
    stopButton.addEventListener("click", function () { stopCamera(); cameraSays(""); });
    // A phone in a pocket does not film it.
    document.addEventListener("visibilitychange", function () { if (document.hidden && camera) { stopCamera(); cameraSays("Camera stopped while the page was hidden."); } });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var code = input.value.trim();
    input.value = "";
    input.focus();
    if (code) { scan(code); }
  });
  window.addEventListener("online", function () { retryDelay = FIRST_RETRY; sendWaiting(); refreshCount(); });
  // Other scanners check tickets in too.
  setInterval(refreshCount, 30000);
  window.addEventListener("focus", function () { input.focus(); });
  showWaiting();
  refreshCount();
  sendWaiting();
  input.focus();
})();
