/// The dashboard's additions to the stylesheet, and its one script.
enum DashboardAssets {
    static let styles = """
        .bar { display: flex; flex-wrap: wrap; gap: .6rem 1rem; align-items: center; padding: .6rem 1rem; border-bottom: 1px solid var(--line); }
        .bar .brand { font-weight: 700; text-decoration: none; margin-right: auto; }
        .bar .who { color: var(--muted); }
        form.inline, .inline { display: inline; }
        label.inline { display: inline; font-weight: normal; }
        .stack { max-width: 36rem; }
        .stack input:not([type=checkbox]), .stack select, .stack textarea { width: 100%; }
        .filters { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: flex-end; margin-bottom: 1rem; }
        .filters label { margin: 0 0 .2rem; }
        button.secondary, .button.secondary { background: #fff; color: var(--accent); border: 1px solid var(--accent); }
        button.small { padding: .2rem .5rem; font-size: .85rem; }
        .tag { font-size: .75rem; border: 1px solid var(--line); border-radius: 4px; padding: 0 .3rem; color: var(--muted); vertical-align: middle; }
        .notice { padding: .6rem .8rem; border-radius: 6px; background: #eef4ff; }
        .notice.ok { background: #e6f4ea; } .notice.error { background: #fce8e6; color: var(--bad); }
        .counts { display: grid; grid-template-columns: repeat(auto-fill, minmax(9rem, 1fr)); gap: .5rem; margin: 0 0 1rem; }
        .counts div { border: 1px solid var(--line); border-radius: 6px; padding: .4rem .6rem; }
        .counts dt { color: var(--muted); font-size: .85rem; } .counts dd { margin: 0; font-size: 1.3rem; font-weight: 600; }
        .counts dd .of { color: var(--muted); font-size: .85rem; font-weight: 400; }
        .job { border: 1px solid var(--line); border-radius: 6px; padding: .2rem 1rem; margin-bottom: 1rem; }
        .job progress { width: 100%; }
        .num { text-align: right; font-variant-numeric: tabular-nums; }
        tr.invalid td { background: #fce8e6; }
        .crumbs { margin: 0; color: var(--muted); }
        details summary { cursor: pointer; margin: 1rem 0 .4rem; }
        h2.inline { font-size: 1.3rem; }
        .pass-preview { margin: 0 0 .5rem; } .pass-preview svg { max-width: 100%; height: auto; }
        .pass-fields { display: grid; grid-template-columns: repeat(auto-fill, minmax(11rem, 1fr)); gap: .3rem 1rem; }
        .pass-fields dt { color: var(--muted); font-size: .85rem; } .pass-fields dd { margin: 0; overflow-wrap: anywhere; }
        .qr svg { width: 12rem; height: 12rem; }
        .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
        code, #download-link { overflow-wrap: anywhere; }
        """

    /// Keeps a job's progress and reach current on the event page: polls the job's JSON every
    /// second until it has finished and its pushes have settled (at most ten minutes).
    static let script = """
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
        """
}
