"""The scanner page in Chromium at a phone's size, as door staff use it with a keyboard-wedge
scanner (it types the code and presses Enter): green, amber and red answers as text, a hostile
attendee name as text, a refused POST without CSRF, the running count, and scans kept while the
server is stopped (the test really stops it) and sent as one batch once it is back, also across a
reload of the page.

Environment: SCANNER_TOKEN, EVENT_ID, CODE_ADA (Ada Lovelace, seat A1), CODE_HOSTILE (a ticket
whose attendee is named with markup), CODE_CANCELLED (cancelled, reason "refund"), CODE_FORGED,
CODE_BARE (the bare serial of a ticket whose pass carries a signed code), CODE_OTHER_EVENT (Other Guest, a ticket of another event), OFFLINE_CODES (three codes, comma separated), RELOAD_CODE, TOTAL (active tickets of the event).
The test answers the requests "stop-server" and "start-server".
"""

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import browser
from browser import ask_test, check, env
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

HOSTILE = "<img src=x onerror=alert(1)>"


def result(page):
    """(class, title, detail) of the result panel."""
    panel = page.find("#scan-result")
    return panel.get_attribute("class"), page.text("#scan-title"), page.text("#scan-detail")


def scan(page, code, expect_title):
    """Scans `code` as a wedge scanner does (into the focused input, then Enter) and waits for
    the result titled `expect_title`; checks the input is cleared and focused again."""
    focused = page.focused()
    check(focused.get_attribute("id") == "scan-code", f"the focus is on {focused.get_attribute('id')!r}, not the scan input")
    before = (page.text("#scan-title"), page.text("#scan-detail"))
    focused.send_keys(code + Keys.ENTER)
    # Consecutive scans of this script with the same title show different details (names, codes).
    page.wait_for(
        lambda: page.text("#scan-title") == expect_title and (page.text("#scan-title"), page.text("#scan-detail")) != before,
        f"the scan of {code[:12]}… never showed {expect_title!r} (shows {page.text('#scan-title')!r})",
    )
    check(page.find("#scan-code").get_attribute("value") == "", "the input was not cleared after the scan")
    check(page.focused().get_attribute("id") == "scan-code", "the input is not focused after the scan")
    page.assert_no_dialog()
    return result(page)


def count(page, expected):
    page.wait_for(lambda: page.text("#scan-count") == expected, f"the count never read {expected!r} (reads {page.text('#scan-count')!r})")


