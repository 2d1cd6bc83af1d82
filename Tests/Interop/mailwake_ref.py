"""Independent Python reference implementation of the Mailwake protocol, v1
(PROTOCOL.md revision 2: push pairing with ``relay_token`` and a consent MAC).

Written only from ``PROTOCOL.md`` (the normative wire format) and
``Tests/Vectors/README.md`` (vector schema, serialisations and error codes). It
shares no code with the Swift implementation and uses nothing but the Python
standard library and the PyPI ``cryptography`` package, so agreement between the
two is evidence that the documents, not one code base, define the protocol.

Conventions of this module
--------------------------
* Binary values cross the API as ``bytes``: public keys are X9.63 uncompressed
  points (65 bytes), private keys raw 32-byte scalars, signatures raw ``r||s``
  (64 bytes). JSON-shaped objects (envelope, consent, ...) use ``b64u`` strings,
  exactly as on the wire.
* Every failure raises :class:`ProtocolError` whose ``code`` is one of the stable
  codes of the vectors README. (``too_large`` is accepted as a code but never
  raised: neither document gives a number for it.)
* Identifiers have the forms of §2 wherever a receiver parses them:
  ``pairing_id`` is b64u of 16 bytes, ``event_id`` a lower-case UUIDv7; link
  origins (``relay``, ``url``) are ``https://host[:port]`` with nothing after.

Order of checks
---------------
PROTOCOL.md fixes the order only for opening an envelope (§4). Elsewhere this
module applies one rule, so that a vector which breaks two things at once still
gets a predictable code:

1. shape: JSON types, exact key set, base64url, lengths, ``v``/``alg``/``kind``
   (``malformed``);
2. every public key is a valid P-256 point (``invalid_key``);
3. ids that must equal the id of a key carried alongside them (``wrong_key``),
   and a management token against the invitation's (``bad_credential``);
4. the signature (``bad_signature``);
5. the authenticated claims against what the verifier expects (audience,
   pairing, scopes, device);
6. time (``expired`` / ``clock_skew``);
7. replay (``replayed``), recorded only once everything else passed.

A pairing consent (§9, revision 2) has its own order, fixed by the vectors
README: ``v`` (1 is ``upgrade_required``) → shape → ``mac`` in constant time
(``bad_mac``) → keys on the curve → ``device_id`` → ``pairing_id`` →
signature → ``exp``. A pair link with ``v=1`` is ``upgrade_required`` too.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import re
import time
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, MutableSet, Optional, Union

from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

# --------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------

VERSION = 1
PAIRING_VERSION = 2  # pair links and pairing consents (§9, revision 2)
PAIRING_VERSION_OLD = 1  # revision 1: refused as upgrade_required
MANAGE_LINK_VERSION = 1  # management links stay v=1 (§10)
ALG = "P256-HKDF-SHA256-A256GCM"
KINDS = ("notification", "live-activity")
ACTIVITY_EVENTS = ("start", "update", "end")
SCOPES = ("manage", "content", "push")
ENVS = ("production", "sandbox")
REQUEST_MAX_SKEW = 300  # seconds, §8

LABEL_CONTEXT = "mailwake/ctx/v1"
LABEL_ENVELOPE = "mailwake/envelope/v1"
LABEL_REF = "mailwake/ref/v1"
LABEL_REQUEST = "mailwake/request/v1"
LABEL_CONSENT = "mailwake/consent/v2"
INFO_RELAY_TOKEN = "mailwake/pair/relay-token/v2"
INFO_CONSENT_MAC = "mailwake/pair/consent-mac/v2"
HKDF_EMPTY_SALT = bytes(32)  # RFC 5869 §2.2: "not provided" is HashLen zero bytes
LABEL_MANAGE_CONSENT = "mailwake/manage-consent/v1"

PUBLIC_KEY_LEN = 65
PRIVATE_KEY_LEN = 32
SIGNATURE_LEN = 64
SALT_LEN = 32
NONCE_LEN = 12
TAG_LEN = 16
REQUEST_NONCE_LEN = 16
PAIRING_ID_LEN = 16
CREDENTIAL_LEN = 32
TOKEN_LEN = 32
PIN_LEN = 32
RELAY_TOKEN_LEN = 32
MAC_KEY_LEN = 32
MAC_LEN = 32
U64_MAX = 2**64 - 1

ERROR_CODES = frozenset(
    {
        "malformed",
        "invalid_key",
        "bad_signature",
        "wrong_audience",
        "wrong_pairing",
        "decryption_failed",
        "replayed",
        "expired",
        "clock_skew",
        "wrong_key",
        "bad_credential",
        "bad_mac",
        "upgrade_required",
        "scope_not_offered",
        "too_large",
    }
)


class ProtocolError(Exception):
    """The single failure type; ``code`` is one of :data:`ERROR_CODES`."""

    def __init__(self, code: str, message: str):
        if code not in ERROR_CODES:
            raise ValueError(f"unknown error code {code!r}")
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def _malformed(message: str) -> ProtocolError:
    return ProtocolError("malformed", message)


# --------------------------------------------------------------------------
# §1 Encodings
# --------------------------------------------------------------------------

_B64U_RE = re.compile(r"[A-Za-z0-9_-]*")


def b64u_encode(data: bytes) -> str:
    """base64url without padding (RFC 4648 §5)."""
    return base64.urlsafe_b64encode(bytes(data)).rstrip(b"=").decode("ascii")


def b64u_decode(text: Any, length: Optional[int] = None, what: str = "value") -> bytes:
    """Strict base64url decoding.

    Rejects padding, characters outside the URL-safe alphabet, impossible
    lengths (len % 4 == 1) and non-canonical encodings whose unused trailing
    bits are not zero (checked by re-encoding). With ``length`` the decoded
    value must have exactly that many bytes.
    """
    if not isinstance(text, str) or not _B64U_RE.fullmatch(text) or len(text) % 4 == 1:
        raise _malformed(f"{what} is not base64url without padding")
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if b64u_encode(data) != text:
        raise _malformed(f"{what} is non-canonical base64url")
    if length is not None and len(data) != length:
        raise _malformed(f"{what} must be {length} bytes, got {len(data)}")
    return data


def utf8(text: str, what: str = "string") -> bytes:
    if not isinstance(text, str):
        raise _malformed(f"{what} must be a string")
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates from JSON \ud800 escapes
        raise _malformed(f"{what} is not valid Unicode") from None


def lp(x: Union[bytes, str]) -> bytes:
    """``u32be(len(x)) || x``; strings are taken as their UTF-8 bytes."""
    data = utf8(x) if isinstance(x, str) else bytes(x)
    if len(data) > 0xFFFFFFFF:
        raise _malformed("value too long for lp()")
    return len(data).to_bytes(4, "big") + data


def u64be(n: int) -> bytes:
    if not _is_int(n) or not 0 <= n <= U64_MAX:
        raise _malformed(f"{n!r} is not an unsigned 64-bit integer")
    return n.to_bytes(8, "big")


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def _is_int(x: Any) -> bool:
    # JSON true/false decode to bool, which is a subclass of int in Python.
    return isinstance(x, int) and not isinstance(x, bool)


def loads_strict(data: Union[bytes, str]) -> Any:
    """JSON decoding that rejects duplicate keys, NaN/Infinity and bad UTF-8."""

    def no_duplicates(pairs):
        obj = {}
        for key, value in pairs:
            if key in obj:
                raise _malformed(f"duplicate JSON key {key!r}")
            obj[key] = value
        return obj

    def no_constants(name):
        raise _malformed(f"JSON constant {name} is not allowed")

    try:
        if isinstance(data, (bytes, bytearray)):
            data = bytes(data).decode("utf-8")
        return json.loads(data, object_pairs_hook=no_duplicates, parse_constant=no_constants)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise _malformed(f"invalid JSON: {exc}") from None


def _as_object(value: Any, what: str) -> dict:
    """Accept an already-decoded JSON object or its JSON text / bytes."""
    if isinstance(value, (str, bytes, bytearray)):
        value = loads_strict(value)
    if not isinstance(value, dict):
        raise _malformed(f"{what} must be a JSON object")
    return value


def _exact_keys(obj: Mapping, required: Iterable[str], what: str) -> None:
    required = set(required)
    missing = sorted(required - set(obj))
    unknown = sorted(set(obj) - required)
    if missing:
        raise _malformed(f"{what}: missing field(s) {', '.join(missing)}")
    if unknown:
        raise _malformed(f"{what}: unknown field(s) {', '.join(unknown)}")


def _str_field(obj: Mapping, key: str, what: str) -> str:
    value = obj[key]
    if not isinstance(value, str):
        raise _malformed(f"{what}.{key} must be a string")
    utf8(value, f"{what}.{key}")
    return value


def _u64_field(obj: Mapping, key: str, what: str) -> int:
    value = obj[key]
    if not _is_int(value) or not 0 <= value <= U64_MAX:
        raise _malformed(f"{what}.{key} must be an unsigned 64-bit integer")
    return value


def _version_field(obj: Mapping, what: str) -> None:
    if not _is_int(obj["v"]) or obj["v"] != VERSION:
        raise _malformed(f"{what}: unsupported version {obj['v']!r}")


# --------------------------------------------------------------------------
# §1 Keys and primitives
# --------------------------------------------------------------------------

_CURVE = ec.SECP256R1()


def load_public_key(x963: bytes, what: str = "public key") -> ec.EllipticCurvePublicKey:
    """A P-256 public key from its X9.63 uncompressed form.

    A value that is not 65 bytes is a shape error (``malformed``); 65 bytes that
    are not ``04||X||Y`` of a point on the curve are ``invalid_key``. (The point
    at infinity has no 65-byte encoding.) The 0x04 prefix is checked here
    because ``from_encoded_point`` would also accept compressed points.
    """
    if not isinstance(x963, (bytes, bytearray)) or len(x963) != PUBLIC_KEY_LEN:
        raise _malformed(f"{what} must be a {PUBLIC_KEY_LEN}-byte X9.63 point")
    if x963[0] != 0x04:
        raise ProtocolError("invalid_key", f"{what} is not an uncompressed point")
    try:
        return ec.EllipticCurvePublicKey.from_encoded_point(_CURVE, bytes(x963))
    except ValueError:
        raise ProtocolError("invalid_key", f"{what} is not a point on P-256") from None


def load_private_key(raw: bytes, what: str = "private key") -> ec.EllipticCurvePrivateKey:
    """A P-256 private key from its raw 32-byte big-endian scalar."""
    if not isinstance(raw, (bytes, bytearray)) or len(raw) != PRIVATE_KEY_LEN:
        raise _malformed(f"{what} must be {PRIVATE_KEY_LEN} bytes")
    try:
        return ec.derive_private_key(int.from_bytes(raw, "big"), _CURVE)
    except ValueError:
        raise ProtocolError("invalid_key", f"{what} is not a valid P-256 scalar") from None


def public_bytes(key: Union[ec.EllipticCurvePrivateKey, ec.EllipticCurvePublicKey]) -> bytes:
    if isinstance(key, ec.EllipticCurvePrivateKey):
        key = key.public_key()
    return key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


def private_bytes(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_numbers().private_value.to_bytes(PRIVATE_KEY_LEN, "big")


def new_private_key() -> bytes:
    """A fresh random P-256 private key, raw 32 bytes."""
    return private_bytes(ec.generate_private_key(_CURVE))


def public_from_private(raw: bytes) -> bytes:
    return public_bytes(load_private_key(raw))


def ecdsa_sign(private_raw: bytes, message: bytes) -> bytes:
    """ECDSA P-256/SHA-256, returned as raw ``r||s`` (64 bytes, JWS ES256 form)."""
    der = load_private_key(private_raw, "signing key").sign(message, ec.ECDSA(hashes.SHA256()))
    r, s = decode_dss_signature(der)
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")


def ecdsa_verify(public_x963: bytes, message: bytes, signature: bytes, what: str = "signature") -> None:
    """Verify a raw ``r||s`` signature; anything but exactly 64 bytes is rejected."""
    key = load_public_key(public_x963, "verification key")
    if not isinstance(signature, (bytes, bytearray)) or len(signature) != SIGNATURE_LEN:
        raise _malformed(f"{what} must be exactly {SIGNATURE_LEN} bytes")
    r = int.from_bytes(signature[:32], "big")
    s = int.from_bytes(signature[32:], "big")
    try:
        key.verify(encode_dss_signature(r, s), message, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise ProtocolError("bad_signature", f"{what} does not verify") from None


def ecdh(private_raw: bytes, public_x963: bytes) -> bytes:
    """ECDH shared secret: the 32-byte X coordinate."""
    return load_private_key(private_raw).exchange(ec.ECDH(), load_public_key(public_x963))


def hkdf_sha256(ikm: bytes, salt: bytes, info: bytes, length: int = 32) -> bytes:
    """HKDF-SHA256 (RFC 5869), extract and expand."""
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(ikm)


def _ct_equal(a: Union[bytes, str], b: Union[bytes, str]) -> bool:
    if isinstance(a, str):
        a = a.encode("utf-8", "surrogatepass")
    if isinstance(b, str):
        b = b.encode("utf-8", "surrogatepass")
    return hmac.compare_digest(a, b)


# --------------------------------------------------------------------------
# §2 Identities
# --------------------------------------------------------------------------


def key_id(public_x963: bytes) -> str:
    """``b64u(SHA-256(x963(pub))[0..<16])``: outpost_id and device_id (22 chars)."""
    load_public_key(public_x963)
    return b64u_encode(sha256(bytes(public_x963))[:16])


def fingerprint(public_x963: bytes) -> str:
    """First 16 bytes of SHA-256(x963(pub)) as 8 space-separated groups of 4 hex digits."""
    load_public_key(public_x963)
    digits = sha256(bytes(public_x963))[:16].hex().upper()
    return " ".join(digits[i : i + 4] for i in range(0, 32, 4))


_UUIDV7_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")


def check_pairing_id(value: Any, what: str = "pairing_id") -> str:
    """``pairing_id`` is b64u of 16 bytes (§2)."""
    b64u_decode(value, PAIRING_ID_LEN, what)
    return value


def check_event_id(value: Any, what: str = "event_id") -> str:
    """``event_id`` is a lower-case UUIDv7 string (§2): version 7, RFC 9562 variant."""
    if not isinstance(value, str) or not _UUIDV7_RE.fullmatch(value):
        raise _malformed(f"{what} is not a lower-case UUIDv7")
    return value


# --------------------------------------------------------------------------
# §3 Encryption context
# --------------------------------------------------------------------------

ACTIVITY_FIELDS = ("id", "event", "timestamp", "stale_date", "dismissal_date")


def check_activity(activity: Any) -> dict:
    """Validate an ``activity`` object (§5); all five fields are required.

    "An absent date is 0" (§3) is read as: a date that does not apply is
    written as 0, not left out of the JSON.
    """
    if not isinstance(activity, dict):
        raise _malformed("activity must be a JSON object")
    _exact_keys(activity, ACTIVITY_FIELDS, "activity")
    _str_field(activity, "id", "activity")
    if _str_field(activity, "event", "activity") not in ACTIVITY_EVENTS:
        raise _malformed(f"activity.event {activity['event']!r} is not start, update or end")
    for key in ("timestamp", "stale_date", "dismissal_date"):
        _u64_field(activity, key, "activity")
    return activity


def build_context(
    *,
    aud: str,
    pairing_id: str,
    event_id: str,
    kind: str,
    iat: int,
    activity: Optional[Mapping] = None,
    alg: str = ALG,
) -> bytes:
    if kind not in KINDS:
        raise _malformed(f"unsupported kind {kind!r}")
    if (kind == "live-activity") != (activity is not None):
        raise _malformed("activity must be present exactly when kind is live-activity")
    out = (
        lp(LABEL_CONTEXT)
        + lp(utf8(alg, "alg"))
        + lp(utf8(aud, "aud"))
        + lp(utf8(pairing_id, "pairing_id"))
        + lp(utf8(event_id, "event_id"))
        + lp(kind)
        + lp(u64be(iat))
    )
    if activity is not None:
        a = check_activity(activity)
        out += (
            lp(utf8(a["id"]))
            + lp(utf8(a["event"]))
            + lp(u64be(a["timestamp"]))
            + lp(u64be(a["stale_date"]))
            + lp(u64be(a["dismissal_date"]))
        )
    return out


# --------------------------------------------------------------------------
# §4/§5 Envelope, sealing and opening
# --------------------------------------------------------------------------

ENVELOPE_FIELDS = (
    "v", "alg", "aud", "pairing_id", "event_id", "kind", "iat",
    "epk", "salt", "nonce", "ct", "sig",
)  # fmt: skip


def envelope_signing_input(context: bytes, epk: bytes, salt: bytes, nonce: bytes, ct: bytes) -> bytes:
    return lp(LABEL_ENVELOPE) + lp(context) + lp(epk) + lp(salt) + lp(nonce) + lp(ct)


@dataclass(frozen=True)
class Envelope:
    """A shape-checked envelope (§5) with its binary fields decoded."""

    aud: str
    pairing_id: str
    event_id: str
    kind: str
    iat: int
    activity: Optional[dict]
    epk: bytes
    salt: bytes
    nonce: bytes
    ct: bytes
    sig: bytes

    def context(self) -> bytes:
        return build_context(
            aud=self.aud,
            pairing_id=self.pairing_id,
            event_id=self.event_id,
            kind=self.kind,
            iat=self.iat,
            activity=self.activity,
        )

    def signing_input(self) -> bytes:
        return envelope_signing_input(self.context(), self.epk, self.salt, self.nonce, self.ct)


def parse_envelope(envelope: Any) -> Envelope:
    """Shape checks of §5; any failure is ``malformed``. Beyond the field
    list, ``pairing_id`` and ``event_id`` must have their §2 forms.

    ``"activity": null`` is treated like an absent key (what a JSON encoder
    writes for an optional that is not set); any other value counts as present.
    """
    obj = _as_object(envelope, "envelope")
    fields = {k: v for k, v in obj.items() if not (k == "activity" and v is None)}
    kind = fields.get("kind")
    required = ENVELOPE_FIELDS + (("activity",) if kind == "live-activity" else ())
    if kind not in KINDS:
        if "kind" not in fields:
            raise _malformed("envelope: missing field(s) kind")
        raise _malformed(f"envelope: unsupported kind {kind!r}")
    if kind != "live-activity" and "activity" in fields:
        raise _malformed("envelope: activity is only allowed for kind live-activity")
    _exact_keys(fields, required, "envelope")
    _version_field(fields, "envelope")
    if fields["alg"] != ALG:
        raise _malformed(f"envelope: unsupported alg {fields['alg']!r}")
    ct = b64u_decode(fields["ct"], what="envelope.ct")
    if len(ct) < TAG_LEN:
        raise _malformed(f"envelope.ct must be at least {TAG_LEN} bytes")
    return Envelope(
        aud=_str_field(fields, "aud", "envelope"),
        pairing_id=check_pairing_id(fields["pairing_id"], "envelope.pairing_id"),
        event_id=check_event_id(fields["event_id"], "envelope.event_id"),
        kind=kind,
        iat=_u64_field(fields, "iat", "envelope"),
        activity=check_activity(fields["activity"]) if kind == "live-activity" else None,
        epk=b64u_decode(fields["epk"], PUBLIC_KEY_LEN, "envelope.epk"),
        salt=b64u_decode(fields["salt"], SALT_LEN, "envelope.salt"),
        nonce=b64u_decode(fields["nonce"], NONCE_LEN, "envelope.nonce"),
        ct=ct,
        sig=b64u_decode(fields["sig"], SIGNATURE_LEN, "envelope.sig"),
    )


@dataclass(frozen=True)
class Sealed:
    """Every intermediate value of one sealing (what the vectors record)."""

    envelope: dict
    context: bytes
    ephemeral_public: bytes
    shared_secret: bytes
    info: bytes
    key: bytes
    ct: bytes
    signing_input: bytes


def seal_detailed(
    plaintext: bytes,
    *,
    outpost_signing_private: bytes,
    device_agreement_public: bytes,
    aud: str,
    pairing_id: str,
    event_id: str,
    iat: int,
    kind: str = "notification",
    activity: Optional[Mapping] = None,
    ephemeral_private: Optional[bytes] = None,
    salt: Optional[bytes] = None,
    nonce: Optional[bytes] = None,
) -> Sealed:
    """§4 sealing. ``ephemeral_private``, ``salt`` and ``nonce`` are injectable
    for test vectors; when omitted they are freshly random, as they must be in
    production. ``pairing_id`` and ``event_id`` must have their §2 forms, since
    a receiver rejects anything else."""
    check_pairing_id(pairing_id)
    check_event_id(event_id)
    eph = ephemeral_private if ephemeral_private is not None else new_private_key()
    salt = salt if salt is not None else os.urandom(SALT_LEN)
    nonce = nonce if nonce is not None else os.urandom(NONCE_LEN)
    if len(salt) != SALT_LEN or len(nonce) != NONCE_LEN:
        raise _malformed("salt must be 32 bytes and nonce 12 bytes")
    load_public_key(device_agreement_public, "device agreement key")
    activity = dict(activity) if isinstance(activity, Mapping) else activity

    context = build_context(
        aud=aud, pairing_id=pairing_id, event_id=event_id, kind=kind, iat=iat, activity=activity
    )
    eph_pub = public_from_private(eph)
    shared = ecdh(eph, device_agreement_public)
    info = context + lp(eph_pub) + lp(device_agreement_public)
    key = hkdf_sha256(shared, salt, info, 32)
    ct = AESGCM(key).encrypt(nonce, bytes(plaintext), context)  # ciphertext || tag
    signing_input = envelope_signing_input(context, eph_pub, salt, nonce, ct)
    sig = ecdsa_sign(outpost_signing_private, signing_input)

    envelope = {
        "v": VERSION,
        "alg": ALG,
        "aud": aud,
        "pairing_id": pairing_id,
        "event_id": event_id,
        "kind": kind,
        "iat": iat,
        "epk": b64u_encode(eph_pub),
        "salt": b64u_encode(salt),
        "nonce": b64u_encode(nonce),
        "ct": b64u_encode(ct),
        "sig": b64u_encode(sig),
    }
    if activity is not None:
        envelope["activity"] = activity
    return Sealed(envelope, context, eph_pub, shared, info, key, ct, signing_input)


def seal(plaintext: bytes, **kwargs) -> dict:
    """Seal and return only the §5 envelope object."""
    return seal_detailed(plaintext, **kwargs).envelope


def verify_envelope(envelope: Any, outpost_public: bytes) -> Envelope:
    """What the relay checks: shape, the outpost signature, and that ``epk``
    is a valid point (§1: receivers validate every public key)."""
    env = parse_envelope(envelope)
    load_public_key(outpost_public, "outpost key")
    ecdsa_verify(outpost_public, env.signing_input(), env.sig, "envelope signature")
    load_public_key(env.epk, "envelope.epk")
    return env


def open_envelope(
    envelope: Any,
    *,
    device_agreement_private: bytes,
    outpost_public: bytes,
    aud: str,
    pairing_id: str,
    seen_event_ids: Optional[MutableSet[str]] = None,
) -> bytes:
    """§4 opening, in the normative order. On success the event id is added to
    ``seen_event_ids`` (when given) and the plaintext returned."""
    env = parse_envelope(envelope)
    device_agreement_public = public_from_private(device_agreement_private)
    load_public_key(outpost_public, "outpost key")

    # 1. verify sig with the pinned outpost key; 2. the context it covers is
    # rebuilt from the envelope fields (and reused as AAD below).
    context = env.context()
    signing_input = envelope_signing_input(context, env.epk, env.salt, env.nonce, env.ct)
    ecdsa_verify(outpost_public, signing_input, env.sig, "envelope signature")
    # 3. the envelope is addressed to us.
    if env.aud != aud:
        raise ProtocolError("wrong_audience", "envelope aud is not this device's relay")
    if env.pairing_id != pairing_id:
        raise ProtocolError("wrong_pairing", "envelope pairing_id is not this pairing")
    # 4. derive (the ephemeral key is validated as a point before ECDH).
    load_public_key(env.epk, "envelope.epk")
    shared = ecdh(device_agreement_private, env.epk)
    info = context + lp(env.epk) + lp(device_agreement_public)
    key = hkdf_sha256(shared, env.salt, info, 32)
    # 5. open with AAD = context.
    try:
        plaintext = AESGCM(key).decrypt(env.nonce, env.ct, context)
    except InvalidTag:
        raise ProtocolError("decryption_failed", "AES-GCM authentication failed") from None
    # 6. replay.
    if seen_event_ids is not None:
        if env.event_id in seen_event_ids:
            raise ProtocolError("replayed", "event_id was already accepted")
        seen_event_ids.add(env.event_id)
    return plaintext


# --------------------------------------------------------------------------
# §7 Message reference
# --------------------------------------------------------------------------

REF_FIELDS = ("v", "o", "d", "m", "f", "uv", "u", "iat")


def _check_ref_payload(payload: Any) -> dict:
    if not isinstance(payload, dict):
        raise _malformed("ref payload must be a JSON object")
    _exact_keys(payload, REF_FIELDS, "ref payload")
    _version_field(payload, "ref payload")
    for key in ("o", "d", "m", "f"):
        _str_field(payload, key, "ref payload")
    for key in ("uv", "u", "iat"):
        _u64_field(payload, key, "ref payload")
    return payload


def ref_payload_bytes(payload: Mapping) -> bytes:
    """Compact JSON, keys in the order v,o,d,m,f,uv,u,iat (README).

    Non-ASCII is written as raw UTF-8 and ``/`` is not escaped; the README does
    not say, and a verifier never re-serialises, so only vector generation
    depends on this choice.
    """
    p = _check_ref_payload(dict(payload))
    ordered = {k: p[k] for k in REF_FIELDS}
    return json.dumps(ordered, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def ref_signing_input(payload_bytes: bytes) -> bytes:
    return lp(LABEL_REF) + lp(payload_bytes)


def build_ref(outpost_signing_private: bytes, payload: Mapping) -> str:
    outpost_public = public_from_private(outpost_signing_private)
    data = ref_payload_bytes(payload)
    if payload["o"] != key_id(outpost_public):
        raise ProtocolError("wrong_key", "ref payload o is not the id of the signing key")
    sig = ecdsa_sign(outpost_signing_private, ref_signing_input(data))
    return b64u_encode(data) + "." + b64u_encode(sig)


def verify_ref(ref: Any, *, outpost_public: bytes, device_id: str) -> dict:
    """Verify a message reference; returns the payload object.

    The signed bytes are used exactly as decoded, never re-serialised.
    """
    if not isinstance(ref, str) or ref.count(".") != 1:
        raise _malformed("ref must be two base64url parts separated by one '.'")
    payload_part, sig_part = ref.split(".")
    data = b64u_decode(payload_part, what="ref payload")
    sig = b64u_decode(sig_part, SIGNATURE_LEN, "ref signature")
    payload = _check_ref_payload(loads_strict(data))
    load_public_key(outpost_public, "outpost key")
    ecdsa_verify(outpost_public, ref_signing_input(data), sig, "ref signature")
    if payload["o"] != key_id(outpost_public):
        raise ProtocolError("wrong_key", "ref was issued for another outpost")
    if not _ct_equal(payload["d"], device_id):
        raise ProtocolError("wrong_key", "ref was issued to another device")
    return payload


# --------------------------------------------------------------------------
# §8 Signed requests
# --------------------------------------------------------------------------

# keyid="…", ts="…", nonce="…", sig="…" — exactly this order and spacing.
# keyid is compared with the id of the key, not validated as base64url here,
# so that a foreign keyid is reported as wrong_key rather than malformed.
_HEADER_RE = re.compile(
    r'keyid="([^"\\\x00-\x1f]+)", ts="(0|[1-9][0-9]{0,19})", nonce="([A-Za-z0-9_-]*)", sig="([A-Za-z0-9_-]*)"'
)


@dataclass(frozen=True)
class SignatureHeader:
    keyid: str
    ts: int
    nonce: bytes
    sig: bytes


def request_signing_input(method: str, origin: str, path: str, ts: int, nonce: bytes, body: bytes) -> bytes:
    """§8. ``nonce`` is the raw 16 bytes (the header carries its b64u), like
    every other binary value inside signed bytes; ``ts`` is ASCII decimal."""
    if not _is_int(ts) or not 0 <= ts <= U64_MAX:
        raise _malformed("ts must be an unsigned integer")
    if len(nonce) != REQUEST_NONCE_LEN:
        raise _malformed(f"request nonce must be {REQUEST_NONCE_LEN} bytes")
    return (
        lp(LABEL_REQUEST)
        + lp(utf8(method, "method"))
        + lp(utf8(origin, "origin"))
        + lp(utf8(path, "path"))
        + lp(str(ts))
        + lp(nonce)
        + lp(sha256(bytes(body)))
    )


def format_signature_header(keyid: str, ts: int, nonce: bytes, sig: bytes) -> str:
    return f'keyid="{keyid}", ts="{ts}", nonce="{b64u_encode(nonce)}", sig="{b64u_encode(sig)}"'


def parse_signature_header(header: Any) -> SignatureHeader:
    """Strict parse of the ``Mailwake-Signature`` value (without the name)."""
    m = _HEADER_RE.fullmatch(header) if isinstance(header, str) else None
    if m is None:
        raise _malformed('signature header must be exactly keyid="…", ts="…", nonce="…", sig="…"')
    ts = int(m.group(2))
    if ts > U64_MAX:
        raise _malformed("ts out of range")
    return SignatureHeader(
        keyid=m.group(1),
        ts=ts,
        nonce=b64u_decode(m.group(3), REQUEST_NONCE_LEN, "request nonce"),
        sig=b64u_decode(m.group(4), SIGNATURE_LEN, "request signature"),
    )


def sign_request(
    signing_private: bytes,
    *,
    method: str,
    origin: str,
    path: str,
    body: bytes,
    ts: Optional[int] = None,
    nonce: Optional[bytes] = None,
) -> str:
    """Return the ``Mailwake-Signature`` header value for a request."""
    ts = int(time.time()) if ts is None else ts
    nonce = os.urandom(REQUEST_NONCE_LEN) if nonce is None else nonce
    keyid = key_id(public_from_private(signing_private))
    sig = ecdsa_sign(signing_private, request_signing_input(method, origin, path, ts, nonce, body))
    return format_signature_header(keyid, ts, nonce, sig)


def verify_request(
    header: Any,
    *,
    method: str,
    origin: str,
    path: str,
    body: bytes,
    public_key: bytes,
    now: Optional[int] = None,
    seen_nonces: Optional[MutableSet[str]] = None,
) -> str:
    """Verify a signed request; returns the keyid.

    ``seen_nonces`` holds b64u nonce strings accepted within the window; the
    nonce is added on success.
    """
    hdr = parse_signature_header(header)
    load_public_key(public_key, "request key")
    if not _ct_equal(hdr.keyid, key_id(public_key)):
        raise ProtocolError("wrong_key", "keyid is not the id of the public key")
    signing_input = request_signing_input(method, origin, path, hdr.ts, hdr.nonce, body)
    ecdsa_verify(public_key, signing_input, hdr.sig, "request signature")
    now = int(time.time()) if now is None else now
    if abs(now - hdr.ts) > REQUEST_MAX_SKEW:
        raise ProtocolError("clock_skew", f"ts is more than {REQUEST_MAX_SKEW} s from now")
    nonce_text = b64u_encode(hdr.nonce)
    if seen_nonces is not None:
        if nonce_text in seen_nonces:
            raise ProtocolError("replayed", "request nonce was already seen")
        seen_nonces.add(nonce_text)
    return hdr.keyid


# --------------------------------------------------------------------------
# §9 Push pairing (revision 2): secrets from the credential, consent, submission
# --------------------------------------------------------------------------

CONSENT_FIELDS = (
    "v", "pairing_id", "device_id", "device_signing_key", "device_agreement_key", "exp", "sig", "mac",
)  # fmt: skip
SUBMISSION_FIELDS = ("relay_token", "consent")


def _check_credential(credential: Any) -> bytes:
    if not isinstance(credential, (bytes, bytearray)) or len(credential) != CREDENTIAL_LEN:
        raise _malformed(f"credential must be {CREDENTIAL_LEN} bytes")
    return bytes(credential)


def relay_token_from_credential(credential: bytes) -> bytes:
    """``HKDF-SHA256(IKM = cred, salt = empty, info = "mailwake/pair/relay-token/v2", L = 32)``."""
    return hkdf_sha256(_check_credential(credential), HKDF_EMPTY_SALT, utf8(INFO_RELAY_TOKEN), RELAY_TOKEN_LEN)


def mac_key_from_credential(credential: bytes) -> bytes:
    """``HKDF-SHA256(IKM = cred, salt = empty, info = "mailwake/pair/consent-mac/v2", L = 32)``."""
    return hkdf_sha256(_check_credential(credential), HKDF_EMPTY_SALT, utf8(INFO_CONSENT_MAC), MAC_KEY_LEN)


def relay_token_hash(relay_token: bytes) -> bytes:
    """What the outpost registers at the relay: ``SHA-256(relay_token)`` (sent as b64u)."""
    if not isinstance(relay_token, (bytes, bytearray)) or len(relay_token) != RELAY_TOKEN_LEN:
        raise _malformed(f"relay_token must be {RELAY_TOKEN_LEN} bytes")
    return sha256(bytes(relay_token))


@dataclass(frozen=True)
class PairingSecrets:
    """Everything §9 derives from one credential."""

    relay_token: bytes  # goes to the relay with the consent
    relay_token_hash: bytes  # registered at the relay by the outpost
    mac_key: bytes  # known only to the outpost and the App


def pairing_secrets(credential: bytes) -> PairingSecrets:
    token = relay_token_from_credential(credential)
    return PairingSecrets(token, relay_token_hash(token), mac_key_from_credential(credential))


def check_relay_token(relay_token: Any, registered_hash: bytes) -> bytes:
    """The relay's check of a submitted ``relay_token`` (raw bytes or b64u)
    against the registered hash, in constant time: ``bad_credential``."""
    if isinstance(relay_token, str):
        relay_token = b64u_decode(relay_token, RELAY_TOKEN_LEN, "relay_token")
    digest = relay_token_hash(relay_token)
    if not _ct_equal(digest, bytes(registered_hash)):
        raise ProtocolError("bad_credential", "relay_token does not match the registered hash")
    return bytes(relay_token)


def consent_input(
    *,
    pairing_id: str,
    outpost_public: bytes,
    aud: str,
    device_id: str,
    device_signing_key: bytes,
    device_agreement_key: bytes,
    exp: int,
) -> bytes:
    """The bytes both ``sig`` and ``mac`` cover (§9, revision 2)."""
    return (
        lp(LABEL_CONSENT)
        + lp(utf8(pairing_id, "pairing_id"))
        + lp(sha256(bytes(outpost_public)))
        + lp(utf8(aud, "aud"))
        + lp(utf8(device_id, "device_id"))
        + lp(device_signing_key)
        + lp(device_agreement_key)
        + lp(u64be(exp))
    )


def consent_mac(mac_key: bytes, data: bytes) -> bytes:
    """``HMAC-SHA256(mac_key, consent_input)``."""
    return hmac.new(bytes(mac_key), bytes(data), hashlib.sha256).digest()


def build_consent(
    *,
    device_signing_private: bytes,
    device_agreement_public: bytes,
    outpost_public: bytes,
    pairing_id: str,
    aud: str,
    credential: bytes,
    exp: int,
) -> dict:
    """The App's consent object (§9 step 3), keys in the order of PROTOCOL.md."""
    check_pairing_id(pairing_id)
    load_public_key(outpost_public, "outpost key")
    load_public_key(device_agreement_public, "device agreement key")
    mac_key = mac_key_from_credential(credential)
    device_signing_public = public_from_private(device_signing_private)
    device_id = key_id(device_signing_public)
    data = consent_input(
        pairing_id=pairing_id,
        outpost_public=outpost_public,
        aud=aud,
        device_id=device_id,
        device_signing_key=device_signing_public,
        device_agreement_key=device_agreement_public,
        exp=exp,
    )
    return {
        "v": PAIRING_VERSION,
        "pairing_id": pairing_id,
        "device_id": device_id,
        "device_signing_key": b64u_encode(device_signing_public),
        "device_agreement_key": b64u_encode(device_agreement_public),
        "exp": exp,
        "sig": b64u_encode(ecdsa_sign(device_signing_private, data)),
        "mac": b64u_encode(consent_mac(mac_key, data)),
    }


