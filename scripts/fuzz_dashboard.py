"""Fuzzes the dashboard's HTML forms and pages (not in openapi.yaml) with hypothesis, signed in.

Run by scripts/fuzz.py with the schemathesis virtualenv's python (hypothesis comes with
schemathesis), against the server fuzz.py started:

    fuzz_dashboard.py --base URL --admin-token TOKEN --cases N --seed S

It signs in as a browser does (the sign-in form's hidden value and its cookie, then the session
cookie), crawls the pages for their forms (events list, new event, every event's page and edit
page, ticket pages: event creation and edits, issuing, the CSV import and its confirmation,
email, archive, a ticket's edit, cancel, download link and email, the webhooks page's new endpoint,
sign-out, sign-in) and then sends N cases, each either a form post or a page read:

- a form's fields: the page's own value or option, generated text (any Unicode, control
  characters, markup, formula and encoded-word look-alikes, long strings), dates, numbers; fields
  left out, repeated or added; CSV files for the import;
- the session cookie and CSRF token: valid in most cases, missing, wrong or another session's in
  the rest; the body urlencoded or multipart as the form declares, sometimes the other, sometimes
  malformed or with another content type; now and then another id in the path;
- pages with generated query parameters (search, filters, cursors, notices, job ids).

Checks on every answer: no 5xx and an answer at all; a status from the dashboard's list; HTML
(JSON for the job progress call, CSV for the export); a redirect only to a path under /admin; no
form change accepted without a valid session and its CSRF token; a valid session and CSRF token
not refused as such while the session is alive; no generated markup echoed unescaped; every answer
within the time limit. The session is opened again after a fuzzed sign-out or sign-in.

Prints one `dashboard: ...` line per route (cases and statuses), then
`dashboard: N cases, F failures` and exits 1 on any failure.
"""

import argparse
import collections
import datetime
import html.parser
import http.client
import json
import re
import secrets
import sys
import time
import urllib.parse

from hypothesis import HealthCheck, Phase, given, seed as hypothesis_seed, settings
from hypothesis import strategies as st

ALLOWED = {200, 303, 400, 401, 403, 404, 405, 409, 413, 415, 422, 429, 431}
TIME_LIMIT = 10.0
MARKER = "fz" + secrets.token_hex(4)


def log(message):
    print(f"dashboard: {message}", flush=True)


class Answer:
    def __init__(self, status, headers, body, elapsed):
        self.status, self.headers, self.body, self.elapsed = status, headers, body, elapsed

    def header(self, name):
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return None

    def cookies(self):
        """name -> value of every Set-Cookie (an empty value clears)."""
        found = {}
        for key, value in self.headers:
            if key.lower() == "set-cookie":
                pair = value.split(";", 1)[0]
                if "=" in pair:
                    name, _, text = pair.partition("=")
                    found[name.strip()] = text.strip()
        return found

    @property
    def text(self):
        return self.body.decode("utf-8", errors="replace")


class Client:
    def __init__(self, base):
        target = urllib.parse.urlsplit(base)
        self.host, self.port = target.hostname, target.port
        self.connection = None

    def request(self, method, path, body=None, headers=None):
        started = time.monotonic()
        for attempt in range(2):
            if self.connection is None:
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=TIME_LIMIT * 3)
            try:
                self.connection.request(method, path, body=body, headers=headers or {})
                response = self.connection.getresponse()
                data = response.read()
                answer = Answer(response.status, response.getheaders(), data, time.monotonic() - started)
                if (answer.header("Connection") or "").lower() == "close":
                    self.close()
                return answer
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as error:
                # A keep-alive connection the server closed between requests: once more on a new
                # one, as browsers do. A second failure is an answer that never came.
                self.close()
                if attempt == 1:
                    return Answer(0, [], str(error).encode(), time.monotonic() - started)
            except (OSError, http.client.HTTPException) as error:
                self.close()
                return Answer(0, [], str(error).encode(), time.monotonic() - started)
        return Answer(0, [], b"", time.monotonic() - started)

    def close(self):
        if self.connection is not None:
            self.connection.close()
            self.connection = None


