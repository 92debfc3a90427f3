"""Signs in to the dashboard in headless Chromium and takes the pictures README.md and docs/ show:
the event page (desktop, light), a ticket's page (desktop, dark), the attendee's page and the
scanner after a second scan of a ticket (phone). Run by scripts/dashboard-screenshots.sh, which
starts the server and makes the event; uses the page-test harness of Tests/Browser/browser.py.

Environment: SERVER_URL, ADMIN_TOKEN, EVENT_ID, SERIAL and CODE (a checked-in ticket and its barcode),
DOWNLOAD_PATH (another
ticket's attendee page), SCREENSHOTS (the directory to write the PNGs to).
"""

import os
import shutil

import browser
from browser import check, env

DESKTOP = (1280, 800)


def save(page, name):
    shutil.copyfile(page.screenshot(name, full_page=False), os.path.join(env("SCREENSHOTS"), f"{name}.png"))


def test():
    page = browser.open_browser("dashboard-screenshots", size=DESKTOP)
    page.color_scheme("light")
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
    save(page, "event-page")

    page.color_scheme("dark")
    page.open(f"/admin/tickets/{env('SERIAL')}")
    page.assert_text("Ana Sousa")
    page.assert_no_horizontal_scroll()
    save(page, "ticket-page")

    page.resize(browser.PHONE)
    page.color_scheme("light")
    page.open(env("DOWNLOAD_PATH"))
    page.assert_text("Emma Lindqvist")
    page.assert_no_horizontal_scroll()
    save(page, "attendee-page")

    page.open(f"/admin/scan?event={env('EVENT_ID')}")
    page.find("#scan-code").click()
    page.find("#scan-code").send_keys(env("CODE") + "\n")
    page.wait_for(lambda: page.text("#scan-title") == "Already checked in", f"the scan shows {page.text('#scan-title')!r}")
    page.assert_no_horizontal_scroll()
    save(page, "scanner-page")


if __name__ == "__main__":
    browser.main(test)