def build_consent_submission(consent: Mapping, *, credential: bytes) -> dict:
    """The body of ``POST /v1/pairings/{id}/consent``: ``{relay_token, consent}``."""
    return {"relay_token": b64u_encode(relay_token_from_credential(credential)), "consent": dict(consent)}


def parse_consent_submission(submission: Any) -> tuple:
    """Shape of a submission; returns ``(relay_token bytes, consent object)``.
    The consent itself is checked by :func:`verify_consent`."""
    obj = _as_object(submission, "consent submission")
    _exact_keys(obj, SUBMISSION_FIELDS, "consent submission")
    token = b64u_decode(obj["relay_token"], RELAY_TOKEN_LEN, "consent submission.relay_token")
    return token, _as_object(obj["consent"], "consent submission.consent")


def _pairing_version(value: Any, what: str) -> None:
    """``v`` of a pair link or a pairing consent: 2; 1 is a revision-1 peer."""
    if _is_int(value) and value == PAIRING_VERSION_OLD:
        raise ProtocolError(
            "upgrade_required",
            f"{what} is pairing revision 1; the {'outpost' if what == 'pair link' else 'App'} "
            "that made it must be upgraded to pairing revision 2",
        )
    if not _is_int(value) or value != PAIRING_VERSION:
        raise _malformed(f"{what}: unsupported version {value!r}")


