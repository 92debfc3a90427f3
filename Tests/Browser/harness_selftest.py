"""The browser harness itself: every helper against a small page server of its own (which echoes
what the browser sent), and the server under test reachable at SERVER_URL.

HARNESS_MODE=fail makes the test fail on purpose after opening a page, so that the Swift side can
check that a failure exits 1, says why and leaves a screenshot. HARNESS_MODE=ask only asks the
test for "ping" (answered) and "refuse-me" (refused with "no thanks"), through `ask_test`.
"""

import html
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import browser
from browser import ask_test, check, decode_qr


class EchoHandler(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith("/alert"):
            # No Content-Security-Policy here: the inline script runs, as an injected one would.
            body = "<!DOCTYPE html><title>alert</title><p>boom</p><script>alert('injected')</script>"
        else:
            query = self.path.partition("?")[2]
            body = (
                "<!DOCTYPE html><html><head><title>echo</title></head><body>"
                f"<p id=language>{html.escape(self.headers.get('Accept-Language', ''))}</p>"
                f"<p id=cookie>{html.escape(self.headers.get('Cookie', ''))}</p>"
                f"<p id=query>{html.escape(query)}</p>"
                "<form method=get action=/submitted>"
                "<label for=name>Attendee name</label><input id=name name=name>"
                "<label>Seat <input name=seat></label>"
                "<button type=submit>Save ticket</button></form>"
                "<a href=/linked>Next page</a></body></html>"
            )
        data = body.encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format, *args):
        pass


def test():
    echo = ThreadingHTTPServer(("127.0.0.1", 0), EchoHandler)
    threading.Thread(target=echo.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{echo.server_address[1]}"

    page = browser.open_browser("harness", language="ja")
    width = page.driver.execute_script("return window.innerWidth")
    check(width == browser.PHONE[0], f"the window is {width} px wide, not a phone's {browser.PHONE[0]}")

    page.open(base + "/")
    check(page.text("#language").startswith("ja"), f"Accept-Language sent: {page.text('#language')!r}")
    if os.environ.get("HARNESS_MODE") == "fail":
        page.assert_text("text that is not on the page")

    page.type("Attendee name", "Ada <Lovelace>")
    page.type("Seat", "A1")
    page.click("Save ticket", navigates=True)
    check(page.current_path.startswith(base + "/submitted?"), f"the form went to {page.current_path}")
    check("name=Ada+%3CLovelace%3E" in page.current_path, f"typed text not submitted: {page.current_path}")
    page.open(base + "/")
    page.click("Next page")  # waits for the page the link leads to, without being told
    page.open(base + "/")
    page.type("Seat", "B2")
    page.submit("Seat")
    check(page.current_path.endswith("seat=B2"), f"Enter submitted to {page.current_path}")
    page.open(base + "/")
    page.click("Next page")
    check(page.current_path == base + "/linked", f"the link went to {page.current_path}")

    # Keyboard: Tab reaches the name field first, then the seat.
    page.open(base + "/")
    check(page.press_tab().get_attribute("id") == "name", "Tab does not reach the first field")

    # Cookies set through DevTools reach the server (for SERVER_URL's host: the echo server shares it).
    page.base_url = base
    page.set_cookie("session", "abc123")
    page.open(base + "/")
    check("session=abc123" in page.text("#cookie"), f"cookie sent: {page.text('#cookie')!r}")
    check(page.cookies().get("session") == "abc123", "the cookie is not in the jar")

    # A dialog is noticed: a page whose script calls alert() fails assert_no_dialog.
    page.assert_no_dialog()
    page.open(base + "/alert")
    check(page.dialog_text() == "injected", f"the alert was not seen: {page.dialog_text()!r}")
    try:
        page.assert_no_dialog()
    except browser.Failure:
        pass
    else:
        raise browser.Failure("assert_no_dialog passed with a dialog open")
    page.driver.switch_to.alert.dismiss()

    # Element pictures are what zbarimg reads (here: a page with nothing to read).
    page.open(base + "/")
    check(decode_qr(page.element_png("form", "form")) is None, "zbarimg read a code from a form")

    # The server under test answers this browser.
    page.base_url = os.environ["SERVER_URL"].rstrip("/")
    page.open("/assets/site.css")
    page.assert_text(":focus-visible")
    echo.shutdown()


def ask():
    ask_test("ping")
    try:
        ask_test("refuse-me")
    except browser.Failure as error:
        check("no thanks" in str(error), f"the refusal reads {error}")
    else:
        raise browser.Failure("a refused request was answered ok")


if __name__ == "__main__":
    browser.main(ask if os.environ.get("HARNESS_MODE") == "ask" else test)
