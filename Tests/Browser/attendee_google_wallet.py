"""The attendee page's "Add to Google Wallet" button in Chromium: first on Android, after the Apple
button on a desktop, absent on a server without Google Wallet.

Environment: TICKET_PATH (a valid ticket on a server with Google Wallet), PENDING_PATH (a ticket
there that Google does not have yet), SAVE_URL (Google's save URL, the local fake's), PLAIN_URL
(the whole link of a ticket on a server without Google Wallet).
"""

import browser
from browser import DESKTOP, PHONE, check, env

ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36"
LINUX = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36"


def buttons(page):
    return [link.text for link in page.find_all(".wallet a.button")]


def test():
    ticket = env("TICKET_PATH")

    android = browser.open_browser("google-android", size=PHONE, arguments=(f"--user-agent={ANDROID}",))
    android.open(ticket)
    android.assert_no_dialog()
    shown = buttons(android)
    check(shown == ["Add to Google Wallet", "Add to Apple Wallet"], f"on Android the buttons are {shown}")
    google = android.by_text("Add to Google Wallet", "a")
    check(google.get_attribute("href").endswith(ticket + "/google-wallet"), f"the Google button links {google.get_attribute('href')}")
    rect = android.driver.execute_script("return arguments[0].getBoundingClientRect().toJSON()", google)
    check(rect["bottom"] <= 844 and rect["right"] <= 390, f"the Google button is not on the first screen of a phone: {rect}")
    android.assert_no_horizontal_scroll()
    focused = android.press_tab()
    check(focused.text == "Add to Google Wallet", f"Tab first reaches {focused.text!r}")
    outline = android.driver.execute_script("return getComputedStyle(arguments[0]).outlineStyle", focused)
    check(outline not in ("", "none"), "the focused Google button shows no outline")
    android.screenshot("android-phone")

    desktop = browser.open_browser("google-desktop", size=DESKTOP, arguments=(f"--user-agent={LINUX}",))
    desktop.open(ticket)
    shown = buttons(desktop)
    check(shown == ["Add to Apple Wallet", "Add to Google Wallet"], f"on a desktop the buttons are {shown}")
    desktop.assert_no_horizontal_scroll()
    desktop.screenshot("desktop")

    iphone = browser.open_browser("google-iphone-width", size=PHONE, arguments=(f"--user-agent={LINUX}",))
    iphone.open(ticket)
    check(buttons(iphone) == ["Add to Apple Wallet", "Add to Google Wallet"], f"at phone width without Android: {buttons(iphone)}")
    iphone.assert_no_horizontal_scroll()
    iphone.screenshot("phone-not-android")

    # The button leads through our route to Google's save link.
    android.by_text("Add to Google Wallet", "a").click()
    landed = android.driver.current_url
    prefix = env("SAVE_URL") + "/"
    check(landed.startswith(prefix) and landed[len(prefix):].count(".") == 2, f"the Google button led to {landed}, not a save link")

    # A ticket Google does not have yet: a page that says so, with a way to try again.
    android.open(env("PENDING_PATH") + "/google-wallet")
    android.assert_text("Almost ready for Google Wallet", "h1")
    android.by_text("Try again", "a")
    android.assert_no_horizontal_scroll()
    android.screenshot("pending-phone")
    desktop.open(env("PENDING_PATH") + "/google-wallet")
    desktop.assert_text("Almost ready for Google Wallet", "h1")
    desktop.screenshot("pending-desktop")

    plain = browser.open_browser("google-off", size=PHONE, arguments=(f"--user-agent={ANDROID}",))
    plain.open(env("PLAIN_URL"))
    shown = buttons(plain)
    check(shown == ["Add to Apple Wallet"], f"without Google Wallet the buttons are {shown}")


if __name__ == "__main__":
    browser.main(test)
