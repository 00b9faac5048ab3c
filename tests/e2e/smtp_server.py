"""A local SMTP server for the delivery test (Debian's python3-aiosmtpd):
STARTTLS required (certificate and key given), AUTH required after TLS with
one user and password, every accepted message written to OUT_DIR as N.eml.
Prints "port N" once it listens; runs until killed.

    smtp_server.py CERT KEY USER PASSWORD OUT_DIR
"""
import os
import ssl
import sys
import time

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import free_port  # noqa: E402

cert, key, user, password, out_dir = sys.argv[1:6]


class Handler:
    def __init__(self):
        self.n = 0

    async def handle_DATA(self, server, session, envelope):
        self.n += 1
        with open(os.path.join(out_dir, f"{self.n}.eml"), "wb") as f:
            f.write(envelope.original_content or envelope.content)
        return "250 OK"


def authenticator(server, session, envelope, mechanism, auth_data):
    ok = (isinstance(auth_data, LoginPassword) and auth_data.login.decode() == user
          and auth_data.password.decode() == password)
    return AuthResult(success=ok, handled=False)


ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
ctx.load_cert_chain(cert, key)
port = free_port()
controller = Controller(Handler(), hostname="127.0.0.1", port=port, tls_context=ctx,
                        require_starttls=True, auth_required=True, auth_require_tls=True,
                        authenticator=authenticator)
controller.start()
print(f"port {port}", flush=True)
try:
    while True:
        time.sleep(3600)
finally:
    controller.stop()
