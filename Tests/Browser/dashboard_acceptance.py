"""The organizers' dashboard end to end in Chromium at a phone's width: sign in, create an event,
import 50 attendees (one broken row shown, fixed, checked again, issued), search, rename, cancel
with a reason, edit the venue and watch the re-push job finish with its reach on the page, export
the CSV, sign out, and find the old session cookie refused.

Environment: ADMIN_TOKEN, TOKEN_SECRET_HEX and PASS_TYPE (to register phones the way Wallet does).
"""

import base64
import hashlib
import hmac
import json
import os
import urllib.request

import browser
from browser import check, env

HOSTILE = "<img src=x onerror=alert(1)>"


def authentication_token(serial):
    """The pass's ApplePass token, derived from TOKEN_SECRET as the server derives it."""
    message = b"auth\0" + env("PASS_TYPE").encode() + b"\0" + serial.encode()
    mac = hmac.new(bytes.fromhex(env("TOKEN_SECRET_HEX")), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


def register_phone(base, serial, number):
    """A phone adds the pass to Wallet: registers for its pushes."""
    device = f"phone{number:027d}"
    request = urllib.request.Request(
        f"{base}/v1/devices/{device}/registrations/{env('PASS_TYPE')}/{serial}",
        data=json.dumps({"pushToken": f"{number:064x}"}).encode(),
        method="POST",
        headers={"Authorization": "ApplePass " + authentication_token(serial), "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        check(response.status == 201, f"registering a phone answered {response.status}")


def set_value(page, label, value):
    """Sets a control's value as a picker would (datetime-local, long texts)."""
    page.driver.execute_script("arguments[0].value = arguments[1]", page.by_label(label), value)


def fetch(page, method, path, body=None):
    """A request from the page's own script context (its cookies, same origin): status and text."""
    return page.driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        const options = {method: arguments[0], credentials: "same-origin"};
        if (arguments[2] !== null) {
            options.body = arguments[2];
            options.headers = {"Content-Type": "application/x-www-form-urlencoded"};
        }
        fetch(arguments[1], options).then(r => r.text().then(t => done([r.status, t]))).catch(e => done([0, String(e)]));
        """,
        method, path, body,
    )


def test():
    page = browser.open_browser("dashboard", size=browser.PHONE)
    page.open("/admin/")
    page.type("Admin token", env("ADMIN_TOKEN"))
    page.click("Sign in", tag="button", navigates=True)
    page.assert_text("Events", "h1")
    cookies = page.driver.execute_cdp_cmd("Network.getCookies", {"urls": [page.base_url + "/admin/"]})["cookies"]
    cookie = next((c for c in cookies if c["name"] == "ps_session"), None)
    check(cookie is not None, "no session cookie after signing in")
    check(cookie["httpOnly"] and cookie.get("sameSite") == "Strict" and cookie["path"] == "/admin", f"session cookie: {cookie}")
    old_session = cookie["value"]

    # Create an event.
    page.click("New event", tag="a", navigates=True)
    page.type("Name", "Swift Night")
    page.type("Venue", "Tokyo Hall")
    set_value(page, "Starts (in the event's time zone)", "2027-03-01T19:00")
    page.type("Time zone", "Asia/Tokyo")
    page.click("Create event", tag="button", navigates=True)
    page.assert_text("Event created.")
    event_path = page.current_path.split("?")[0]
    page.assert_text("2027-03-01 19:00 (Asia/Tokyo)")

    # Import 50 attendees; row 31 (attendee 30) has a broken address.
    rows = ["attendeeName,attendeeEmail,seat"]
    for number in range(1, 50):
        email = "broken-address" if number == 30 else f"attendee{number}@example.org"
        rows.append(f"Attendee {number:02d},{email},S{number}")
    rows.append(f'"{HOSTILE}",hostile@example.org,S50')
    path = os.path.join(page.output_dir, "attendees.csv")
    with open(path, "w", encoding="utf-8") as file:
        file.write("\n".join(rows) + "\n")
    page.click("Import tickets from CSV", tag="summary", navigates=False)
    page.by_label("CSV file").send_keys(path)
    page.click("Check rows", tag="button", navigates=True)
    page.assert_text("1 of 50 rows are invalid; nothing was issued.")
    first_row = page.text("#import-rows tbody tr")
    check("31" in first_row and "attendeeEmail" in first_row and "broken-address" in first_row, f"the broken row is not shown first: {first_row!r}")
    page.assert_no_dialog()
    check(HOSTILE in page.text("#import-rows"), "the hostile name is not shown as text in the preview")
    text = page.by_label("Or the CSV text").get_attribute("value")
    check("broken-address" in text, "the checked CSV is not in the text box to fix")
    set_value(page, "Or the CSV text", text.replace("broken-address", "attendee30@example.org"))
    page.click("Check rows", tag="button", navigates=True)
    page.assert_text("All 50 rows are valid. Nothing has been issued yet.")
    page.click("Issue 50 tickets", tag="button", navigates=True)
    page.assert_text("50 tickets issued.")
    check(page.text("#count-tickets") == "50", f"tickets count: {page.text('#count-tickets')}")
    page.screenshot("event-page")

    # Search for one, and rename them.
    page.type("Search name, email, serial or external id", "attendee 07")
    page.submit("Search name, email, serial or external id")
    table = page.text("#tickets")
    check("Attendee 07" in table and "Attendee 08" not in table, f"search result: {table!r}")
    page.click("Attendee 07", tag="a", navigates=True)
    serial_renamed = page.text("code")
    page.type("Attendee name", "Ada Lovelace")
    page.click("Save", tag="button", navigates=True)
    page.assert_text("Saved.")
    page.assert_text("Ada Lovelace", "h1")
    check("Ada Lovelace" in page.text("#pass-fields"), "the pass preview does not show the new name")
    check(page.find_all("#download-qr svg"), "no QR code of the download link")
    page.screenshot("ticket-page")

    # Cancel another with a reason.
    page.open(event_path + "?q=attendee%2012")
    page.click("Attendee 12", tag="a", navigates=True)
    serial_cancelled = page.text("code")
    page.type("Reason (shown on the pass)", "Duplicate booking")
    page.by_label("Yes, cancel this ticket (it cannot be undone)").click()
    page.click("Cancel ticket", tag="button", navigates=True)
    page.assert_text("Ticket cancelled.")
    check(page.text("#ticket-status") == "cancelled", "the ticket is not shown cancelled")
    page.assert_text("Duplicate booking", "#void-reason")

    # Two phones hold tickets; editing the venue says so, and the job's progress shows on the page.
    register_phone(page.base_url, serial_renamed, 1)
    register_phone(page.base_url, serial_cancelled, 2)
    page.open(event_path)
    page.click("Edit event", tag="a", navigates=True)
    page.assert_text("2 phones will be updated", "#reach-preview")
    page.type("Venue", "Osaka Hall")
    page.click("Save", tag="button", navigates=True)
    page.assert_text("Saved.")
    page.wait_for(lambda: page.text("#job-state") == "done", "the re-push job never showed done", timeout=60)
    page.wait_for(lambda: page.text("#job-devices") == "2", f"the job's phones: {page.text('#job-devices')}", timeout=30)
    page.assert_text("Osaka Hall")
    check(page.text("#job-done") == page.text("#job-total") == "50", f"job progress {page.text('#job-done')} of {page.text('#job-total')}")

    # Export the CSV (with the page's own session).
    status, csv = fetch(page, "GET", event_path + "/tickets.csv", None)
    check(status == 200, f"export answered {status}")
    lines = [line for line in csv.splitlines() if line]
    check(len(lines) == 51, f"the export has {len(lines)} lines, not a header and 50 tickets")
    check(any("Ada Lovelace" in line for line in lines), "the export lacks the renamed attendee")
    check(any("Duplicate booking" in line and "cancelled" in line for line in lines), "the export lacks the cancelled ticket")

    # A POST without the CSRF token is refused, even from the signed-in page.
    status, _ = fetch(page, "POST", event_path + "/archive", "archived=true")
    check(status == 403, f"a POST without the CSRF token answered {status}")
    page.open(event_path)
    check(page.by_text("Archive", tag="button") is not None and "archived" not in page.text("h1"), "the refused POST archived the event")

    # The hostile name is text on the event page, its search and its ticket page.
    page.open(event_path + "?q=%3Cimg")
    page.assert_no_dialog()
    page.assert_text(HOSTILE, "#tickets")
    page.click(HOSTILE, tag="a", navigates=True)
    page.assert_no_dialog()
    page.assert_text(HOSTILE, "h1")

    # Sign out; the old session cookie no longer works.
    page.click("Sign out", tag="button", navigates=True)
    page.assert_text("Signed out.")
    page.set_cookie("ps_session", old_session, path="/admin")
    page.open(event_path)
    check(page.current_path == "/admin/", f"the old cookie still opened {page.current_path}")
    check(page.by_label("Admin token") is not None, "not on the sign-in page")
    status, _ = fetch(page, "GET", "/admin/jobs/none/progress", None)
    check(status == 401, f"the progress endpoint answered {status} to the old cookie")
    # A form sent with the old cookie is refused from its headers, before its body is read, and
    # the browser still gets the signed-out page.
    status, text = fetch(page, "POST", event_path + "/archive", "archived=true")
    check(status == 403 and "not signed in" in text, f"a form with the old cookie answered {status}: {text[:200]}")


browser.main(test)
