"""An event's attendance page in Chromium: reached from the event page's link, every plot drawn
(bars of the sizes its numbers say), each plot's hidden table holding the numbers the test
counted, no script on the page, no horizontal scrolling at desktop or phone width, light and
dark. Writes `attendance-<width>-<scheme>.png` under OUTPUT_DIR.

Then the event page's ticket table filtered to the tickets checked in (the column shows each one's
time and gate) and the ticket page of one of them (its check-in and the undo form), at both
widths: `tickets-checked-in-<width>.png`, `ticket-<width>.png`.

Environment: SERVER_URL, ADMIN_TOKEN, EVENT_ID, EXPECTED (JSON: plot id → [[label, value...], ...]),
SERIAL (a ticket checked in at GATE), GATE, CHECKED_IN (how many tickets are checked in).
"""

import json

import browser
from browser import check, env

DESKTOP = (1280, 800)
PHONE = (390, 844)

# Every bar of a plot with its value and drawn size, and its table's rows, read from the page.
READ_PLOT = """
var figure = document.getElementById(arguments[0]);
if (!figure) { return null; }
var bars = Array.prototype.map.call(figure.querySelectorAll("svg rect[data-value]"), function (bar) {
  var box = bar.getBoundingClientRect();
  return {value: Number(bar.getAttribute("data-value")), width: box.width, height: box.height};
});
var rows = Array.prototype.map.call(figure.querySelectorAll("table tbody tr"), function (row) {
  return Array.prototype.map.call(row.children, function (cell) { return cell.textContent.trim(); });
});
var svg = figure.querySelector("svg").getBoundingClientRect();
return {bars: bars, rows: rows, svgWidth: svg.width, svgHeight: svg.height,
        label: figure.querySelector("svg").getAttribute("aria-labelledby")};
"""


def test():
    event = env("EVENT_ID")
    expected = json.loads(env("EXPECTED"))
    page = browser.open_browser("attendance", size=DESKTOP)
    page.open("/admin/")
    page.type("Admin token", env("ADMIN_TOKEN"))
    page.click("Sign in", tag="button", navigates=True)
    page.open(f"/admin/events/{event}")
    page.click("Attendance", tag="a", navigates=True)
    check(page.current_path == f"/admin/events/{event}/attendance", f"the link led to {page.current_path}")
    page.assert_text("Attendance", "h1")
    check(page.driver.execute_script("return document.scripts.length") == 0, "the attendance page needs no script")

    for plot, rows in expected.items():
        read = page.driver.execute_script(READ_PLOT, plot)
        check(read is not None, f"no plot {plot}")
        check(read["rows"] == rows, f"{plot}: the table holds {read['rows']}, the test counted {rows}")
        check(read["label"] == f"{plot}-title {plot}-desc", f"{plot} is not labelled: {read['label']}")
        check(read["svgWidth"] > 200 and read["svgHeight"] > 40, f"{plot} is not drawn: {read['svgWidth']}x{read['svgHeight']}")
        values = [bar["value"] for bar in read["bars"]]
        check(sum(values) > 0, f"{plot}: no bar has a value")
        # Drawn to scale: among bars of one plot, the larger value has the larger bar.
        across = plot in ("plot-no-shows", "plot-types", "plot-gates")
        sizes = [bar["width"] if across else bar["height"] for bar in read["bars"]]
        for (value_a, size_a), (value_b, size_b) in zip(zip(values, sizes), zip(values[1:], sizes[1:])):
            if value_a > value_b:
                check(size_a > size_b, f"{plot}: a bar of {value_a} is drawn {size_a:.1f}, one of {value_b} {size_b:.1f}")
        zero = [size for value, size in zip(values, sizes) if value == 0]
        check(all(size < 1 for size in zero), f"{plot}: an empty bar is drawn")

    for size, width in ((DESKTOP, 1280), (PHONE, 390)):
        page.resize(size)
        for scheme in ("light", "dark"):
            page.color_scheme(scheme)
            page.assert_no_horizontal_scroll()
            page.screenshot(f"attendance-{width}-{scheme}")
    page.color_scheme("light")

    page.resize(DESKTOP)
    page.open(f"/admin/events/{event}")
    page.select("Check-in", "Checked in")
    page.click("Search", tag="button", navigates=True)
    rows = page.find_all("#tickets tbody tr")
    check(len(rows) == int(env("CHECKED_IN")), f"{len(rows)} rows checked in, not {env('CHECKED_IN')}")
    cells = [row.find_element(browser.By.CSS_SELECTOR, "td.checked-in").text for row in rows]
    check(all(" · gate " in cell for cell in cells), f"a checked-in row without its time and gate: {cells}")
    page.screenshot("tickets-checked-in-1280")
    page.resize(PHONE)
    page.assert_no_horizontal_scroll()
    page.screenshot("tickets-checked-in-390")

    page.resize(DESKTOP)
    page.open(f"/admin/tickets/{env('SERIAL')}")
    check(page.text("#checkin-gate") == env("GATE"), f"the ticket page shows gate {page.text('#checkin-gate')!r}")
    page.by_text("Undo check-in", tag="button")
    page.screenshot("ticket-1280")
    page.resize(PHONE)
    page.assert_no_horizontal_scroll()
    page.screenshot("ticket-390")


browser.main(test)