class Forms(html.parser.HTMLParser):
    """Every <form> of a page: action, method, enctype and fields (name, type, value, options)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.forms, self.links = [], set()
        self.form = self.select = None

    def handle_starttag(self, tag, attributes):
        attributes = dict(attributes)
        if tag == "a" and attributes.get("href"):
            self.links.add(attributes["href"])
        elif tag == "form":
            self.form = {"action": attributes.get("action", ""), "method": (attributes.get("method") or "get").lower(),
                         "enctype": attributes.get("enctype") or "application/x-www-form-urlencoded", "fields": []}
            self.forms.append(self.form)
        elif self.form is not None and tag in ("input", "textarea", "select", "button") and attributes.get("name"):
            field = {"name": attributes["name"], "type": (attributes.get("type") or tag).lower(),
                     "value": attributes.get("value") or "", "options": []}
            if field["type"] in ("checkbox", "radio") and any(
                    other["name"] == field["name"] and other["type"] == field["type"] for other in self.form["fields"]):
                other = next(other for other in self.form["fields"] if other["name"] == field["name"])
                other["options"].append(field["value"])
                return
            if field["type"] in ("checkbox", "radio"):
                field["options"].append(field["value"])
            self.form["fields"].append(field)
            if tag == "select":
                self.select = field
        elif tag == "option" and self.select is not None:
            self.select["options"].append(attributes.get("value", ""))

    def handle_endtag(self, tag):
        if tag == "form":
            self.form = None
        elif tag == "select":
            self.select = None


def parse(text):
    parser = Forms()
    parser.feed(text)
    return parser


def route_of(method, path):
    """A path with its ids replaced: the row of the summary."""
    path = path.split("?", 1)[0]
    path = re.sub(r"^/admin/events/(?!new$)[^/]+", "/admin/events/:eventId", path)
    path = re.sub(r"^/admin/tickets/[^/]+", "/admin/tickets/:serialNumber", path)
    path = re.sub(r"^/admin/jobs/[^/]+", "/admin/jobs/:jobId", path)
    path = re.sub(r"^/admin/templates/[^/]+", "/admin/templates/:templateName", path)
    return f"{method} {path}"


class Dashboard:
    def __init__(self, base, token):
        self.client = Client(base)
        self.token = token
        self.cookies = {}
        self.csrf = None
        self.forms = {}
        self.pages = set()
        self.jobs = set()
        self.statuses = collections.defaultdict(collections.Counter)
        self.failures = []
        self.cases = 0

    def cookie_header(self, cookies=None):
        cookies = self.cookies if cookies is None else cookies
        return "; ".join(f"{name}={value}" for name, value in cookies.items() if value)

    def get(self, path, cookies=None):
        return self.client.request("GET", path, headers={"Cookie": self.cookie_header(cookies)})

    def sign_in(self):
        """A fresh session (cookie and CSRF token), as a browser gets one."""
        self.cookies = {}
        page = self.get("/admin/")
        self.cookies.update(page.cookies())
        form = next((form for form in parse(page.text).forms if form["action"] == "/admin/sign-in"), None)
        if page.status != 200 or form is None:
            raise SystemExit(f"dashboard: no sign-in form at /admin/ ({page.status}):\n{page.text[:2000]}")
        fields = [(field["name"], field["value"]) for field in form["fields"] if field["type"] == "hidden"]
        fields.append(("token", self.token))
        answer = self.client.request("POST", "/admin/sign-in", urllib.parse.urlencode(fields),
                                     {"Content-Type": "application/x-www-form-urlencoded", "Cookie": self.cookie_header()})
        self.cookies.update(answer.cookies())
        self.cookies = {name: value for name, value in self.cookies.items() if value}
        if answer.status != 303:
            raise SystemExit(f"dashboard: signing in answered {answer.status}:\n{answer.text[:2000]}")
        events = self.get("/admin/")
        tokens = {field["value"] for form in parse(events.text).forms for field in form["fields"] if field["name"] == "csrf"}
        if events.status != 200 or len(tokens) != 1:
            raise SystemExit(f"dashboard: the events page after signing in ({events.status}) has no CSRF token")
        self.csrf = tokens.pop()

    def session_alive(self):
        return self.get("/admin/events/new").status == 200

    def crawl(self, events=6, tickets=6):
        """The forms of the events list, the new-event page, the templates page and some events' and
        tickets' pages."""
        forms, pages = [], {"/admin/", "/admin/events/new", "/admin/scan", "/admin/templates", "/admin/webhooks"}
        queue = ["/admin/", "/admin/events/new", "/admin/templates", "/admin/webhooks"]
        seen_events = seen_tickets = 0
        visited = set()
        while queue:
            path = queue.pop(0)
            if path in visited:
                continue
            visited.add(path)
            page = self.get(path)
            if page.status != 200:
                continue
            parsed = parse(page.text)
            forms.extend(form for form in parsed.forms if form["method"] == "post")
            for link in sorted(parsed.links):
                target = link.split("?", 1)[0].split("#", 1)[0]
                if re.fullmatch(r"/admin/events/[^/]+", target) and target != "/admin/events/new" and seen_events < events:
                    seen_events += 1
                    queue += [target, target + "/edit", target + "/design"]
                    pages.update([target, target + "/edit", target + "/design", target + "/tickets.csv"])
                elif re.fullmatch(r"/admin/tickets/[^/]+", target) and seen_tickets < tickets:
                    seen_tickets += 1
                    queue.append(target)
                    pages.add(target)
                elif re.fullmatch(r"/admin/templates/[^/]+", target):
                    queue.append(target)
                    pages.add(target)
                match = re.search(r"[?&]job=([^&#]+)", link)
                if match:
                    self.jobs.add(urllib.parse.unquote(match.group(1)))
        # One form per action and field names (every page carries the sign-out form), and the
        # sign-in form, which only a visitor without a session sees.
        unique = {}
        for form in forms + [self.sign_in_form()]:
            unique.setdefault((form["action"], tuple(field["name"] for field in form["fields"])), form)
        self.forms = collections.defaultdict(list)
        for form in unique.values():
            self.forms[route_of("POST", form["action"])].append(form)
        self.pages = pages

    def sign_in_form(self):
        page = self.client.request("GET", "/admin/")
        form = next((form for form in parse(page.text).forms if form["action"] == "/admin/sign-in"), None)
        if form is None:
            raise SystemExit(f"dashboard: no sign-in form at /admin/ without a session ({page.status})")
        return form

    def record(self, method, path, answer, problem=None):
        route = route_of(method, path)
        self.cases += 1
        self.statuses[route]["no answer" if answer.status == 0 else str(answer.status)] += 1
        problems = [problem] if problem else []
        if answer.status == 0:
            problems.append(f"no answer ({answer.text[:200]})")
        elif answer.status >= 500:
            problems.append(f"server error {answer.status}")
        elif answer.status not in ALLOWED:
            problems.append(f"status {answer.status} is not one the dashboard answers")
        if answer.elapsed > TIME_LIMIT:
            problems.append(f"answered after {answer.elapsed:.1f} s")
        content_type = (answer.header("Content-Type") or "").split(";")[0].strip().lower()
        if answer.status not in (0, 303) and answer.body:
            allowed = {"text/html", "application/json"}
            if route.endswith("/tickets.csv") and answer.status == 200:
                allowed = {"text/csv"}
            if content_type not in allowed:
                problems.append(f"Content-Type {content_type!r}")
        if answer.status == 303:
            location = answer.header("Location") or ""
            if not location.startswith("/admin") or location.startswith("//"):
                problems.append(f"redirect to {location!r}")
        if content_type == "text/html" and f"<{MARKER}" in answer.text:
            problems.append("generated markup echoed unescaped")
        if problems:
            self.failures.append((route, method, path, answer.status, problems))
        return answer


