"""Schemathesis hooks for scripts/fuzz.py: the admin rules JSON Schema cannot state.

A schema-valid body that breaks one of these rules is correctly refused with 400, so positive
cases that would break them are not generated. Negative cases are left alone.

- An event's `endsAt` must not be before its `startsAt`, and in a PATCH either date may be the
  stored one: no create whose end precedes its start, no PATCH that gives only one of the two
  dates (the other, stored one is unknown here).
- A batch of tickets may not name one `externalId` twice.
- A CSV batch is a string to the schema, but the server reads it as an attendee list (a header
  row naming the columns, then rows): a generated string is not one, so positive CSV cases are
  not generated (the admin API's tests cover CSV uploads).
"""

import re
from datetime import datetime, timedelta, timezone

import schemathesis

DATE = re.compile(r"^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d+))?(Z|([+-])(\d\d):(\d\d))$")


def instant(text):
    match = DATE.match(text) if isinstance(text, str) else None
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(part) for part in match.groups()[:6])
    micros = int((match.group(7) or "0")[:6].ljust(6, "0"))
    offset = timedelta(0)
    if match.group(8) != "Z":
        offset = timedelta(hours=int(match.group(10)), minutes=int(match.group(11)))
        if match.group(9) == "-":
            offset = -offset
    return datetime(year, month, day, hour, minute, second, micros, tzinfo=timezone(offset))


@schemathesis.hook
def filter_case(context, case):
    meta = getattr(case, "meta", None)
    if meta is None or not meta.generation.mode.is_positive:
        return True
    operation = context.operation.definition.raw.get("operationId") if context.operation else None
    if operation == "importTickets":
        if not isinstance(case.body, list):
            return False
        # The server trims texts, so " a" and "a" are one external id.
        ids = [row["externalId"].strip() for row in case.body if isinstance(row, dict) and isinstance(row.get("externalId"), str)]
        return len(ids) == len(set(ids))
    if not isinstance(case.body, dict):
        return True
    starts, ends = case.body.get("startsAt"), case.body.get("endsAt")
    if operation == "createEvent":
        return ends is None or instant(ends) >= instant(starts)
    if operation == "updateEvent":
        if starts is None and ends is None:
            return True
        if starts is None or ends is None:
            return False
        return instant(ends) >= instant(starts)
    return True
