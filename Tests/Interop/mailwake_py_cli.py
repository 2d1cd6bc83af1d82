#!/usr/bin/env python3
"""Command-line mirror of the Swift ``mailwake-protocol`` tool, built on the
independent Python implementation, so that round trips can run both ways.

JSON on stdout, errors on stderr as {"error": code, "message": ...};
exit 0 on success, 1 on any failed check, 2 on a usage error.
A base64url value that starts with '-' must be passed as ``--flag=VALUE``.

  keygen --out FILE
  seal --identity FILE --device-key B64U --aud URL --pairing ID --event ID --iat N
       [--kind notification|live-activity --activity-json JSON]   < plaintext
  open --keys FILE --outpost-key B64U --aud URL --pairing ID          < envelope
  fingerprint B64U
  sign-request --keys FILE --method M --origin O --path P --body-file F [--ts N --nonce B64U]
  verify-request --public-key B64U --header H --method M --origin O --path P --body-file F [--now N]
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import mailwake_ref as mw  # noqa: E402

KEY_FILE_FIELDS = ("signing_private", "signing_public", "agreement_private", "agreement_public", "device_id", "outpost_id")


def _emit(obj) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")


def _load_keys(path: str) -> dict:
    """Read a keygen file and check that its public halves match the private ones."""
    with open(path, "rb") as f:
        keys = mw.loads_strict(f.read())
    if not isinstance(keys, dict) or not all(isinstance(keys.get(k), str) for k in KEY_FILE_FIELDS):
        raise mw.ProtocolError("malformed", f"{path} is not a key file")
    out = {
        "signing_private": mw.b64u_decode(keys["signing_private"], 32, "signing_private"),
        "agreement_private": mw.b64u_decode(keys["agreement_private"], 32, "agreement_private"),
    }
    out["signing_public"] = mw.public_from_private(out["signing_private"])
    out["agreement_public"] = mw.public_from_private(out["agreement_private"])
    if (
        mw.b64u_encode(out["signing_public"]) != keys["signing_public"]
        or mw.b64u_encode(out["agreement_public"]) != keys["agreement_public"]
    ):
        raise mw.ProtocolError("wrong_key", f"{path}: public keys do not match the private keys")
    return out


def cmd_keygen(args) -> None:
    signing = mw.new_private_key()
    agreement = mw.new_private_key()
    signing_pub = mw.public_from_private(signing)
    ident = mw.key_id(signing_pub)
    keys = {
        "signing_private": mw.b64u_encode(signing),
        "signing_public": mw.b64u_encode(signing_pub),
        "agreement_private": mw.b64u_encode(agreement),
        "agreement_public": mw.b64u_encode(mw.public_from_private(agreement)),
        "device_id": ident,  # both ids are the id of the signing key (§2)
        "outpost_id": ident,
    }
    # Create with 0600 from the start; fchmod also tightens a pre-existing file.
    fd = os.open(args.out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        os.fchmod(f.fileno(), 0o600)
        f.write(json.dumps(keys, indent=2) + "\n")
    _emit({k: keys[k] for k in ("signing_public", "agreement_public", "device_id", "outpost_id")})


def cmd_seal(args) -> None:
    identity = _load_keys(args.identity)
    activity = None
    if args.activity_json is not None:
        activity = mw.loads_strict(args.activity_json)
    envelope = mw.seal(
        sys.stdin.buffer.read(),
        outpost_signing_private=identity["signing_private"],
        device_agreement_public=mw.b64u_decode(args.device_key, what="--device-key"),
        aud=args.aud,
        pairing_id=args.pairing,
        event_id=args.event,
        iat=args.iat,
        kind=args.kind,
        activity=activity,
    )
    _emit(envelope)


def cmd_open(args) -> None:
    keys = _load_keys(args.keys)
    plaintext = mw.open_envelope(
        sys.stdin.buffer.read(),
        device_agreement_private=keys["agreement_private"],
        outpost_public=mw.b64u_decode(args.outpost_key, what="--outpost-key"),
        aud=args.aud,
        pairing_id=args.pairing,
    )
    sys.stdout.buffer.write(plaintext)
    sys.stdout.flush()


def cmd_fingerprint(args) -> None:
    pub = mw.b64u_decode(args.public_key, what="public key")
    _emit({"fingerprint": mw.fingerprint(pub), "id": mw.key_id(pub)})


def _read_body(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def cmd_sign_request(args) -> None:
    keys = _load_keys(args.keys)
    header = mw.sign_request(
        keys["signing_private"],
        method=args.method,
        origin=args.origin,
        path=args.path,
        body=_read_body(args.body_file),
        ts=args.ts,
        nonce=None if args.nonce is None else mw.b64u_decode(args.nonce, mw.REQUEST_NONCE_LEN, "--nonce"),
    )
    _emit({"header": header})


def cmd_verify_request(args) -> None:
    keyid = mw.verify_request(
        args.header,
        method=args.method,
        origin=args.origin,
        path=args.path,
        body=_read_body(args.body_file),
        public_key=mw.b64u_decode(args.public_key, what="--public-key"),
        now=args.now,
    )
    _emit({"valid": True, "keyid": keyid})


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mailwake_py_cli.py", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("keygen", help="create signing and agreement key pairs")
    p.add_argument("--out", required=True)
    p.set_defaults(func=cmd_keygen)

    p = sub.add_parser("seal", help="seal stdin for a device; prints the envelope")
    p.add_argument("--identity", required=True, help="keygen file; its signing key is the outpost identity")
    p.add_argument("--device-key", required=True, help="device agreement public key (b64u X9.63)")
    p.add_argument("--aud", required=True)
    p.add_argument("--pairing", required=True)
    p.add_argument("--event", required=True)
    p.add_argument("--iat", required=True, type=int)
    p.add_argument("--kind", default="notification", choices=mw.KINDS)
    p.add_argument("--activity-json")
    p.set_defaults(func=cmd_seal)

    p = sub.add_parser("open", help="open the envelope on stdin; prints the plaintext bytes")
    p.add_argument("--keys", required=True, help="keygen file; its agreement key is the device's")
    p.add_argument("--outpost-key", required=True, help="pinned outpost public key (b64u X9.63)")
    p.add_argument("--aud", required=True)
    p.add_argument("--pairing", required=True)
    p.set_defaults(func=cmd_open)

    p = sub.add_parser("fingerprint", help="fingerprint and id of a public key")
    p.add_argument("public_key", metavar="B64U")
    p.set_defaults(func=cmd_fingerprint)

    for name, func in (("sign-request", cmd_sign_request), ("verify-request", cmd_verify_request)):
        p = sub.add_parser(name)
        if name == "sign-request":
            p.add_argument("--keys", required=True)
        else:
            p.add_argument("--public-key", required=True)
            p.add_argument("--header", required=True)
        p.add_argument("--method", required=True)
        p.add_argument("--origin", required=True)
        p.add_argument("--path", required=True)
        p.add_argument("--body-file", required=True)
        if name == "sign-request":
            p.add_argument("--ts", type=int)
            p.add_argument("--nonce")
        else:
            p.add_argument("--now", type=int)
        p.set_defaults(func=func)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        args.func(args)
    except mw.ProtocolError as exc:
        print(json.dumps({"error": exc.code, "message": exc.message}), file=sys.stderr)
        return 1
    except OSError as exc:
        print(json.dumps({"error": "io", "message": str(exc)}), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