# Texts a form field may get besides the page's own value.
SPECIAL = [
    "", " ", "\t", "0", "-1", "1e309", "9" * 40, "NaN", "null", "true", "[]", "{}", "%", "%00", "%zz", "\x00", "a\r\nb",
    "\u202eevil", "\ufeffbom", "e\u0301", "=1+2", "=\u0301HYPERLINK(\"x\")", "+\u200d1", "@SUM(A1)", "-2+3",
    "=?utf-8?b?SGk=?=", "Ada <ada@example.com>", "ada@example.com", "a@b", "@", "x" * 300, "ü" * 200, "\U0001f600" * 50,
    "2027-03-01T19:00", "2027-03-01T19:00:00", "2027-02-30T19:00", "1969-12-31T23:59", "10000-01-01T00:00", "2027-03-01",
    "Europe/Berlin", "Asia/Tokyo", "UTC", "Not/A_Zone", "../../etc/passwd", "javascript:alert(1)", "' OR 1=1 --",
    "\"><img src=x>", "upcoming", "past", "all", "archived", "cancelled", "active", "de", "en", "ja", "xx", "on", "off",
]


def markup():
    return st.integers(0, 10**6).map(lambda n: f"<{MARKER}{n}>&\"'")


def text_values():
    return TEXT


def build_text_values():
    return st.one_of(
        st.sampled_from(SPECIAL),
        st.text(max_size=30),
        st.text(st.characters(codec="utf-8"), min_size=1, max_size=200),
        st.text(st.characters(max_codepoint=127), max_size=60),
        st.datetimes().map(lambda value: value.strftime("%Y-%m-%dT%H:%M")),
        st.integers(-10**12, 10**12).map(str),
        markup(),
    )


