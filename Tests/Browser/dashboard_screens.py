"""Every dashboard page, the scanner and the attendee page at desktop (1280x800) and phone
(390x844) width, light and dark: no horizontal scrolling, the dark scheme really applies, the
event page leads with its three headline figures, the ticket page shows its pass and holder side
by side without scrolling at 1280x800, and the navigation is on every signed-in page. Writes
`<page>-<width>-<scheme>.png` for each under OUTPUT_DIR.

Environment: SERVER_URL, ADMIN_TOKEN, EVENT_ID, SERIAL, DOWNLOAD_PATH.
"""

import browser
from browser import check, env

DESKTOP = (1280, 800)
PHONE = (390, 844)


def background(page):
    return page.driver.execute_script("return getComputedStyle(document.body).backgroundColor")


def test():
    event, serial = env("EVENT_ID"), env("SERIAL")
    page = browser.open_browser("dashboard-screens", size=DESKTOP)
    page.open("/admin/")
    for scheme in ("light", "dark"):
        page.color_scheme(scheme)
        page.screenshot(f"sign-in-1280-{scheme}", full_page=False)
    page.color_scheme("light")
    page.type("Admin token", env("ADMIN_TOKEN"))
    page.click("Sign in", tag="button", navigates=True)
    page.assert_text("Events", "h1")
    pages = {
        "events": "/admin/?when=all",
        "new-event": "/admin/events/new",
        "event": f"/admin/events/{event}",
        "edit-event": f"/admin/events/{event}/edit",
        "ticket": f"/admin/tickets/{serial}",
        "scanner": "/admin/scan",
        "webhooks": "/admin/webhooks",
        "attendee": env("DOWNLOAD_PATH"),
    }
    backgrounds = {}
    for size in (DESKTOP, PHONE):
        page.resize(size)
        for scheme in ("light", "dark"):
            page.color_scheme(scheme)
            for name, path in pages.items():
                page.open(path)
                page.assert_no_horizontal_scroll()
                page.assert_no_dialog()
                if name != "attendee":
                    check(page.find_all("nav.nav a[href='/admin/scan']"), f"{name}: no navigation")
                backgrounds[(name, scheme)] = background(page)
                page.screenshot(f"{name}-{size[0]}-{scheme}", full_page=False)
                page.screenshot(f"{name}-{size[0]}-{scheme}-full")
    for name in pages:
        check(backgrounds[(name, "light")] != backgrounds[(name, "dark")], f"{name}: the dark scheme changes nothing")

    page.resize(DESKTOP)
    page.color_scheme("light")
    # The event page: the three headline figures lead, above the ticket table, in one row.
    page.open(f"/admin/events/{event}")
    stats = [page.box(f".stats .stat:nth-child({index})") for index in (1, 2, 3)]
    check(len({round(box[0]) for box in stats}) == 1, f"the headline figures are not in one row: {stats}")
    check(stats[0][1] < page.box("#tickets")[0], "the headline figures come after the ticket table")
    check(stats[0][1] <= DESKTOP[1], "the headline figures are not in the first screen")
    for figure in ("#count-tickets", "#count-up-to-date", "#count-checked-in"):
        check(page.find(figure).text.strip() != "", f"{figure} is empty")
    # The ticket page: pass and holder side by side, both within 1280x800.
    page.open(f"/admin/tickets/{serial}")
    preview, side = page.box(".pass-preview"), page.box(".ticket-side")
    check(preview[3] <= side[2], f"the pass is not beside the holder: {preview} {side}")
    check(preview[1] <= DESKTOP[1], f"the pass ends below the first screen: {preview}")
    check(page.box("#f-attendeeName")[1] <= DESKTOP[1], "the holder's name field is below the first screen")
    # At phone width the columns stack.
    page.resize(PHONE)
    page.open(f"/admin/tickets/{serial}")
    preview, side = page.box(".pass-preview"), page.box(".ticket-side")
    check(preview[1] <= side[0], f"at phone width the pass is not above the holder: {preview} {side}")


if __name__ == "__main__":
    browser.main(test)
