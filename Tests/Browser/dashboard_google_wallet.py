"""Google Wallet's reach on the dashboard, in Chromium at desktop and phone width: the event page
counts the tickets saved in Google Wallet beside the Apple phones, and each ticket's page says
whether it is saved (and since when), was removed, or was never saved.

Environment: ADMIN_TOKEN, EVENT_ID, SAVED (the serial of a ticket saved in Google Wallet),
REMOVED (saved, then deleted), NEVER (no callback), EVENT_SAVED (the event's count as the admin
API reports it).
"""

import browser
from browser import check, env


def sign_in(size, label):
    page = browser.open_browser(f"google-wallet-{label}", size=size)
    page.open("/admin/")
    page.type("Admin token", env("ADMIN_TOKEN"))
    page.click("Sign in", tag="button", navigates=True)
    return page


def pages(size, label):
    page = sign_in(size, label)
    page.open(f"/admin/events/{env('EVENT_ID')}")
    shown = page.text("#count-google-wallet")
    check(shown == env("EVENT_SAVED"), f"the event page counts {shown!r} saved in Google Wallet, the API {env('EVENT_SAVED')}")
    check(page.find("#count-phones") is not None, "the Apple phones are counted beside")
    page.assert_text("Saved in Google Wallet", ".counts")
    page.assert_no_horizontal_scroll()
    page.screenshot(f"event-{label}")

    page.open(f"/admin/tickets/{env('SAVED')}")
    text = page.text("#google-wallet")
    check(text.startswith("Google Wallet: saved (first saved "), f"the saved ticket's page says {text!r}")
    page.assert_no_horizontal_scroll()
    page.screenshot(f"ticket-saved-{label}")

    page.open(f"/admin/tickets/{env('REMOVED')}")
    text = page.text("#google-wallet")
    check(text.startswith("Google Wallet: removed "), f"the removed ticket's page says {text!r}")

    page.open(f"/admin/tickets/{env('NEVER')}")
    text = page.text("#google-wallet")
    check(text == "Google Wallet: not saved yet.", f"the never saved ticket's page says {text!r}")
    page.screenshot(f"ticket-never-{label}")


def test():
    pages(browser.DESKTOP, "desktop")
    pages(browser.PHONE, "phone")


if __name__ == "__main__":
    browser.main(test)
