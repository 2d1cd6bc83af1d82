#!/usr/bin/env python3
"""Check Mailwake protocol v1 test vectors with the independent Python implementation.

Usage: check_vectors.py PATH

Every deterministic byte of every positive vector is recomputed and compared;
every ``sig`` (randomized ECDSA) is verified rather than compared; every seal
vector is opened; every negative vector must fail with exactly its error code.
Prints ``{"checked": N, "failed": [...]}`` and exits 1 on any failure.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import mailwake_ref as mw  # noqa: E402

# Top-level keys that carry information about the file, not vectors.
METADATA = ("protocol", "generator")
SECTIONS = ("fingerprint", "context", "seal", "consent", "manage_consent", "ref", "request", "links", "negative")


class Mismatch(Exception):
    """A vector does not agree with the Python implementation."""


def _b(vector: dict, field: str) -> bytes:
    """A b64u field of a vector, decoded strictly (the vectors must be canonical too)."""
    try:
        return mw.b64u_decode(vector[field], what=field)
    except mw.ProtocolError as exc:
        raise Mismatch(f"{field}: {exc.message}") from None


def _eq(field: str, got: Any, want: Any) -> None:
    if got != want:
        if isinstance(got, bytes):
            got = mw.b64u_encode(got)
        if isinstance(want, bytes):
            want = mw.b64u_encode(want)
        raise Mismatch(f"{field}: vector has {want!r}, Python computes {got!r}")


def _verify_sig(field: str, public: bytes, message: bytes, sig: bytes) -> None:
    try:
        mw.ecdsa_verify(public, message, sig, field)
    except mw.ProtocolError as exc:
        raise Mismatch(f"{field}: {exc.message}") from None


def _same_object(what: str, got: dict, want: Any, skip: tuple = ()) -> None:
    """Compare two JSON objects field by field (keys must match exactly)."""
    if not isinstance(want, dict):
        raise Mismatch(f"{what} is not a JSON object")
    _eq(f"{what} keys", sorted(got), sorted(want))
    for key in got:
        if key not in skip:
            _eq(f"{what}.{key}", got[key], want[key])


# --------------------------------------------------------------------------
# Positive vectors
# --------------------------------------------------------------------------


def check_fingerprint(v: dict) -> None:
    pub = _b(v, "public_key")
    _eq("fingerprint", mw.fingerprint(pub), v["fingerprint"])
    _eq("id", mw.key_id(pub), v["id"])


def check_context(v: dict) -> None:
    ctx = mw.build_context(
        alg=v["alg"],
        aud=v["aud"],
        pairing_id=v["pairing_id"],
        event_id=v["event_id"],
        kind=v["kind"],
        iat=v["iat"],
        activity=v["activity"],
    )
    _eq("context", ctx, _b(v, "context"))


def check_seal(v: dict) -> None:
    outpost_priv = _b(v, "outpost_signing_private")
    outpost_pub = _b(v, "outpost_signing_public")
    device_priv = _b(v, "device_agreement_private")
    device_pub = _b(v, "device_agreement_public")
    eph_priv = _b(v, "ephemeral_private")
    _eq("outpost_signing_public", mw.public_from_private(outpost_priv), outpost_pub)
    _eq("device_agreement_public", mw.public_from_private(device_priv), device_pub)
    _eq("ephemeral_public", mw.public_from_private(eph_priv), _b(v, "ephemeral_public"))

    plaintext = _b(v, "plaintext")
    sealed = mw.seal_detailed(
        plaintext,
        outpost_signing_private=outpost_priv,
        device_agreement_public=device_pub,
        aud=v["aud"],
        pairing_id=v["pairing_id"],
        event_id=v["event_id"],
        iat=v["iat"],
        kind=v["kind"],
        activity=v["activity"],
        ephemeral_private=eph_priv,
        salt=_b(v, "salt"),
        nonce=_b(v, "nonce"),
    )
    for field in ("context", "shared_secret", "info", "key", "ct", "signing_input"):
        _eq(field, getattr(sealed, field), _b(v, field))

    envelope = v["envelope"]
    try:
        parsed = mw.parse_envelope(envelope)
    except mw.ProtocolError as exc:
        raise Mismatch(f"envelope rejected by shape checks: {exc}") from None
    want = {k: x for k, x in envelope.items() if not (k == "activity" and x is None)}
    _same_object("envelope", sealed.envelope, want, skip=("sig",))
    _verify_sig("envelope.sig", outpost_pub, sealed.signing_input, parsed.sig)
    try:
        opened = mw.open_envelope(
            envelope,
            device_agreement_private=device_priv,
            outpost_public=outpost_pub,
            aud=v["aud"],
            pairing_id=v["pairing_id"],
            seen_event_ids=set(),
        )
    except mw.ProtocolError as exc:
        raise Mismatch(f"open failed: {exc}") from None
    _eq("opened plaintext", opened, plaintext)


def check_consent(v: dict) -> None:
    """§9 revision 2: the secrets derived from the credential, consent_input,
    mac, the consent object (every byte but ``sig``, which is verified) and the
    submission body."""
    outpost_pub = _b(v, "outpost_public")
    dsk = _b(v, "device_signing_public")
    dak = _b(v, "device_agreement_public")
    _eq("device_signing_public", mw.public_from_private(_b(v, "device_signing_private")), dsk)
    _eq("device_id", mw.key_id(dsk), v["device_id"])
    credential = _b(v, "credential")
    secrets = mw.pairing_secrets(credential)
    _eq("relay_token", secrets.relay_token, _b(v, "relay_token"))
    _eq("relay_token_hash", secrets.relay_token_hash, _b(v, "relay_token_hash"))
    _eq("mac_key", secrets.mac_key, _b(v, "mac_key"))
    data = mw.consent_input(
        pairing_id=v["pairing_id"],
        outpost_public=outpost_pub,
        aud=v["aud"],
        device_id=v["device_id"],
        device_signing_key=dsk,
        device_agreement_key=dak,
        exp=v["exp"],
    )
    _eq("consent_input", data, _b(v, "consent_input"))
    mac = mw.consent_mac(secrets.mac_key, data)
    _eq("mac", mac, _b(v, "mac"))
    consent = v["consent"]
    expected = {
        "v": mw.PAIRING_VERSION,
        "pairing_id": v["pairing_id"],
        "device_id": v["device_id"],
        "device_signing_key": mw.b64u_encode(dsk),
        "device_agreement_key": mw.b64u_encode(dak),
        "exp": v["exp"],
        "sig": None,
        "mac": mw.b64u_encode(mac),
    }
    _same_object("consent", expected, consent, skip=("sig",))
    _verify_sig("consent.sig", dsk, data, _b(consent, "sig"))
    submission = v["submission"]
    _same_object(
        "submission", {"relay_token": mw.b64u_encode(secrets.relay_token), "consent": consent}, submission
    )
    try:
        token, submitted = mw.parse_consent_submission(submission)
        mw.check_relay_token(token, secrets.relay_token_hash)
        for what, obj in (("consent", consent), ("submission.consent", submitted)):
            try:
                mw.verify_consent(
                    obj, outpost_public=outpost_pub, credential=credential, aud=v["aud"],
                    pairing_id=v["pairing_id"], now=v["exp"],
                )  # fmt: skip
            except mw.ProtocolError as exc:
                raise Mismatch(f"verify_consent({what}) failed: {exc}") from None
    except mw.ProtocolError as exc:
        raise Mismatch(f"submission rejected: {exc}") from None


def check_manage_consent(v: dict) -> None:
    outpost_pub = _b(v, "outpost_public")
    dsk = _b(v, "device_signing_public")
    dak = _b(v, "device_agreement_public")
    _eq("device_signing_public", mw.public_from_private(_b(v, "device_signing_private")), dsk)
    _eq("device_id", mw.key_id(dsk), v["device_id"])
    token = _b(v, "token")
    signing_input = mw.manage_consent_signing_input(
        outpost_public=outpost_pub,
        device_id=v["device_id"],
        device_signing_key=dsk,
        device_agreement_key=dak,
        token=token,
        scopes=v["scopes"],
        exp=v["exp"],
    )
    _eq("signing_input", signing_input, _b(v, "signing_input"))
    body = v["body"]
    expected = {
        "v": mw.VERSION,
        "device_id": v["device_id"],
        "device_signing_key": mw.b64u_encode(dsk),
        "device_agreement_key": mw.b64u_encode(dak),
        "token": mw.b64u_encode(token),
        "scopes": None,
        "exp": v["exp"],
        "sig": None,
    }
    _same_object("body", expected, body, skip=("sig", "scopes"))
    # The order of the scopes array is not fixed anywhere; the signature
    # covers the sorted form, so compare as sets (duplicates are rejected below).
    if not isinstance(body["scopes"], list):
        raise Mismatch("body.scopes is not a list")
    _eq("body.scopes (sorted)", sorted(v["scopes"]), sorted(body["scopes"]))
    _verify_sig("body.sig", dsk, signing_input, _b(body, "sig"))
    try:
        mw.verify_manage_consent(
            body, outpost_public=outpost_pub, token=token, offered_scopes=v["scopes"], now=v["exp"]
        )
    except mw.ProtocolError as exc:
        raise Mismatch(f"verify_manage_consent failed: {exc}") from None


def check_ref(v: dict) -> None:
    outpost_pub = _b(v, "outpost_signing_public")
    _eq("outpost_signing_public", mw.public_from_private(_b(v, "outpost_signing_private")), outpost_pub)
    payload_bytes = _b(v, "ref_payload")
    _eq("ref_payload", mw.ref_payload_bytes(v["payload"]), payload_bytes)
    _eq("ref_payload as JSON", mw.loads_strict(payload_bytes), v["payload"])
    signing_input = mw.ref_signing_input(payload_bytes)
    _eq("signing_input", signing_input, _b(v, "signing_input"))
    ref = v["ref"]
    if not isinstance(ref, str) or ref.count(".") != 1:
        raise Mismatch("ref is not payload.signature")
    payload_part, sig_part = ref.split(".")
    _eq("ref payload part", payload_part, mw.b64u_encode(payload_bytes))
    _verify_sig("ref signature", outpost_pub, signing_input, _b({"sig": sig_part}, "sig"))
    try:
        got = mw.verify_ref(ref, outpost_public=outpost_pub, device_id=v["payload"]["d"])
    except mw.ProtocolError as exc:
        raise Mismatch(f"verify_ref failed: {exc}") from None
    _eq("verified payload", got, v["payload"])


def check_request(v: dict) -> None:
    pub = _b(v, "signing_public")
    _eq("signing_public", mw.public_from_private(_b(v, "signing_private")), pub)
    _eq("keyid", mw.key_id(pub), v["keyid"])
    ts = v["ts"]
    if isinstance(ts, str):  # tolerate ts written as the decimal string it is on the wire
        ts = mw.parse_decimal(ts, "ts")
    nonce = _b(v, "nonce")
    body = _b(v, "body")
    signing_input = mw.request_signing_input(v["method"], v["origin"], v["path"], ts, nonce, body)
    _eq("signing_input", signing_input, _b(v, "signing_input"))
    try:
        hdr = mw.parse_signature_header(v["header"])
    except mw.ProtocolError as exc:
        raise Mismatch(f"header: {exc.message}") from None
    _eq("header.keyid", hdr.keyid, v["keyid"])
    _eq("header.ts", hdr.ts, ts)
    _eq("header.nonce", hdr.nonce, nonce)
    # Byte-exact format: rebuild the header around the vector's signature.
    _eq("header", mw.format_signature_header(v["keyid"], ts, nonce, hdr.sig), v["header"])
    _verify_sig("header.sig", pub, signing_input, hdr.sig)
    try:
        mw.verify_request(
            v["header"], method=v["method"], origin=v["origin"], path=v["path"],
            body=body, public_key=pub, now=ts, seen_nonces=set(),
        )  # fmt: skip
    except mw.ProtocolError as exc:
        raise Mismatch(f"verify_request failed: {exc}") from None


# Link parameters may be keyed by their URL names or by the protocol names.
_LINK_ALIASES = {
    "v": ("v",),
    "ok": ("ok", "outpost_public", "outpost_key"),
    "relay": ("relay", "aud"),
    "env": ("env",),
    "pid": ("pid", "pairing_id"),
    "cred": ("cred", "credential"),
    "url": ("url",),
    "pin": ("pin",),
    "tok": ("tok", "token"),
    "scope": ("scope", "scopes"),
    "exp": ("exp",),
}


def _link_param(params: dict, name: str) -> Any:
    for alias in _LINK_ALIASES[name]:
        if alias in params:
            return params[alias]
    return None


def _link_text(value: Any) -> Any:
    """Normalise a parameter value for comparison (ints and lists as on the wire)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return ",".join(value)
    return value


