"""Mailwake test OAuth 2 authorization server (Python standard library only).

Speaks, on 127.0.0.1 over plain HTTP (tests only):
  POST /device_authorization   RFC 8628 §3.1-3.2 (client_id, scope)
  GET  /device                 the verification page (the test approves through /test/approve)
  GET  /authorize              RFC 6749 §4.1.1 with PKCE (RFC 7636, S256 only): the user consents at once
                               and is redirected (302) to the loopback redirect_uri with code and state
  POST /token                  RFC 6749 §4.1.3 (authorization_code + code_verifier), §6 (refresh_token),
                               RFC 8628 §3.4 (device_code: authorization_pending, slow_down, expired_token,
                               access_denied), errors as RFC 6749 §5.2 JSON
  POST /revoke                 RFC 7009 (token, token_type_hint)
  POST /introspect             RFC 7662 (token): active, username, scope, exp, client_id, token_type
Test hooks:
  POST /test/approve  user_code=…&user=…    approves a device code as that user
  POST /test/deny     user_code=…           declines it (access_denied)
  POST /test/revoke-user user=…             revokes every refresh and access token of the user
  POST /test/drop-access user=…             forgets the user's access tokens only (the IMAP server refuses them)
  --token-file FILE           every issued token is appended there (for the tests' leak checks)
Prints its port on the first stdout line; one line per event on stderr (never a token).
"""
import argparse, base64, hashlib, http.server, json, secrets, socketserver, sys, threading, time, urllib.parse

lock = threading.Lock()
devices = {}        # device_code -> dict(user_code, client_id, scope, expires, interval, last_poll, approved_user, denied, slowed)
codes = {}          # code -> dict(client_id, redirect_uri, challenge, user, scope, expires)
refresh_tokens = {} # token -> dict(user, client_id, scope, revoked)
access_tokens = {}  # token -> dict(user, client_id, scope, exp, refresh)
args = None


