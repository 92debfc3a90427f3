"""Webhooks from the dashboard in Chromium: an admin (desktop) opens Webhooks from the navigation,
registers an endpoint at the test's receiver and sees its signing secret once (never again on
the pages); after the test has issued tickets, the endpoint's delivery log shows one delivery
delivered (200) and one refused (500, retried); redelivering the delivered one queues it again and
the log shows it delivered twice. Screenshots at desktop and phone width, without sideways scroll.

Environment: ADMIN_TOKEN, RECEIVER_URL (the endpoint's URL). Asks the test to "issue" (two
tickets: the receiver answers the first 200 and the second 500).
"""

import os

import browser
from browser import check, env


def rows(page):
    """(state, HTTP status) of each delivery in the log, newest first."""
    return [
        (row.get_attribute("data-state"), row.find_element("css selector", ".webhook-status").text.strip())
        for row in page.find_all("#webhook-deliveries tbody tr")
    ]


def both_widths(page, name):
    """Screenshots at desktop and phone width, neither scrolling sideways; back to desktop after."""
    for size, width in ((browser.DESKTOP, "desktop"), (browser.PHONE, "phone")):
        page.resize(size)
        page.assert_no_horizontal_scroll()
        page.screenshot(f"{name}-{width}")
    page.resize(browser.DESKTOP)


def wait_for_log(page, path, condition, what):
    def ready():
        page.open(path)
        return condition(rows(page))

    page.wait_for(ready, f"the delivery log never showed {what} (shows {rows(page)})", timeout=60, interval=0.5)


def test():
    admin = browser.open_browser("webhooks-admin", size=browser.DESKTOP)
    admin.open("/admin/")
    admin.type("Admin token", env("ADMIN_TOKEN"))
    admin.click("Sign in", tag="button", navigates=True)
    admin.click("Webhooks", tag="a", navigates=True)
    check(admin.current_path == "/admin/webhooks", f"the navigation's Webhooks led to {admin.current_path}")
    admin.assert_text("No endpoint yet.")
    admin.assert_no_horizontal_scroll()
    admin.screenshot("webhooks-empty-desktop")

    admin.type("URL", env("RECEIVER_URL"))
    admin.type("Description (optional)", "Box office CRM")
    admin.find("#f-type-ticket-issued").click()
    admin.find("#f-type-ticket-cancelled").click()
    admin.click("Add endpoint", tag="button", navigates=True)
    secret = admin.text("#webhook-secret").strip()
    check(secret.startswith("whsec_") and len(secret) > 40, f"no secret shown: {secret!r}")
    admin.assert_text("it is shown only this once")
    admin.assert_text("Box office CRM")
    with open(os.path.join(env("OUTPUT_DIR"), "secret.txt"), "w", encoding="utf-8") as file:
        file.write(secret)
    both_widths(admin, "webhooks-secret")

    # The secret is shown once: not on the list, not on the endpoint's page.
    admin.open("/admin/webhooks")
    check(secret not in admin.html(), "the list shows the secret again")
    admin.click(env("RECEIVER_URL"), tag="a", navigates=True)
    path = admin.current_path
    check(path.startswith("/admin/webhooks/"), f"the endpoint's link led to {path}")
    check(secret not in admin.html(), "the endpoint's page shows the secret again")
    admin.assert_text("Nothing sent yet.")

    browser.ask_test("issue")
    wait_for_log(admin, path, lambda r: ("delivered", "200") in r and ("pending", "500") in r, "one delivered (200) and one refused (500)")
    admin.assert_text("answered 500")
    both_widths(admin, "webhook-log")

    # Redeliver the delivered one: the only row with the button (the pending one is on its way).
    buttons = [b for b in admin.find_all("#webhook-deliveries button") if b.text.strip() == "Redeliver"]
    check(len(buttons) == 1, f"{len(buttons)} redeliver buttons")
    admin.click_element(buttons[0], navigates=True)
    admin.assert_text("Delivery queued again")
    wait_for_log(admin, path, lambda r: r.count(("delivered", "200")) == 2, "the redelivery delivered")
    admin.screenshot("webhook-redelivered-desktop")


browser.main(test)