def verify_consent(
    consent: Any,
    *,
    outpost_public: bytes,
    credential: bytes,
    aud: str,
    pairing_id: str,
    now: Optional[int] = None,
) -> dict:
    """The outpost's check of a pairing consent (§9 step 4); returns the consent.

    Order (vectors README): ``v`` → shape → ``mac`` under the outpost's own
    ``mac_key`` in constant time, before anything else → keys on the curve →
    ``device_id`` → ``pairing_id`` → device signature → ``exp`` (expired when
    ``now > exp``). A consent for another credential, outpost, ``aud`` or
    ``exp``, or one made by the relay, fails at the ``mac`` (``bad_mac``).
    """
    what = "consent"
    obj = _as_object(consent, what)
    if "v" not in obj:
        raise _malformed("consent: missing field(s) v")
    _pairing_version(obj["v"], what)
    # shape
    _exact_keys(obj, CONSENT_FIELDS, what)
    pid = check_pairing_id(obj["pairing_id"], "consent.pairing_id")
    device_id = _str_field(obj, "device_id", what)
    dsk = b64u_decode(obj["device_signing_key"], PUBLIC_KEY_LEN, "consent.device_signing_key")
    dak = b64u_decode(obj["device_agreement_key"], PUBLIC_KEY_LEN, "consent.device_agreement_key")
    exp = _u64_field(obj, "exp", what)
    sig = b64u_decode(obj["sig"], SIGNATURE_LEN, "consent.sig")
    mac = b64u_decode(obj["mac"], MAC_LEN, "consent.mac")
    if not isinstance(outpost_public, (bytes, bytearray)) or len(outpost_public) != PUBLIC_KEY_LEN:
        raise _malformed(f"outpost key must be a {PUBLIC_KEY_LEN}-byte X9.63 point")
    mac_key = mac_key_from_credential(credential)
    data = consent_input(
        pairing_id=pid,
        outpost_public=outpost_public,
        aud=aud,
        device_id=device_id,
        device_signing_key=dsk,
        device_agreement_key=dak,
        exp=exp,
    )
    # mac, first and in constant time
    if not hmac.compare_digest(consent_mac(mac_key, data), mac):
        raise ProtocolError("bad_mac", "consent mac does not verify: it was not made with this pairing's credential")
    # keys on the curve
    load_public_key(outpost_public, "outpost key")
    load_public_key(dsk, "consent.device_signing_key")
    load_public_key(dak, "consent.device_agreement_key")
    # ids
    if device_id != key_id(dsk):
        raise ProtocolError("wrong_key", "consent device_id is not the id of device_signing_key")
    # the verifier's expectation
    if pid != pairing_id:
        raise ProtocolError("wrong_pairing", "consent is for another pairing")
    # signature
    ecdsa_verify(dsk, data, sig, "consent signature")
    # time
    now = int(time.time()) if now is None else now
    if now > exp:
        raise ProtocolError("expired", "consent has expired")
    return obj


