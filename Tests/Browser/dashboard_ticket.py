"""README's claims about a ticket's page, in Chromium: the download link and its QR code (the
picture on the page, decoded with zbarimg, is the link); the phones holding the pass with their
state and the latest pushes; and a new download link, after which the page shows and encodes the
new link, the old one finds no ticket and the new one gives the pass.

Environment: ADMIN_TOKEN, SERIAL, DOWNLOAD_URL (the ticket's link before the page replaces it),
PHONE_UP_TO_DATE and PHONE_BEHIND (device library identifiers of the two phones holding the pass:
the first asked what changed after the last push, the second did not), PUSHES (a JSON list of
the ticket's latest pushes as the admin API reports them: status and outcome, newest first).
"""

import hashlib
import json
import urllib.parse

import browser
from browser import check, decode_qr, env


def phone_id(device_library_identifier):
    """How the page names a phone: the first 16 hex digits of the SHA-256 of its identifier."""
    return hashlib.sha256(device_library_identifier.encode()).hexdigest()[:16]


def fetch_status(page, path):
    """The status of a GET from the page's own context (same origin; `*/*` asks for the pass)."""
    return page.driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        fetch(arguments[0], {credentials: "same-origin"}).then(r => done(r.status)).catch(e => done(String(e)));
        """,
        path,
    )


def qr_content(page, name):
    """What zbarimg reads from the QR code as the page draws it (at twice its size, for the decoder)."""
    page.driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 900, "deviceScaleFactor": 2, "mobile": False}
    )
    try:
        return decode_qr(page.element_png("#download-qr svg", name))
    finally:
        page.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def table(page, css):
    """The cells' texts of every body row of the table matching `css`."""
    return [[cell.text for cell in row.find_elements("css selector", "td")] for row in page.find_all(css + " tbody tr")]


def test():
    page = browser.open_browser("ticket", size=browser.DESKTOP)
    page.open("/admin/")
    page.type("Admin token", env("ADMIN_TOKEN"))
    page.click("Sign in", tag="button", navigates=True)
    ticket_path = f"/admin/tickets/{env('SERIAL')}"
    page.open(ticket_path)

    # The download link, and the QR code of exactly that link.
    old_link = env("DOWNLOAD_URL")
    shown = page.find("#download-link")
    check(shown.get_attribute("href") == old_link, f"the page links {shown.get_attribute('href')}, not {old_link}")
    check(shown.text == old_link, f"the page shows {shown.text!r}")
    decoded = qr_content(page, "qr-before")
    check(decoded == old_link, f"the QR code reads {decoded!r}, not the link {old_link!r}")

    # The phones, each with its state, and the latest pushes.
    phones = {row[0]: row for row in table(page, "#devices")}
    up, behind = phone_id(env("PHONE_UP_TO_DATE")), phone_id(env("PHONE_BEHIND"))
    check(set(phones) == {up, behind}, f"the phones listed: {sorted(phones)}, expected {sorted([up, behind])}")
    check(phones[up][3] == "up to date", f"the phone that asked: {phones[up]}")
    check(phones[up][2] not in ("", "—"), f"the phone that asked shows no time it last asked: {phones[up]}")
    check(phones[behind][3] == "behind", f"the phone that did not ask: {phones[behind]}")
    check(phones[behind][2] == "—", f"the phone that never asked shows a time: {phones[behind]}")
    pushes = json.loads(env("PUSHES"))
    rows = table(page, "#pushes")
    check(len(rows) == len(pushes), f"{len(rows)} pushes listed, the API has {len(pushes)}")
    for row, push in zip(rows, pushes):
        check(row[1] == str(push["status"]) and row[2] == (push.get("outcome") or ""), f"push row {row} is not {push}")
    page.screenshot("ticket-before")

    # A new download link (behind its confirmation).
    page.by_label("Yes, the current link stops working").click()
    page.click("New download link", tag="button", navigates=True)
    page.assert_text("The download link was replaced")
    new_link = page.find("#download-link").get_attribute("href")
    check(new_link and new_link != old_link, f"the link did not change: {new_link}")
    check(new_link.rsplit("/", 1)[0] == old_link.rsplit("/", 1)[0], f"the new link is elsewhere: {new_link}")
    decoded = qr_content(page, "qr-after")
    check(decoded == new_link, f"after the change the QR code reads {decoded!r}, not {new_link!r}")
    check(fetch_status(page, urllib.parse.urlsplit(old_link).path) == 404, "the old link still works")
    check(fetch_status(page, urllib.parse.urlsplit(new_link).path) == 200, "the new link does not work")
    page.screenshot("ticket-after")


browser.main(test)
