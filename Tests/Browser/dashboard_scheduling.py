"""Announcements and scheduled changes on the dashboard, in Chromium at desktop and phone width:
write an announcement and send it now (listed with its reach), a second one refused with the
time it is allowed, a silent one scheduled, withdraw and cancel them; schedule an edit from the
event's edit form (the event unchanged meanwhile), see it listed, edit it and cancel it.

Environment: ADMIN_TOKEN, EVENT_ID, VENUE (the event's venue), SEND_AT and APPLY_AT (local times in
the event's zone, in the future, as a datetime-local input takes them), PHONES (registrations of
the event's valid passes). The test answers `phones-fetch` by having every phone list and fetch
its passes.
"""

import browser
from browser import check, env

DESKTOP = (1280, 800)
PHONE = (390, 844)


def set_value(page, label, value):
    """Sets a control's value as a picker would (datetime-local)."""
    page.driver.execute_script("arguments[0].value = arguments[1]", page.by_label(label), value)


def sign_in(size, label):
    page = browser.open_browser(f"scheduling-{label}", size=size)
    page.open("/admin/")
    page.type("Admin token", env("ADMIN_TOKEN"))
    page.click("Sign in", tag="button", navigates=True)
    page.assert_text("Events", "h1")
    return page


def row_text(page, table, needle):
    """The text of the row of `table` holding `needle`."""
    for row in page.find_all(f"#{table} tbody tr"):
        if needle in row.text:
            return row.text
    raise browser.Failure(f"no row of #{table} holds {needle!r}: {page.text('#' + table)}")


def write(page, message):
    page.open(f"/admin/events/{env('EVENT_ID')}")
    if page.find("#announce").get_attribute("open") is None:
        page.click_element(page.find("#announce summary"), navigates=False)
    page.type("Message", message)


def announcements(page):
    event = env("EVENT_ID")
    # Sent now: listed as on the passes, alerting, with its reach.
    write(page, "Doors open at 18:00 <b>not bold</b>")
    page.click("Send now", tag="button", navigates=True)
    page.assert_text("Announcement sent")
    row = row_text(page, "announcements", "Doors open at 18:00 <b>not bold</b>")
    check("on the passes" in row and "yes" in row, f"the sent row: {row}")
    check(not page.find_all("#announcements b"), "the message's markup was not escaped")
    # The phones are pushed; they list and fetch the new pass.
    browser.ask_test("phones-fetch")
    page.wait_for(
        lambda: (page.open(f"/admin/events/{event}") or True)
        and f"{env('PHONES')} of {env('PHONES')}" in row_text(page, "announcements", "Doors open at 18:00"),
        "the reach never counted every phone holding the pass",
        timeout=30,
    )
    page.screenshot("announcement-sent-desktop")

    # A second alerting one at once: refused, saying when it is allowed; the text stays.
    write(page, "Gate B is closed")
    page.click("Send now", tag="button", navigates=True)
    page.assert_text("this one is allowed from", ".notice")
    check(page.by_label("Message").get_attribute("value") == "Gate B is closed", "the refused text was lost")
    page.screenshot("announcement-refused-desktop")

    # Silent and scheduled: listed as scheduled at its time.
    page.by_label("Alert the lock screen").click()
    set_value(page, "Send at (for Schedule, in Asia/Tokyo)", env("SEND_AT"))
    page.click("Schedule", tag="button", navigates=True)
    page.assert_text("Announcement scheduled.")
    row = row_text(page, "announcements", "Gate B is closed")
    check("scheduled" in row and env("SEND_AT").replace("T", " ") in row and "no" in row, f"the scheduled row: {row}")
    page.screenshot("announcement-scheduled-desktop")

    # Withdraw the sent one, cancel the scheduled one.
    page.click_element(page.find("#announcements button[aria-label^='Withdraw']"), navigates=True)
    page.assert_text("Announcement withdrawn")
    check("withdrawn" in row_text(page, "announcements", "Doors open at 18:00"), "not withdrawn")
    page.click_element(page.find("#announcements button[aria-label^='Cancel']"), navigates=True)
    page.assert_text("Scheduled announcement cancelled.")
    check("cancelled" in row_text(page, "announcements", "Gate B is closed"), "not cancelled")
    page.assert_no_horizontal_scroll()
    page.screenshot("announcements-desktop")


def scheduled_changes(page):
    event = env("EVENT_ID")
    page.open(f"/admin/events/{event}/edit")
    page.type("Venue", "Second Hall")
    set_value(page, "Apply at (for Schedule, in Asia/Tokyo)", env("APPLY_AT"))
    page.screenshot("edit-form-desktop")
    page.click("Schedule", tag="button", navigates=True)
    page.assert_text("Change scheduled.")
    row = row_text(page, "scheduled-changes", "Venue: Second Hall")
    check("pending" in row and env("APPLY_AT").replace("T", " ") in row, f"the scheduled change: {row}")
    check(env("VENUE") in page.text(".subtitle"), "the event changed before the scheduled time")
    page.screenshot("change-scheduled-desktop")

    # Edit it: the form holds the change and its time; save another venue.
    page.click_element(page.find("#scheduled-changes a[aria-label^='Edit']"), navigates=True)
    page.assert_text("Scheduled change of", "h1")
    check(page.by_label("Venue").get_attribute("value") == "Second Hall", "the form lost the change")
    check(page.by_label("Applies at (in Asia/Tokyo)").get_attribute("value") == env("APPLY_AT"), "the form lost the time")
    page.screenshot("change-edit-desktop")
    page.type("Venue", "Third Hall")
    page.click("Save scheduled change", tag="button", navigates=True)
    page.assert_text("Scheduled change saved.")
    row_text(page, "scheduled-changes", "Venue: Third Hall")

    # Cancel it.
    page.click_element(page.find("#scheduled-changes button[aria-label^='Cancel']"), navigates=True)
    page.assert_text("Scheduled change cancelled.")
    check("cancelled" in row_text(page, "scheduled-changes", "Venue: Third Hall"), "not cancelled")
    page.screenshot("changes-desktop")


def phone_width():
    page = sign_in(PHONE, "phone")
    event = env("EVENT_ID")
    page.open(f"/admin/events/{event}")
    page.click_element(page.find("#announce summary"), navigates=False)
    page.assert_no_horizontal_scroll()
    page.find("#announcements-section").location_once_scrolled_into_view
    page.screenshot("event-phone")
    page.open(f"/admin/events/{event}/edit")
    page.assert_no_horizontal_scroll()
    page.screenshot("edit-form-phone")


def test():
    desktop = sign_in(DESKTOP, "desktop")
    announcements(desktop)
    scheduled_changes(desktop)
    phone_width()


if __name__ == "__main__":
    browser.main(test)