def csv_files():
    return CSV


def build_csv_files():
    header = st.lists(st.sampled_from(["attendeeName", "name", "seat", "externalId", "attendeeEmail", "email",
                                       "language", "x", "", "attendeeName"]), min_size=1, max_size=6)
    cell = st.one_of(st.sampled_from(SPECIAL), st.text(max_size=20), markup())
    rows = st.lists(st.lists(cell, max_size=7), max_size=25)

    def render(parts):
        head, body, separator, quote = parts
        lines = [separator.join(head)]
        for row in body:
            lines.append(separator.join(f'"{value}"' if quote else value for value in row))
        return "\r\n".join(lines) + "\r\n"

    return st.one_of(
        st.tuples(header, rows, st.sampled_from([",", ";", "\t"]), st.booleans()).map(render),
        st.text(max_size=500),
        st.binary(max_size=300).map(lambda data: data.decode("latin-1")),
        st.sampled_from(["", "attendeeName\r\n", "attendeeName,seat\r\n\"unterminated\r\n", "\ufeffattendeeName\nAda\n"]),
    )


TEXT = build_text_values()
PLAUSIBLE = st.tuples(
    st.text(st.characters(categories=["L", "N", "Zs"]), min_size=1, max_size=40),
    st.datetimes(min_value=datetime.datetime(1990, 1, 1), max_value=datetime.datetime(2090, 12, 31)).map(
        lambda value: value.strftime("%Y-%m-%dT%H:%M")),
    st.tuples(st.text("abcdefghijklmnopqrstuvwxyz0123456789._+-", min_size=1, max_size=20),
              st.sampled_from(["example.com", "example.org", "b\u00fccher.example", "x"])).map(lambda parts: "@".join(parts)),
)
CSV = build_csv_files()
OTHER_ID = st.one_of(
    st.text(st.characters(codec="ascii", categories=["L", "N"]), min_size=1, max_size=40),
    st.sampled_from(["0", "new", "..", "%2e%2e", "%00", "a%2Fb", "evt_" + "0" * 26, "x" * 300]),
)

# Hypothesis requires the same draws to follow from the same earlier draws, but what a case can
# reach (forms, ids, pages) grows as the run creates events and tickets. So every case draws the
# same sequence whatever the state: indices as large integers taken modulo the current list's
# length, and a value for every one of MAX_FIELDS field slots, used or not.
MAX_FIELDS = 10


def pick(data, items):
    index = data.draw(st.integers(0, 2**20))
    return items[index % len(items)] if items else None


def field_value(data, field, csv):
    """A value for `field`: the page's own value or option, a plausible value for its type (a
    date, an email address, a name), or any generated text (`csv` for a file input). Draws the
    same whatever the field."""
    kind = data.draw(st.integers(0, 9))
    option = data.draw(st.integers(0, 2**20))
    words, date, email = data.draw(PLAUSIBLE)
    text = data.draw(text_values())
    if field is None:
        return None
    if field["type"] == "file":
        return csv
    choices = list(field["options"]) + ([field["value"]] if field["value"] else [])
    if choices and kind < 5:
        return choices[option % len(choices)]
    if kind < 8:
        name = field["name"].lower()
        if field["type"].startswith("datetime") or name.endswith("at"):
            return date
        if field["type"] == "email" or "email" in name:
            return email
        return words
    return text