def check_link(v: dict) -> None:
    params = v["params"]
    kind = v["kind"]
    if not isinstance(params, dict) or kind not in ("pair", "manage"):
        raise Mismatch("kind must be pair or manage and params an object")
    known = {alias for aliases in _LINK_ALIASES.values() for alias in aliases}
    if set(params) - known:
        raise Mismatch(f"unknown link params {sorted(set(params) - known)}")
    p = {name: _link_param(params, name) for name in _LINK_ALIASES}
    # Pair links are revision 2 (§9); management links stay v=1 (§10).
    want_v = str(mw.PAIRING_VERSION if kind == "pair" else mw.MANAGE_LINK_VERSION)
    if p["v"] is not None and _link_text(p["v"]) != want_v:
        raise Mismatch(f"params.v is {p['v']!r}, a {kind} link is v={want_v}")

    def raw(name):
        return None if p[name] is None else _b({name: p[name]}, name)

    scopes = p["scope"].split(",") if isinstance(p["scope"], str) else p["scope"]
    if kind == "pair":
        built = mw.build_pair_link(
            outpost_public=raw("ok"), relay=p["relay"], env=p["env"],
            pairing_id=p["pid"], credential=raw("cred"), exp=int(p["exp"]),
        )  # fmt: skip
    else:
        built = mw.build_manage_link(
            outpost_public=raw("ok"), url=p["url"], pin=raw("pin"), token=raw("tok"),
            scopes=scopes, exp=int(p["exp"]), relay=p["relay"], env=p["env"],
            pairing_id=p["pid"], credential=raw("cred"),
        )  # fmt: skip
    _eq("link (built from params)", built, v["link"])

    try:
        parsed = mw.parse_link(v["link"])
    except mw.ProtocolError as exc:
        raise Mismatch(f"parse_link failed: {exc}") from None
    _eq("parsed kind", parsed["kind"], kind)
    for name in _LINK_ALIASES:
        if p[name] is not None:
            _eq(f"parsed {name}", _link_text(parsed.get(name)), _link_text(p[name]))
    extra = sorted(k for k in parsed if k != "kind" and p.get(k) is None and k != "v")
    if extra:
        raise Mismatch(f"link carries params missing from the vector: {extra}")


