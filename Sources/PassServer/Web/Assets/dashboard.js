// Keeps a job's progress and reach current on the event page: polls the job's JSON every
// second until it has finished and its pushes have settled (at most ten minutes).
(function () {
  "use strict";
  var panel = document.getElementById("job");
  if (!panel || !window.fetch) { return; }
  var id = panel.getAttribute("data-job");
  var polls = 0;
  function set(name, value) {
    var element = document.getElementById(name);
    if (element && value !== undefined && value !== null) { element.textContent = String(value); }
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
        var finished = job.state === "done" || job.state === "failed";
        panel.setAttribute("data-state", job.state);
        if ((!finished || (reach.pushesPending || 0) > 0) && polls < 600) { setTimeout(poll, 1000); }
      })
      .catch(function () { if (polls < 600) { setTimeout(poll, 5000); } });
  }
  setTimeout(poll, 300);
})();
