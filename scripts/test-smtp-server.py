#!/usr/bin/python3
"""A scriptable SMTP server for PassServer's tests (aiosmtpd, Debian python3-aiosmtpd).

Listens on 127.0.0.1 (port 0 picks a free one), prints "PORT <n>" on its first line once it
accepts connections, and writes every event into the spool directory as one JSON file
(`<sequence>.json`, written to a temporary name and renamed, so a reader never sees half a file):

  {"kind": "message", "mailFrom": ..., "rcptTos": [...], "data": <base64 of the message>,
   "tls": bool, "user": <authenticated user or null>, "at": <unix time, float>,
   "parsed": {"headers": [[name, raw value], ...], "decoded": {name: decoded value, ...},
              "parts": [{"type": ..., "charset": ..., "text": ...}], "defects": [...]}}
  ("parsed" is Python's own reading of the message, email.policy.default: an independent check
  of the MIME structure and the RFC 2047 encoding.)
  {"kind": "refused", "stage": "RCPT"|"DATA"|"AUTH", "address": <recipient, or the user for AUTH>,
   "reply": "550 ...", "at": ...}

Behaviour comes from a JSON file (--config):
  "refuse":         addresses answered 550 at RCPT TO
  "tempfail":       {address: n}: the first n RCPT TO of that address are answered 451
  "tempfailData":   n: the first n messages (any recipient) are answered 451 after DATA
  "tls":            {"certificate": path, "key": path}: offer STARTTLS with this certificate
  "implicitTLS":    true: TLS from the first byte (smtps://) instead of STARTTLS
  "requireTLS":     true: refuse MAIL FROM before STARTTLS (530)
  "auth":           {"user": ..., "password": ...}: require AUTH PLAIN or LOGIN with these
  "authFailures":   n: the first n AUTH attempts fail (535) even with the right credentials, as
                    when an account is locked and then unlocked
  "delay":          seconds to wait before answering each DATA (a slow server)
"""
import argparse
import asyncio
import base64
import email
import email.policy
import json
import os
import signal
import ssl
import sys
import time

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword


class Spool:
    def __init__(self, directory):
        self.directory = directory
        self.sequence = 0

    def write(self, event):
        self.sequence += 1
        event["at"] = time.time()
        name = os.path.join(self.directory, "%08d.json" % self.sequence)
        temporary = name + ".tmp"
        with open(temporary, "w", encoding="utf-8") as handle:
            json.dump(event, handle)
        os.rename(temporary, name)


class Handler:
    def __init__(self, config, spool):
        self.refuse = set(config.get("refuse", []))
        self.tempfail = dict(config.get("tempfail", {}))
        self.tempfail_data = int(config.get("tempfailData", 0))
        self.delay = float(config.get("delay", 0))
        self.spool = spool

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address in self.refuse:
            reply = "550 5.1.1 <%s>: Recipient address rejected: User unknown" % address
            self.spool.write({"kind": "refused", "stage": "RCPT", "address": address, "reply": reply})
            return reply
        if self.tempfail.get(address, 0) > 0:
            self.tempfail[address] -= 1
            reply = "451 4.7.1 <%s>: Greylisted, try again later" % address
            self.spool.write({"kind": "refused", "stage": "RCPT", "address": address, "reply": reply})
            return reply
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if self.delay > 0:
            await asyncio.sleep(self.delay)
        if self.tempfail_data > 0:
            self.tempfail_data -= 1
            reply = "451 4.3.0 Temporary local problem, try again"
            self.spool.write({"kind": "refused", "stage": "DATA", "address": ",".join(envelope.rcpt_tos), "reply": reply})
            return reply
        data = envelope.original_content or envelope.content
        self.spool.write({
            "kind": "message",
            "parsed": parse(data),
            "mailFrom": envelope.mail_from,
            "rcptTos": list(envelope.rcpt_tos),
            "data": base64.b64encode(data).decode("ascii"),
            "tls": session.ssl is not None or server.transport.get_extra_info("ssl_object") is not None,
            "user": session.auth_data.login.decode("utf-8", "replace") if isinstance(session.auth_data, LoginPassword) else None,
        })
        return "250 2.0.0 Ok: queued"


def parse(data):
    message = email.message_from_bytes(data, policy=email.policy.default)
    parts = []
    for part in message.walk():
        if part.is_multipart():
            continue
        parts.append({"type": part.get_content_type(), "charset": part.get_content_charset(), "text": part.get_content()})
    defects = [type(defect).__name__ for part in message.walk() for defect in part.defects]
    return {
        "headers": [[name, str(value)] for name, value in message.raw_items()],
        "decoded": {name: str(message[name]) for name in message.keys()},
        "contentType": message.get_content_type(),
        "parts": parts,
        "defects": defects,
    }


def authenticator_for(expected, failures, spool):
    remaining = [int(failures)]

    def authenticate(server, session, envelope, mechanism, data):
        user = data.login.decode("utf-8", "replace") if isinstance(data, LoginPassword) else None
        if isinstance(data, LoginPassword) and remaining[0] <= 0:
            password = data.password.decode("utf-8", "replace")
            if user == expected["user"] and password == expected["password"]:
                return AuthResult(success=True, auth_data=data)
        remaining[0] -= 1
        spool.write({"kind": "refused", "stage": "AUTH", "address": user, "reply": "535 5.7.8 Authentication credentials invalid"})
        return AuthResult(success=False, handled=False)
    return authenticate


async def serve(arguments):
    with open(arguments.config, encoding="utf-8") as handle:
        config = json.load(handle)
    spool = Spool(arguments.spool)
    handler = Handler(config, spool)
    context = None
    if "tls" in config:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(config["tls"]["certificate"], config["tls"]["key"])
    implicit = bool(config.get("implicitTLS"))
    auth = config.get("auth")
    # One authenticator for the whole server: its count of failures spans connections.
    authenticator = authenticator_for(auth, config.get("authFailures", 0), spool) if auth is not None else None

    def factory():
        options = {"hostname": "smtp.test", "ident": "PassServer test SMTP"}
        if context is not None and not implicit:
            options["tls_context"] = context
            options["require_starttls"] = bool(config.get("requireTLS"))
        if auth is not None:
            options["authenticator"] = authenticator
            options["auth_required"] = True
            options["auth_require_tls"] = context is not None
        return SMTP(handler, **options)

    loop = asyncio.get_running_loop()
    server = await loop.create_server(factory, host="127.0.0.1", port=arguments.port, ssl=context if implicit else None)
    port = server.sockets[0].getsockname()[1]
    print("PORT %d" % port, flush=True)
    stop = loop.create_future()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, lambda: stop.done() or stop.set_result(None))
    await stop
    server.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--spool", required=True)
    parser.add_argument("--config", required=True)
    asyncio.run(serve(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