# --------------------------------------------------------------------------
# Negative vectors
# --------------------------------------------------------------------------


def _d(i: dict, field: str) -> bytes:
    # Inputs are decoded inside the operation: a bad b64u input is part of
    # what a negative vector may test, and reports as ``malformed``.
    return mw.b64u_decode(i[field], what=field)


def _envelope(i: dict) -> Any:
    """``envelope`` (a JSON object) or ``envelope_json`` (the raw document, for
    duplicate keys, trailing bytes, fractions): exactly one must be given."""
    if ("envelope" in i) == ("envelope_json" in i):
        raise KeyError("envelope or envelope_json (exactly one)")
    if "envelope" in i:
        return i["envelope"]
    if not isinstance(i["envelope_json"], str):
        raise Mismatch("envelope_json is not a string")
    return i["envelope_json"].encode("utf-8")


def _scopes(value: Any) -> list:
    return value.split(",") if isinstance(value, str) else value


NEGATIVE_OPERATIONS: dict[str, Callable[[dict], Any]] = {
    "open": lambda i: mw.open_envelope(
        _envelope(i),
        device_agreement_private=_d(i, "device_agreement_private"),
        outpost_public=_d(i, "outpost_public"),
        aud=i["aud"],
        pairing_id=i["pairing_id"],
        seen_event_ids=set(i.get("seen_event_ids") or ()),
    ),
    "verify_envelope": lambda i: mw.verify_envelope(_envelope(i), _d(i, "outpost_public")),
    "verify_consent": lambda i: mw.verify_consent(
        i["consent"],
        outpost_public=_d(i, "outpost_public"),
        credential=_d(i, "credential"),
        aud=i["aud"],
        pairing_id=i["pairing_id"],
        now=i["now"],
    ),
    "verify_manage_consent": lambda i: mw.verify_manage_consent(
        i["body"],
        outpost_public=_d(i, "outpost_public"),
        token=_d(i, "token"),
        offered_scopes=_scopes(i["offered_scopes"]),
        now=i["now"],
    ),
    "verify_ref": lambda i: mw.verify_ref(i["ref"], outpost_public=_d(i, "outpost_public"), device_id=i["device_id"]),
    "verify_request": lambda i: mw.verify_request(
        i["header"],
        method=i["method"],
        origin=i["origin"],
        path=i["path"],
        body=_d(i, "body"),
        public_key=_d(i, "public_key"),
        now=i["now"],
        seen_nonces=set(i.get("seen_nonces") or ()),
    ),
    "parse_link": lambda i: mw.parse_link(i["link"]),
}


