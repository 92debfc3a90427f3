"""A viewer token on the scanner page in Chromium: no scan input, and a check-in POST from its
session (with a valid CSRF header) is refused with 403.

Environment: VIEWER_TOKEN, EVENT_ID, CODE (a ticket's signed code, not checked in).
"""

import browser
from browser import check, env


def test():
    page = browser.open_browser("scanner-viewer", size=browser.PHONE)
    page.open("/admin/")
    page.type("Admin token", env("VIEWER_TOKEN"))
    page.click("Sign in", tag="button", navigates=True)
    page.assert_text("(viewer)")
    page.open(f"/admin/scan?event={env('EVENT_ID')}")
    page.assert_text("cannot check tickets in")
    check(page.find("#f-event").get_attribute("value") == env("EVENT_ID"), "the event of the link is not chosen")
    check(not page.find_all("#scan-code"), "a viewer is given the scan input")
    check(not page.find_all("#scan-form"), "a viewer is given the scan form")
    page.assert_no_horizontal_scroll()
    page.screenshot("viewer-scanner", full_page=False)

    csrf = page.find("#scanner").get_attribute("data-csrf")
    check(csrf, "the page carries no CSRF token")
    status = page.driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        fetch("/admin/scan/checkins", {method: "POST", credentials: "same-origin",
            headers: {"Content-Type": "application/json", "X-CSRF-Token": arguments[1]},
            body: JSON.stringify({code: arguments[0]})})
          .then(r => r.json().then(body => done([r.status, body.error && body.error.code])))
          .catch(e => done(String(e)));
        """,
        env("CODE"), csrf,
    )
    check(status == [403, "forbidden"], f"a viewer's check-in POST answered {status}")


browser.main(test)