# --------------------------------------------------------------------------
# §10 Management consent
# --------------------------------------------------------------------------

MANAGE_CONSENT_FIELDS = (
    "v", "device_id", "device_signing_key", "device_agreement_key", "token", "scopes", "exp", "sig",
)  # fmt: skip


def check_scopes(scopes: Any, what: str = "scopes") -> list:
    """A non-empty list of distinct known scope names (order is free)."""
    if not isinstance(scopes, list) or not scopes:
        raise _malformed(f"{what} must be a non-empty list")
    for scope in scopes:
        if scope not in SCOPES:
            raise _malformed(f"{what}: unknown scope {scope!r}")
    if len(set(scopes)) != len(scopes):
        raise _malformed(f"{what}: duplicate scope")
    return list(scopes)


def scopes_signed_form(scopes: Iterable[str]) -> str:
    """Sorted by UTF-8 byte order and joined with ','."""
    return ",".join(sorted(scopes, key=lambda s: s.encode("utf-8")))


def manage_consent_signing_input(
    *,
    outpost_public: bytes,
    device_id: str,
    device_signing_key: bytes,
    device_agreement_key: bytes,
    token: bytes,
    scopes: Iterable[str],
    exp: int,
) -> bytes:
    return (
        lp(LABEL_MANAGE_CONSENT)
        + lp(sha256(outpost_public))
        + lp(utf8(device_id, "device_id"))
        + lp(device_signing_key)
        + lp(device_agreement_key)
        + lp(sha256(token))
        + lp(scopes_signed_form(scopes))
        + lp(u64be(exp))
    )


