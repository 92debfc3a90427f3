"""The sign-in form's double-submit cookie in Chromium: a form whose cookie has expired (the
browser drops it, as it does after the cookie's ten minutes) is refused with a fresh form and no
session; that fresh form signs in. A form whose cookie was replaced by another form's is refused
too.

Environment: ADMIN_TOKEN.
"""

import time

import browser
from browser import check, env

STALE = "The sign-in form was out of date. Try again."


def cookie(page, name):
    """The cookie record the browser would send to /admin/ (where these cookies are scoped), or None."""
    found = page.driver.execute_cdp_cmd("Network.getCookies", {"urls": [page.base_url + "/admin/"]})["cookies"]
    return next((c for c in found if c["name"] == name), None)


def session(page):
    return cookie(page, "ps_session")


def test():
    page = browser.open_browser("sign-in", size=browser.PHONE)
    page.open("/admin/")
    challenge = cookie(page, "ps_signin")
    check(challenge is not None, "the sign-in page set no ps_signin cookie")
    check(challenge["httpOnly"] and challenge.get("sameSite") == "Strict", f"sign-in cookie: {challenge}")
    # Its lifetime is the form's: about ten minutes from now.
    remaining = challenge["expires"] - time.time()
    check(500 < remaining <= 600, f"the sign-in cookie lasts {remaining:.0f} s")

    # The cookie expires while the form is open: the browser no longer sends it.
    page.driver.execute_cdp_cmd(
        "Network.setCookie",
        {"name": "ps_signin", "value": challenge["value"], "url": page.base_url + "/admin/", "path": challenge["path"],
         "httpOnly": True, "sameSite": "Strict", "expires": time.time() - 1},
    )
    check(cookie(page, "ps_signin") is None, "the expired cookie is still there")
    page.type("Admin token", env("ADMIN_TOKEN"))
    page.click("Sign in", tag="button", navigates=True)
    page.assert_text(STALE)
    check(session(page) is None, "an expired sign-in form opened a session")
    check(page.by_label("Admin token") is not None, "no fresh form")

    # Another form's cookie (a second tab) replaces this form's: refused as well.
    fresh = cookie(page, "ps_signin")
    check(fresh is not None and fresh["value"] != challenge["value"], "the refusal did not give a fresh form")
    other = browser.open_browser("sign-in-other", size=browser.PHONE)
    other.open("/admin/")
    replaced = cookie(other, "ps_signin")
    page.set_cookie("ps_signin", replaced["value"], path=replaced["path"])
    page.type("Admin token", env("ADMIN_TOKEN"))
    page.click("Sign in", tag="button", navigates=True)
    page.assert_text(STALE)
    check(session(page) is None, "a form with another form's cookie opened a session")

    # The fresh form, with its own cookie, signs in.
    page.type("Admin token", env("ADMIN_TOKEN"))
    page.click("Sign in", tag="button", navigates=True)
    page.assert_text("Events", "h1")
    check(session(page) is not None, "the fresh form did not sign in")
    check(cookie(page, "ps_signin") is None, "signing in left the sign-in cookie")


browser.main(test)
