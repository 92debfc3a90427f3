"""Headless Chromium for the page tests, driven through Selenium (Debian chromium, chromium-driver,
python3-selenium).

A test script is a function that takes a `Browser`; `main(test)` runs it and turns any failure
into exit status 1, a traceback on standard error and a screenshot of every open page under
OUTPUT_DIR. The Swift side (Tests/PassServerTests/Web/BrowserSupport.swift) starts the server,
passes its URL and tokens in the environment and runs the script:

    SERVER_URL   base URL of the server under test, e.g. http://127.0.0.1:40123
    OUTPUT_DIR   where screenshots and page sources go (created if missing)
    anything else the test needs (tokens, download paths), read with `env(name)`.

`ask_test(name)` asks the Swift test to act mid-script (stop or restart the server) and waits
until it has.
"""

import base64
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

from selenium import webdriver
from selenium.common.exceptions import (
    NoAlertPresentException,
    NoSuchElementException,
    StaleElementReferenceException,
    WebDriverException,
)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

PHONE = (390, 844)
DESKTOP = (1280, 900)


class Failure(AssertionError):
    """A check of the page that did not hold."""


def env(name):
    """An environment variable the Swift test set; a clear failure when it is missing."""
    value = os.environ.get(name)
    if value is None:
        raise Failure(f"environment variable {name} is not set")
    return value


def check(condition, message):
    if not condition:
        raise Failure(message)


def _xpath_literal(text):
    """`text` as an XPath string literal, whatever quotes it holds."""
    if "'" not in text:
        return f"'{text}'"
    if '"' not in text:
        return f'"{text}"'
    parts = text.split("'")
    return "concat(" + ", \"'\", ".join(f"'{part}'" for part in parts) + ")"


def _is_stale(element):
    try:
        element.is_enabled()
        return False
    except StaleElementReferenceException:
        return True
    except WebDriverException as error:
        # Chromium sometimes reports a node of the previous document this way instead.
        if "does not belong to the document" in str(error):
            return True
        raise


