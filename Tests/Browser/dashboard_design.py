"""The design page in Chromium: an organizer sets the colours and the logo text, uploads a logo and
a strip and sees them in the preview at once (read from the chosen files, loaded, in the pass's
colours); saves; the preview then shows the stored images. A ticket issued afterwards carries the
same images: its .pkpass holds logo.png, logo@2x.png, logo@3x.png and the strip's three files
with the SHA-256 of the stored @1x, @2x and @3x PNGs (served by /images/{id}?scale=N). The
attendee's page wears the colours and shows the logo. Screenshots at desktop and phone width.

Environment: ADMIN_TOKEN, EVENT_ID. Leaves OUTPUT_DIR/ticket.pkpass and OUTPUT_DIR/images.json
(kind -> image id) for the Swift test to compare with the stored rows.
"""

import hashlib
import io
import json
import os
import re
import subprocess
import tempfile
import urllib.parse
import urllib.request
import zipfile

import browser
from browser import check, env

BACKGROUND = "#0b3d2e"
FOREGROUND = "#f4f1e8"
LABEL = "#f2b134"


def vips(*arguments):
    subprocess.run(["vips", *arguments], check=True, capture_output=True, timeout=60)


def make_images(directory):
    """A logo (cream text on transparency, 822 x 288) and a strip (a 1125 x 294 gradient), with vips."""
    logo = os.path.join(directory, "logo.png")
    vips("text", os.path.join(directory, "mask.png"), "<b>HARBOUR</b> HALL", "--width", "1200", "--dpi", "900")
    width = subprocess.run(["vipsheader", "-f", "width", os.path.join(directory, "mask.png")], capture_output=True, text=True, check=True).stdout.strip()
    height = subprocess.run(["vipsheader", "-f", "height", os.path.join(directory, "mask.png")], capture_output=True, text=True, check=True).stdout.strip()
    vips("black", os.path.join(directory, "black.v"), width, height, "--bands", "3")
    vips("linear", os.path.join(directory, "black.v"), os.path.join(directory, "cream.v"), "1", "250 236 210", "--uchar")
    vips("bandjoin", f"{os.path.join(directory, 'cream.v')} {os.path.join(directory, 'mask.png')}", logo)
    strip = os.path.join(directory, "strip.png")
    vips("xyz", os.path.join(directory, "xyz.v"), "1125", "294")
    vips("extract_band", os.path.join(directory, "xyz.v"), os.path.join(directory, "x.v"), "0")
    vips("extract_band", os.path.join(directory, "xyz.v"), os.path.join(directory, "y.v"), "1")
    vips("linear", os.path.join(directory, "x.v"), os.path.join(directory, "r.v"), "0.12", "30", "--uchar")
    vips("linear", os.path.join(directory, "y.v"), os.path.join(directory, "g.v"), "0.3", "70", "--uchar")
    vips("linear", os.path.join(directory, "x.v"), os.path.join(directory, "b.v"), "0.04", "110", "--uchar")
    vips("bandjoin", " ".join(os.path.join(directory, band) for band in ("r.v", "g.v", "b.v")), strip)
    artwork = os.path.join(directory, "artwork.png")
    vips("xyz", os.path.join(directory, "art.v"), "1074", "1344")
    vips("extract_band", os.path.join(directory, "art.v"), os.path.join(directory, "ax.v"), "0")
    vips("extract_band", os.path.join(directory, "art.v"), os.path.join(directory, "ay.v"), "1")
    vips("linear", os.path.join(directory, "ay.v"), os.path.join(directory, "ar.v"), "0.15", "40", "--uchar")
    vips("linear", os.path.join(directory, "ax.v"), os.path.join(directory, "ag.v"), "0.05", "30", "--uchar")
    vips("linear", os.path.join(directory, "ay.v"), os.path.join(directory, "ab.v"), "0.05", "90", "--uchar")
    vips("bandjoin", " ".join(os.path.join(directory, band) for band in ("ar.v", "ag.v", "ab.v")), artwork)
    return logo, strip, artwork


def preview_image(page, kind):
    """(src, naturalWidth, complete) of the front's preview picture of `kind`."""
    return page.driver.execute_script(
        """
        const image = document.querySelector('#design-preview img[data-image="' + arguments[0] + '"]');
        return image ? [image.getAttribute("src") || "", image.naturalWidth, image.complete, image.hidden] : null;
        """,
        kind,
    )


