"""A viewer token in Chromium: it sees the event and ticket pages without any write control, a
forged POST from its session (with a valid CSRF token) is refused, and a hostile attendee name is
text on every page.

Environment: VIEWER_TOKEN, EVENT_ID, SERIAL (a ticket whose attendee is named with markup).
"""

import browser
from browser import check, env

HOSTILE = "<img src=x onerror=alert(1)>"


def test():
    page = browser.open_browser("viewer", size=browser.PHONE)
    page.open("/admin/")
    page.type("Admin token", env("VIEWER_TOKEN"))
    page.click("Sign in", tag="button", navigates=True)
    page.assert_text("(viewer)")
    check(not page.find_all("a[href='/admin/events/new']"), "a viewer is offered to create an event")
    event_path = f"/admin/events/{env('EVENT_ID')}"
    ticket_path = f"/admin/tickets/{env('SERIAL')}"
    for path in ("/admin/?when=all", event_path, ticket_path):
        page.open(path)
        page.assert_no_dialog()
        if path != "/admin/?when=all":
            page.assert_text(HOSTILE)
        forms = [form.get_attribute("action") for form in page.find_all("form[method=post]")]
        check(all(action.endswith("/admin/sign-out") for action in forms), f"{path} offers a viewer these forms: {forms}")
        check(not page.find_all("a[href$='/edit']"), f"{path} offers a viewer an edit link")
        page.assert_no_horizontal_scroll()
    page.assert_text(HOSTILE, "h1")
    page.screenshot("viewer-ticket")

    csrf = page.find("input[name=csrf]").get_attribute("value")
    status = page.driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        fetch(arguments[0], {method: "POST", credentials: "same-origin",
            headers: {"Content-Type": "application/x-www-form-urlencoded"},
            body: "confirm=yes&reason=forged&csrf=" + encodeURIComponent(arguments[1])})
          .then(r => done(r.status)).catch(e => done(String(e)));
        """,
        ticket_path + "/cancel", csrf,
    )
    check(status == 403, f"a viewer's forged cancel answered {status}")
    page.open(ticket_path)
    check(page.text("#ticket-status") == "active", "the viewer's forged POST cancelled the ticket")


browser.main(test)