def encode(data, fields, enctype):
    """(body bytes, Content-Type) for fields [(name, value, is_file)]."""
    file_name = data.draw(st.sampled_from(["a.csv", "", "ü.csv", "x\".csv"]))
    if enctype == "multipart/form-data":
        boundary = "----fuzz" + secrets.token_hex(8)
        parts = []
        for name, value, is_file in fields:
            disposition = f'form-data; name="{name}"'
            if is_file:
                disposition += f"; filename=\"{file_name}\""
            parts.append(f"--{boundary}\r\nContent-Disposition: {disposition}\r\n"
                         + ("Content-Type: text/csv\r\n" if is_file else "") + f"\r\n{value}\r\n")
        body = "".join(parts) + f"--{boundary}--\r\n"
        return body.encode("utf-8", errors="surrogatepass"), f"multipart/form-data; boundary={boundary}"
    body = urllib.parse.urlencode([(name, value) for name, value, _ in fields], encoding="utf-8", errors="surrogatepass")
    return body.encode(), "application/x-www-form-urlencoded"


MALFORMED = [
    (b"a=%zz&csrf=%", "application/x-www-form-urlencoded"),
    (b"\xff\xfe=\xff", "application/x-www-form-urlencoded"),
    (b"--x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nunterminated", "multipart/form-data; boundary=x"),
    (b"--x--\r\n", "multipart/form-data"),
    (b"{\"name\": \"x\"}", "application/json"),
    (b"name=x", "text/plain"),
    (b"name=x", ""),
    (b"", "multipart/form-data; boundary=" + "b" * 71),
]


def form_case(dashboard, data):
    route = pick(data, sorted(dashboard.forms))
    form = pick(data, dashboard.forms[route])
    action = form["action"]
    replace_id = data.draw(st.integers(0, 19)) == 0
    replacement = data.draw(OTHER_ID)
    if replace_id:
        pieces = action.split("/")
        if len(pieces) > 3:
            pieces[3] = urllib.parse.quote(replacement, safe="%")
            action = "/".join(pieces)
    page_fields = [field for field in form["fields"] if field["name"] != "csrf"]
    csv = data.draw(csv_files())
    fields = []
    for slot in range(MAX_FIELDS):
        field = page_fields[slot] if slot < len(page_fields) else None
        left_out = data.draw(st.integers(0, 9)) == 0
        repeated = data.draw(st.integers(0, 29)) == 0
        value = field_value(data, field, csv)
        if field is None or left_out:
            continue
        fields.append((field["name"], value, field["type"] == "file"))
        if repeated:
            # The same name again: the page's value, or the first one's.
            fields.append((field["name"], field["value"] or value, field["type"] == "file"))
    extra = data.draw(st.integers(0, 14)) == 0
    extra_name, extra_value = data.draw(st.text(min_size=1, max_size=12)), data.draw(text_values())
    if extra:
        fields.append((extra_name, extra_value, False))
    signing_in = action == "/admin/sign-in"
    csrf_kind = data.draw(st.sampled_from(["valid"] * 17 + ["missing", "wrong", "empty"]))
    csrf = {"valid": dashboard.csrf, "wrong": secrets.token_urlsafe(32), "empty": "", "missing": None}[csrf_kind]
    token = data.draw(st.one_of(st.just(dashboard.token), st.just("psa_" + secrets.token_urlsafe(32)), text_values()))
    cookies = dict(dashboard.cookies)
    if signing_in:
        # A fresh sign-in form: its value and its cookie (a double submit), and a token that is
        # the admin token, another one or anything.
        page = dashboard.client.request("GET", "/admin/")
        challenge = next((field["value"] for form in parse(page.text).forms if form["action"] == "/admin/sign-in"
                          for field in form["fields"] if field["name"] == "csrf"), None)
        cookies = {name: value for name, value in page.cookies().items() if value}
        if csrf_kind == "valid":
            csrf = challenge
        fields = [(name, token if name == "token" else value, is_file) for name, value, is_file in fields]
    position = data.draw(st.integers(0, 2**20))
    if csrf is not None:
        fields.insert(position % (len(fields) + 1), ("csrf", csrf, False))
    session_kind = data.draw(st.sampled_from(["valid"] * 18 + ["none", "garbage"]))
    if session_kind != "valid" and not signing_in:
        for name in list(cookies):
            if "session" in name:
                if session_kind == "none":
                    del cookies[name]
                else:
                    cookies[name] = secrets.token_urlsafe(32)
    encoding = data.draw(st.sampled_from(["declared"] * 16 + ["other"] * 3 + ["malformed"]))
    bad_body, bad_type = data.draw(st.sampled_from(MALFORMED))
    enctype = form["enctype"]
    if encoding == "other":
        enctype = "multipart/form-data" if enctype != "multipart/form-data" else "application/x-www-form-urlencoded"
    body, content_type = encode(data, fields, enctype)
    if encoding == "malformed":
        body, content_type = bad_body, bad_type
    headers = {"Cookie": dashboard.cookie_header(cookies)}
    if content_type:
        headers["Content-Type"] = content_type
    answer = dashboard.client.request("POST", action, body, headers)
    problem = None
    authorized = session_kind == "valid" and csrf_kind == "valid"
    if not signing_in and not authorized and (200 <= answer.status < 400):
        problem = f"accepted ({answer.status}) with session {session_kind} and CSRF token {csrf_kind}"
    elif not signing_in and authorized and encoding == "declared" and answer.status == 403 and dashboard.session_alive():
        problem = "refused with 403 although the session and its CSRF token were valid"
    dashboard.record("POST", action, answer, problem)
    if action == "/admin/sign-out" and answer.status == 303 or not dashboard.session_alive_cheap(answer):
        dashboard.sign_in()