def wait_loaded(page, kind, prefix):
    def loaded():
        found = preview_image(page, kind)
        return found and found[0].startswith(prefix) and found[2] and found[1] > 0 and not found[3]
    page.wait_for(loaded, f"the preview never showed the {kind} from {prefix}")
    return preview_image(page, kind)


def computed(page, css, prop):
    return page.driver.execute_script("return getComputedStyle(document.querySelector(arguments[0]))[arguments[1]]", css, prop)


def rgb(hex_colour):
    return "rgb({}, {}, {})".format(*(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)))


def fetch(path):
    with urllib.request.urlopen(os.environ["SERVER_URL"].rstrip("/") + path, timeout=30) as response:
        return response.status, response.headers.get("Content-Type"), response.read()


def test():
    work = tempfile.mkdtemp(prefix="design-images-")
    logo_file, strip_file, artwork_file = make_images(work)
    event = env("EVENT_ID")

    page = browser.open_browser("design", size=browser.DESKTOP)
    page.open("/admin/")
    page.type("Admin token", env("ADMIN_TOKEN"))
    page.click("Sign in", tag="button", navigates=True)
    page.open(f"/admin/events/{event}")
    page.click_element(page.find("#design-link"), navigates=True)
    check(page.current_path == f"/admin/events/{event}/design", f"the event page's link leads to {page.current_path}")
    page.assert_no_dialog()

    # Colours and the logo text: the preview follows as they are typed.
    page.type("Background colour", BACKGROUND)
    page.type("Foreground colour", FOREGROUND)
    page.type("Label colour", LABEL)
    page.type("Logo text", "Harbour Hall")
    page.wait_for(lambda: computed(page, "#preview-front", "backgroundColor") == rgb(BACKGROUND), "the preview never took the background colour")
    check(computed(page, "#preview-front", "color") == rgb(FOREGROUND), "the preview's text is not in the foreground colour")
    check(computed(page, "#preview-front .pass-label", "color") == rgb(LABEL), "the labels are not in the label colour")
    check(page.text("#preview-logo-text") == "Harbour Hall", f"the logo text reads {page.text('#preview-logo-text')!r}")

    # The chosen files are in the preview before anything is saved.
    page.by_label("Logo").send_keys(logo_file)
    page.by_label("Strip").send_keys(strip_file)
    logo = wait_loaded(page, "logo", "data:image/png;base64,")
    strip = wait_loaded(page, "strip", "data:image/png;base64,")
    check(logo[1] == 822 and strip[1] == 1125, f"the preview shows other files: logo {logo[1]} px, strip {strip[1]} px wide")
    check("has-strip" in page.find("#preview-front").get_attribute("class"), "a strip must hide the background and thumbnail")
    shown_strip = page.box("#preview-front .pass-strip")
    width = shown_strip[3] - shown_strip[2]
    check(300 <= width <= 330 and abs((shown_strip[1] - shown_strip[0]) - width * 98 / 375) < 3,
          f"the strip is drawn {width} x {shown_strip[1] - shown_strip[0]} px, not full width at 375:98")
    page.element_png("#design-preview", "preview-chosen")
    page.screenshot("design-desktop-chosen")

    page.click("Save design", tag="button", navigates=True)
    page.assert_text("Design saved.")
    page.assert_text("Every issued pass is being updated")
    logo = wait_loaded(page, "logo", "/admin/images/")
    strip = wait_loaded(page, "strip", "/admin/images/")
    ids = {kind: re.search(r"/admin/images/([0-9a-f]{64})", found[0]).group(1) for kind, found in (("logo", logo), ("strip", strip))}
    check(computed(page, "#preview-front", "backgroundColor") == rgb(BACKGROUND), "after saving the preview lost the colour")
    check(page.by_label("Background colour").get_attribute("value") == BACKGROUND, "the saved colour is not in the form")
    page.screenshot("design-desktop")
    page.element_png("#design-preview", "preview-saved")
    page.resize(browser.PHONE)
    page.assert_no_horizontal_scroll()
    page.screenshot("design-phone")
    page.resize(browser.DESKTOP)

    # The poster and the event type's own fields follow the form too (not saved: a poster needs NFC).
    check(page.find("#preview-poster").get_attribute("hidden") is not None, "the poster is drawn before it is asked for")
    check(not page.find("#f-details-kind-performerNames").is_displayed(), "performers are asked for a generic event")
    page.select("Type", "Live performance")
    check(page.find("#f-details-kind-performerNames").is_displayed(), "no performers field for a live performance")
    check(not page.find("#f-details-kind-homeTeamName").is_displayed(), "team fields for a live performance")
    page.by_label("Show the pass as a poster where Wallet can").click()
    page.wait_for(lambda: page.find("#preview-poster").is_displayed(), "ticking the poster did not draw it")
    page.type("Poster logo text", "Jazz at the Harbour")
    page.by_label("Poster artwork").send_keys(artwork_file)
    artwork = wait_loaded(page, "artwork", "data:image/png;base64,")
    check(artwork[1] == 1074, f"the poster shows another artwork ({artwork[1]} px wide)")
    check(page.text("#preview-event-logo-text") == "Jazz at the Harbour", "the poster's logo text does not follow the form")
    check(page.text("#preview-front-caption") == "Classic ticket (other phones)", "the classic ticket is not named as the fallback")
    page.element_png("#preview-poster", "preview-poster")
    page.screenshot("design-desktop-poster")

    # A ticket issued now carries the stored images, byte for byte.
    page.open(f"/admin/events/{event}")
    page.driver.execute_script("document.querySelector('form[action$=\"/tickets\"]').closest('details').open = true")
    page.type("Attendee name", "Ana Sousa")
    page.click("Issue ticket", tag="button", navigates=True)
    link = page.find("#download-link").get_attribute("href")
    path = urllib.parse.urlsplit(link).path
    status, content_type, bundle = fetch(path + "?format=pkpass")
    check(status == 200 and content_type == "application/vnd.apple.pkpass", f"the pass download answered {status} {content_type}")
    with open(os.path.join(env("OUTPUT_DIR"), "ticket.pkpass"), "wb") as file:
        file.write(bundle)
    with open(os.path.join(env("OUTPUT_DIR"), "images.json"), "w") as file:
        json.dump(ids, file)
    archive = zipfile.ZipFile(io.BytesIO(bundle))
    for kind, image_id in ids.items():
        for scale, name in ((1, f"{kind}.png"), (2, f"{kind}@2x.png"), (3, f"{kind}@3x.png")):
            status, content_type, stored = fetch(f"/images/{image_id}?scale={scale}")
            check(status == 200 and content_type == "image/png", f"/images/{image_id}?scale={scale}: {status} {content_type}")
            packed = archive.read(name)
            check(hashlib.sha256(packed).hexdigest() == hashlib.sha256(stored).hexdigest(), f"{name} in the pass is not the stored @{scale}x PNG")
    pass_json = json.loads(archive.read("pass.json"))
    check(pass_json.get("backgroundColor") == rgb(BACKGROUND) and pass_json.get("logoText") == "Harbour Hall", f"pass.json: {pass_json.get('backgroundColor')} {pass_json.get('logoText')}")

    # The attendee's page wears the colours and shows the logo.
    attendee = browser.open_browser("attendee", size=browser.PHONE)
    attendee.open(path)
    attendee.assert_text("Ana Sousa")
    band = attendee.find("#ticket-band")
    fill = attendee.driver.execute_script("return document.querySelector('#ticket-band rect').getAttribute('fill')")
    check(fill == rgb(BACKGROUND), f"the band is {fill}, not the background colour")
    href = attendee.driver.execute_script("return document.querySelector('#ticket-band image').getAttribute('href')")
    check(href == f"/images/{ids['logo']}?scale=2", f"the band's logo is {href}")
    answer = attendee.driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        fetch(arguments[0]).then(r => r.arrayBuffer().then(b => done([r.status, r.headers.get("Content-Type"), b.byteLength])))
            .catch(e => done(String(e)));
        """,
        href,
    )
    check(answer[0] == 200 and answer[1] == "image/png" and answer[2] == len(archive.read("logo@2x.png")), f"the band's logo answered {answer}")
    check(band.size["width"] >= 380, f"the band is {band.size['width']} px wide on a phone")
    attendee.assert_no_horizontal_scroll()
    attendee.assert_no_dialog()
    attendee.screenshot("attendee-phone")
    attendee.element_png("#ticket-band", "attendee-band")
    attendee.resize(browser.DESKTOP)
    attendee.screenshot("attendee-desktop")


browser.main(test)