class Browser:
    """One headless Chromium window.

    `size` is the window's inner size in CSS pixels (PHONE by default); `language` becomes the
    Accept-Language of every request (and navigator.language); `arguments` are more Chromium
    switches (a fake camera, say).
    """

    def __init__(self, name="page", size=PHONE, language=None, output_dir=None, arguments=()):
        self.base_url = os.environ.get("SERVER_URL", "").rstrip("/")
        self.output_dir = output_dir or os.environ.get("OUTPUT_DIR") or tempfile.mkdtemp(prefix="browser-")
        self.name = name
        self._profile = tempfile.mkdtemp(prefix="chromium-profile-")
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for argument in (
            "--headless=new",
            "--no-sandbox",
            "--disable-dev-shm-usage",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-sync",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            f"--user-data-dir={self._profile}",
            f"--window-size={size[0]},{size[1]}",
            *arguments,
        ):
            options.add_argument(argument)
        if language:
            options.add_argument(f"--lang={language}")
            options.add_experimental_option("prefs", {"intl.accept_languages": language})
        # Leave dialogs open so that `assert_no_dialog` sees them (the default dismisses them).
        options.set_capability("unhandledPromptBehavior", "ignore")
        service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
        self.driver = webdriver.Chrome(service=service, options=options)
        self.driver.set_page_load_timeout(30)
        # --window-size sets the outer size; make the viewport (what pages see) exactly `size`.
        self.driver.set_window_size(*size)
        inner = self.driver.execute_script("return [window.innerWidth, window.innerHeight]")
        if inner and tuple(inner) != tuple(size):
            self.driver.set_window_size(2 * size[0] - inner[0], 2 * size[1] - inner[1])
        self.driver.execute_cdp_cmd("Network.enable", {})
        self._headers = {}
        self._last_opened = None
        if language:
            self.set_headers({"Accept-Language": language})

    # MARK: Navigation

    def url(self, path):
        return path if "://" in path or path.startswith("data:") else self.base_url + path

    def open(self, path):
        """Loads `path` (relative to SERVER_URL, or a whole URL) and waits for the page to load."""
        self._last_opened = self.url(path)
        self.driver.get(self._last_opened)
        return self

    @property
    def current_path(self):
        url = self.driver.current_url
        return url[len(self.base_url):] if url.startswith(self.base_url) else url

    def set_headers(self, headers):
        """Extra request headers on every later request (Chrome DevTools Network.setExtraHTTPHeaders)."""
        self._headers.update(headers)
        self.driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": self._headers})

    def set_cookie(self, name, value, path="/"):
        """Sets a cookie for SERVER_URL's host (through DevTools, so no page need be open first)."""
        self.driver.execute_cdp_cmd(
            "Network.setCookie", {"name": name, "value": value, "url": self.base_url + path, "path": path}
        )

    def cookies(self):
        """name → value of the cookies the page can see or that the server set for its host."""
        result = self.driver.execute_cdp_cmd("Network.getCookies", {"urls": [self.base_url + "/"]})
        return {cookie["name"]: cookie["value"] for cookie in result.get("cookies", [])}

    def cookie(self, name):
        """The whole cookie record (httpOnly, sameSite, secure, …) or None."""
        result = self.driver.execute_cdp_cmd("Network.getCookies", {"urls": [self.base_url + "/"]})
        return next((c for c in result.get("cookies", []) if c["name"] == name), None)

    # MARK: Finding

    def find(self, css):
        """The first element matching a CSS selector; fails clearly when there is none."""
        try:
            return self.driver.find_element(By.CSS_SELECTOR, css)
        except NoSuchElementException:
            raise Failure(f"no element matches {css!r} on {self.current_path}") from None

    def find_all(self, css):
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def by_label(self, label):
        """The form control whose <label> reads `label` (exactly, ignoring surrounding space): the
        one the label's `for` names, or the one inside the label."""
        literal = _xpath_literal(label)
        labels = self.driver.find_elements(By.XPATH, f"//label[normalize-space(.)={literal}]")
        if not labels:
            raise Failure(f"no <label> reads {label!r} on {self.current_path}")
        target = labels[0].get_attribute("for")
        if target:
            try:
                return self.driver.find_element(By.ID, target)
            except NoSuchElementException:
                raise Failure(f"the label {label!r} names #{target}, which is not on the page") from None
        inner = labels[0].find_elements(By.CSS_SELECTOR, "input, select, textarea")
        if not inner:
            raise Failure(f"the label {label!r} is for no control")
        return inner[0]

    def by_text(self, text, tag="*"):
        """The first visible `tag` (a, button, …) whose text is `text` (ignoring surrounding space),
        or an input button whose value is."""
        literal = _xpath_literal(text)
        for element in self.driver.find_elements(
            By.XPATH, f"//{tag}[normalize-space(.)={literal}] | //input[@type='submit' and @value={literal}]"
        ):
            if element.is_displayed():
                return element
        raise Failure(f"no visible {tag} reads {text!r} on {self.current_path}")

    # MARK: Acting

    def type(self, label, text, clear=True):
        """Types into the control labelled `label`."""
        control = self.by_label(label)
        if clear:
            control.clear()
        control.send_keys(text)
        return control

    def select(self, label, visible_text):
        from selenium.webdriver.support.ui import Select

        Select(self.by_label(label)).select_by_visible_text(visible_text)

    def click(self, text, tag="*", navigates=None):
        """Clicks the link or button that reads `text`, and waits for the page it leads to.

        `navigates`: True waits (up to 20 s) for a new page to load, False returns at once (a
        button handled by script), None waits for a new page if one starts within 2 s.
        """
        self.click_element(self.by_text(text, tag), navigates)

    def click_element(self, element, navigates=None):
        old_root = self.driver.find_element(By.TAG_NAME, "html")
        element.click()
        if navigates is False:
            return

        deadline = time.monotonic() + (20.0 if navigates else 2.0)
        while time.monotonic() < deadline:
            if self.dialog_text() is not None:
                return
            if _is_stale(old_root):
                self.wait_for(
                    lambda: self.driver.execute_script("return document.readyState") == "complete",
                    "the new page never finished loading",
                )
                return
            time.sleep(0.05)
        if navigates:
            raise Failure(f"clicking did not lead to a new page (still {self.current_path})")

    def submit(self, label):
        """Presses Enter in the control labelled `label` (submitting its form) and waits for the next page."""
        control = self.by_label(label)
        old_root = self.driver.find_element(By.TAG_NAME, "html")
        control.send_keys(Keys.ENTER)
        self.wait_for(lambda: _is_stale(old_root), "pressing Enter did not submit the form")
        self.wait_for(
            lambda: self.driver.execute_script("return document.readyState") == "complete",
            "the new page never finished loading",
        )

    def press_tab(self, times=1):
        """Moves keyboard focus as the Tab key does; returns the focused element."""
        for _ in range(times):
            self.driver.switch_to.active_element.send_keys(Keys.TAB)
        return self.driver.switch_to.active_element

    def focused(self):
        return self.driver.switch_to.active_element

    def text(self, css="body"):
        """The visible text of the first element matching `css`."""
        return self.find(css).text

    def html(self):
        return self.driver.page_source

    def wait_for(self, condition, message, timeout=20.0, interval=0.2):
        """Polls `condition()` until it returns something truthy; fails with `message` after `timeout` s."""
        deadline = time.monotonic() + timeout
        last_error = None
        while time.monotonic() < deadline:
            try:
                value = condition()
                if value:
                    return value
            except Failure as error:
                last_error = error
            time.sleep(interval)
        raise Failure(f"{message} (waited {timeout:.0f} s){': ' + str(last_error) if last_error else ''}")

    def wait_for_text(self, text, css="body", timeout=20.0):
        return self.wait_for(lambda: text in self.text(css), f"{text!r} never appeared in {css}", timeout)

    # MARK: Checks

    def dialog_text(self):
        """The text of an open alert/confirm/prompt, or None when none is open."""
        try:
            return self.driver.switch_to.alert.text
        except NoAlertPresentException:
            return None

    def assert_no_dialog(self):
        """Fails if a JavaScript dialog is open (an injected alert() ran)."""
        text = self.dialog_text()
        if text is not None:
            # The page cannot be asked for its URL while the dialog is open.
            raise Failure(f"a JavaScript dialog opened on {self._last_opened}: {text!r}")

    def assert_text(self, text, css="body"):
        body = self.text(css)
        check(text in body, f"{text!r} is not in {css} of {self.current_path}; it reads:\n{body[:2000]}")

    def assert_no_horizontal_scroll(self):
        """The page fits the window's width (nothing wider than a phone's screen)."""
        widths = self.driver.execute_script(
            "return [document.documentElement.scrollWidth, window.innerWidth]"
        )
        check(widths[0] <= widths[1], f"the page is {widths[0]} px wide in a {widths[1]} px window")

    def color_scheme(self, scheme):
        """Makes pages see `prefers-color-scheme: scheme` (`light` or `dark`)."""
        self.driver.execute_cdp_cmd(
            "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]}
        )

    def resize(self, size):
        """Makes the viewport exactly `size` (CSS pixels)."""
        self.driver.set_window_size(*size)
        inner = self.driver.execute_script("return [window.innerWidth, window.innerHeight]")
        if inner and tuple(inner) != tuple(size):
            self.driver.set_window_size(2 * size[0] - inner[0], 2 * size[1] - inner[1])

    def box(self, css):
        """The bounding box (top, bottom, left, right) of the element matching `css`, in the viewport."""
        return self.driver.execute_script(
            "var r = document.querySelector(arguments[0]).getBoundingClientRect(); return [r.top, r.bottom, r.left, r.right];", css
        )

    # MARK: Pictures

    def screenshot(self, name=None, full_page=True):
        """A PNG of the page under OUTPUT_DIR (all of it, or only what the window shows); returns its path."""
        os.makedirs(self.output_dir, exist_ok=True)
        path = os.path.join(self.output_dir, f"{name or self.name}.png")
        if not full_page:
            self.driver.save_screenshot(path)
            return path
        size = self.driver.execute_script(
            "return [document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
        )
        shot = self.driver.execute_cdp_cmd(
            "Page.captureScreenshot",
            {
                "format": "png",
                "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1},
            },
        )
        with open(path, "wb") as file:
            file.write(base64.b64decode(shot["data"]))
        return path

    def element_png(self, css, name):
        """A PNG of just the element matching `css` (scrolled into view) under OUTPUT_DIR."""
        os.makedirs(self.output_dir, exist_ok=True)
        element = self.find(css)
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        path = os.path.join(self.output_dir, f"{name}.png")
        check(element.screenshot(path), f"could not take a picture of {css}")
        return path

    def save_failure_evidence(self):
        """Screenshot and page source for a failed test (the page as it was when it failed)."""
        try:
            if self.dialog_text() is not None:
                # A screenshot cannot be taken under an open dialog: note it and close it.
                self.driver.switch_to.alert.dismiss()
            self.screenshot(f"{self.name}-failure")
            with open(os.path.join(self.output_dir, f"{self.name}-failure.html"), "w", encoding="utf-8") as file:
                file.write(self.driver.page_source)
        except Exception as error:  # evidence is best effort; the failure itself is reported anyway
            print(f"(could not save a screenshot of {self.name}: {error})", file=sys.stderr)

    def close(self):
        try:
            self.driver.quit()
        finally:
            shutil.rmtree(self._profile, ignore_errors=True)