def build_manage_consent(
    *,
    device_signing_private: bytes,
    device_agreement_public: bytes,
    outpost_public: bytes,
    token: bytes,
    scopes: Iterable[str],
    exp: int,
) -> dict:
    """The redeem body of §10. ``scopes`` are written in the order given."""
    scopes = check_scopes(list(scopes))
    load_public_key(outpost_public, "outpost key")
    load_public_key(device_agreement_public, "device agreement key")
    device_signing_public = public_from_private(device_signing_private)
    device_id = key_id(device_signing_public)
    signing_input = manage_consent_signing_input(
        outpost_public=outpost_public,
        device_id=device_id,
        device_signing_key=device_signing_public,
        device_agreement_key=device_agreement_public,
        token=token,
        scopes=scopes,
        exp=exp,
    )
    return {
        "v": VERSION,
        "device_id": device_id,
        "device_signing_key": b64u_encode(device_signing_public),
        "device_agreement_key": b64u_encode(device_agreement_public),
        "token": b64u_encode(token),
        "scopes": scopes,
        "exp": exp,
        "sig": b64u_encode(ecdsa_sign(device_signing_private, signing_input)),
    }


def verify_manage_consent(
    body: Any,
    *,
    outpost_public: bytes,
    token: bytes,
    offered_scopes: Iterable[str],
    now: Optional[int] = None,
) -> dict:
    """The outpost's check of a management redeem body (§10); returns it.

    The token is compared (constant time) before the signature, which is then
    checked over the hash of the invitation's own token: a token that is not
    the invitation's is ``bad_credential``; a requested scope that was not
    offered is ``scope_not_offered``.
    """
    obj = _as_object(body, "management consent")
    what = "management consent"
    _exact_keys(obj, MANAGE_CONSENT_FIELDS, what)
    _version_field(obj, what)
    device_id = _str_field(obj, "device_id", what)
    dsk = b64u_decode(obj["device_signing_key"], PUBLIC_KEY_LEN, f"{what}.device_signing_key")
    dak = b64u_decode(obj["device_agreement_key"], PUBLIC_KEY_LEN, f"{what}.device_agreement_key")
    body_token = b64u_decode(obj["token"], TOKEN_LEN, f"{what}.token")
    scopes = check_scopes(obj["scopes"], f"{what}.scopes")
    exp = _u64_field(obj, "exp", what)
    sig = b64u_decode(obj["sig"], SIGNATURE_LEN, f"{what}.sig")
    offered = set(check_scopes(list(offered_scopes), "offered scopes"))

    load_public_key(outpost_public, "outpost key")
    load_public_key(dsk, f"{what}.device_signing_key")
    load_public_key(dak, f"{what}.device_agreement_key")
    if device_id != key_id(dsk):
        raise ProtocolError("wrong_key", "device_id is not the id of device_signing_key")
    if not _ct_equal(body_token, token):
        raise ProtocolError("bad_credential", "token is not the invitation token")
    signing_input = manage_consent_signing_input(
        outpost_public=outpost_public,
        device_id=device_id,
        device_signing_key=dsk,
        device_agreement_key=dak,
        token=token,  # the token the outpost issued, not the one in the body
        scopes=scopes,
        exp=exp,
    )
    ecdsa_verify(dsk, signing_input, sig, "management consent signature")
    if not set(scopes) <= offered:
        raise ProtocolError("scope_not_offered", "requested scopes exceed the offered scopes")
    now = int(time.time()) if now is None else now
    if now > exp:
        raise ProtocolError("expired", "management consent has expired")
    return obj