def test():
    event = env("EVENT_ID")
    total = env("TOTAL")
    offline = env("OFFLINE_CODES").split(",")
    check(len(offline) == 3, "three offline codes")
    page = browser.open_browser("scanner", size=browser.PHONE)

    # Signing in with a scanner token lands on the scanner page.
    page.open("/admin/")
    page.type("Admin token", env("SCANNER_TOKEN"))
    page.click("Sign in", tag="button", navigates=True)
    check(page.current_path.startswith("/admin/scan"), f"a scanner landed on {page.current_path}")
    page.assert_text("(scanner)")

    # The event is chosen on the page, and the page's address says which.
    Select(page.find("#f-event")).select_by_value(event)
    page.wait_for(lambda: page.current_path == f"/admin/scan?event={event}", f"the address never named the event ({page.current_path})")
    count(page, f"0 / {total}")
    check(page.focused().get_attribute("id") == "scan-code", "choosing the event does not return the focus to the scan input")

    # The gate is remembered and sent with every scan.
    page.find("#scanner details summary").click()
    page.type("Gate (sent with every scan)", "North")
    page.find("#scan-code").click()

    kind, title, detail = scan(page, env("CODE_ADA"), "Checked in")
    check("ok" in kind.split(), f"a check-in is shown as {kind!r}")
    check("Ada Lovelace" in detail and "Seat A1" in detail, f"the check-in shows {detail!r}")
    count(page, f"1 / {total}")
    page.screenshot("checked-in", full_page=False)
    page.assert_no_horizontal_scroll()

    kind, title, detail = scan(page, env("CODE_ADA"), "Already checked in")
    check("warn" in kind.split(), f"a second scan is shown as {kind!r}")
    check("Ada Lovelace" in detail and "First checked in" in detail and "at gate North" in detail, f"the second scan shows {detail!r}")
    # The first time is shown in the event's zone (Asia/Tokyo, nine hours from the browser's UTC), the zone named.
    tokyo = [f"First checked in {moment:%Y-%m-%d %H:%M} (Asia/Tokyo)" for moment in
             (datetime.now(ZoneInfo("Asia/Tokyo")) - timedelta(minutes=back) for back in (0, 1, 2))]
    check(any(line in detail for line in tokyo), f"the first time is not shown in the event's zone: {detail!r}")
    page.screenshot("already", full_page=False)

    # A POST from the page's session without the CSRF header is refused and checks nothing in.
    status = page.driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        fetch("/admin/scan/checkins", {method: "POST", credentials: "same-origin",
            headers: {"Content-Type": "application/json"}, body: JSON.stringify({code: arguments[0]})})
          .then(r => done(r.status)).catch(e => done(String(e)));
        """,
        env("CODE_HOSTILE"),
    )
    check(status == 403, f"a check-in POST without CSRF answered {status}")
    page.find("#scan-code").click()
    kind, title, detail = scan(page, env("CODE_HOSTILE"), "Checked in")
    check(HOSTILE in detail, f"the hostile name is not shown as text: {detail!r}")
    check(not page.find_all("#scan-result img"), "the hostile name became an image element")
    count(page, f"2 / {total}")

    kind, title, detail = scan(page, env("CODE_CANCELLED"), "Cancelled")
    check("bad" in kind.split() and "Reason: refund" in detail, f"a cancelled ticket shows {kind!r} {detail!r}")
    page.screenshot("cancelled", full_page=False)
    kind, title, detail = scan(page, env("CODE_FORGED"), "Unknown code")
    check("bad" in kind.split(), f"a forged code is shown as {kind!r}")
    kind, title, detail = scan(page, env("CODE_BARE"), "Serial number only")
    check("bad" in kind.split() and "scan the QR code" in detail, f"a bare serial is shown as {kind!r} {detail!r}")
    kind, title, detail = scan(page, env("CODE_OTHER_EVENT"), "Checked in: another event")
    check("warn" in kind.split() and "Other Guest" in detail, f"another event's ticket is shown as {kind!r} {detail!r}")
    count(page, f"2 / {total}")

    # The event is remembered across visits.
    page.open("/admin/scan")
    page.wait_for(lambda: Select(page.find("#f-event")).first_selected_option.get_attribute("value") == event, "the event was not remembered")
    count(page, f"2 / {total}")

    # The server goes away: scans are kept, with their time and gate, and said to be waiting.
    ask_test("stop-server")
    for index, code in enumerate(offline, start=1):
        kind, title, detail = scan(page, code, "Saved offline")
        check("wait" in kind.split(), f"an offline scan is shown as {kind!r}")
        page.wait_for_text(f"{index} scan{'s' if index > 1 else ''} waiting to be sent", "#scan-waiting")
    page.screenshot("waiting", full_page=False)
    kept = page.driver.execute_script("return JSON.parse(localStorage.getItem('passserver.scanner.waiting'))")
    check([item["code"] for item in kept] == offline, f"localStorage keeps {kept!r}")
    check(all(item.get("gate") == "North" and item.get("scannedAt") for item in kept), f"the kept scans lack a gate or time: {kept!r}")

    # It comes back: the page sends them by itself (its retry) and lists every result.
    ask_test("start-server")
    page.wait_for(lambda: page.find("#scan-waiting").get_attribute("hidden") is not None, "the waiting scans were never sent", timeout=45)
    items = [item.text for item in page.find_all("#scan-sent li")]
    check(len(items) == 3 and all(item.startswith("Checked in:") for item in items), f"the sent scans are listed as {items!r}")
    check(all(code in item for code, item in zip(offline, items)), f"the sent codes are not listed in scan order: {items!r}")
    kind, title, detail = result(page)
    check(title == "3 waiting scans sent" and "3 checked in" in detail and "ok" in kind.split(), f"the batch is summed up as {kind!r} {title!r} {detail!r}")
    count(page, f"5 / {total}")
    check(page.driver.execute_script("return localStorage.getItem('passserver.scanner.waiting')") == "[]", "sent scans are still kept")
    page.screenshot("sent", full_page=False)

    # Kept across a reload while the server is away.
    ask_test("stop-server")
    scan(page, env("RELOAD_CODE"), "Saved offline")
    page.wait_for_text("1 scan waiting to be sent", "#scan-waiting")
    try:
        page.driver.refresh()
    except WebDriverException:
        pass  # the reload fails: the server is not there
    check(not page.find_all("#scan-code"), "the reload reached a page while the server was stopped")
    ask_test("start-server")
    page.open(f"/admin/scan?event={event}")
    page.wait_for(lambda: len(page.find_all("#scan-sent li")) == 1, "the scan kept across the reload was never sent", timeout=30)
    check(page.text("#scan-sent li").startswith("Checked in:"), f"the kept scan was answered {page.text('#scan-sent li')!r}")
    page.wait_for_text("Sent after reconnecting", "#scan-detail")
    check(page.text("#scan-title") == "Checked in", f"the one kept scan is shown as {page.text('#scan-title')!r}")
    count(page, f"6 / {total}")
    page.assert_no_dialog()


browser.main(test)