def decode_qr(png_path):
    """What zbarimg (zbar-tools) reads from a PNG: the symbol's bytes as text, or None if it finds none."""
    result = subprocess.run(
        ["zbarimg", "--quiet", "--raw", "-Sbinary", png_path], capture_output=True, timeout=30
    )
    if result.returncode != 0:
        return None
    return result.stdout.decode("utf-8")


REQUEST_PREFIX = "browser-test-request: "


def ask_test(request, timeout=90.0):
    """Asks the Swift test to do `request` (e.g. "stop-server") and waits until it has: prints
    `browser-test-request: <request>` and waits for OUTPUT_DIR/reply-<request>, which BrowserScript
    writes after running the test's handler. Fails unless the reply is "ok" within `timeout` s."""
    reply = os.path.join(env("OUTPUT_DIR"), f"reply-{request}")
    if os.path.exists(reply):
        os.remove(reply)
    print(f"{REQUEST_PREFIX}{request}", flush=True)
    deadline = time.monotonic() + timeout
    while not os.path.exists(reply):
        if time.monotonic() > deadline:
            raise Failure(f"the test did not answer {request!r} within {timeout:.0f} s")
        time.sleep(0.1)
    with open(reply, encoding="utf-8") as file:
        answer = file.read().strip()
    check(answer == "ok", f"the test could not {request}: {answer}")


_open_browsers = []


def open_browser(name="page", **options):
    """A new `Browser` that `main` screenshots and closes when the test ends."""
    browser = Browser(name=name, **options)
    _open_browsers.append(browser)
    return browser


def main(test):
    """Runs `test()` (which opens browsers with `open_browser`); exit status 0 when it returns,
    1 with a traceback and screenshots of every open browser when it raises."""

    def terminate(signum, frame):
        raise SystemExit(f"stopped by signal {signum}")

    signal.signal(signal.SIGTERM, terminate)
    status = 0
    try:
        test()
        print("browser test passed")
    except BaseException:
        status = 1
        traceback.print_exc()
        for browser in _open_browsers:
            browser.save_failure_evidence()
        directory = os.environ.get("OUTPUT_DIR")
        if directory:
            print(f"screenshots: {directory}", file=sys.stderr)
    finally:
        for browser in _open_browsers:
            try:
                browser.close()
            except Exception:
                pass
    sys.exit(status)