# --------------------------------------------------------------------------
# §9/§10 Links
# --------------------------------------------------------------------------

PAIR_PREFIX = "mailwake://pair?"
MANAGE_PREFIX = "mailwake://manage?"
PAIR_PARAMS = ("v", "ok", "relay", "env", "pid", "cred", "exp")
MANAGE_PARAMS = ("v", "ok", "url", "pin", "tok", "scope", "exp")
PUSH_PARAMS = ("relay", "env", "pid", "cred")

_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_PCT_RE = re.compile(r"(?:[A-Za-z0-9._~-]|%[0-9A-F]{2})*")
_DECIMAL_RE = re.compile(r"0|[1-9][0-9]{0,19}")


def percent_encode(text: str) -> str:
    """Escape every UTF-8 byte outside ``A-Z a-z 0-9 - . _ ~`` as upper-case %XX."""
    return "".join(chr(b) if b in _UNRESERVED else f"%{b:02X}" for b in utf8(text))


def percent_decode(text: str, what: str = "value") -> str:
    """Strict inverse of :func:`percent_encode`: only its exact output is accepted."""
    if not _PCT_RE.fullmatch(text):
        raise _malformed(f"{what} is not percent-encoded as required")
    raw = bytearray()
    i = 0
    while i < len(text):
        if text[i] == "%":
            raw.append(int(text[i + 1 : i + 3], 16))
            i += 3
        else:
            raw.append(ord(text[i]))
            i += 1
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _malformed(f"{what} is not UTF-8") from None
    if percent_encode(decoded) != text:
        raise _malformed(f"{what} is not canonically percent-encoded")
    return decoded


