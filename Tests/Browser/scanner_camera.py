"""The scanner page's camera and typed check codes in Chromium at a phone's size. Chromium's fake
camera plays a video made by the test from a ticket's real QR code (turned and blurred, as a phone
films it); the page checks that ticket in and answers in green, and keeps it in view without
scanning it again. Typed check codes: one of the chosen event's tickets (lower case, no dash) is
green, one of another event's ticket is red.

Environment: SCANNER_TOKEN, EVENT_ID, VIDEO (the .y4m file), FILMED_NAME (the filmed ticket's
attendee), TYPED_CODE and TYPED_NAME (a ticket of the event), OTHER_EVENT_CODE (the check code of a
ticket of another event).

Prints `camera path: detector` or `camera path: server` (and whether the browser has
BarcodeDetector): which of the page's two ways of reading the camera ran.
"""

import time

import browser
from browser import check, env
from selenium.webdriver.common.keys import Keys


def typed(page, code, expect_title):
    before = (page.text("#scan-title"), page.text("#scan-detail"))
    page.find("#scan-code").send_keys(code + Keys.ENTER)
    page.wait_for(
        lambda: page.text("#scan-title") == expect_title and (page.text("#scan-title"), page.text("#scan-detail")) != before,
        f"typing {code!r} never showed {expect_title!r} (shows {page.text('#scan-title')!r}: {page.text('#scan-detail')!r})",
    )
    return page.find("#scan-result").get_attribute("class"), page.text("#scan-detail")


def test():
    event = env("EVENT_ID")
    page = browser.open_browser("scanner-camera", size=browser.PHONE, arguments=(
        "--use-fake-ui-for-media-stream",
        "--use-fake-device-for-media-stream",
        f"--use-file-for-fake-video-capture={env('VIDEO')}",
    ))
    page.open("/admin/")
    page.type("Admin token", env("SCANNER_TOKEN"))
    page.click("Sign in", tag="button", navigates=True)
    page.open(f"/admin/scan?event={event}")

    # A check code typed as staff read it off a phone: lower case, no dash.
    kind, detail = typed(page, env("TYPED_CODE").lower().replace("-", ""), "Checked in")
    check("ok" in kind.split(), f"a typed check-in is shown as {kind!r}")
    check(env("TYPED_NAME") in detail, f"the typed check-in shows {detail!r}")
    kind, detail = typed(page, env("OTHER_EVENT_CODE"), "Unknown code")
    check("bad" in kind.split(), f"another event's check code is shown as {kind!r}")
    check("chosen event" in detail, f"the refusal does not say the code is looked up in the chosen event: {detail!r}")

    # The camera: the button opens it, the filmed ticket is checked in.
    has_detector = page.driver.execute_script("return typeof window.BarcodeDetector === 'function'")
    start = page.find("#scan-camera-start")
    check(start.is_displayed(), "no camera button")
    start.click()
    page.wait_for(lambda: page.text("#scan-title") == "Checked in" and env("FILMED_NAME") in page.text("#scan-detail"),
                  f"the filmed ticket was never checked in (shows {page.text('#scan-title')!r}: {page.text('#scan-detail')!r}; "
                  f"camera: {page.text('#scan-camera-status')!r})", timeout=30)
    path = page.find("#scanner").get_attribute("data-camera-path")
    print(f"camera path: {path} (BarcodeDetector: {'yes' if has_detector else 'no'})")
    check(path in ("detector", "server"), f"no camera path recorded: {path!r}")
    check(page.find("#scan-result").get_attribute("class").split()[-1] == "ok", "the camera's check-in is not green")
    check(page.find("#scan-video").is_displayed(), "the camera's preview is not shown")
    page.screenshot("camera-checked-in", full_page=False)

    # The ticket stays in view: not scanned again (it would turn amber, "Already checked in").
    time.sleep(3)
    check(page.text("#scan-title") == "Checked in", f"the ticket in view was scanned again: {page.text('#scan-title')!r}")
    page.find("#scan-camera-stop").click()
    page.wait_for(lambda: not page.find("#scan-video").is_displayed() and page.find("#scan-camera-start").is_displayed(),
                  "stopping the camera did not hide the preview")
    page.assert_no_dialog()


browser.main(test)