def check_negative(v: dict) -> None:
    op = NEGATIVE_OPERATIONS.get(v["operation"])
    if op is None:
        raise Mismatch(f"unknown operation {v['operation']!r}")
    if v["error"] not in mw.ERROR_CODES:
        raise Mismatch(f"unknown error code {v['error']!r}")
    try:
        op(v["input"])
    except mw.ProtocolError as exc:
        if exc.code != v["error"]:
            raise Mismatch(f"expected {v['error']}, Python says {exc.code} ({exc.message})") from None
        return
    except KeyError as exc:
        raise Mismatch(f"input lacks {exc}") from None
    raise Mismatch(f"expected {v['error']}, but the operation succeeded")


CHECKERS: dict[str, Callable[[dict], None]] = {
    "fingerprint": check_fingerprint,
    "context": check_context,
    "seal": check_seal,
    "consent": check_consent,
    "manage_consent": check_manage_consent,
    "ref": check_ref,
    "request": check_request,
    "links": check_link,
    "negative": check_negative,
}


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------


def check_document(doc: Any) -> dict:
    """Check a decoded vectors document; returns {"checked": N, "failed": [...]}."""
    failed: list = []
    checked = 0
    if not isinstance(doc, dict):
        return {"checked": 0, "failed": [{"section": None, "name": None, "reason": "document is not an object"}]}
    if doc.get("protocol") != "mailwake/v1":
        failed.append({"section": "protocol", "name": None, "reason": f"protocol is {doc.get('protocol')!r}"})
    if not isinstance(doc.get("generator", ""), str):
        failed.append({"section": "generator", "name": None, "reason": "generator is not a string"})
    for section in sorted(set(doc) - set(SECTIONS) - set(METADATA)):
        failed.append({"section": section, "name": None, "reason": "unknown section"})
    for section in SECTIONS:
        vectors = doc.get(section)
        if not isinstance(vectors, list) or not vectors:
            # A missing or empty section means nothing of it is being checked.
            failed.append({"section": section, "name": None, "reason": "section missing or empty"})
            continue
        for index, vector in enumerate(vectors):
            name = vector.get("name", f"#{index}") if isinstance(vector, dict) else f"#{index}"
            checked += 1
            try:
                if not isinstance(vector, dict):
                    raise Mismatch("vector is not an object")
                CHECKERS[section](vector)
            except Mismatch as exc:
                failed.append({"section": section, "name": name, "reason": str(exc)})
            except KeyError as exc:
                failed.append({"section": section, "name": name, "reason": f"vector lacks field {exc}"})
            except mw.ProtocolError as exc:
                failed.append({"section": section, "name": name, "reason": f"rejected: {exc}"})
            except Exception as exc:  # a checker bug or an unexpected vector shape
                failed.append({"section": section, "name": name, "reason": f"{type(exc).__name__}: {exc}"})
    return {"checked": checked, "failed": failed}


def check_file(path: str) -> dict:
    try:
        with open(path, "rb") as f:
            doc = mw.loads_strict(f.read())
    except (OSError, mw.ProtocolError) as exc:
        return {"checked": 0, "failed": [{"section": None, "name": path, "reason": str(exc)}]}
    return check_document(doc)


def main(argv: list) -> int:
    if len(argv) != 2:
        print("usage: check_vectors.py PATH", file=sys.stderr)
        return 2
    summary = check_file(argv[1])
    print(json.dumps(summary, indent=2, ensure_ascii=False))
    return 1 if summary["failed"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
