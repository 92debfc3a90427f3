"""The buyer's page of an order, in Chromium at a phone's and a desktop's size.

Environment: ORDER_PATH (an order of twelve tickets on a server with Google Wallet, of which
CANCELLED_NAME is cancelled), NAMES (every attendee of it, in issue order, separated by "|"),
EVENT_NAME, PLAIN_URL (the whole link of a four-ticket order on a server without Google Wallet),
UNKNOWN_PATH (an order link that leads to no order).
"""

import browser
from browser import DESKTOP, PHONE, check, env


def tickets(page):
    """Each listed ticket: its attendee, whether it says cancelled, and its buttons' texts and links."""
    listed = []
    for item in page.find_all(".order-tickets li"):
        name = item.find_element(browser.By.CSS_SELECTOR, ".attendee").text
        links = [(link.text, link.get_attribute("href")) for link in item.find_elements(browser.By.CSS_SELECTOR, ".wallet a.button")]
        listed.append((name, "cancelled" in item.get_attribute("class").split(), item.text, links))
    return listed


def check_order(page, names, cancelled, google):
    check(page.text("h1") == env("EVENT_NAME"), f"the heading reads {page.text('h1')!r}")
    listed = tickets(page)
    check([entry[0] for entry in listed] == names, f"the page lists {[entry[0] for entry in listed]}, not every ticket of the order")
    for name, is_cancelled, text, links in listed:
        if name == cancelled:
            check(is_cancelled and "Cancelled" in text, f"{name} is not shown as cancelled: {text!r}")
            check(not links, f"the cancelled ticket offers {links}")
            continue
        check(not is_cancelled and "Valid" in text, f"{name} is not shown as valid: {text!r}")
        texts = [label for label, _ in links]
        expected = ["Add to Apple Wallet", "Add to Google Wallet"] if google else ["Add to Apple Wallet"]
        # Each button's name goes on (for screen readers) with whose ticket it adds.
        check(len(texts) == len(expected) and all(text.startswith(want) for text, want in zip(texts, expected)), f"{name}'s buttons are {texts}")
        check(links[0][1].endswith("?format=pkpass") and "/download/" in links[0][1], f"{name}'s Apple button links {links[0][1]}")
        if google:
            check(links[1][1].endswith("/google-wallet") and "/download/" in links[1][1], f"{name}'s Google button links {links[1][1]}")


def test():
    names = env("NAMES").split("|")
    cancelled = env("CANCELLED_NAME")

    # A phone: every ticket with its own buttons, the cancelled one without; two "Add all" files.
    phone = browser.open_browser("order-phone", size=PHONE)
    phone.open(env("ORDER_PATH"))
    phone.assert_no_dialog()
    check_order(phone, names, cancelled, google=True)
    add_all = [(link.text, link.get_attribute("href")) for link in phone.find_all(".order-add-all a.button")]
    check([text for text, _ in add_all] == ["Add tickets 1–6 to Apple Wallet", "Add tickets 7–11 to Apple Wallet"], f"the Add all buttons are {add_all}")
    check(
        [href.endswith(f"?format=pkpasses&part={index + 1}") for index, (_, href) in enumerate(add_all)] == [True, True],
        f"the Add all buttons link {[href for _, href in add_all]}",
    )
    first = phone.find(".order-add-all a.button")
    rect = phone.driver.execute_script("return arguments[0].getBoundingClientRect().toJSON()", first)
    check(rect["bottom"] <= 844 and rect["right"] <= 390, f"the first Add all button is not on the first screen of a phone: {rect}")
    focused = phone.press_tab()
    check(focused.text == "Add tickets 1–6 to Apple Wallet", f"Tab first reaches {focused.text!r}")
    outline = phone.driver.execute_script("return getComputedStyle(arguments[0]).outlineStyle", focused)
    check(outline not in ("", "none"), "the focused button shows no outline")
    phone.assert_no_horizontal_scroll()
    phone.screenshot("order-phone")

    desktop = browser.open_browser("order-desktop", size=DESKTOP)
    desktop.open(env("ORDER_PATH"))
    check_order(desktop, names, cancelled, google=True)
    desktop.assert_no_horizontal_scroll()
    desktop.screenshot("order-desktop")
    desktop.color_scheme("dark")
    desktop.open(env("ORDER_PATH"))
    desktop.screenshot("order-desktop-dark")

    # Without Google Wallet: Apple's buttons only, one file for four tickets. In Japanese too.
    plain = browser.open_browser("order-plain", size=PHONE)
    plain.open(env("PLAIN_URL"))
    check_order(plain, [f"Guest {index}" for index in range(1, 5)], None, google=False)
    check(not plain.find_all(".button-google"), "a server without Google Wallet shows a Google button")
    single = [link.text for link in plain.find_all(".order-add-all a.button")]
    check(single == ["Add all to Apple Wallet"], f"a four-ticket order's Add all buttons are {single}")
    plain.assert_no_horizontal_scroll()
    japanese = browser.open_browser("order-ja", size=PHONE, language="ja-JP")
    japanese.open(env("PLAIN_URL"))
    check(japanese.find("html").get_attribute("lang") == "ja", "the page is not marked Japanese")
    japanese.by_text("すべて Apple Wallet に追加", "a")
    japanese.assert_text("チケット一覧", "h2")
    japanese.screenshot("order-phone-ja")

    # A link that leads to no order: the page says so, as an unknown ticket link's does.
    phone.open(env("UNKNOWN_PATH"))
    check(phone.text("h1") == "Order not found", f"an unknown order link shows {phone.text('h1')!r}")
    phone.open(env("UNKNOWN_PATH").replace("/orders/", "/download/"))
    check(phone.text("h1") == "Ticket not found", f"an unknown ticket link shows {phone.text('h1')!r}")


if __name__ == "__main__":
    browser.main(test)
