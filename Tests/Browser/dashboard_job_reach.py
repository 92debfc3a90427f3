"""The re-push job panel's live plot: after an event edit, the share of phones holding the new
pass, drawn against time by dashboard.js from the job's progress JSON, without reloading. The
test holds the event's passes locked, so the job is still running when the page renders (0 %);
then lets it finish, and brings half the phones up to date, then the rest: the number and the
line follow (50 %, 100 %), a point a poll. Writes `reach-*.png` under OUTPUT_DIR.

Environment: ADMIN_TOKEN, EVENT_ID, PHONES (how many phones hold the event's passes). Asks the
test for `release-passes`, `half-up-to-date` and `all-up-to-date`.
"""

import browser
from browser import check, env

# What the server rendered, before dashboard.js's first poll.
CAPTURE = """
document.addEventListener("DOMContentLoaded", function () {
  var share = document.getElementById("job-share");
  var line = document.getElementById("job-reach-line");
  window.__rendered = {share: share ? share.textContent : null, points: line ? line.getAttribute("points") : null};
});
"""


def points(page):
    raw = page.driver.execute_script("var l = document.getElementById('job-reach-line'); return l ? l.getAttribute('points') : ''") or ""
    return [tuple(float(number) for number in point.split(",")) for point in raw.split()]


def samples(page):
    return int(page.find("#job-reach-plot").get_attribute("data-samples") or "0")


def test():
    phones = int(env("PHONES"))
    half = phones // 2
    page = browser.open_browser("job-reach", size=browser.DESKTOP)
    page.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CAPTURE})
    page.open("/admin/")
    page.type("Admin token", env("ADMIN_TOKEN"))
    page.click("Sign in", tag="button", navigates=True)
    event_path = f"/admin/events/{env('EVENT_ID')}"
    page.open(event_path + "/edit")
    page.type("Venue", "Nagoya Hall")
    page.click("Save", tag="button", navigates=True)
    page.assert_text("Saved.")

    rendered = page.driver.execute_script("return window.__rendered")
    check(rendered is not None, "the capture script did not run")
    check(rendered["share"] == "0%", f"rendered with {rendered['share']!r} of the phones up to date, not 0%")
    check(page.text("figure#job-reach figcaption").endswith(f"(0 of {phones})."), page.text("figure#job-reach figcaption"))
    page.wait_for(lambda: samples(page) >= 2, "the script drew no points", timeout=20)
    check(all(abs(y - 80) < 0.01 for _, y in points(page)), f"points above 0% while nothing is up to date: {points(page)}")
    page.driver.execute_script("window.__samePage = 'still here'")

    browser.ask_test("release-passes")
    page.wait_for(lambda: page.text("#job-state") == "done", "the job never finished", timeout=60)
    browser.ask_test("half-up-to-date")
    expected_half = f"{half * 100 // phones}%"
    page.wait_for(lambda: page.text("#job-share") == expected_half, f"the share never reached {expected_half}: {page.text('#job-share')}", timeout=30)
    check(abs(points(page)[-1][1] - (80 - 70 * half / phones)) < 0.2, f"the last point is not at {expected_half}: {points(page)[-1]}")
    page.screenshot("reach-half")

    browser.ask_test("all-up-to-date")
    page.wait_for(lambda: page.text("#job-share") == "100%", f"the share never reached 100%: {page.text('#job-share')}", timeout=30)
    line = points(page)
    check(abs(line[-1][1] - 10) < 0.01, f"the last point is not at 100%: {line[-1]}")
    xs = [x for x, _ in line]
    check(xs == sorted(xs) and len(line) >= 4 and xs[-1] > xs[0], f"the line does not run forward in time: {line}")
    ys = [y for _, y in line]
    check(ys[0] == 80 and min(ys) == 10, f"the line does not rise from 0% to 100%: {ys}")
    check(page.text("#job-share-count") == str(phones), page.text("#job-share-count"))
    check(page.driver.execute_script("return window.__samePage") == "still here", "the page was reloaded: the script did not do it")
    page.screenshot("reach-desktop")
    page.resize(browser.PHONE)
    page.assert_no_horizontal_scroll()
    page.screenshot("reach-phone")


browser.main(test)
