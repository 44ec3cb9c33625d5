"""A forgotten password with real processes and a real SMTP server on loopback (aiosmtpd): the
link arrives by mail and sets the new password once, ending every session; an address without an
account gets the same answer and no mail; with the SMTP server down the message waits in the
API's outbox and arrives once the server is up, also across a restart of the API; with the core
gone, every address is refused alike (issue 43)."""
import email
import email.policy
import re
import signal
import sqlite3

from aiosmtpd.controller import Controller

from pantry_processes import APIClient, free_port, ok, start_core_and_api, wait_for

PASSWORD = "correct horse battery"
NEW_PASSWORD = "a brand new horse"


class Inbox:
    """What the SMTP server was handed: (envelope recipients, the parsed message)."""

    def __init__(self):
        self.messages = []

    async def handle_DATA(self, server, session, envelope):
        self.messages.append((envelope.rcpt_tos, email.message_from_bytes(envelope.content, policy=email.policy.default)))
        return "250 Message accepted for delivery"

    def to(self, address):
        return [message for recipients, message in self.messages if address in recipients]


def smtp_server(inbox, port):
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    return controller


def token_in(message):
    link = re.search(r"http://pantry\.example/#/reset\?token=(\S+)", message.get_content())
    assert link, message.get_content()
    return link.group(1)


def outbox_count(data):
    with sqlite3.connect(data / "mail-outbox.sqlite") as db:
        return db.execute("SELECT COUNT(*) FROM outbox").fetchone()[0]


def api_logs(data):
    return "".join(path.read_text(errors="replace") for path in data.glob("api-*.log"))


def test_a_reset_link_comes_by_mail_once_the_server_is_up_and_ends_every_session(processes):
    smtp_port = free_port()
    env = {"PANTRY_SMTP_URL": f"smtp://127.0.0.1:{smtp_port}", "PANTRY_MAIL_FROM": "pantry@example.org",
           "PANTRY_PUBLIC_URL": "http://pantry.example"}
    api = start_core_and_api(processes, env=env)
    _, rosa_first = api.register_and_log_in("rosa")
    rosa_second = ok(api.post("/v1/sessions", {"email": "rosa@example.org", "password": PASSWORD}), 201)["token"]
    api.register_and_log_in("sam")

    # The SMTP server is down: the answer is the same 202 all the same, for an unknown address too.
    asked = api.post("/v1/password-resets", {"email": "rosa@example.org"})
    unknown = api.post("/v1/password-resets", {"email": "nobody@example.org"})
    assert (asked.status, unknown.status) == (202, 202)
    assert asked.body == unknown.body
    assert outbox_count(processes.data) == 1
    wait_for(lambda: "retrying" in api_logs(processes.data), what="a failed attempt to be logged")

    inbox = Inbox()
    server = smtp_server(inbox, smtp_port)
    try:
        wait_for(lambda: inbox.to("rosa@example.org"), timeout=30, what="the mail once the SMTP server is up")
        message = inbox.to("rosa@example.org")[0]
        assert message["From"] == "Pantry <pantry@example.org>" and message["Subject"] == "Set a new Pantry password"
        token = token_in(message)
        wait_for(lambda: outbox_count(processes.data) == 0, what="the sent message to leave the outbox")

        # The link sets the new password once; every earlier session ends, the old password fails.
        reset = ok(api.post("/v1/password-resets/confirm", {"token": token, "newPassword": NEW_PASSWORD}))
        assert reset["username"] == "rosa"
        for old in (rosa_first, rosa_second):
            ended = api.get("/v1/me", token=old)
            assert (ended.status, ended.json["code"]) == (401, "invalid_token")
        assert ok(api.get("/v1/me", token=reset["token"]))["username"] == "rosa"
        assert api.post("/v1/sessions", {"username": "rosa", "password": PASSWORD}).status == 401
        ok(api.post("/v1/sessions", {"username": "rosa", "password": NEW_PASSWORD}), 201)
        again = api.post("/v1/password-resets/confirm", {"token": token, "newPassword": "a third horse here"})
        assert (again.status, again.json["code"]) == (409, "reset_token_used")
        assert inbox.to("nobody@example.org") == [], "no mail for an address without an account"
    finally:
        server.stop()

    # Down again, and the API restarted while a message waits: it is sent after the restart.
    ok(api.post("/v1/password-resets", {"email": "sam@example.org"}), 202)
    assert outbox_count(processes.data) == 1
    old_api = processes.running[1]
    old_api.send_signal(signal.SIGTERM)
    old_api.wait(timeout=20)
    inbox = Inbox()
    server = smtp_server(inbox, smtp_port)
    try:
        processes.start("api", "--port", str(api.port), "--password-cost", "10",
                        env={"PANTRY_LOGIN_RATE_PER_CLIENT": "10000", "PANTRY_LOGIN_RATE_OVERALL": "10000", **env})
        restarted = APIClient(api.port)
        wait_for(restarted.ready, timeout=60, what="the restarted API")
        wait_for(lambda: inbox.to("sam@example.org"), timeout=30, what="the waiting mail after the restart")
        token = token_in(inbox.to("sam@example.org")[0])
        ok(restarted.post("/v1/password-resets/confirm", {"token": token, "newPassword": NEW_PASSWORD}))
        wait_for(lambda: outbox_count(processes.data) == 0, what="the outbox to be empty")
    finally:
        server.stop()

    # With the core gone, every address is refused alike: a refusal for those with an account only
    # would say which have one.
    processes.running[0].kill()
    processes.running[0].wait(timeout=10)
    wait_for(lambda: restarted.get("/ready").status == 503, what="the API to see the core gone")
    known = restarted.post("/v1/password-resets", {"email": "sam@example.org"})
    unknown = restarted.post("/v1/password-resets", {"email": "nobody@example.org"})
    assert (known.status, unknown.status) == (503, 503) and known.json["code"] == "core_unavailable", (known, unknown)
    assert known.body == unknown.body

    # The logs say what happened, by the message's number: no address, no token.
    logs = api_logs(processes.data)
    assert "mail queued" in logs and "mail sent" in logs and "retrying" in logs
    for secret in ("rosa@example.org", "sam@example.org", "nobody@example.org", token.split(".")[1]):
        assert secret not in logs, secret