QUERY_NAMES = ["q", "when", "cursor", "notice", "status", "count", "job", "event", "x"]


def page_case(dashboard, data):
    path = pick(data, sorted(dashboard.pages) + [f"/admin/jobs/{job}/progress" for job in sorted(dashboard.jobs)]
                + ["/admin/jobs/nope/progress", "/admin", "/admin/scan"])
    query = data.draw(st.lists(st.tuples(st.sampled_from(QUERY_NAMES), text_values()), max_size=4))
    target = path + ("?" + urllib.parse.urlencode(query, errors="surrogatepass") if query else "")
    session_kind = data.draw(st.sampled_from(["valid"] * 9 + ["none"]))
    cookies = dashboard.cookies if session_kind == "valid" else {}
    answer = dashboard.client.request("GET", target, headers={"Cookie": dashboard.cookie_header(cookies)})
    problem = None
    if session_kind == "none" and answer.status == 200 and path not in ("/admin/", "/admin/scan"):
        problem = "a page answered 200 without a session"
    dashboard.record("GET", path, answer, problem)


def session_alive_cheap(self, answer):
    # Only a 403 can mean the session died; check then.
    return answer.status != 403 or self.session_alive()


Dashboard.session_alive_cheap = session_alive_cheap


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", required=True)
    parser.add_argument("--admin-token", required=True)
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    arguments = parser.parse_args()

    dashboard = Dashboard(arguments.base, arguments.admin_token)
    dashboard.sign_in()
    dashboard.crawl()
    if not dashboard.forms:
        raise SystemExit("dashboard: the crawl found no forms")
    log(f"{sum(len(forms) for forms in dashboard.forms.values())} forms of {len(dashboard.forms)} routes on "
        f"{len(dashboard.pages)} pages; {arguments.cases} cases, seed {arguments.seed}")
    for route, forms in sorted(dashboard.forms.items()):
        log(f"  {route}: {len(forms)} forms ({', '.join(sorted({field['name'] for form in forms for field in form['fields']}))})")
    started = time.monotonic()

    @settings(max_examples=arguments.cases, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), derandomize=False)
    @hypothesis_seed(arguments.seed)
    @given(st.data())
    def case(data):
        if dashboard.cases and dashboard.cases % 250 == 0:
            dashboard.crawl()
        if data.draw(st.integers(0, 9)) < 7:
            form_case(dashboard, data)
        else:
            page_case(dashboard, data)

    case()
    elapsed = time.monotonic() - started
    for route, counts in sorted(dashboard.statuses.items()):
        print(f"dashboard: {route}: {sum(counts.values())} cases ({', '.join(f'{status}: {count}' for status, count in sorted(counts.items()))})")
    for route, method, path, status, problems in dashboard.failures[:30]:
        print(f"dashboard: FAILURE {method} {path[:200]} -> {status}: {'; '.join(problems)}")
    log(f"finished in {elapsed:.0f} s")
    print(f"dashboard: {dashboard.cases} cases, {len(dashboard.failures)} failures")
    return 1 if dashboard.failures else 0


if __name__ == "__main__":
    sys.exit(main())