def parse_decimal(text: str, what: str) -> int:
    """A canonical unsigned decimal (no sign, no leading zeros) within u64."""
    if not _DECIMAL_RE.fullmatch(text) or int(text) > U64_MAX:
        raise _malformed(f"{what} must be an unsigned decimal integer")
    return int(text)


def _u64_text(n: int) -> str:
    u64be(n)  # range check
    return str(n)


def _check_env(env: Any) -> str:
    if env not in ENVS:
        raise _malformed(f"env must be production or sandbox, not {env!r}")
    return env


# An https origin: scheme, host (DNS name, IPv4 or bracketed IPv6) and an
# optional port; no userinfo, path (not even "/"), query or fragment.
_DNS_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HTTPS_ORIGIN_RE = re.compile(
    rf"https://(?:{_DNS_LABEL}(?:\.{_DNS_LABEL})*|\[[0-9A-Fa-f:.]+\])(?::(?P<port>[1-9][0-9]{{0,4}}))?"
)


def check_https_origin(value: Any, what: str) -> str:
    """The relay (``aud``) and the outpost URL in links are https origins (§9, §10)."""
    m = _HTTPS_ORIGIN_RE.fullmatch(value) if isinstance(value, str) else None
    if m is None or (m.group("port") and int(m.group("port")) > 65535):
        raise _malformed(f"{what} must be an https origin (https://host[:port])")
    return value


