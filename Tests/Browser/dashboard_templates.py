"""The Templates page in Chromium: from the events page to Templates, a refused upload showing every
reason under the file input, a Pass Designer template uploaded with the file input, its mapping
form (the fields found, with the designer's samples and the guessed choices), a choice changed and
saved, and the page at a phone's width without sideways scrolling.

Environment: ADMIN_TOKEN; ZIP_PATH (a zipped .pkpasstemplate folder), BROKEN_ZIP_PATH (one without
pass.json and without an icon).
"""

import browser
from browser import check, env


def upload(page, name, path):
    page.open("/admin/templates")
    page.type("Name", name)
    page.by_label("Zipped .pkpasstemplate folder (at most 10 MiB)").send_keys(path)
    page.click("Upload", tag="button", navigates=True)


def test():
    page = browser.open_browser("templates", size=browser.DESKTOP)
    page.open("/admin/")
    page.type("Admin token", env("ADMIN_TOKEN"))
    page.click("Sign in", tag="button", navigates=True)
    page.click("Templates", tag="a", navigates=True)
    page.assert_text("Templates", "h1")
    page.assert_text("event-ticket", "#templates")

    upload(page, "broken", env("BROKEN_ZIP_PATH"))
    page.assert_text("has no pass.json", "#f-file-error")
    page.assert_text("has no icon", "#f-file-error")
    page.screenshot("templates-refused")

    upload(page, "spring-gala", env("ZIP_PATH"))
    check(page.current_path.startswith("/admin/templates/spring-gala"), f"after the upload: {page.current_path}")
    page.assert_text("Template uploaded.")
    page.assert_text("John Appleseed", "#template-mapping")
    from selenium.webdriver.support.ui import Select

    holder = Select(page.by_label("What holder shows"))
    check(holder.first_selected_option.text == "Attendee name", f"holder shows {holder.first_selected_option.text!r}")
    page.screenshot("template-mapping")
    page.select("What tier shows", "A ticket field of its own (tier)")
    page.click("Save mapping", tag="button", navigates=True)
    page.assert_text("Mapping saved.")
    tier = Select(page.by_label("What tier shows"))
    check(tier.first_selected_option.text == "A ticket field of its own (tier)", f"tier shows {tier.first_selected_option.text!r}")
    page.assert_text("tier", "main")

    page.resize(browser.PHONE)
    page.open("/admin/templates/spring-gala")
    page.assert_no_horizontal_scroll()
    page.screenshot("template-mapping-phone")

    # The event form offers the uploaded template.
    page.resize(browser.DESKTOP)
    page.open("/admin/events/new")
    page.select("Pass template", "spring-gala")


browser.main(test)
