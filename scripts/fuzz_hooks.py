"""Schemathesis hooks for scripts/fuzz.py: the one admin rule JSON Schema cannot state.

An event's `endsAt` must not be before its `startsAt`, and in a PATCH either date may be the
stored one. A schema-valid body that breaks this rule is correctly refused with 400, so positive
cases that would break it are not generated: a create whose end precedes its start, and a PATCH
that gives only one of the two dates (the other, stored one is unknown here). Negative cases are
left alone.
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
    if meta is None or not meta.generation.mode.is_positive or not isinstance(case.body, dict):
        return True
    operation = context.operation.definition.raw.get("operationId") if context.operation else None
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