def _push_pairs(relay: str, env: str, pairing_id: str, credential: bytes) -> list:
    check_pairing_id(pairing_id, "pid")
    if len(credential) != CREDENTIAL_LEN:
        raise _malformed(f"credential must be {CREDENTIAL_LEN} bytes")
    return [
        ("relay", percent_encode(check_https_origin(relay, "relay"))),
        ("env", _check_env(env)),
        ("pid", pairing_id),
        ("cred", b64u_encode(credential)),
    ]


def _join(prefix: str, pairs: list) -> str:
    return prefix + "&".join(f"{k}={v}" for k, v in pairs)


def build_pair_link(
    *, outpost_public: bytes, relay: str, env: str, pairing_id: str, credential: bytes, exp: int
) -> str:
    """Push-pairing link, ``v=2`` (§9, revision 2)."""
    load_public_key(outpost_public, "ok")
    pairs = [("v", str(PAIRING_VERSION)), ("ok", b64u_encode(outpost_public))]
    pairs += _push_pairs(relay, env, pairing_id, credential)
    pairs.append(("exp", _u64_text(exp)))
    return _join(PAIR_PREFIX, pairs)


def build_manage_link(
    *,
    outpost_public: bytes,
    url: str,
    pin: bytes,
    token: bytes,
    scopes: Iterable[str],
    exp: int,
    relay: Optional[str] = None,
    env: Optional[str] = None,
    pairing_id: Optional[str] = None,
    credential: Optional[bytes] = None,
) -> str:
    """Management link; the push-pairing parameters are required exactly when
    ``push`` is among the scopes. Scopes are written in the order given,
    joined by a literal ','."""
    load_public_key(outpost_public, "ok")
    scopes = check_scopes(list(scopes), "scope")
    if len(pin) != PIN_LEN or len(token) != TOKEN_LEN:
        raise _malformed("pin and token must be 32 bytes")
    pairs = [
        ("v", str(MANAGE_LINK_VERSION)),
        ("ok", b64u_encode(outpost_public)),
        ("url", percent_encode(check_https_origin(url, "url"))),
        ("pin", b64u_encode(pin)),
        ("tok", b64u_encode(token)),
        ("scope", ",".join(scopes)),
        ("exp", _u64_text(exp)),
    ]
    push = (relay, env, pairing_id, credential)
    if "push" in scopes:
        if any(x is None for x in push):
            raise _malformed("a link offering push needs relay, env, pid and cred")
        pairs += _push_pairs(relay, env, pairing_id, credential)
    elif any(x is not None for x in push):
        raise _malformed("push-pairing parameters without the push scope")
    return _join(MANAGE_PREFIX, pairs)


def parse_link(link: Any) -> dict:
    """Parse and validate a pair or manage link.

    Returns ``{"kind": "pair"|"manage", <param>: value}`` with ``v``/``exp``
    as ints, ``scope`` as a list, ``relay``/``url`` percent-decoded, and the
    base64url parameters as their (validated) strings.

    The version is checked first, before the parameter list: a pair link with
    ``v=1`` (pairing revision 1) is ``upgrade_required`` whatever else it
    carries; a pair link must be ``v=2`` and a management link ``v=1``
    (otherwise ``malformed``). A ``v`` that is not the first parameter is a
    shape error (``malformed``).
    """
    if not isinstance(link, str):
        raise _malformed("link must be a string")
    if link.startswith(PAIR_PREFIX):
        kind, query = "pair", link[len(PAIR_PREFIX) :]
    elif link.startswith(MANAGE_PREFIX):
        kind, query = "manage", link[len(MANAGE_PREFIX) :]
    else:
        raise _malformed("link must start with mailwake://pair? or mailwake://manage?")

    pairs = []
    for part in query.split("&"):
        name, sep, value = part.partition("=")
        if not sep:
            raise _malformed(f"link parameter {part!r} has no value")
        pairs.append((name, value))
    if pairs[0][0] == "v":
        if kind == "pair":
            text = pairs[0][1]
            _pairing_version(int(text) if text in ("1", "2") else text, "pair link")
        elif pairs[0][1] != str(MANAGE_LINK_VERSION):
            raise _malformed(f"unsupported management link version {pairs[0][1]!r}")
    names = [n for n, _ in pairs]
    if kind == "pair":
        expected = list(PAIR_PARAMS)
    else:
        expected = list(MANAGE_PARAMS)
        if len(names) > len(MANAGE_PARAMS):
            expected += PUSH_PARAMS
    if names != expected:
        raise _malformed(f"link parameters must be exactly {','.join(expected)} in that order")
    raw = dict(pairs)

    out: dict = {"kind": kind, "v": PAIRING_VERSION if kind == "pair" else MANAGE_LINK_VERSION}
    ok = b64u_decode(raw["ok"], PUBLIC_KEY_LEN, "ok")
    out["ok"] = raw["ok"]
    if kind == "manage":
        out["url"] = check_https_origin(percent_decode(raw["url"], "url"), "url")
        b64u_decode(raw["pin"], PIN_LEN, "pin")
        out["pin"] = raw["pin"]
        b64u_decode(raw["tok"], TOKEN_LEN, "tok")
        out["tok"] = raw["tok"]
        out["scope"] = check_scopes(raw["scope"].split(","), "scope")
        if ("push" in out["scope"]) != ("relay" in raw):
            raise _malformed("push-pairing parameters must be present exactly when push is offered")
    out["exp"] = parse_decimal(raw["exp"], "exp")
    if "relay" in raw:
        out["relay"] = check_https_origin(percent_decode(raw["relay"], "relay"), "relay")
        out["env"] = _check_env(raw["env"])
        b64u_decode(raw["pid"], PAIRING_ID_LEN, "pid")
        out["pid"] = raw["pid"]
        b64u_decode(raw["cred"], CREDENTIAL_LEN, "cred")
        out["cred"] = raw["cred"]
    load_public_key(ok, "ok")  # after the shape checks, as everywhere else
    return out
