"""An order in the dashboard, in Chromium at desktop (1280x800) and phone (390x844) width, light
and dark: the order's page lists its tickets and links each ticket's page, whose Order section
links back; no horizontal scrolling. Writes `<page>-<width>-<scheme>.png` under OUTPUT_DIR.

Environment: SERVER_URL, ADMIN_TOKEN, ORDER_ID, ORDER_NAME (how the page names the order),
NAMES (its attendees in issue order, separated by "|"), SERIAL (its first ticket).
"""

import browser
from browser import DESKTOP, PHONE, check, env


def test():
    order, serial = env("ORDER_ID"), env("SERIAL")
    names = env("NAMES").split("|")
    page = browser.open_browser("dashboard-order", size=DESKTOP)
    page.open("/admin/")
    page.type("Admin token", env("ADMIN_TOKEN"))
    page.click("Sign in", tag="button", navigates=True)
    page.assert_text("Events", "h1")

    page.open(f"/admin/orders/{order}")
    check(page.text("h1") == f"Order {env('ORDER_NAME')}", f"the order page's heading reads {page.text('h1')!r}")
    rows = [row.text for row in page.find_all("#order-tickets tbody tr")]
    check(len(rows) == len(names) and all(row.startswith(name) for row, name in zip(rows, names)), f"the order lists {rows}")
    links = [link.get_attribute("href") for link in page.find_all("#order-tickets a")]
    check(links[0].endswith(f"/admin/tickets/{serial}"), f"the first ticket links {links[0]}")
    page.assert_text("Part 1 of 2", "#order-files")

    # The first ticket's page names its order and leads back to it.
    page.click_element(page.find("#order-tickets a"), navigates=True)
    check(page.current_path.endswith(f"/admin/tickets/{serial}"), f"the ticket link led to {page.current_path}")
    page.click_element(page.find("#ticket-order a"), navigates=True)
    check(page.current_path.endswith(f"/admin/orders/{order}"), f"the order link led to {page.current_path}")

    for size in (DESKTOP, PHONE):
        page.resize(size)
        for scheme in ("light", "dark"):
            page.color_scheme(scheme)
            for name, path in (("order", f"/admin/orders/{order}"), ("ticket", f"/admin/tickets/{serial}")):
                page.open(path)
                page.assert_no_horizontal_scroll()
                page.assert_no_dialog()
                check(page.find_all("nav.nav a[href='/admin/scan']"), f"{name}: no navigation")
                page.screenshot(f"{name}-{size[0]}-{scheme}")


if __name__ == "__main__":
    browser.main(test)
