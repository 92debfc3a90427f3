"""README's claims about the events list and an event's ticket table, in Chromium: search with
upcoming, past and all; archiving and unarchiving an event; the ticket table's status filter and
its paging (every ticket once over the pages, each page no longer than the table's page).

Environment: ADMIN_TOKEN; EVENT_ID (the upcoming "Autumn Jazz Night", TICKETS tickets named
"Guest 01"…, CANCELLED the comma-separated names of the cancelled ones). The test also created
"Autumn Market" (past), "Winter Gala" (upcoming) and "Spring Fair" (past).
"""

import browser
from browser import check, env

PAGE = 50


def event_names(page):
    """The event names in the events table (none when it says no event matches)."""
    return [row.find_element("css selector", "td a").text for row in page.find_all("table tbody tr")]


def search_events(page, query, show):
    page.open("/admin/")
    page.type("Search name or venue", query)
    page.select("Show", show)
    page.click("Search", tag="button", navigates=True)
    return sorted(event_names(page))


def ticket_rows(page):
    """(name, status) of every row of the ticket table on the page."""
    rows = []
    for row in page.find_all("#tickets tbody tr"):
        cells = row.find_elements("css selector", "td")
        rows.append((cells[0].text, cells[2].text))
    return rows


def all_pages(page):
    """Every ticket row over the pages, following "Next page"; checks each page's size."""
    rows = []
    pages = 0
    while True:
        pages += 1
        check(pages <= 10, "more pages than there are tickets")
        found = ticket_rows(page)
        check(len(found) <= PAGE, f"page {pages} has {len(found)} rows")
        rows += found
        links = [link for link in page.find_all("a") if link.text.strip() == "Next page"]
        if not links:
            return rows, pages
        page.click_element(links[0], navigates=True)


def test():
    page = browser.open_browser("events", size=browser.DESKTOP)
    page.open("/admin/")
    page.type("Admin token", env("ADMIN_TOKEN"))
    page.click("Sign in", tag="button", navigates=True)

    # Search, upcoming and past: the filters combine.
    check(search_events(page, "autumn", "Upcoming") == ["Autumn Jazz Night"], f"upcoming autumn: {event_names(page)}")
    check(page.current_path.startswith("/admin/?"), f"the search is not a link: {page.current_path}")
    check(search_events(page, "autumn", "Past") == ["Autumn Market"], f"past autumn: {event_names(page)}")
    check(search_events(page, "autumn", "All") == ["Autumn Jazz Night", "Autumn Market"], f"all autumn: {event_names(page)}")
    check(search_events(page, "", "Past") == ["Autumn Market", "Spring Fair"], f"past: {event_names(page)}")
    check(search_events(page, "", "Upcoming") == ["Autumn Jazz Night", "Winter Gala"], f"upcoming: {event_names(page)}")
    check(search_events(page, "harbour", "All") == ["Autumn Jazz Night", "Winter Gala"], f"by venue: {event_names(page)}")
    search_events(page, "no such event", "All")
    page.assert_text("No events match.")
    # The page opened without a choice shows the upcoming ones.
    page.open("/admin/")
    check(sorted(event_names(page)) == ["Autumn Jazz Night", "Winter Gala"], f"the default list: {event_names(page)}")

    # Archive and unarchive.
    event_path = f"/admin/events/{env('EVENT_ID')}"
    page.open(event_path)
    check("archived" not in page.text("h1"), "the event starts archived")
    page.click("Archive", tag="button", navigates=True)
    page.assert_text("Event archived")
    check("archived" in page.text("h1"), f"the event page does not say archived: {page.text('h1')!r}")
    page.by_text("Unarchive", tag="button")
    page.open("/admin/?when=all&q=jazz")
    check("archived" in page.text("table tbody"), "the events list does not mark the event archived")
    page.open(event_path)
    page.click("Unarchive", tag="button", navigates=True)
    page.assert_text("Event unarchived")
    check("archived" not in page.text("h1"), "the event still says archived")
    page.by_text("Archive", tag="button")
    page.open("/admin/?when=all&q=jazz")
    check("archived" not in page.text("table tbody"), "the events list still marks the event archived")

    # The ticket table: paging over every ticket, then each status.
    total = int(env("TICKETS"))
    cancelled = sorted(env("CANCELLED").split(","))
    expected = sorted(f"Guest {number:02d}" for number in range(1, total + 1))
    page.open(event_path)
    rows, pages = all_pages(page)
    check(pages == 2, f"{total} tickets over {pages} pages")
    check(sorted(name for name, _ in rows) == expected, f"the pages show {len(rows)} tickets, not each once: {sorted(name for name, _ in rows)}")
    check(sorted(name for name, status in rows if status == "cancelled") == cancelled, "the cancelled tickets are not marked so")

    page.open(event_path)
    page.select("Status", "Cancelled")
    page.click("Search", tag="button", navigates=True)
    rows, pages = all_pages(page)
    check(pages == 1 and sorted(name for name, _ in rows) == cancelled, f"cancelled filter: {rows}")
    check(all(status == "cancelled" for _, status in rows), f"cancelled filter: {rows}")

    page.open(event_path)
    page.select("Status", "Active")
    page.click("Search", tag="button", navigates=True)
    check("status=active" in page.current_path, f"the filter is not in the link: {page.current_path}")
    rows, pages = all_pages(page)
    active = [name for name in expected if name not in cancelled]
    check(pages == 2, f"{len(active)} active tickets over {pages} pages")
    check(sorted(name for name, _ in rows) == active, f"active filter over the pages: {len(rows)} rows")
    check(all(status == "active" for _, status in rows), "the active filter shows other tickets")
    # The second page kept the filter (its link carries it).
    check("status=active" in page.current_path and "cursor=" in page.current_path, f"the second page lost the filter: {page.current_path}")

    # Search and filter together.
    page.open(event_path)
    page.type("Search name, email, serial or external id", "guest 4")
    page.select("Status", "Cancelled")
    page.click("Search", tag="button", navigates=True)
    check(ticket_rows(page) == [("Guest 40", "cancelled")], f"search and filter: {ticket_rows(page)}")


browser.main(test)
