"""Signs in to the dashboard in headless Chromium and takes the picture of an event's page that
README.md shows (docs/images/event-page.png). Run by scripts/event-page-screenshot.sh, which starts
the server and makes the event; uses the page-test harness of Tests/Browser/browser.py.

Environment: SERVER_URL, ADMIN_TOKEN, EVENT_ID, SCREENSHOT (the PNG to write).
"""

import shutil

import browser
from browser import check, env

SIZE = (1100, 1040)


def test():
    page = browser.open_browser("event-page", size=SIZE)
    page.open("/admin/")
    page.type("Admin token", env("ADMIN_TOKEN"))
    page.click("Sign in", tag="button", navigates=True)
    page.assert_text("Events", "h1")
    page.open(f"/admin/events/{env('EVENT_ID')}")
    page.assert_text("Autumn Jazz Night", "h1")
    check(page.text("#count-tickets") == "10", f"tickets: {page.text('#count-tickets')}")
    check(page.text("#count-cancelled") == "1", f"cancelled: {page.text('#count-cancelled')}")
    check(page.text("#count-phones") == "6", f"phones: {page.text('#count-phones')}")
    check(page.text("#count-checked-in") == "3", f"checked in: {page.text('#count-checked-in')}")
    check(page.text("#count-up-to-date") == "4", f"phones up to date: {page.text('#count-up-to-date')}")
    page.assert_no_horizontal_scroll()
    shutil.copyfile(page.screenshot("event-page", full_page=False), env("SCREENSHOT"))


if __name__ == "__main__":
    browser.main(test)
