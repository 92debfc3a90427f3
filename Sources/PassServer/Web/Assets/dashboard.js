// Keeps a job's progress and reach current on the event page: polls the job's JSON every
// second until it has finished, its pushes have settled and its phones hold the new pass (at
// most ten minutes), and draws the share of phones holding it against time.
(function () {
  "use strict";
  var panel = document.getElementById("job");
  if (!panel || !window.fetch) { return; }
  var id = panel.getAttribute("data-job");
  var polls = 0;
  var samples = [];
  function set(name, value) {
    var element = document.getElementById(name);
    if (element && value !== undefined && value !== null) { element.textContent = String(value); }
  }
  // The share of phones up to date, one point a poll: time across (the whole run so far, at
  // least ten seconds), share up (0 % at y 80, 100 % at y 10).
  function plot(reach) {
    var line = document.getElementById("job-reach-line");
    var devices = reach.devices || 0;
    if (!line || devices <= 0) { return; }
    var share = Math.min(1, (reach.devicesUpToDate || 0) / devices);
    samples.push({ at: Date.now(), share: share });
    var first = samples[0].at;
    var span = Math.max(10000, samples[samples.length - 1].at - first);
    line.setAttribute("points", samples.map(function (sample) {
      return (34 + (sample.at - first) / span * 262).toFixed(1) + "," + (80 - sample.share * 70).toFixed(1);
    }).join(" "));
    document.getElementById("job-reach-plot").setAttribute("data-samples", String(samples.length));
    set("job-share", Math.floor(share * 100) + "%");
    set("job-share-count", reach.devicesUpToDate || 0);
  }
  function poll() {
    polls += 1;
    fetch("/admin/jobs/" + encodeURIComponent(id) + "/progress", { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (response) { if (!response.ok) { throw new Error(String(response.status)); } return response.json(); })
      .then(function (job) {
        var reach = job.reach || {};
        set("job-state", job.state);
        set("job-done", job.done);
        set("job-total", job.total);
        var bar = document.getElementById("job-progress");
        if (bar) { bar.max = Math.max(job.total, 1); bar.value = job.done; }
        set("job-devices", reach.devices);
        set("job-up-to-date", reach.devicesUpToDate);
        set("job-pending", reach.pushesPending);
        set("job-delivered", reach.pushesDelivered);
        set("job-failed", reach.pushesFailed);
        plot(reach);
        var finished = job.state === "done" || job.state === "failed";
        var behind = (reach.devices || 0) > (reach.devicesUpToDate || 0);
        panel.setAttribute("data-state", job.state);
        if ((!finished || (reach.pushesPending || 0) > 0 || behind) && polls < 600) { setTimeout(poll, 1000); }
      })
      .catch(function () { if (polls < 600) { setTimeout(poll, 5000); } });
  }
  setTimeout(poll, 300);
})();