def log(*parts):
    print(*parts, "t=%.3f" % time.time(), file=sys.stderr, flush=True)


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send(self, status, body, content_type="application/json", headers=()):
        data = json.dumps(body).encode() if content_type == "application/json" else body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        for n, v in headers:
            self.send_header(n, v)
        self.end_headers()
        self.wfile.write(data)

    def error(self, code, description, status=400):
        self.send(status, {"error": code, "error_description": description})

    def form(self):
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length).decode() if length else ""
        if self.command == "POST" and length and not self.headers.get("Content-Type", "").startswith("application/x-www-form-urlencoded"):
            return None
        return {k: v[0] for k, v in urllib.parse.parse_qs(raw, keep_blank_values=True).items()}

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        query = {k: v[0] for k, v in urllib.parse.parse_qs(url.query).items()}
        if url.path == "/authorize":
            return self.authorize(query)
        if url.path == "/device":
            return self.send(200, "<p>Enter the code shown by your device.</p>", "text/html")
        self.send(404, {"error": "not_found"})

    def do_POST(self):
        path = urllib.parse.urlsplit(self.path).path
        form = self.form()
        if form is None:
            return self.error("invalid_request", "the body must be application/x-www-form-urlencoded")
        handler = {"/device_authorization": self.device_authorization, "/token": self.token, "/revoke": self.revoke,
                   "/introspect": self.introspect, "/test/approve": self.approve, "/test/deny": self.deny,
                   "/test/revoke-user": self.revoke_user, "/test/drop-access": self.drop_access}.get(path)
        if handler is None:
            return self.send(404, {"error": "not_found"})
        with lock:
            handler(form)

    # MARK: clients

    def client_ok(self, form):
        client_id = form.get("client_id")
        if client_id not in args.clients:
            self.error("invalid_client", "unknown client_id", 401)
            return None
        secret = args.clients[client_id]
        if secret is not None and form.get("client_secret") != secret:
            self.error("invalid_client", "wrong client_secret", 401)
            return None
        return client_id

    # MARK: RFC 8628

    def device_authorization(self, form):
        client_id = self.client_ok(form)
        if not client_id:
            return
        device_code = secrets.token_urlsafe(24)
        user_code = "%s-%s" % (secrets.token_hex(2).upper(), secrets.token_hex(2).upper())
        base = "http://127.0.0.1:%d" % self.server.server_address[1]
        devices[device_code] = dict(user_code=user_code, client_id=client_id, scope=form.get("scope", ""),
                                    expires=time.time() + args.device_expires, interval=args.interval, last_poll=None,
                                    approved_user=None, denied=False, slowed=False)
        log("device_authorization", client_id, user_code, "scope=" + form.get("scope", ""))
        self.send(200, {"device_code": device_code, "user_code": user_code, "verification_uri": base + "/device",
                        "verification_uri_complete": base + "/device?user_code=" + user_code,
                        "expires_in": args.device_expires, "interval": args.interval})

    def approve(self, form):
        for d in devices.values():
            if d["user_code"] == form.get("user_code"):
                d["approved_user"] = form.get("user", args.user)
                log("approved", d["user_code"], d["approved_user"])
                return self.send(200, {"approved": True})
        self.send(404, {"error": "no such user_code"})

    def deny(self, form):
        for d in devices.values():
            if d["user_code"] == form.get("user_code"):
                d["denied"] = True
                log("denied", d["user_code"])
                return self.send(200, {"denied": True})
        self.send(404, {"error": "no such user_code"})

    def device_token(self, form, client_id):
        d = devices.get(form.get("device_code"))
        if d is None or d["client_id"] != client_id:
            return self.error("invalid_grant", "unknown device_code")
        now = time.time()
        if now >= d["expires"]:
            log("device_poll expired_token")
            return self.error("expired_token", "the device code expired")
        if d["denied"]:
            log("device_poll access_denied")
            return self.error("access_denied", "the user declined")
        too_fast = d["last_poll"] is not None and now - d["last_poll"] < d["interval"] - 0.05
        d["last_poll"] = now
        if too_fast:
            d["interval"] += 5
            log("device_poll slow_down too-fast interval=%d" % d["interval"])
            return self.error("slow_down", "polling too fast")
        if d["approved_user"] is None:
            log("device_poll authorization_pending")
            return self.error("authorization_pending", "the user has not approved yet")
        if args.slow_down_once and not d["slowed"]:
            d["slowed"] = True
            d["interval"] += 5
            log("device_poll slow_down interval=%d" % d["interval"])
            return self.error("slow_down", "slow down")
        del devices[form.get("device_code")]
        log("device_poll granted", d["approved_user"])
        self.issue(d["approved_user"], client_id, d["scope"], with_refresh=True)

    # MARK: RFC 6749 §4.1 + RFC 7636

    def authorize(self, query):
        client_id = query.get("client_id")
        redirect = query.get("redirect_uri", "")
        parts = urllib.parse.urlsplit(redirect)
        if client_id not in args.clients or parts.scheme != "http" or parts.hostname not in ("127.0.0.1", "::1", "localhost"):
            log("authorize refused redirect_uri")
            return self.send(400, "<p>invalid client or redirect_uri (loopback only)</p>", "text/html")
        def back(params):
            sep = "&" if parts.query else "?"
            self.send(302, "", "text/html", [("Location", redirect + sep + urllib.parse.urlencode(params))])
        state = query.get("state")
        if query.get("response_type") != "code":
            return back({"error": "unsupported_response_type", "state": state or ""})
        if query.get("code_challenge_method") != "S256" or not query.get("code_challenge"):
            log("authorize refused no-pkce")
            return back({"error": "invalid_request", "error_description": "PKCE S256 required", "state": state or ""})
        code = secrets.token_urlsafe(24)
        codes[code] = dict(client_id=client_id, redirect_uri=redirect, challenge=query["code_challenge"],
                           user=query.get("login_hint") or args.user, scope=query.get("scope", ""), expires=time.time() + 600)
        log("authorize", client_id, "user=" + codes[code]["user"], "scope=" + codes[code]["scope"])
        back({"code": code, "state": state or ""})

    def code_token(self, form, client_id):
        c = codes.pop(form.get("code", ""), None)   # single use (RFC 6749 §4.1.2)
        if c is None or c["client_id"] != client_id or time.time() > c["expires"]:
            log("token authorization_code invalid_grant unknown-code")
            return self.error("invalid_grant", "unknown, used or expired code")
        if form.get("redirect_uri") != c["redirect_uri"]:
            log("token authorization_code invalid_grant redirect_uri")
            return self.error("invalid_grant", "redirect_uri differs from the authorization request")
        verifier = form.get("code_verifier", "")
        if not (43 <= len(verifier) <= 128) or b64url(hashlib.sha256(verifier.encode()).digest()) != c["challenge"]:
            log("token authorization_code invalid_grant pkce")
            return self.error("invalid_grant", "code_verifier does not match the code_challenge")
        log("token authorization_code granted", c["user"])
        self.issue(c["user"], client_id, c["scope"], with_refresh=True)

    # MARK: RFC 6749 §6

    def refresh(self, form, client_id):
        r = refresh_tokens.get(form.get("refresh_token", ""))
        if r is None or r["revoked"] or r["client_id"] != client_id:
            log("token refresh_token invalid_grant")
            return self.error("invalid_grant", "the refresh token is invalid, expired or revoked")
        log("token refresh_token granted", r["user"])
        if args.rotate:
            r["revoked"] = True
        self.issue(r["user"], client_id, r["scope"], with_refresh=args.rotate, refresh=form["refresh_token"])

    def token(self, form):
        client_id = self.client_ok(form)
        if not client_id:
            return
        grant = form.get("grant_type")
        if grant == "urn:ietf:params:oauth:grant-type:device_code":
            return self.device_token(form, client_id)
        if grant == "authorization_code":
            return self.code_token(form, client_id)
        if grant == "refresh_token":
            return self.refresh(form, client_id)
        self.error("unsupported_grant_type", "grant_type %s" % grant)

    def issue(self, user, client_id, scope, with_refresh, refresh=None):
        access = "at-" + secrets.token_urlsafe(24)
        body = {"access_token": access, "token_type": "Bearer", "expires_in": args.access_expires, "scope": scope}
        if with_refresh:
            refresh = "rt-" + secrets.token_urlsafe(32)
            refresh_tokens[refresh] = dict(user=user, client_id=client_id, scope=scope, revoked=False)
            body["refresh_token"] = refresh
        if args.token_file:   # test hook: the tests check these never reach a log or the database unsealed
            with open(args.token_file, "a") as f:
                f.write("access %s\n" % access + ("refresh %s\n" % body["refresh_token"] if with_refresh else ""))
        access_tokens[access] = dict(user=user, client_id=client_id, scope=scope, exp=int(time.time()) + args.access_expires, refresh=refresh)
        self.send(200, body)

    # MARK: RFC 7009, RFC 7662

    def revoke(self, form):
        token = form.get("token", "")
        if token in refresh_tokens:
            refresh_tokens[token]["revoked"] = True
            for a in [a for a, v in access_tokens.items() if v["refresh"] == token]:
                del access_tokens[a]
            log("revoke refresh_token")
        elif access_tokens.pop(token, None) is not None:
            log("revoke access_token")
        self.send(200, {})   # RFC 7009 §2.2: 200 also for an unknown token

    def introspect(self, form):
        a = access_tokens.get(form.get("token", ""))
        if a is None or a["exp"] <= time.time():
            log("introspect inactive")
            return self.send(200, {"active": False})
        log("introspect active", a["user"])
        self.send(200, {"active": True, "username": a["user"], "scope": a["scope"], "exp": a["exp"], "client_id": a["client_id"], "token_type": "Bearer"})

    def revoke_user(self, form):
        user = form.get("user", args.user)
        for r in refresh_tokens.values():
            if r["user"] == user:
                r["revoked"] = True
        self.drop_access(form, quiet=True)
        log("revoked user", user)
        self.send(200, {"revoked": user})

    def drop_access(self, form, quiet=False):
        user = form.get("user", args.user)
        for a in [a for a, v in access_tokens.items() if v["user"] == user]:
            del access_tokens[a]
        if not quiet:
            log("dropped access tokens", user)
            self.send(200, {"dropped": user})


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    global args
    parser = argparse.ArgumentParser()
    parser.add_argument("--client", action="append", default=[], help="ID or ID:SECRET (repeatable)")
    parser.add_argument("--user", default="alice", help="who consents at /authorize without a login_hint")
    parser.add_argument("--interval", type=int, default=1)
    parser.add_argument("--device-expires", type=int, default=600)
    parser.add_argument("--access-expires", type=int, default=3600)
    parser.add_argument("--slow-down-once", action="store_true", help="answer slow_down once, on the first poll after approval")
    parser.add_argument("--rotate", action="store_true", help="issue a new refresh token on every refresh (the old one stops working)")
    parser.add_argument("--token-file", help="append every issued token to this file (test hook)")
    args = parser.parse_args()
    args.clients = {}
    for c in args.client:
        cid, _, secret = c.partition(":")
        args.clients[cid] = secret or None
    server = Server(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
