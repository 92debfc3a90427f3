"""An ended event's attendee page, a new event starting in the past, and erasing and deleting an
event from its page, in Chromium at desktop and phone widths.

Environment: ADMIN_TOKEN; ENDED_PATH (the download link of a ticket of an event that has ended) and
RUNNING_PATH (one of an event that has not); EVENT_NAME and EVENT_ID (an event with tickets, to
erase and then delete); ATTENDEE (the name of one of its attendees).
"""

import browser
from browser import check, env


def set_value(page, label, value):
    """Sets a control's value as a picker would (datetime-local)."""
    page.driver.execute_script("arguments[0].value = arguments[1]", page.by_label(label), value)


def attendee_pages(size, label):
    page = browser.open_browser(f"attendee-{label}", size=size)
    page.open(env("RUNNING_PATH"))
    page.by_text("Add to Apple Wallet", "a")
    check("This event has ended" not in page.text(), "a running event's page says it has ended")
    page.open(env("ENDED_PATH"))
    page.assert_text("This event has ended.", ".notice")
    check(not [link for link in page.find_all("a") if "Add to Apple Wallet" in link.text], "an ended event's page offers Add to Apple Wallet")
    check(not page.find_all(".wallet"), "the wallet paragraph is still there")
    page.assert_no_horizontal_scroll()
    page.screenshot(f"attendee-ended-{label}")
    page.close()


def sign_in(size, label):
    page = browser.open_browser(f"dashboard-{label}", size=size)
    page.open("/admin/")
    page.type("Admin token", env("ADMIN_TOKEN"))
    page.click("Sign in", tag="button", navigates=True)
    page.assert_text("Events", "h1")
    return page


def past_start(page, label):
    page.open("/admin/events/new")
    page.type("Name", f"Last Year's Gig {label}")
    page.type("Venue", "Old Hall")
    set_value(page, "Starts (in the event's time zone)", "2020-05-01T19:00")
    page.type("Time zone", "UTC")
    page.click("Create event", tag="button", navigates=True)
    page.assert_text("This event started in the past — create anyway?")
    check(page.by_label("Name").get_attribute("value") == f"Last Year's Gig {label}", "the form lost what was typed")
    page.assert_no_horizontal_scroll()
    page.screenshot(f"past-start-question-{label}")
    page.click("Create anyway", tag="button", navigates=True)
    page.assert_text("Event created.")
    page.assert_text(f"Last Year's Gig {label}", "h1")


def erase_and_delete(page):
    name, event = env("EVENT_NAME"), env("EVENT_ID")
    page.open(f"/admin/events/{event}")
    page.assert_text(env("ATTENDEE"), "#tickets")
    page.type("Type the event's name to confirm", "Not the name")
    page.click("Erase attendee data", tag="button", navigates=True)
    page.assert_text("type the event's name exactly")
    page.assert_text(env("ATTENDEE"), "#tickets")
    page.screenshot("erase-refused-desktop")
    field = page.find("#f-confirmErase")
    field.clear()
    field.send_keys(name)
    page.click("Erase attendee data", tag="button", navigates=True)
    page.assert_text("Attendee data erased: names, emails, seats and extra fields are gone; the counts stay.")
    check(env("ATTENDEE") not in page.text("#tickets"), "the attendee's name is still in the ticket table")
    page.assert_text("Attendee data erased on", "#erased")
    page.screenshot("erased-desktop")
    page.find("#f-confirmDelete").send_keys(name)
    page.click("Delete event", tag="button", navigates=True)
    page.assert_text("Event deleted")
    check(page.current_path.startswith("/admin/"), f"after deleting: {page.current_path}")
    page.screenshot("deleted-desktop")


def test():
    attendee_pages(browser.DESKTOP, "desktop")
    attendee_pages(browser.PHONE, "phone")
    desktop = sign_in(browser.DESKTOP, "desktop")
    past_start(desktop, "desktop")
    erase_and_delete(desktop)
    phone = sign_in(browser.PHONE, "phone")
    past_start(phone, "phone")
    # The new event's page: the erase and delete forms fit a phone.
    phone.assert_text("Erase or delete", "#danger-heading")
    phone.assert_no_horizontal_scroll()
    phone.screenshot("event-page-phone")


if __name__ == "__main__":
    browser.main(test)
