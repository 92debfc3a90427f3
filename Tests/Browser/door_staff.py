"""Door staff from the dashboard in Chromium: an admin (desktop) gives scanner access to an
event on its Door staff page; the sign-in QR code it shows, read back from the page's picture,
signs a fresh phone browser into that event's scanner page; the phone checks in a ticket of the
event (green) and is refused another event's (red), cannot open another dashboard page (403);
the admin sees it signed in and revokes the access, which signs the phone out at once.

Environment: ADMIN_TOKEN, EVENT_ID, CODE_OURS (a ticket of the event, Ada Lovelace),
CODE_OTHER (a ticket of another event).
"""

from urllib.parse import urlparse

import browser
from browser import check, env
from selenium.webdriver.common.keys import Keys


def scan(page, code, expect_title):
    """Types `code` into the scan input and presses Enter; waits for the answer titled `expect_title`."""
    before = (page.text("#scan-title"), page.text("#scan-detail"))
    field = page.find("#scan-code")
    field.click()
    field.send_keys(code + Keys.ENTER)
    page.wait_for(
        lambda: page.text("#scan-title") == expect_title and (page.text("#scan-title"), page.text("#scan-detail")) != before,
        f"the scan never showed {expect_title!r} (shows {page.text('#scan-title')!r}: {page.text('#scan-detail')!r})",
    )
    return page.find("#scan-result").get_attribute("class").split(), page.text("#scan-detail")


def test():
    event = env("EVENT_ID")
    admin = browser.open_browser("door-admin", size=browser.DESKTOP)
    admin.open("/admin/")
    admin.type("Admin token", env("ADMIN_TOKEN"))
    admin.click("Sign in", tag="button", navigates=True)
    admin.open(f"/admin/events/{event}")
    admin.screenshot("event-page", full_page=False)
    admin.click("Door staff", tag="a", navigates=True)
    check(admin.current_path == f"/admin/events/{event}/door-staff", f"the Door staff link led to {admin.current_path}")
    admin.assert_text("No one has scanner access to this event yet.")
    admin.type("Name", "North gate – Sam")
    admin.click("Create sign-in link", tag="button", navigates=True)
    admin.assert_text("Sign-in link for North gate – Sam")

    # The QR code, as a camera would read it from the screen.
    link = browser.decode_qr(admin.element_png("#door-qr svg", "door-qr"))
    check(link, "no QR code could be read from the page")
    shown = admin.find("#door-link").text
    check(link == shown, f"the QR code reads {link!r}, the page shows {shown!r}")
    path = urlparse(link).path
    code = admin.text("#door-code")
    check(path == f"/admin/s/{code}", f"the link {link!r} is not the short link of the code {code!r}")
    admin.assert_no_horizontal_scroll()
    admin.screenshot("door-staff-desktop")
    admin.resize(browser.PHONE)
    admin.assert_no_horizontal_scroll()
    admin.screenshot("door-staff-phone")
    admin.resize(browser.DESKTOP)

    # A fresh phone browser opens the link and presses the one button.
    phone = browser.open_browser("door-phone", size=browser.PHONE)
    phone.open(path)
    phone.assert_text("North gate – Sam")
    phone.screenshot("door-link-phone", full_page=False)
    phone.click("Start scanning", tag="button", navigates=True)
    check(phone.current_path == "/admin/scan", f"the phone landed on {phone.current_path}")
    phone.assert_text("Door Night")
    check(not phone.find("#f-event").is_displayed(), "the phone is offered an event to choose")
    check("Events" not in phone.text("nav"), "the phone's navigation offers the events")
    phone.wait_for(lambda: phone.text("#scan-count") == "0 / 2", f"the count never read 0 / 2 (reads {phone.text('#scan-count')!r})")

    kind, detail = scan(phone, env("CODE_OURS"), "Checked in")
    check("ok" in kind, f"the event's ticket is shown as {kind}")
    check("Ada Lovelace" in detail, f"the check-in shows {detail!r}")
    phone.wait_for(lambda: phone.text("#scan-count") == "1 / 2", "the count did not follow the check-in")
    phone.assert_no_horizontal_scroll()
    phone.screenshot("door-scanner-phone", full_page=False)
    phone.resize(browser.DESKTOP)
    phone.screenshot("door-scanner-desktop", full_page=False)
    phone.resize(browser.PHONE)
    kind, detail = scan(phone, env("CODE_OTHER"), "Another event")
    check("bad" in kind, f"another event's ticket is shown as {kind}")
    phone.screenshot("door-scanner-other-event", full_page=False)

    # No other page.
    phone.open(f"/admin/events/{event}")
    phone.assert_text("one event's scanner page only")
    phone.open("/admin/")
    check(phone.current_path == "/admin/scan", f"/admin/ led the phone to {phone.current_path}")

    # The admin sees the phone, and revokes the access.
    admin.open(f"/admin/events/{event}/door-staff")
    admin.assert_text("1 signed in")
    admin.assert_text("Chrome on Linux")
    check(code not in admin.text(), "the code is shown again after it was made")
    admin.screenshot("door-staff-list")
    admin.click("Revoke", tag="button", navigates=True)
    admin.assert_text("Scanner access revoked")
    admin.assert_text("revoked")

    # The phone's next scan is refused: it is signed out.
    scan(phone, env("CODE_OURS"), "Not checked in")
    phone.assert_text("not signed in", css="#scan-detail")
    phone.open("/admin/scan")
    phone.assert_text("Sign in")
    phone.open(path)
    phone.assert_text("This sign-in link was revoked")


browser.main(test)
