"""The attendee's page at a download link, in Chromium at a phone's size.

Environment: TICKET_PATH (a valid ticket), BARCODE_MESSAGE (its pass's barcode message),
EVENT_NAME, CANCELLED_PATH and CANCEL_REASON (a cancelled ticket), HOSTILE_PATH (a ticket whose
attendee is named HOSTILE_NAME, an HTML injection).
"""

import browser
from browser import check, decode_qr, env


def test():
    page = browser.open_browser("attendee-en")

    # A valid ticket: the event, the button and the QR code on a phone.
    page.open(env("TICKET_PATH"))
    page.assert_no_dialog()
    check(page.text("h1") == env("EVENT_NAME"), f"the heading reads {page.text('h1')!r}")
    for label in ("Date", "Venue", "Attendee", "Seat", "Status"):
        page.assert_text(label, ".facts")
    page.assert_text("Valid", ".facts")
    button = page.by_text("Add to Apple Wallet", "a")
    check(button.get_attribute("href").endswith(env("TICKET_PATH") + "?format=pkpass"), f"the button links {button.get_attribute('href')}")
    rect = page.driver.execute_script("return arguments[0].getBoundingClientRect().toJSON()", button)
    check(rect["bottom"] <= 844 and rect["right"] <= 390, f"the button is not on the first screen of a phone: {rect}")
    page.assert_no_horizontal_scroll()
    code = page.find(".qr svg")
    check(code.is_displayed(), "the QR code is not shown")
    check(code.get_attribute("role") == "img" and code.get_attribute("aria-label"), "the QR code has no accessible name")
    size = code.size
    check(size["width"] >= 200, f"the QR code is only {size['width']} px wide")
    decoded = decode_qr(page.element_png(".qr svg", "qr-code"))
    check(decoded == env("BARCODE_MESSAGE"), f"the QR code reads {decoded!r}, the pass's barcode is {env('BARCODE_MESSAGE')!r}")
    # The keyboard reaches the button, and its focus is visible.
    focused = page.press_tab()
    check(focused.text == "Add to Apple Wallet", f"Tab first reaches {focused.tag_name} {focused.text!r}")
    outline = page.driver.execute_script("return getComputedStyle(arguments[0]).outlineStyle", focused)
    check(outline not in ("", "none"), "the focused button shows no outline")
    page.screenshot("ticket-page")

    # A cancelled ticket says so, with the reason, and offers no code to get in with nor a pass to add.
    page.open(env("CANCELLED_PATH"))
    page.assert_text("This ticket has been cancelled.")
    page.assert_text(env("CANCEL_REASON"), ".notice")
    page.assert_text("Cancelled", ".facts")
    check(not page.find_all(".qr svg"), "a cancelled ticket shows a QR code")
    check(not page.find_all("a[href$='?format=pkpass']"), "a cancelled ticket offers its pass to add to Wallet")
    page.screenshot("cancelled-ticket-page")

    # An attendee named like an HTML tag is shown as text; nothing runs.
    page.open(env("HOSTILE_PATH"))
    page.assert_no_dialog()
    shown = page.text(".attendee")
    check(shown == env("HOSTILE_NAME"), f"the attendee reads {shown!r}")
    check(not page.find_all("main img"), "the attendee's name became an element")

    # Japanese for a browser that asks for it.
    japanese = browser.open_browser("attendee-ja", language="ja-JP")
    japanese.open(env("TICKET_PATH"))
    check(japanese.find("html").get_attribute("lang") == "ja", "the page is not marked Japanese")
    japanese.by_text("Apple Walletに追加", "a")
    for label in ("日時", "会場", "参加者", "座席", "有効"):
        japanese.assert_text(label, ".facts")
    japanese.assert_text("入場時にこのコードをご提示ください。")
    japanese.open(env("CANCELLED_PATH"))
    japanese.assert_text("このチケットはキャンセルされました。")


if __name__ == "__main__":
    browser.main(test)
