"""The event page's progress script at work: an organizer edits the venue while the event's passes
are held locked by the test, so the re-push job is still running when the event page renders. The
page must show it running (as rendered, before the script's first poll, and in the script's own
polls), and once the test lets the job finish, the script, without reloading the page, moves the
state to done with every pass counted.

Environment: ADMIN_TOKEN, EVENT_ID, TICKETS (how many passes the event has). Asks the test for
`release-passes` once it has seen the job running.
"""

import time

import browser
from browser import check, env

# Runs before any of the page's own scripts: what the server rendered, before dashboard.js polls.
CAPTURE = """
document.addEventListener("DOMContentLoaded", function () {
  var state = document.getElementById("job-state");
  var done = document.getElementById("job-done");
  window.__rendered = {state: state ? state.textContent : null, done: done ? done.textContent : null};
});
"""


def test():
    page = browser.open_browser("job-progress", size=browser.DESKTOP)
    page.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CAPTURE})
    page.open("/admin/")
    page.type("Admin token", env("ADMIN_TOKEN"))
    page.click("Sign in", tag="button", navigates=True)
    event_path = f"/admin/events/{env('EVENT_ID')}"
    tickets = env("TICKETS")

    page.open(event_path + "/edit")
    page.type("Venue", "Osaka Hall")
    page.click("Save", tag="button", navigates=True)
    page.assert_text("Saved.")
    check(page.current_path.startswith(event_path) and "job=" in page.current_path, f"not on the event page of the job: {page.current_path}")

    rendered = page.driver.execute_script("return window.__rendered")
    check(rendered is not None, "the capture script did not run")
    check(rendered["state"] in ("pending", "running"), f"the page was rendered with the job {rendered['state']!r}, not running")
    check(rendered["done"] == "0", f"the page was rendered with {rendered['done']} passes done")
    # The script polls and still finds it running: the job is really held, not just rendered early.
    page.wait_for(
        lambda: page.find("#job").get_attribute("data-state") in ("pending", "running"),
        "the script never reported the running job",
        timeout=20,
    )
    time.sleep(2)
    check(page.text("#job-state") != "done", "the job finished while its passes were locked")
    page.screenshot("running")

    # The same document from here on: a reload would also show done, without the script.
    page.driver.execute_script("window.__samePage = 'still here'")
    browser.ask_test("release-passes")
    page.wait_for(lambda: page.text("#job-state") == "done", "the script never moved the job to done", timeout=60)
    check(page.find("#job").get_attribute("data-state") == "done", "the panel's data-state is not done")
    page.wait_for(lambda: page.text("#job-done") == tickets, f"passes done: {page.text('#job-done')} of {tickets}", timeout=20)
    check(page.text("#job-total") == tickets, f"total: {page.text('#job-total')}")
    bar = page.driver.execute_script("var b = document.getElementById('job-progress'); return [b.value, b.max]")
    check(bar == [int(tickets), int(tickets)], f"the progress bar reads {bar}")
    check(page.driver.execute_script("return window.__samePage") == "still here", "the page was reloaded: the script did not do it")
    page.screenshot("done")


browser.main(test)
