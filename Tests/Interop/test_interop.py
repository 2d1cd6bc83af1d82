"""Interop tests for the Mailwake protocol v1, PROTOCOL.md revision 2 (stdlib unittest).

  python3 -m unittest discover -s Tests/Interop -v

(a) the Swift-generated vectors (Tests/Vectors/protocol-v1.json, or the file
    named by MAILWAKE_VECTORS) are checked by the independent implementation;
(b) the Python implementation is tested on its own (RFC 5869, round trips,
    every tampered field fails with the right code) and the checker is tested
    against vectors the Python side generates;
(c) with MAILWAKE_PROTOCOL_CLI naming the Swift ``mailwake-protocol`` binary,
    round trips run in both directions through the two CLIs.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import os
import shlex
import stat
import subprocess
import sys
import tempfile
import unittest
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import check_vectors  # noqa: E402
import mailwake_ref as mw  # noqa: E402
from mailwake_ref import ProtocolError, b64u_decode, b64u_encode  # noqa: E402

VECTORS = os.environ.get("MAILWAKE_VECTORS") or os.path.join(os.path.dirname(HERE), "Vectors", "protocol-v1.json")
PY_CLI = os.path.join(HERE, "mailwake_py_cli.py")

AUD = "https://push.example.net"
IAT = 1764400000


def flip(data: bytes, index: int = 0, bit: int = 0) -> bytes:
    out = bytearray(data)
    out[index] ^= 1 << bit
    return bytes(out)


def flip_b64u(text: str, index: int = 0, bit: int = 0) -> str:
    return b64u_encode(flip(b64u_decode(text), index, bit))


def flip_text(text: str, index: int = 0) -> str:
    """Flip the lowest bit of one ASCII character (stays printable ASCII)."""
    return text[:index] + chr(ord(text[index]) ^ 1) + text[index + 1 :]


def flip_hex(text: str, index: int) -> str:
    """Flip the lowest bit of one hex digit, keeping it a lower-case hex digit
    (a tampered event_id that is still a well-formed UUIDv7)."""
    return text[:index] + format(int(text[index], 16) ^ 1, "x") + text[index + 1 :]


def cli_safe_random(n: int) -> bytes:
    """n random bytes whose b64u does not start with '-': such a value after a
    flag (``--pairing -x...``) reads as an option to most argument parsers."""
    while True:
        data = os.urandom(n)
        if not b64u_encode(data).startswith("-"):
            return data


def new_pairing_id() -> str:
    return b64u_encode(cli_safe_random(16))


def new_event_id() -> str:
    """A lower-case UUIDv7 (48-bit ms timestamp, version 7, RFC 4122 variant)."""
    ms = int.from_bytes(os.urandom(6), "big") >> 1
    rand = int.from_bytes(os.urandom(10), "big")
    value = (ms << 80) | (0x7 << 76) | ((rand >> 68) & 0xFFF) << 64 | (0b10 << 62) | (rand & ((1 << 62) - 1))
    return str(uuid.UUID(int=value))


def activity(event: str = "update") -> dict:
    return {"id": "act-1", "event": event, "timestamp": IAT, "stale_date": IAT + 3600, "dismissal_date": 0}


def forge_relay_consent(
    *, relay_token: bytes, outpost_public: bytes, pairing_id: str, exp: int, aud: str = AUD,
    device_signing_private: bytes = None, mac_key: bytes = None,
) -> dict:
    """What a relay could make on its own: it knows ``relay_token`` (and its
    hash), the outpost key, pairing and aud, but not ``cred`` or ``mac_key``.
    It signs with keys of its own and MACs with the best key it has (by
    default the relay token itself); the outpost must say ``bad_mac``."""
    dsk = device_signing_private or mw.new_private_key()
    dsk_pub = mw.public_from_private(dsk)
    dak_pub = mw.public_from_private(mw.new_private_key())
    device_id = mw.key_id(dsk_pub)
    data = mw.consent_input(
        pairing_id=pairing_id, outpost_public=outpost_public, aud=aud, device_id=device_id,
        device_signing_key=dsk_pub, device_agreement_key=dak_pub, exp=exp,
    )  # fmt: skip
    return {
        "v": 2, "pairing_id": pairing_id, "device_id": device_id,
        "device_signing_key": b64u_encode(dsk_pub), "device_agreement_key": b64u_encode(dak_pub), "exp": exp,
        "sig": b64u_encode(mw.ecdsa_sign(dsk, data)),
        "mac": b64u_encode(mw.consent_mac(relay_token if mac_key is None else mac_key, data)),
    }  # fmt: skip


# --------------------------------------------------------------------------
# Python-generated vectors in the README schema (to test the checker itself)
# --------------------------------------------------------------------------


def build_sample_vectors() -> dict:
    outpost = mw.new_private_key()
    outpost_pub = mw.public_from_private(outpost)
    device_sign = mw.new_private_key()
    device_sign_pub = mw.public_from_private(device_sign)
    device_agree = mw.new_private_key()
    device_agree_pub = mw.public_from_private(device_agree)
    pid = new_pairing_id()
    doc: dict = {"protocol": "mailwake/v1"}

    doc["fingerprint"] = [
        {"name": "outpost", "public_key": b64u_encode(outpost_pub),
         "fingerprint": mw.fingerprint(outpost_pub), "id": mw.key_id(outpost_pub)},
    ]  # fmt: skip

    doc["context"], doc["seal"] = [], []
    for kind, act in (("notification", None), ("live-activity", activity("start"))):
        fields = dict(aud=AUD, pairing_id=pid, event_id=new_event_id(), kind=kind, iat=IAT, activity=act)
        doc["context"].append(
            {"name": kind, "alg": mw.ALG, **fields, "context": b64u_encode(mw.build_context(**fields))}
        )
        eph = mw.new_private_key()
        salt, nonce = os.urandom(32), os.urandom(12)
        plaintext = json.dumps({"mailbox": "Work", "subject": "Grüße"}, ensure_ascii=False).encode()
        s = mw.seal_detailed(
            plaintext, outpost_signing_private=outpost, device_agreement_public=device_agree_pub,
            ephemeral_private=eph, salt=salt, nonce=nonce, **fields,
        )  # fmt: skip
        doc["seal"].append(
            {
                "name": kind,
                "outpost_signing_private": b64u_encode(outpost),
                "outpost_signing_public": b64u_encode(outpost_pub),
                "device_agreement_private": b64u_encode(device_agree),
                "device_agreement_public": b64u_encode(device_agree_pub),
                "ephemeral_private": b64u_encode(eph),
                "ephemeral_public": b64u_encode(s.ephemeral_public),
                "salt": b64u_encode(salt),
                "nonce": b64u_encode(nonce),
                **fields,
                "plaintext": b64u_encode(plaintext),
                **{k: b64u_encode(getattr(s, k)) for k in ("context", "shared_secret", "info", "key", "ct", "signing_input")},
                "envelope": s.envelope,
            }
        )

    credential = os.urandom(32)
    exp = IAT + 300
    consent = mw.build_consent(
        device_signing_private=device_sign, device_agreement_public=device_agree_pub,
        outpost_public=outpost_pub, pairing_id=pid, aud=AUD, credential=credential, exp=exp,
    )  # fmt: skip
    device_id = mw.key_id(device_sign_pub)
    secrets = mw.pairing_secrets(credential)
    consent_in = mw.consent_input(
        pairing_id=pid, outpost_public=outpost_pub, aud=AUD, device_id=device_id,
        device_signing_key=device_sign_pub, device_agreement_key=device_agree_pub, exp=exp,
    )  # fmt: skip
    doc["consent"] = [
        {"name": "basic", "outpost_public": b64u_encode(outpost_pub),
         "device_signing_private": b64u_encode(device_sign), "device_signing_public": b64u_encode(device_sign_pub),
         "device_agreement_public": b64u_encode(device_agree_pub), "pairing_id": pid, "aud": AUD,
         "credential": b64u_encode(credential), "exp": exp, "device_id": device_id,
         "relay_token": b64u_encode(secrets.relay_token), "relay_token_hash": b64u_encode(secrets.relay_token_hash),
         "mac_key": b64u_encode(secrets.mac_key), "consent_input": b64u_encode(consent_in),
         "mac": b64u_encode(mw.consent_mac(secrets.mac_key, consent_in)), "consent": consent,
         "submission": mw.build_consent_submission(consent, credential=credential)},
    ]  # fmt: skip

    token = os.urandom(32)
    scopes = ["push", "content", "manage"]
    body = mw.build_manage_consent(
        device_signing_private=device_sign, device_agreement_public=device_agree_pub,
        outpost_public=outpost_pub, token=token, scopes=scopes, exp=exp,
    )  # fmt: skip
    manage_si = mw.manage_consent_signing_input(
        outpost_public=outpost_pub, device_id=device_id, device_signing_key=device_sign_pub,
        device_agreement_key=device_agree_pub, token=token, scopes=scopes, exp=exp,
    )  # fmt: skip
    doc["manage_consent"] = [
        {"name": "all scopes", "outpost_public": b64u_encode(outpost_pub),
         "device_signing_private": b64u_encode(device_sign), "device_signing_public": b64u_encode(device_sign_pub),
         "device_agreement_public": b64u_encode(device_agree_pub), "token": b64u_encode(token),
         "scopes": scopes, "exp": exp, "device_id": device_id,
         "signing_input": b64u_encode(manage_si), "body": body},
    ]  # fmt: skip

    payload = {"v": 1, "o": mw.key_id(outpost_pub), "d": device_id, "m": "mbx-1",
               "f": "Archiv/2025 Entwürfe", "uv": 1700000000, "u": 4711, "iat": IAT}  # fmt: skip
    ref = mw.build_ref(outpost, payload)
    payload_bytes = mw.ref_payload_bytes(payload)
    doc["ref"] = [
        {"name": "basic", "outpost_signing_private": b64u_encode(outpost),
         "outpost_signing_public": b64u_encode(outpost_pub), "payload": payload,
         "ref_payload": b64u_encode(payload_bytes),
         "signing_input": b64u_encode(mw.ref_signing_input(payload_bytes)), "ref": ref},
    ]  # fmt: skip

    req_nonce, req_body = os.urandom(16), b'{"pairing_id":"x"}'
    req = dict(method="POST", origin=AUD, path="/v1/pairings?x=1", body=req_body)
    header = mw.sign_request(outpost, ts=IAT, nonce=req_nonce, **req)
    doc["request"] = [
        {"name": "post", "signing_private": b64u_encode(outpost), "signing_public": b64u_encode(outpost_pub),
         "keyid": mw.key_id(outpost_pub), "method": "POST", "origin": AUD, "path": req["path"], "ts": IAT,
         "nonce": b64u_encode(req_nonce), "body": b64u_encode(req_body),
         "signing_input": b64u_encode(mw.request_signing_input("POST", AUD, req["path"], IAT, req_nonce, req_body)),
         "header": header},
    ]  # fmt: skip

    pin, cred = os.urandom(32), credential
    pair_params = {"v": 2, "ok": b64u_encode(outpost_pub), "relay": AUD, "env": "sandbox",
                   "pid": pid, "cred": b64u_encode(cred), "exp": exp}  # fmt: skip
    manage_params = {"v": 1, "ok": b64u_encode(outpost_pub), "url": "https://home.example:8443",
                     "pin": b64u_encode(pin), "tok": b64u_encode(token), "scope": "manage,content,push",
                     "exp": exp, "relay": AUD, "env": "production", "pid": pid, "cred": b64u_encode(cred)}  # fmt: skip
    pair_link = mw.build_pair_link(outpost_public=outpost_pub, relay=AUD, env="sandbox",
                                   pairing_id=pid, credential=cred, exp=exp)  # fmt: skip
    manage_link = mw.build_manage_link(
        outpost_public=outpost_pub, url="https://home.example:8443", pin=pin, token=token,
        scopes=["manage", "content", "push"], exp=exp, relay=AUD, env="production", pairing_id=pid, credential=cred,
    )  # fmt: skip
    doc["links"] = [
        {"name": "pair", "kind": "pair", "params": pair_params, "link": pair_link},
        {"name": "manage+push", "kind": "manage", "params": manage_params, "link": manage_link},
    ]

    env = doc["seal"][0]["envelope"]
    open_input = {"envelope": env, "device_agreement_private": b64u_encode(device_agree),
                  "outpost_public": b64u_encode(outpost_pub), "aud": AUD, "pairing_id": pid}  # fmt: skip
    neg = []

    def add(name, operation, error, **changes):
        base = {
            "open": open_input,
            "verify_envelope": {"envelope": env, "outpost_public": b64u_encode(outpost_pub)},
            "verify_consent": {"consent": consent, "outpost_public": b64u_encode(outpost_pub),
                               "credential": b64u_encode(credential), "aud": AUD, "pairing_id": pid, "now": IAT},
            "verify_manage_consent": {"body": body, "outpost_public": b64u_encode(outpost_pub),
                                      "token": b64u_encode(token), "offered_scopes": scopes, "now": IAT},
            "verify_ref": {"ref": ref, "outpost_public": b64u_encode(outpost_pub), "device_id": device_id},
            "verify_request": {"header": header, "method": "POST", "origin": AUD, "path": req["path"],
                               "body": b64u_encode(req_body), "public_key": b64u_encode(outpost_pub), "now": IAT},
            "parse_link": {"link": pair_link},
        }[operation]  # fmt: skip
        neg.append({"name": name, "operation": operation, "input": {**copy.deepcopy(base), **changes}, "error": error})

    add("ct flipped", "open", "bad_signature", envelope={**env, "ct": flip_b64u(env["ct"])})
    add("wrong aud", "open", "wrong_audience", aud="https://other.example")
    add("replay", "open", "replayed", seen_event_ids=[env["event_id"]])
    add("unknown field", "verify_envelope", "malformed", envelope={**env, "x": 1})
    add("consent expired", "verify_consent", "expired", now=exp + 1)
    forged = forge_relay_consent(relay_token=secrets.relay_token, outpost_public=outpost_pub, pairing_id=pid, exp=exp)
    add("relay's own consent", "verify_consent", "bad_mac", consent=forged)
    add("mac bit flipped", "verify_consent", "bad_mac", consent={**consent, "mac": flip_b64u(consent["mac"], 31, 7)})
    add("consent checked for another aud", "verify_consent", "bad_mac", aud="https://push.example.org")
    add("consent revision 1", "verify_consent", "upgrade_required",
        consent={k: x for k, x in {**consent, "v": 1}.items() if k != "mac"})  # fmt: skip
    add("scope not offered", "verify_manage_consent", "scope_not_offered", offered_scopes=["push"])
    add("token of another invitation", "verify_manage_consent", "bad_credential", token=b64u_encode(os.urandom(32)))
    raw_env = json.dumps(env)
    neg_json = {k: v for k, v in open_input.items() if k != "envelope"}
    neg.append({"name": "trailing bytes", "operation": "open", "error": "malformed",
                "input": {**neg_json, "envelope_json": raw_env + "x"}})  # fmt: skip
    add("ref other device", "verify_ref", "wrong_key", device_id="AAAAAAAAAAAAAAAAAAAAAA")
    add("request skew", "verify_request", "clock_skew", now=IAT + 301)
    add("link out of order", "parse_link", "malformed", link=pair_link.replace("v=2&", "") + "&v=2")
    add("pair link revision 1", "parse_link", "upgrade_required", link=pair_link.replace("v=2&", "v=1&"))
    add("pair link v=3", "parse_link", "malformed", link=pair_link.replace("v=2&", "v=3&"))
    add("manage link v=2", "parse_link", "malformed", link=manage_link.replace("v=1&", "v=2&"))
    doc["negative"] = neg
    return doc


# --------------------------------------------------------------------------
# (a) Swift vectors
# --------------------------------------------------------------------------


class SwiftVectorsTest(unittest.TestCase):
    def test_vectors_file(self):
        if not os.path.exists(VECTORS):
            self.skipTest(f"{VECTORS} not present yet (generate it with `mailwake-protocol vectors`)")
        summary = check_vectors.check_file(VECTORS)
        self.assertGreater(summary["checked"], 0)
        self.assertEqual(summary["failed"], [], json.dumps(summary, indent=2, ensure_ascii=False))


class CheckerSelfTest(unittest.TestCase):
    """The checker accepts correct vectors and catches wrong ones."""

    @classmethod
    def setUpClass(cls):
        cls.doc = build_sample_vectors()

    def test_sample_vectors_pass(self):
        summary = check_vectors.check_document(copy.deepcopy(self.doc))
        self.assertEqual(summary["failed"], [], json.dumps(summary, indent=2))
        self.assertEqual(summary["checked"], sum(len(v) for k, v in self.doc.items() if k != "protocol"))

    def test_script_exit_codes(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "v.json")
            with open(path, "w") as f:
                json.dump(self.doc, f)
            ok = subprocess.run([sys.executable, os.path.join(HERE, "check_vectors.py"), path], capture_output=True)
            self.assertEqual(ok.returncode, 0, ok.stdout + ok.stderr)
            self.assertEqual(json.loads(ok.stdout)["failed"], [])
            bad = copy.deepcopy(self.doc)
            bad["context"][0]["context"] = flip_b64u(bad["context"][0]["context"], 40)
            with open(path, "w") as f:
                json.dump(bad, f)
            res = subprocess.run([sys.executable, os.path.join(HERE, "check_vectors.py"), path], capture_output=True)
            self.assertEqual(res.returncode, 1)
            self.assertEqual(len(json.loads(res.stdout)["failed"]), 1)

    def assertCaught(self, mutate, section):
        doc = copy.deepcopy(self.doc)
        mutate(doc)
        failed = check_vectors.check_document(doc)["failed"]
        self.assertTrue(failed, "mutation was not detected")
        self.assertEqual({f["section"] for f in failed}, {section}, failed)

    def test_detects_wrong_bytes(self):
        self.assertCaught(lambda d: d["fingerprint"][0].update(id="A" * 22), "fingerprint")
        for field in ("shared_secret", "info", "key", "ct", "signing_input", "context"):
            self.assertCaught(lambda d, f=field: d["seal"][0].update({f: flip_b64u(d["seal"][0][f], 3)}), "seal")
        self.assertCaught(lambda d: d["seal"][1]["envelope"].update(sig=flip_b64u(d["seal"][1]["envelope"]["sig"], 5)), "seal")
        self.assertCaught(lambda d: d["consent"][0]["consent"].update(exp=1), "consent")
        for field in ("relay_token", "relay_token_hash", "mac_key", "consent_input", "mac"):
            self.assertCaught(lambda d, f=field: d["consent"][0].update({f: flip_b64u(d["consent"][0][f], 7)}), "consent")
        self.assertCaught(lambda d: d["consent"][0]["consent"].update(mac=flip_b64u(d["consent"][0]["consent"]["mac"], 1)), "consent")
        self.assertCaught(lambda d: d["consent"][0]["consent"].update(v=1), "consent")
        self.assertCaught(lambda d: d["consent"][0].update(aud="https://push.example.org"), "consent")
        self.assertCaught(lambda d: d["consent"][0]["submission"].update(
            relay_token=b64u_encode(d["consent"][0]["credential"].encode()[:32])), "consent")  # fmt: skip
        self.assertCaught(lambda d: d["consent"][0]["submission"]["consent"].update(
            mac=d["consent"][0]["relay_token"]), "consent")  # fmt: skip
        self.assertCaught(lambda d: d["links"][0].update(link=d["links"][0]["link"].replace("v=2&", "v=1&")), "links")
        self.assertCaught(lambda d: d["links"][0]["params"].update(v=1), "links")
        self.assertCaught(lambda d: d["manage_consent"][0].update(scopes=["push"]), "manage_consent")
        self.assertCaught(lambda d: d["ref"][0].update(ref_payload=b64u_encode(b" " + b64u_decode(d["ref"][0]["ref_payload"]))), "ref")
        self.assertCaught(lambda d: d["request"][0].update(header=d["request"][0]["header"].replace(", ", ",")), "request")
        self.assertCaught(lambda d: d["links"][1].update(link=d["links"][1]["link"].replace("%3A", "%3a")), "links")

    def test_detects_wrong_error_code(self):
        self.assertCaught(lambda d: d["negative"][0].update(error="decryption_failed"), "negative")
        self.assertCaught(lambda d: d["negative"][1]["input"].update(aud=AUD), "negative")  # now succeeds

    def test_missing_section_is_reported(self):
        self.assertCaught(lambda d: d.pop("ref"), "ref")


# --------------------------------------------------------------------------
# (b) The Python implementation on its own
# --------------------------------------------------------------------------


class HKDFTest(unittest.TestCase):
    """RFC 5869 Appendix A, test cases 1-3 (SHA-256)."""

    def test_rfc5869(self):
        cases = [
            (bytes([0x0B] * 22), bytes(range(0x00, 0x0D)), bytes(range(0xF0, 0xFA)), 42,
             "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"),
            (bytes(range(0x00, 0x50)), bytes(range(0x60, 0xB0)), bytes(range(0xB0, 0x100)), 82,
             "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c"
             "59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71"
             "cc30c58179ec3e87c14c01d5c1f3434f1d87"),
            (bytes([0x0B] * 22), b"", b"", 42,
             "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"),
        ]  # fmt: skip
        for ikm, salt, info, length, okm in cases:
            self.assertEqual(mw.hkdf_sha256(ikm, salt, info, length).hex(), okm)


class EncodingTest(unittest.TestCase):
    def test_b64u_round_trip(self):
        for n in range(0, 40):
            data = os.urandom(n)
            self.assertEqual(b64u_decode(b64u_encode(data)), data)

    def test_b64u_strict(self):
        for bad in ("AA==", "A", "AB+/", "AB/_", "AB C", "AB\n", "AR", "AAB", "ÄA", 5, None):
            with self.assertRaises(ProtocolError) as cm:
                b64u_decode(bad)
            self.assertEqual(cm.exception.code, "malformed", bad)
        self.assertEqual(b64u_decode("AQ"), b"\x01")
        self.assertEqual(b64u_decode(""), b"")
        with self.assertRaises(ProtocolError):
            b64u_decode("AQ", length=2)

    def test_lp_u64(self):
        self.assertEqual(mw.lp("ab"), b"\x00\x00\x00\x02ab")
        self.assertEqual(mw.lp(b""), b"\x00\x00\x00\x00")
        self.assertEqual(mw.lp("é"), b"\x00\x00\x00\x02\xc3\xa9")
        self.assertEqual(mw.u64be(1), b"\x00" * 7 + b"\x01")
        for bad in (-1, 2**64, True, 1.0):
            with self.assertRaises(ProtocolError):
                mw.u64be(bad)

    def test_percent_encoding(self):
        self.assertEqual(mw.percent_encode("https://a.b:8443/~x y"), "https%3A%2F%2Fa.b%3A8443%2F~x%20y")
        self.assertEqual(mw.percent_encode("ü"), "%C3%BC")
        self.assertEqual(mw.percent_decode("https%3A%2F%2Fa.b"), "https://a.b")
        for bad in ("https%3a%2F%2Fa.b", "https://a.b", "%41", "%C3", "%zz"):
            with self.assertRaises(ProtocolError, msg=bad):
                mw.percent_decode(bad)

    def test_ids_and_fingerprint(self):
        pub = mw.public_from_private(mw.new_private_key())
        digest = mw.sha256(pub)[:16]
        self.assertEqual(mw.key_id(pub), b64u_encode(digest))
        self.assertEqual(len(mw.key_id(pub)), 22)
        fp = mw.fingerprint(pub)
        self.assertRegex(fp, r"^([0-9A-F]{4} ){7}[0-9A-F]{4}$")
        self.assertEqual(fp.replace(" ", ""), digest.hex().upper())

    def test_public_key_validation(self):
        pub = mw.public_from_private(mw.new_private_key())
        for bad, code in ((flip(pub, 64), "invalid_key"), (flip(pub, 10), "invalid_key"),
                          (b"\x04" + bytes(64), "invalid_key"), (b"\x02" + pub[1:], "invalid_key"),
                          (pub[:33], "malformed"), (pub + b"\x00", "malformed")):  # fmt: skip
            with self.assertRaises(ProtocolError) as cm:
                mw.load_public_key(bad)
            self.assertEqual(cm.exception.code, code)

    def test_signature_format(self):
        priv = mw.new_private_key()
        pub = mw.public_from_private(priv)
        sig = mw.ecdsa_sign(priv, b"m")
        self.assertEqual(len(sig), 64)
        mw.ecdsa_verify(pub, b"m", sig)
        for bad, code in ((sig[:63], "malformed"), (sig + b"\x00", "malformed"), (flip(sig, 40), "bad_signature"),
                          (bytes(64), "bad_signature")):  # fmt: skip
            with self.assertRaises(ProtocolError) as cm:
                mw.ecdsa_verify(pub, b"m", bad)
            self.assertEqual(cm.exception.code, code)

    def test_context_layout(self):
        ctx = mw.build_context(aud="a", pairing_id="p", event_id="e", kind="notification", iat=1)  # no id checks here
        want = b"".join(mw.lp(x) for x in ("mailwake/ctx/v1", mw.ALG, "a", "p", "e", "notification"))
        self.assertEqual(ctx, want + mw.lp(mw.u64be(1)))
        act = {"id": "i", "event": "end", "timestamp": 2, "stale_date": 0, "dismissal_date": 3}
        live = mw.build_context(aud="a", pairing_id="p", event_id="e", kind="live-activity", iat=1, activity=act)
        tail = mw.lp("i") + mw.lp("end") + mw.lp(mw.u64be(2)) + mw.lp(mw.u64be(0)) + mw.lp(mw.u64be(3))
        self.assertTrue(live.endswith(tail))


class SealOpenTest(unittest.TestCase):
    def setUp(self):
        self.outpost = mw.new_private_key()
        self.outpost_pub = mw.public_from_private(self.outpost)
        self.device = mw.new_private_key()
        self.device_pub = mw.public_from_private(self.device)
        self.pid = new_pairing_id()
        self.plaintext = b'{"mailbox":"Work","subject":"Hello"}'

    def seal(self, kind="notification", act=None):
        return mw.seal(
            self.plaintext, outpost_signing_private=self.outpost, device_agreement_public=self.device_pub,
            aud=AUD, pairing_id=self.pid, event_id=new_event_id(), iat=IAT, kind=kind, activity=act,
        )  # fmt: skip

    def open(self, env, **overrides):
        args = dict(device_agreement_private=self.device, outpost_public=self.outpost_pub, aud=AUD, pairing_id=self.pid)
        args.update(overrides)
        return mw.open_envelope(env, **args)

    def resign(self, env):
        """Re-sign a tampered envelope with the outpost key, to reach the checks after the signature."""
        e = mw.parse_envelope(env)
        return {**env, "sig": b64u_encode(mw.ecdsa_sign(self.outpost, e.signing_input()))}

    def assertCode(self, code, fn, *args, **kwargs):
        with self.assertRaises(ProtocolError) as cm:
            fn(*args, **kwargs)
        self.assertEqual(cm.exception.code, code, cm.exception.message)

    def test_round_trip(self):
        env = self.seal()
        self.assertEqual(list(env), list(mw.ENVELOPE_FIELDS))
        self.assertEqual(self.open(env), self.plaintext)
        self.assertEqual(self.open(json.dumps(env).encode()), self.plaintext)  # JSON bytes too
        mw.verify_envelope(env, self.outpost_pub)

    def test_round_trip_live_activity(self):
        env = self.seal("live-activity", activity("start"))
        self.assertEqual(env["activity"], activity("start"))
        self.assertEqual(self.open(env), self.plaintext)

    def test_injected_randomness_is_deterministic(self):
        kwargs = dict(
            outpost_signing_private=self.outpost, device_agreement_public=self.device_pub, aud=AUD,
            pairing_id=self.pid, event_id=new_event_id(), iat=IAT, ephemeral_private=mw.new_private_key(),
            salt=os.urandom(32), nonce=os.urandom(12),
        )  # fmt: skip
        a, b = mw.seal_detailed(b"x", **kwargs), mw.seal_detailed(b"x", **kwargs)
        self.assertEqual((a.ct, a.key, a.info, a.signing_input), (b.ct, b.key, b.info, b.signing_input))
        self.assertEqual(a.shared_secret, mw.ecdh(self.device, a.ephemeral_public))
        self.assertEqual(a.info, a.context + mw.lp(a.ephemeral_public) + mw.lp(self.device_pub))
        self.assertEqual(len(a.ct), 1 + 16)

    def test_bit_flips_fail_signature(self):
        """Every field is covered by the outpost signature: any flip is bad_signature."""
        env = self.seal()
        ct_len = len(b64u_decode(env["ct"]))
        tampered = {
            "ct": {**env, "ct": flip_b64u(env["ct"], 0)},
            "tag": {**env, "ct": flip_b64u(env["ct"], ct_len - 1, 7)},
            "epk": {**env, "epk": flip_b64u(env["epk"], 20)},
            "salt": {**env, "salt": flip_b64u(env["salt"], 31)},
            "nonce": {**env, "nonce": flip_b64u(env["nonce"], 5)},
            "sig": {**env, "sig": flip_b64u(env["sig"], 63)},
            "aud": {**env, "aud": flip_text(env["aud"], len(env["aud"]) - 1)},
            "pairing_id": {**env, "pairing_id": flip_b64u(env["pairing_id"], 0)},
            "event_id": {**env, "event_id": flip_hex(env["event_id"], 3)},
            "iat": {**env, "iat": env["iat"] ^ 1},
        }
        for field, bad in tampered.items():
            with self.subTest(field=field):
                self.assertCode("bad_signature", self.open, bad)
                self.assertCode("bad_signature", mw.verify_envelope, bad, self.outpost_pub)

    def test_bit_flips_after_resigning(self):
        """With a valid signature over the tampered fields, the later checks catch each flip."""
        env = self.seal()
        ct_len = len(b64u_decode(env["ct"]))
        cases = {
            "ct": ({**env, "ct": flip_b64u(env["ct"], 0)}, "decryption_failed"),
            "tag": ({**env, "ct": flip_b64u(env["ct"], ct_len - 1, 7)}, "decryption_failed"),
            "epk": ({**env, "epk": flip_b64u(env["epk"], 20)}, "invalid_key"),
            "salt": ({**env, "salt": flip_b64u(env["salt"], 31)}, "decryption_failed"),
            "nonce": ({**env, "nonce": flip_b64u(env["nonce"], 5)}, "decryption_failed"),
            "aud": ({**env, "aud": flip_text(env["aud"], len(env["aud"]) - 1)}, "wrong_audience"),
            "pairing_id": ({**env, "pairing_id": flip_b64u(env["pairing_id"], 0)}, "wrong_pairing"),
            "event_id": ({**env, "event_id": flip_hex(env["event_id"], 3)}, "decryption_failed"),
            "iat": ({**env, "iat": env["iat"] ^ 1}, "decryption_failed"),
        }
        for field, (bad, code) in cases.items():
            with self.subTest(field=field):
                self.assertCode(code, self.open, self.resign(bad))

    def test_receiver_checks(self):
        env = self.seal()
        self.assertCode("wrong_audience", self.open, env, aud="https://push.example.org")
        self.assertCode("wrong_pairing", self.open, env, pairing_id=new_pairing_id())
        self.assertCode("bad_signature", self.open, env, outpost_public=mw.public_from_private(mw.new_private_key()))
        self.assertCode("invalid_key", self.open, env, outpost_public=flip(self.outpost_pub, 64))
        self.assertCode("decryption_failed", self.open, env, device_agreement_private=mw.new_private_key())
        seen: set = set()
        self.assertEqual(self.open(env, seen_event_ids=seen), self.plaintext)
        self.assertEqual(seen, {env["event_id"]})
        self.assertCode("replayed", self.open, env, seen_event_ids=seen)

    def test_shape_checks(self):
        env = self.seal()
        live = self.seal("live-activity", activity())
        no_activity = {k: v for k, v in live.items() if k != "activity"}
        bad_envelopes = {
            "unknown field": {**env, "extra": 1},
            "missing field": {k: v for k, v in env.items() if k != "salt"},
            "v 2": {**env, "v": 2},
            "v true": {**env, "v": True},
            "v string": {**env, "v": "1"},
            "alg": {**env, "alg": "P256-HKDF-SHA256-A128GCM"},
            "kind": {**env, "kind": "alert"},
            "activity on notification": {**env, "activity": activity()},
            "live without activity": no_activity,
            "activity bad event": {**live, "activity": {**activity(), "event": "pause"}},
            "activity extra field": {**live, "activity": {**activity(), "x": 0}},
            "activity missing date": {**live, "activity": {k: v for k, v in activity().items() if k != "stale_date"}},
            "iat float": {**env, "iat": float(IAT)},
            "iat negative": {**env, "iat": -1},
            "epk short": {**env, "epk": b64u_encode(b64u_decode(env["epk"])[:33])},
            "salt short": {**env, "salt": b64u_encode(os.urandom(31))},
            "nonce long": {**env, "nonce": b64u_encode(os.urandom(16))},
            "sig short": {**env, "sig": b64u_encode(b64u_decode(env["sig"])[:63])},
            "ct short": {**env, "ct": b64u_encode(os.urandom(15))},
            "ct padded": {**env, "ct": env["ct"] + "=" * (-len(env["ct"]) % 4 or 4)},
            "aud not string": {**env, "aud": 5},
            "event_id upper case": {**env, "event_id": env["event_id"].upper()},
            "event_id UUIDv4": {**env, "event_id": str(uuid.uuid4())},
            "event_id no dashes": {**env, "event_id": env["event_id"].replace("-", "")},
            "pairing_id 15 bytes": {**env, "pairing_id": b64u_encode(os.urandom(15))},
            "pairing_id not b64u": {**env, "pairing_id": "p" * 21 + "="},
        }
        for name, bad in bad_envelopes.items():
            with self.subTest(name):
                self.assertCode("malformed", self.open, bad)
                self.assertCode("malformed", mw.verify_envelope, bad, self.outpost_pub)
        self.assertCode("malformed", self.open, b'{"v":1,"v":1}')
        self.assertCode("malformed", self.open, b"[]")
        self.assertCode("malformed", self.open, b"\xff")
        # A JSON null activity on a notification reads as absent.
        self.assertEqual(self.open({**env, "activity": None}), self.plaintext)


class SignedObjectsTest(unittest.TestCase):
    def setUp(self):
        self.outpost = mw.new_private_key()
        self.outpost_pub = mw.public_from_private(self.outpost)
        self.dsk = mw.new_private_key()
        self.dsk_pub = mw.public_from_private(self.dsk)
        self.dak_pub = mw.public_from_private(mw.new_private_key())
        self.device_id = mw.key_id(self.dsk_pub)

    def assertCode(self, code, fn, *args, **kwargs):
        with self.assertRaises(ProtocolError) as cm:
            fn(*args, **kwargs)
        self.assertEqual(cm.exception.code, code, cm.exception.message)

    def test_pairing_secrets(self):
        cred = os.urandom(32)
        sec = mw.pairing_secrets(cred)
        # HKDF with no salt is HKDF with 32 zero bytes (RFC 5869 §2.2); written out by hand here.
        prk = hmac.new(bytes(32), cred, hashlib.sha256).digest()
        self.assertEqual(sec.relay_token, hmac.new(prk, b"mailwake/pair/relay-token/v2\x01", hashlib.sha256).digest())
        self.assertEqual(sec.mac_key, hmac.new(prk, b"mailwake/pair/consent-mac/v2\x01", hashlib.sha256).digest())
        self.assertEqual(sec.relay_token_hash, mw.sha256(sec.relay_token))
        self.assertNotEqual(sec.relay_token, sec.mac_key)
        self.assertEqual(mw.check_relay_token(b64u_encode(sec.relay_token), sec.relay_token_hash), sec.relay_token)
        self.assertCode("bad_credential", mw.check_relay_token, sec.mac_key, sec.relay_token_hash)
        self.assertCode("bad_credential", mw.check_relay_token, cred, sec.relay_token_hash)
        self.assertCode("malformed", mw.pairing_secrets, cred[:31])

    def test_consent(self):
        pid, cred = new_pairing_id(), os.urandom(32)
        c = mw.build_consent(device_signing_private=self.dsk, device_agreement_public=self.dak_pub,
                             outpost_public=self.outpost_pub, pairing_id=pid, aud=AUD, credential=cred, exp=IAT)  # fmt: skip
        self.assertEqual(list(c), list(mw.CONSENT_FIELDS))
        self.assertEqual(c["v"], 2)
        data = mw.consent_input(pairing_id=pid, outpost_public=self.outpost_pub, aud=AUD, device_id=self.device_id,
                                device_signing_key=self.dsk_pub, device_agreement_key=self.dak_pub, exp=IAT)  # fmt: skip
        self.assertEqual(
            data,
            mw.lp("mailwake/consent/v2") + mw.lp(pid) + mw.lp(mw.sha256(self.outpost_pub)) + mw.lp(AUD)
            + mw.lp(self.device_id) + mw.lp(self.dsk_pub) + mw.lp(self.dak_pub) + mw.lp(mw.u64be(IAT)),
        )  # fmt: skip
        self.assertEqual(b64u_decode(c["mac"]), hmac.new(mw.pairing_secrets(cred).mac_key, data, hashlib.sha256).digest())
        mw.ecdsa_verify(self.dsk_pub, data, b64u_decode(c["sig"]))
        sub = mw.build_consent_submission(c, credential=cred)
        self.assertEqual(sub, {"relay_token": b64u_encode(mw.pairing_secrets(cred).relay_token), "consent": c})
        self.assertEqual(mw.parse_consent_submission(json.dumps(sub)), (mw.pairing_secrets(cred).relay_token, c))
        self.assertCode("malformed", mw.parse_consent_submission, {**sub, "cred": b64u_encode(cred)})
        self.assertCode("malformed", mw.parse_consent_submission, {"consent": c})

        ok = dict(outpost_public=self.outpost_pub, credential=cred, aud=AUD, pairing_id=pid, now=IAT)
        self.assertEqual(mw.verify_consent(c, **ok), c)
        self.assertEqual(mw.verify_consent(json.dumps(c), **ok), c)
        self.assertCode("expired", mw.verify_consent, c, **{**ok, "now": IAT + 1})
        # Everything the mac covers and the verifier supplies itself: bad_mac, before the signature.
        self.assertCode("bad_mac", mw.verify_consent, c, **{**ok, "credential": os.urandom(32)})
        self.assertCode("bad_mac", mw.verify_consent, c, **{**ok, "outpost_public": self.dak_pub})
        self.assertCode("bad_mac", mw.verify_consent, c, **{**ok, "aud": "https://push.example.org"})
        self.assertCode("bad_mac", mw.verify_consent, {**c, "exp": IAT + 1}, **ok)
        for i, bit in ((0, 0), (15, 3), (31, 7)):
            self.assertCode("bad_mac", mw.verify_consent, {**c, "mac": flip_b64u(c["mac"], i, bit)}, **ok)
        self.assertCode("bad_mac", mw.verify_consent, {**c, "device_id": mw.key_id(self.dak_pub)}, **ok)
        self.assertCode("bad_mac", mw.verify_consent, {**c, "device_agreement_key": flip_b64u(c["device_agreement_key"], 64)}, **ok)
        # A consent for another aud, made with the right credential: still bad_mac (aud is not a field).
        other_aud = mw.build_consent(device_signing_private=self.dsk, device_agreement_public=self.dak_pub,
                                     outpost_public=self.outpost_pub, pairing_id=pid, aud="https://push.example.org",
                                     credential=cred, exp=IAT)  # fmt: skip
        self.assertCode("bad_mac", mw.verify_consent, other_aud, **ok)
        # What the relay can make: it knows relay_token and its hash, never cred or mac_key.
        sec = mw.pairing_secrets(cred)
        for key in (sec.relay_token, sec.relay_token_hash, mw.sha256(sec.relay_token + sec.relay_token_hash)):
            forged = forge_relay_consent(relay_token=sec.relay_token, outpost_public=self.outpost_pub,
                                         pairing_id=pid, exp=IAT, mac_key=key)  # fmt: skip
            self.assertCode("bad_mac", mw.verify_consent, forged, **ok)
        # The relay replays the App's mac with its own keys: still bad_mac.
        swapped = forge_relay_consent(relay_token=sec.relay_token, outpost_public=self.outpost_pub, pairing_id=pid, exp=IAT)
        self.assertCode("bad_mac", mw.verify_consent, {**swapped, "mac": c["mac"]}, **ok)

        # After the mac (re-made with the right key): keys, ids, pairing, signature.
        def remac(obj, outpost_public=self.outpost_pub, **fields):
            obj = {**obj, **fields}
            d = mw.consent_input(pairing_id=obj["pairing_id"], outpost_public=outpost_public, aud=AUD,
                                 device_id=obj["device_id"], device_signing_key=b64u_decode(obj["device_signing_key"]),
                                 device_agreement_key=b64u_decode(obj["device_agreement_key"]), exp=obj["exp"])  # fmt: skip
            return {**obj, "mac": b64u_encode(mw.consent_mac(sec.mac_key, d))}

        self.assertCode("invalid_key", mw.verify_consent,
                        remac(c, device_agreement_key=flip_b64u(c["device_agreement_key"], 64)), **ok)  # fmt: skip
        self.assertCode("invalid_key", mw.verify_consent,
                        remac(c, device_signing_key=b64u_encode(b"\x04" + bytes(64))), **ok)  # fmt: skip
        not_a_point = b"\x04" + bytes(64)
        self.assertCode("bad_mac", mw.verify_consent, c, **{**ok, "outpost_public": not_a_point})  # the mac binds it
        self.assertCode("invalid_key", mw.verify_consent, remac(c, outpost_public=not_a_point),
                        **{**ok, "outpost_public": not_a_point})  # fmt: skip
        self.assertCode("wrong_key", mw.verify_consent, remac(c, device_id=mw.key_id(self.dak_pub)), **ok)
        other_pid = new_pairing_id()
        self.assertCode("wrong_pairing", mw.verify_consent, c, **{**ok, "pairing_id": other_pid})
        self.assertCode("wrong_pairing", mw.verify_consent, remac(c, pairing_id=other_pid), **ok)
        self.assertCode("bad_signature", mw.verify_consent, remac(c, exp=IAT + 1), **ok)
        self.assertCode("bad_signature", mw.verify_consent, remac(c, sig=flip_b64u(c["sig"], 40)), **ok)
        self.assertCode("bad_signature", mw.verify_consent, remac(c, device_agreement_key=b64u_encode(self.outpost_pub)), **ok)
        # A relay that also knows mac_key (it cannot) would still need the device's signature.
        self.assertCode("bad_signature", mw.verify_consent, remac(swapped, device_signing_key=c["device_signing_key"],
                                                                  device_id=c["device_id"]), **ok)  # fmt: skip

        # Version and shape come before the mac.
        self.assertCode("upgrade_required", mw.verify_consent, {k: x for k, x in {**c, "v": 1}.items() if k != "mac"}, **ok)
        self.assertCode("upgrade_required", mw.verify_consent, {**c, "v": 1}, **ok)
        self.assertCode("upgrade_required", mw.verify_consent, {"v": 1}, **ok)
        for bad in ({**c, "v": 3}, {**c, "v": True}, {**c, "v": "2"}, {**c, "v": 2.0}, {**c, "extra": 0},
                    {k: x for k, x in c.items() if k != "mac"}, {k: x for k, x in c.items() if k != "v"},
                    {**c, "mac": b64u_encode(os.urandom(31))}, {**c, "mac": c["mac"] + "A"},
                    {**c, "sig": b64u_encode(os.urandom(63))}, {**c, "exp": -1}, {**c, "exp": float(IAT)},
                    {**c, "pairing_id": b64u_encode(os.urandom(15))}, {**c, "device_signing_key": c["device_signing_key"][:-2]},
                    [c], "x"):  # fmt: skip
            with self.subTest(bad=bad):
                self.assertCode("malformed", mw.verify_consent, bad, **ok)
        self.assertCode("malformed", mw.verify_consent, c, **{**ok, "credential": cred[:16]})
        self.assertCode("malformed", mw.verify_consent, c, **{**ok, "outpost_public": self.outpost_pub[:33]})

    def test_manage_consent(self):
        tok = os.urandom(32)
        body = mw.build_manage_consent(device_signing_private=self.dsk, device_agreement_public=self.dak_pub,
                                       outpost_public=self.outpost_pub, token=tok, scopes=["push", "content"],
                                       exp=IAT)  # fmt: skip
        si = mw.manage_consent_signing_input(
            outpost_public=self.outpost_pub, device_id=self.device_id, device_signing_key=self.dsk_pub,
            device_agreement_key=self.dak_pub, token=tok, scopes=["push", "content"], exp=IAT,
        )  # fmt: skip
        self.assertIn(mw.lp("content,push"), si)  # sorted, comma-joined
        ok = dict(outpost_public=self.outpost_pub, token=tok, offered_scopes=["manage", "content", "push"], now=IAT)
        mw.verify_manage_consent(body, **ok)
        mw.verify_manage_consent({**body, "scopes": ["content", "push"]}, **ok)  # order is free
        self.assertCode("scope_not_offered", mw.verify_manage_consent, body, **{**ok, "offered_scopes": ["content"]})
        self.assertCode("bad_credential", mw.verify_manage_consent, body, **{**ok, "token": os.urandom(32)})
        self.assertCode("bad_signature", mw.verify_manage_consent, {**body, "scopes": ["content"]}, **ok)
        self.assertCode("expired", mw.verify_manage_consent, body, **{**ok, "now": IAT + 1})
        self.assertCode("malformed", mw.verify_manage_consent, {**body, "scopes": ["push", "push"]}, **ok)
        self.assertCode("malformed", mw.verify_manage_consent, {**body, "scopes": ["admin"]}, **ok)
        self.assertCode("wrong_key", mw.verify_manage_consent, {**body, "device_id": "x"}, **ok)

    def test_ref(self):
        payload = {"v": 1, "o": mw.key_id(self.outpost_pub), "d": self.device_id, "m": "m1",
                   "f": "INBOX/Sub", "uv": 7, "u": 42, "iat": IAT}  # fmt: skip
        ref = mw.build_ref(self.outpost, payload)
        part = ref.split(".")[0]
        self.assertEqual(
            b64u_decode(part),
            ('{"v":1,"o":"%s","d":"%s","m":"m1","f":"INBOX/Sub","uv":7,"u":42,"iat":%d}'
             % (payload["o"], self.device_id, IAT)).encode(),
        )  # fmt: skip
        self.assertEqual(mw.verify_ref(ref, outpost_public=self.outpost_pub, device_id=self.device_id), payload)
        self.assertCode("wrong_key", mw.verify_ref, ref, outpost_public=self.outpost_pub, device_id="other")
        self.assertCode("bad_signature", mw.verify_ref, ref, outpost_public=self.dak_pub, device_id=self.device_id)
        raw = b64u_decode(part)
        tampered = flip(raw, raw.index(b'"m1"') + 2)  # "m1" -> "m0": still valid JSON
        self.assertCode("bad_signature", mw.verify_ref, b64u_encode(tampered) + "." + ref.split(".")[1],
                        outpost_public=self.outpost_pub, device_id=self.device_id)  # fmt: skip
        self.assertCode("malformed", mw.verify_ref, b64u_encode(flip(raw, 3)) + "." + ref.split(".")[1],
                        outpost_public=self.outpost_pub, device_id=self.device_id)  # fmt: skip
        for bad in (ref + ".x", ref.replace(".", ""), part + "." + b64u_encode(bytes(63))):
            self.assertCode("malformed", mw.verify_ref, bad, outpost_public=self.outpost_pub, device_id=self.device_id)
        # The verifier uses the bytes as given: a re-spaced but validly signed payload is accepted.
        spaced = json.dumps(payload).encode()
        ref2 = b64u_encode(spaced) + "." + b64u_encode(mw.ecdsa_sign(self.outpost, mw.ref_signing_input(spaced)))
        self.assertEqual(mw.verify_ref(ref2, outpost_public=self.outpost_pub, device_id=self.device_id), payload)

    def test_request(self):
        body, nonce = b"hello", os.urandom(16)
        req = dict(method="POST", origin=AUD, path="/v1/pairings/abc/consent?wait=30", body=body)
        header = mw.sign_request(self.dsk, ts=IAT, nonce=nonce, **req)
        self.assertRegex(header, r'^keyid="[A-Za-z0-9_-]{22}", ts="1764400000", nonce="[A-Za-z0-9_-]{22}", '
                                 r'sig="[A-Za-z0-9_-]{86}"$')  # fmt: skip
        ok = dict(public_key=self.dsk_pub, now=IAT, **req)
        self.assertEqual(mw.verify_request(header, **ok), self.device_id)
        self.assertEqual(mw.verify_request(header, **{**ok, "now": IAT + 300}), self.device_id)
        self.assertCode("clock_skew", mw.verify_request, header, **{**ok, "now": IAT + 301})
        self.assertCode("clock_skew", mw.verify_request, header, **{**ok, "now": IAT - 301})
        self.assertCode("wrong_key", mw.verify_request, header, **{**ok, "public_key": self.outpost_pub})
        self.assertCode("bad_signature", mw.verify_request, header, **{**ok, "body": b"hellO"})
        self.assertCode("bad_signature", mw.verify_request, header, **{**ok, "path": "/v1/pairings/abc/consent"})
        self.assertCode("bad_signature", mw.verify_request, header, **{**ok, "method": "GET"})
        seen: set = set()
        mw.verify_request(header, seen_nonces=seen, **ok)
        self.assertCode("replayed", mw.verify_request, header, seen_nonces=seen, **ok)
        for bad in (header.replace(", ", ","), header + " ", "Mailwake-Signature: " + header,
                    header.replace('ts="', 'ts="0'), header.replace("keyid", "kid")):  # fmt: skip
            self.assertCode("malformed", mw.verify_request, bad, **ok)

    def test_links(self):
        pid, cred, pin, tok = new_pairing_id(), os.urandom(32), os.urandom(32), os.urandom(32)
        pair = mw.build_pair_link(outpost_public=self.outpost_pub, relay=AUD, env="production",
                                  pairing_id=pid, credential=cred, exp=IAT)  # fmt: skip
        self.assertEqual(
            pair,
            f"mailwake://pair?v=2&ok={b64u_encode(self.outpost_pub)}&relay=https%3A%2F%2Fpush.example.net"
            f"&env=production&pid={pid}&cred={b64u_encode(cred)}&exp={IAT}",
        )
        parsed = mw.parse_link(pair)
        self.assertEqual((parsed["kind"], parsed["relay"], parsed["exp"], parsed["pid"]), ("pair", AUD, IAT, pid))
        self.assertEqual(parsed["v"], 2)
        manage = mw.build_manage_link(outpost_public=self.outpost_pub, url="https://h.example", pin=pin,
                                      token=tok, scopes=["manage", "content"], exp=IAT)  # fmt: skip
        self.assertTrue(manage.endswith(f"&scope=manage,content&exp={IAT}"))
        self.assertEqual(mw.parse_link(manage)["scope"], ["manage", "content"])
        self.assertTrue(manage.startswith("mailwake://manage?v=1&"))
        self.assertEqual(mw.parse_link(manage)["v"], 1)
        with_push = mw.build_manage_link(outpost_public=self.outpost_pub, url="https://h.example", pin=pin,
                                         token=tok, scopes=["push"], exp=IAT, relay=AUD, env="sandbox",
                                         pairing_id=pid, credential=cred)  # fmt: skip
        self.assertEqual(list(mw.parse_link(with_push))[-4:], ["relay", "env", "pid", "cred"])
        self.assertTrue(with_push.startswith("mailwake://manage?v=1&"))

        # Revision 1 pair links: upgrade_required, whatever else they carry; the message names the outpost.
        v1 = pair.replace("v=2&", "v=1&")
        for link in (v1, v1 + "&x=1", v1.replace("&env=production", "")):
            with self.assertRaises(ProtocolError) as cm:
                mw.parse_link(link)
            self.assertEqual(cm.exception.code, "upgrade_required", link)
            self.assertIn("outpost", cm.exception.message)
            self.assertIn("upgrade", cm.exception.message)

        bad_links = {
            "order": pair.replace("&env=production", "") + "&env=production",
            "missing": pair.replace("&env=production", ""),
            "extra": pair + "&x=1",
            "duplicate": pair + "&exp=1",
            "v3": pair.replace("v=2", "v=3"),
            "v0": pair.replace("v=2", "v=0"),
            "v02": pair.replace("v=2", "v=02"),
            "v empty": pair.replace("v=2", "v="),
            "v not first": pair.replace("v=2&", "") + "&v=2",
            "v=1 not first": pair.replace("v=2&", "") + "&v=1",
            "manage v2": manage.replace("v=1&", "v=2&"),
            "manage+push v2": with_push.replace("v=1&", "v=2&"),
            "env": pair.replace("production", "staging"),
            "lower hex": pair.replace("%3A", "%3a"),
            "unescaped": pair.replace("https%3A%2F%2F", "https://"),
            "exp": pair.replace(f"exp={IAT}", "exp=01"),
            "cred": pair.replace(b64u_encode(cred), b64u_encode(cred[:31])),
            "scheme": pair.replace("mailwake://", "https://"),
            "manage push params without push": manage + f"&relay=https%3A%2F%2Fx&env=sandbox&pid={pid}&cred={b64u_encode(cred)}",
            "manage push without params": with_push.split("&relay=")[0],
            "scope": manage.replace("manage,content", "manage,admin"),
            "http relay": pair.replace("https%3A", "http%3A"),
            "relay path": pair.replace("example.net", "example.net%2F"),
            "relay port 0": pair.replace("example.net", "example.net%3A0"),
            "pid 15 bytes": pair.replace(pid, b64u_encode(os.urandom(15))),
        }
        for name, link in bad_links.items():
            with self.subTest(name):
                with self.assertRaises(ProtocolError) as cm:
                    mw.parse_link(link)
                self.assertEqual(cm.exception.code, "malformed", cm.exception.message)
        bad_ok = b64u_encode(flip(self.outpost_pub, 64))
        with self.assertRaises(ProtocolError) as cm:
            mw.parse_link(pair.replace(b64u_encode(self.outpost_pub), bad_ok))
        self.assertEqual(cm.exception.code, "invalid_key")


# --------------------------------------------------------------------------
# (c) Cross round trips through the CLIs
# --------------------------------------------------------------------------


def _command(value: str) -> list:
    """MAILWAKE_PROTOCOL_CLI: a path to the binary, or a shell-quoted command line."""
    return [value] if os.path.exists(value) else shlex.split(value)


class CLIHelpers:
    tmp: str

    def run_cli(self, cmd: list, *args: str, stdin: bytes = b"", ok: bool = True) -> subprocess.CompletedProcess:
        res = subprocess.run(cmd + list(args), input=stdin, capture_output=True, timeout=120)
        if ok:
            self.assertEqual(res.returncode, 0, f"{cmd} {args[0]} failed: {res.stderr.decode(errors='replace')}")
        return res

    def keygen(self, cmd: list, name: str) -> dict:
        path = os.path.join(self.tmp, name)
        self.run_cli(cmd, "keygen", "--out", path)
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600, f"{path} is not 0600")
        with open(path) as f:
            keys = json.load(f)
        self.assertEqual(
            sorted(keys),
            sorted(["signing_private", "signing_public", "agreement_private", "agreement_public", "device_id", "outpost_id"]),
        )
        keys["path"] = path
        return keys

    def body_file(self, data: bytes) -> str:
        fd, path = tempfile.mkstemp(dir=self.tmp)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return path


@unittest.skipUnless(
    os.environ.get("MAILWAKE_PROTOCOL_CLI"),
    "MAILWAKE_PROTOCOL_CLI is not set; set it to the Swift mailwake-protocol binary to run cross round trips",
)
class CrossImplementationTest(CLIHelpers, unittest.TestCase):
    def setUp(self):
        self.swift = _command(os.environ["MAILWAKE_PROTOCOL_CLI"])
        self.py = [sys.executable, PY_CLI]
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name
        self.pid = new_pairing_id()

    def tearDown(self):
        self._tmp.cleanup()

    def plaintext(self) -> bytes:
        return json.dumps({"mailbox": "Work", "folder": "INBOX", "from": {"name": "Zoë", "address": "z@example.com"},
                           "subject": "Grüße " + os.urandom(8).hex(), "received_at": IAT}, ensure_ascii=False).encode()  # fmt: skip

    def test_swift_keygen_matches_python(self):
        keys = self.keygen(self.swift, "swift.json")
        sign_pub = b64u_decode(keys["signing_public"])
        self.assertEqual(mw.public_from_private(b64u_decode(keys["signing_private"])), sign_pub)
        self.assertEqual(mw.public_from_private(b64u_decode(keys["agreement_private"])), b64u_decode(keys["agreement_public"]))
        self.assertEqual(keys["device_id"], mw.key_id(sign_pub))
        self.assertEqual(keys["outpost_id"], mw.key_id(sign_pub))

    def test_swift_keygen_prints_no_private_key(self):
        path = os.path.join(self.tmp, "quiet.json")
        res = self.run_cli(self.swift, "keygen", "--out", path)
        printed = json.loads(res.stdout)
        self.assertNotIn("signing_private", printed)
        self.assertNotIn("agreement_private", printed)
        with open(path) as f:
            stored = json.load(f)
        self.assertNotIn(stored["signing_private"].encode(), res.stdout)
        self.assertNotIn(stored["agreement_private"].encode(), res.stdout)

    def assertSwiftRefuses(self, res: subprocess.CompletedProcess, code: str) -> None:
        """Exit 1 with ``<prog> <command>: <code>: <message>`` on stderr, nothing on stdout."""
        err = res.stderr.decode(errors="replace")
        self.assertEqual(res.returncode, 1, f"expected {code}, got exit {res.returncode}: {err} {res.stdout!r}")
        self.assertIn(f": {code}: ", err)
        self.assertEqual(res.stdout, b"")

    def test_links_both_ways(self):
        keys = self.keygen(self.py, "link-outpost.json")
        ok = b64u_decode(keys["signing_public"])
        cred = cli_safe_random(32)
        # Python builds, Swift parses.
        link = mw.build_pair_link(outpost_public=ok, relay="https://push.example.net:8443", env="sandbox",
                                  pairing_id=self.pid, credential=cred, exp=IAT + 300)  # fmt: skip
        parsed = json.loads(self.run_cli(self.swift, "parse-link", link).stdout)
        self.assertEqual(parsed["kind"], "pair")
        self.assertEqual(parsed["relay"], "https://push.example.net:8443")
        self.assertEqual(parsed["pairing_id"], self.pid)
        self.assertEqual(b64u_decode(parsed["credential"]), cred)
        self.assertEqual(parsed["fingerprint"], mw.fingerprint(ok))
        # The secrets Swift derives from cred (§9 revision 2) are the ones Python derives.
        secrets = mw.pairing_secrets(cred)
        self.assertEqual(b64u_decode(parsed["relay_token"]), secrets.relay_token)
        self.assertEqual(b64u_decode(parsed["relay_token_hash"]), secrets.relay_token_hash)
        self.assertNotIn("mac_key", parsed)
        self.assertNotIn(b64u_encode(secrets.mac_key), json.dumps(parsed))
        # Swift builds (pairing and management), Python parses and rebuilds the same string.
        swift_pair = json.loads(self.run_cli(self.swift, "pair-link", "--outpost-key", keys["signing_public"],
                                             "--relay", "https://push.example.net", "--env", "production",
                                             "--pairing", self.pid, "--credential", b64u_encode(cred),
                                             "--exp", str(IAT + 300)).stdout)["link"]  # fmt: skip
        self.assertEqual(swift_pair, mw.build_pair_link(outpost_public=ok, relay="https://push.example.net", env="production",
                                                        pairing_id=self.pid, credential=cred, exp=IAT + 300))  # fmt: skip
        pin, tok = os.urandom(32), os.urandom(32)
        swift_manage = json.loads(self.run_cli(self.swift, "pair-link", "--outpost-key", keys["signing_public"],
                                               "--url", "https://outpost.example:8443", "--pin", b64u_encode(pin),
                                               "--token", b64u_encode(tok), "--scope", "manage,content,push",
                                               "--relay", "https://push.example.net", "--env", "sandbox",
                                               "--pairing", self.pid, "--credential", b64u_encode(cred),
                                               "--exp", str(IAT + 300)).stdout)["link"]  # fmt: skip
        self.assertEqual(mw.parse_link(swift_manage)["kind"], "manage")
        self.assertEqual(swift_manage, mw.build_manage_link(outpost_public=ok, url="https://outpost.example:8443", pin=pin, token=tok,
                                                            scopes=["manage", "content", "push"], exp=IAT + 300,
                                                            relay="https://push.example.net", env="sandbox",
                                                            pairing_id=self.pid, credential=cred))  # fmt: skip
        self.assertTrue(swift_pair.startswith("mailwake://pair?v=2&"))
        self.assertTrue(swift_manage.startswith("mailwake://manage?v=1&"))
        # Both refuse the other versions with the same code: a revision-1 pair
        # link names the upgrade; any other version is malformed.
        cases = (
            (link.replace("v=2&", "v=1&"), "upgrade_required"),
            (swift_pair.replace("v=2&", "v=1&"), "upgrade_required"),
            (link.replace("v=2&", "v=3&"), "malformed"),
            (link.replace("v=2&", "") + "&v=2", "malformed"),
            (swift_manage.replace("v=1&", "v=2&"), "malformed"),
        )
        for bad, code in cases:
            with self.subTest(link=bad[:40], code=code):
                self.assertSwiftRefuses(self.run_cli(self.swift, "parse-link", bad, ok=False), code)
                with self.assertRaises(ProtocolError) as cm:
                    mw.parse_link(bad)
                self.assertEqual(cm.exception.code, code)
        res = self.run_cli(self.swift, "parse-link", link.replace("v=2&", "v=1&"), ok=False)
        self.assertIn(b"upgrade", res.stderr)
        self.assertIn(b"outpost", res.stderr)

    # -- §9 revision 2 pairing consent, both ways ---------------------------

    def _swift_pair_link(self, outpost: dict, cred: bytes, exp: int = IAT + 300, relay: str = AUD) -> str:
        out = json.loads(self.run_cli(self.swift, "pair-link", "--outpost-key", outpost["signing_public"],
                                      "--relay", relay, "--env", "sandbox", "--pairing", self.pid,
                                      "--credential", b64u_encode(cred), "--exp", str(exp)).stdout)  # fmt: skip
        self.assertEqual(out["fingerprint"], mw.fingerprint(b64u_decode(outpost["signing_public"])))
        return out["link"]

    def _swift_verify(self, link: str, obj, now: int = IAT, ok: bool = True) -> subprocess.CompletedProcess:
        return self.run_cli(self.swift, "verify-consent", link, "--now", str(now),
                            stdin=json.dumps(obj).encode(), ok=ok)  # fmt: skip

    def test_python_consent_swift_verifies(self):
        outpost = self.keygen(self.swift, "outpost.json")
        device = self.keygen(self.py, "device.json")
        ok_pub = b64u_decode(outpost["signing_public"])
        cred, exp = cli_safe_random(32), IAT + 300
        link = self._swift_pair_link(outpost, cred, exp)
        p = mw.parse_link(link)  # the App's side, in Python
        self.assertEqual((p["v"], p["relay"], p["pid"], b64u_decode(p["cred"]), p["exp"]), (2, AUD, self.pid, cred, exp))
        build = dict(device_signing_private=b64u_decode(device["signing_private"]),
                     device_agreement_public=b64u_decode(device["agreement_public"]),
                     outpost_public=b64u_decode(p["ok"]), pairing_id=p["pid"], aud=p["relay"],
                     credential=b64u_decode(p["cred"]), exp=p["exp"])  # fmt: skip
        consent = mw.build_consent(**build)
        submission = mw.build_consent_submission(consent, credential=cred)
        want = {"status": "valid", "device_id": device["device_id"],
                "device_fingerprint": mw.fingerprint(b64u_decode(device["signing_public"]))}  # fmt: skip
        for obj in (consent, submission):
            self.assertEqual(json.loads(self._swift_verify(link, obj).stdout), want)
        self.assertEqual(json.loads(self._swift_verify(link, consent, now=exp).stdout), want)
        # Python's own outpost check agrees.
        mw.verify_consent(consent, outpost_public=ok_pub, credential=cred, aud=AUD, pairing_id=self.pid, now=IAT)

        # What the relay could make knowing relay_token and its hash: Swift says bad_mac.
        secrets = mw.pairing_secrets(cred)
        for key in (secrets.relay_token, secrets.relay_token_hash):
            forged = forge_relay_consent(relay_token=secrets.relay_token, outpost_public=ok_pub, pairing_id=self.pid,
                                         exp=exp, mac_key=key)  # fmt: skip
            for obj in (forged, {"relay_token": b64u_encode(secrets.relay_token), "consent": forged}):
                with self.subTest(forged=key == secrets.relay_token, submission="consent" in obj):
                    self.assertSwiftRefuses(self._swift_verify(link, obj, ok=False), "bad_mac")
            with self.assertRaises(ProtocolError) as cm:
                mw.verify_consent(forged, outpost_public=ok_pub, credential=cred, aud=AUD, pairing_id=self.pid, now=IAT)
            self.assertEqual(cm.exception.code, "bad_mac")
        # The App's mac on the relay's own keys: bad_mac too.
        swapped = forge_relay_consent(relay_token=secrets.relay_token, outpost_public=ok_pub, pairing_id=self.pid, exp=exp)
        self.assertSwiftRefuses(self._swift_verify(link, {**swapped, "mac": consent["mac"]}, ok=False), "bad_mac")

        # Tampering, each with one code, the same in both implementations.
        other_pid = new_pairing_id()
        cases = {
            "mac bit": ({**consent, "mac": flip_b64u(consent["mac"], 31, 7)}, "bad_mac"),
            "mac first bit": ({**consent, "mac": flip_b64u(consent["mac"], 0, 0)}, "bad_mac"),
            "exp extended": ({**consent, "exp": exp + 3600}, "bad_mac"),
            "other aud": (mw.build_consent(**{**build, "aud": "https://push.example.org"}), "bad_mac"),
            "other credential": (mw.build_consent(**{**build, "credential": os.urandom(32)}), "bad_mac"),
            "other outpost": (mw.build_consent(**{**build, "outpost_public": b64u_decode(device["agreement_public"])}),
                              "bad_mac"),
            "other pairing": (mw.build_consent(**{**build, "pairing_id": other_pid}), "wrong_pairing"),
            "sig bit": ({**consent, "sig": flip_b64u(consent["sig"], 10)}, "bad_signature"),
            "revision 1": ({k: x for k, x in {**consent, "v": 1}.items() if k != "mac"}, "upgrade_required"),
            "v 3": ({**consent, "v": 3}, "malformed"),
            "unknown field": ({**consent, "extra": 1}, "malformed"),
            "no mac": ({k: x for k, x in consent.items() if k != "mac"}, "malformed"),
        }
        for name, (bad, code) in cases.items():
            with self.subTest(name):
                self.assertSwiftRefuses(self._swift_verify(link, bad, ok=False), code)
                with self.assertRaises(ProtocolError) as cm:
                    mw.verify_consent(bad, outpost_public=ok_pub, credential=cred, aud=AUD, pairing_id=self.pid, now=IAT)
                self.assertEqual(cm.exception.code, code, cm.exception.message)
        self.assertSwiftRefuses(self._swift_verify(link, consent, now=exp + 1, ok=False), "expired")
        # The same consent checked against a link for another relay (aud): bad_mac.
        other_link = self._swift_pair_link(outpost, cred, exp, relay="https://push.example.org")
        self.assertSwiftRefuses(self._swift_verify(other_link, consent, ok=False), "bad_mac")

    def test_swift_consent_python_verifies(self):
        outpost = self.keygen(self.py, "outpost.json")
        device = self.keygen(self.swift, "device.json")
        ok_pub = b64u_decode(outpost["signing_public"])
        cred, exp = cli_safe_random(32), IAT + 300
        link = mw.build_pair_link(outpost_public=ok_pub, relay=AUD, env="production", pairing_id=self.pid,
                                  credential=cred, exp=exp)  # fmt: skip
        res = self.run_cli(self.swift, "consent", link, "--keys", device["path"])
        submission = mw.loads_strict(res.stdout)
        self.assertEqual(sorted(submission), ["consent", "relay_token"])
        token, consent = mw.parse_consent_submission(submission)
        secrets = mw.pairing_secrets(cred)
        # The relay's check: the relay token matches the hash the outpost registered.
        self.assertEqual(mw.check_relay_token(token, secrets.relay_token_hash), secrets.relay_token)
        self.assertNotIn(b64u_encode(cred), res.stdout.decode())
        self.assertNotIn(b64u_encode(secrets.mac_key), res.stdout.decode())
        # Every field as PROTOCOL.md says, the mac byte for byte (it is deterministic).
        self.assertEqual(sorted(consent), sorted(mw.CONSENT_FIELDS))
        self.assertEqual({k: consent[k] for k in ("v", "pairing_id", "device_id", "device_signing_key",
                                                  "device_agreement_key", "exp")},
                         {"v": 2, "pairing_id": self.pid, "device_id": device["device_id"],
                          "device_signing_key": device["signing_public"],
                          "device_agreement_key": device["agreement_public"], "exp": exp})  # fmt: skip
        data = mw.consent_input(pairing_id=self.pid, outpost_public=ok_pub, aud=AUD, device_id=device["device_id"],
                                device_signing_key=b64u_decode(device["signing_public"]),
                                device_agreement_key=b64u_decode(device["agreement_public"]), exp=exp)  # fmt: skip
        self.assertEqual(b64u_decode(consent["mac"]), mw.consent_mac(secrets.mac_key, data))
        mw.ecdsa_verify(b64u_decode(device["signing_public"]), data, b64u_decode(consent["sig"]))
        # The outpost's check (Python) accepts it; through the other inputs it refuses.
        ok = dict(outpost_public=ok_pub, credential=cred, aud=AUD, pairing_id=self.pid, now=IAT)
        self.assertEqual(mw.verify_consent(consent, **ok), consent)
        for change, code in (({"aud": "https://push.example.org"}, "bad_mac"), ({"credential": os.urandom(32)}, "bad_mac"),
                             ({"outpost_public": b64u_decode(device["agreement_public"])}, "bad_mac"),
                             ({"pairing_id": new_pairing_id()}, "wrong_pairing"), ({"now": exp + 1}, "expired")):  # fmt: skip
            with self.subTest(change=sorted(change)):
                with self.assertRaises(ProtocolError) as cm:
                    mw.verify_consent(consent, **{**ok, **change})
                self.assertEqual(cm.exception.code, code)
        # And Swift's own verify-consent agrees on its output.
        self.assertEqual(json.loads(self._swift_verify(link, submission).stdout)["device_id"], device["device_id"])
        # Swift's consent is randomized only in sig.
        again = mw.loads_strict(self.run_cli(self.swift, "consent", link, "--keys", device["path"]).stdout)
        self.assertEqual({k: x for k, x in again["consent"].items() if k != "sig"},
                         {k: x for k, x in consent.items() if k != "sig"})  # fmt: skip
        # Swift refuses to consent to a revision-1 pair link, naming the upgrade.
        res = self.run_cli(self.swift, "consent", link.replace("v=2&", "v=1&"), "--keys", device["path"], ok=False)
        self.assertSwiftRefuses(res, "upgrade_required")

    def test_values_starting_with_dashes_are_accepted(self):
        keys = self.keygen(self.py, "dash.json")
        pid = "--" + b64u_encode(os.urandom(16))[2:]
        while len(b64u_decode(pid)) != 16:
            pid = "--" + b64u_encode(os.urandom(16))[2:]
        out = json.loads(self.run_cli(self.swift, "pair-link", "--outpost-key", keys["signing_public"], "--relay",
                                      "https://push.example.net", "--pairing", pid, "--exp", str(IAT)).stdout)  # fmt: skip
        self.assertEqual(mw.parse_link(out["link"])["pid"], pid)

    def test_fingerprint(self):
        for source in (self.py, self.swift):
            keys = self.keygen(source, f"fp-{len(source)}.json")
            for field in ("signing_public", "agreement_public"):
                pub = keys[field]
                out = json.loads(self.run_cli(self.swift, "fingerprint", pub).stdout)
                self.assertEqual(out, {"fingerprint": mw.fingerprint(b64u_decode(pub)), "id": mw.key_id(b64u_decode(pub))})
        res = self.run_cli(self.swift, "fingerprint", b64u_encode(b"\x04" + bytes(64)), ok=False)
        self.assertEqual(res.returncode, 1)
        self.assertIn(b"invalid_key", res.stderr)

    def _seal_args(self, identity: dict, device: dict, event: str, kind: str, act) -> list:
        args = ["seal", "--identity", identity["path"], "--device-key", device["agreement_public"], "--aud", AUD,
                "--pairing", self.pid, "--event", event, "--iat", str(IAT), "--kind", kind]  # fmt: skip
        if act is not None:
            args += ["--activity-json", json.dumps(act)]
        return args

    def test_python_seals_swift_opens(self):
        outpost = self.keygen(self.py, "outpost.json")
        device = self.keygen(self.swift, "device.json")
        for kind, act in (("notification", None), ("live-activity", activity("start")), ("live-activity", activity("end"))):
            with self.subTest(kind=kind, act=act):
                pt = self.plaintext()
                env = mw.seal(
                    pt, outpost_signing_private=b64u_decode(outpost["signing_private"]),
                    device_agreement_public=b64u_decode(device["agreement_public"]), aud=AUD, pairing_id=self.pid,
                    event_id=new_event_id(), iat=IAT, kind=kind, activity=act,
                )  # fmt: skip
                open_args = ["open", "--keys", device["path"], "--outpost-key", outpost["signing_public"],
                             "--aud", AUD, "--pairing", self.pid]  # fmt: skip
                res = self.run_cli(self.swift, *open_args, stdin=json.dumps(env).encode())
                self.assertEqual(res.stdout, pt)
                # Swift must refuse what Python refuses.
                for bad, code in (({**env, "ct": flip_b64u(env["ct"], 0)}, b"bad_signature"),
                                  ({**env, "extra": 1}, b"malformed")):  # fmt: skip
                    res = self.run_cli(self.swift, *open_args, stdin=json.dumps(bad).encode(), ok=False)
                    self.assertEqual(res.returncode, 1)
                    self.assertIn(code, res.stderr)
                res = self.run_cli(self.swift, *open_args[:-4], "--aud", "https://other.example", "--pairing", self.pid,
                                   stdin=json.dumps(env).encode(), ok=False)  # fmt: skip
                self.assertEqual(res.returncode, 1)
                self.assertIn(b"wrong_audience", res.stderr)

    def test_swift_seals_python_opens(self):
        outpost = self.keygen(self.swift, "outpost.json")
        device = self.keygen(self.py, "device.json")
        for kind, act in (("notification", None), ("live-activity", activity("update"))):
            with self.subTest(kind=kind):
                pt, event = self.plaintext(), new_event_id()
                res = self.run_cli(self.swift, *self._seal_args(outpost, device, event, kind, act), stdin=pt)
                env = mw.loads_strict(res.stdout)
                expected = {"v": 1, "alg": mw.ALG, "aud": AUD, "pairing_id": self.pid, "event_id": event,
                            "kind": kind, "iat": IAT}  # fmt: skip
                self.assertEqual({k: env.get(k) for k in expected}, expected)
                self.assertEqual(env.get("activity"), act)
                mw.verify_envelope(env, b64u_decode(outpost["signing_public"]))
                got = mw.open_envelope(env, device_agreement_private=b64u_decode(device["agreement_private"]),
                                       outpost_public=b64u_decode(outpost["signing_public"]), aud=AUD,
                                       pairing_id=self.pid)  # fmt: skip
                self.assertEqual(got, pt)
                # And through the Python CLI, as the Swift CLI would be used.
                res = self.run_cli(self.py, "open", "--keys", device["path"], "--outpost-key", outpost["signing_public"],
                                   "--aud", AUD, "--pairing", self.pid, stdin=res.stdout)  # fmt: skip
                self.assertEqual(res.stdout, pt)

    def test_swift_seal_is_randomized(self):
        outpost = self.keygen(self.swift, "outpost.json")
        device = self.keygen(self.py, "device.json")
        args = self._seal_args(outpost, device, new_event_id(), "notification", None)
        a = json.loads(self.run_cli(self.swift, *args, stdin=b"same").stdout)
        b = json.loads(self.run_cli(self.swift, *args, stdin=b"same").stdout)
        for field in ("epk", "salt", "nonce", "ct"):
            self.assertNotEqual(a[field], b[field], f"{field} repeated across two seals")

    def test_requests_both_ways(self):
        swift_keys = self.keygen(self.swift, "swift.json")
        py_keys = self.keygen(self.py, "py.json")
        for body in (b"", os.urandom(300), '{"k":"ü"}'.encode()):
            path = self.body_file(body)
            req = ["--method", "POST", "--origin", AUD, "--path", "/v1/pairings?wait=30", "--body-file", path]
            with self.subTest(body=len(body)):
                # Swift signs -> Python verifies.
                nonce = cli_safe_random(16)
                header = json.loads(self.run_cli(self.swift, "sign-request", "--keys", swift_keys["path"], *req,
                                                 "--ts", str(IAT), "--nonce", b64u_encode(nonce)).stdout)["header"]  # fmt: skip
                hdr = mw.parse_signature_header(header)
                self.assertEqual((hdr.keyid, hdr.ts, hdr.nonce), (swift_keys["device_id"], IAT, nonce))
                keyid = mw.verify_request(header, method="POST", origin=AUD, path="/v1/pairings?wait=30", body=body,
                                          public_key=b64u_decode(swift_keys["signing_public"]), now=IAT + 10)  # fmt: skip
                self.assertEqual(keyid, swift_keys["device_id"])
                # Swift signs with its own clock and nonce.
                header = json.loads(self.run_cli(self.swift, "sign-request", "--keys", swift_keys["path"], *req).stdout)["header"]
                mw.verify_request(header, method="POST", origin=AUD, path="/v1/pairings?wait=30", body=body,
                                  public_key=b64u_decode(swift_keys["signing_public"]))  # fmt: skip
                # Python signs -> Swift verifies.
                header = mw.sign_request(b64u_decode(py_keys["signing_private"]), method="POST", origin=AUD,
                                         path="/v1/pairings?wait=30", body=body, ts=IAT)  # fmt: skip
                verify = ["verify-request", "--public-key", py_keys["signing_public"], "--header", header, *req]
                out = json.loads(self.run_cli(self.swift, *verify, "--now", str(IAT + 299)).stdout)
                self.assertEqual(out, {"valid": True, "keyid": py_keys["device_id"]})
                res = self.run_cli(self.swift, *verify, "--now", str(IAT + 301), ok=False)
                self.assertEqual(res.returncode, 1)
                self.assertIn(b"clock_skew", res.stderr)
                res = self.run_cli(self.swift, "verify-request", "--public-key", swift_keys["signing_public"],
                                   "--header", header, *req, "--now", str(IAT), ok=False)  # fmt: skip
                self.assertEqual(res.returncode, 1)
                self.assertIn(b"wrong_key", res.stderr)
                other = self.body_file(body + b"x")
                res = self.run_cli(self.swift, *verify[:-1], other, "--now", str(IAT), ok=False)
                self.assertEqual(res.returncode, 1)
                self.assertIn(b"bad_signature", res.stderr)


class PythonCLITest(CLIHelpers, unittest.TestCase):
    """The Python CLI on its own (the Swift-facing half of the round trips)."""

    def setUp(self):
        self.py = [sys.executable, PY_CLI]
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def test_seal_open_fingerprint_requests(self):
        outpost, device = self.keygen(self.py, "o.json"), self.keygen(self.py, "d.json")
        pid = new_pairing_id()
        seal = ["seal", "--identity", outpost["path"], "--device-key", device["agreement_public"], "--aud", AUD,
                "--pairing", pid, "--event", new_event_id(), "--iat", str(IAT)]  # fmt: skip
        env = self.run_cli(self.py, *seal, "--kind", "live-activity", "--activity-json", json.dumps(activity()),
                           stdin=b"\x00binary\xff").stdout  # fmt: skip
        opened = self.run_cli(self.py, "open", "--keys", device["path"], "--outpost-key", outpost["signing_public"],
                              "--aud", AUD, "--pairing", pid, stdin=env).stdout  # fmt: skip
        self.assertEqual(opened, b"\x00binary\xff")
        res = self.run_cli(self.py, "open", "--keys", device["path"], "--outpost-key", outpost["signing_public"],
                           "--aud", AUD, "--pairing", new_pairing_id(), stdin=env, ok=False)  # fmt: skip
        self.assertEqual((res.returncode, json.loads(res.stderr)["error"]), (1, "wrong_pairing"))
        self.assertEqual(res.stdout, b"")

        fp = json.loads(self.run_cli(self.py, "fingerprint", outpost["signing_public"]).stdout)
        self.assertEqual(fp["id"], outpost["outpost_id"])

        body = self.body_file(b"{}")
        req = ["--method", "DELETE", "--origin", AUD, "--path", f"/v1/pairings/{pid}", "--body-file", body]
        header = json.loads(self.run_cli(self.py, "sign-request", "--keys", device["path"], *req).stdout)["header"]
        out = json.loads(self.run_cli(self.py, "verify-request", "--public-key", device["signing_public"],
                                      "--header", header, *req).stdout)  # fmt: skip
        self.assertEqual(out, {"valid": True, "keyid": device["device_id"]})
        res = self.run_cli(self.py, "verify-request", "--public-key", device["signing_public"], "--header", header,
                           *req, "--now", "0", ok=False)  # fmt: skip
        self.assertEqual(json.loads(res.stderr)["error"], "clock_skew")
        self.assertEqual(self.run_cli(self.py, "seal", ok=False).returncode, 2)  # usage error


if __name__ == "__main__":
    unittest.main()
