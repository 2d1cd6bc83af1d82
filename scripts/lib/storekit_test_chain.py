#!/usr/bin/env python3
"""A throwaway App Store-like chain and a signed StoreKit transaction, for the
local stack only (never a real Apple chain): a P-384 root, a P-384
intermediate carrying Apple's WWDR marker 1.2.840.113635.100.6.2.1, a P-256
leaf carrying the receipt-signing marker 1.2.840.113635.100.6.11.1, and an
ES256 JWS with `x5c`, as StoreKit 2 hands the App a transaction.

Usage: storekit_test_chain.py DIR BUNDLE_ID PRODUCT_ID
Writes DIR/appstore-root.pem and prints the signed transaction.
"""
import base64
import datetime
import json
import os
import sys
import time
import uuid

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils
from cryptography.x509.oid import NameOID

NULL = b"\x05\x00"


def name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn), x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Mailwake local stack")])


def certificate(subject, public_key, issuer, issuer_key, ca: bool, marker: str | None) -> x509.Certificate:
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(public_key)
               .serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=365))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=0 if ca and issuer != subject else None), critical=True)
               .add_extension(x509.KeyUsage(digital_signature=not ca, content_commitment=False, key_encipherment=False, data_encipherment=False,
                                            key_agreement=False, key_cert_sign=ca, crl_sign=ca, encipher_only=False, decipher_only=False), critical=True))
    builder = builder.add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key), critical=False)
    if issuer != subject:
        builder = builder.add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), critical=False)
    if marker:
        builder = builder.add_extension(x509.UnrecognizedExtension(x509.ObjectIdentifier(marker), NULL), critical=False)
    return builder.sign(issuer_key, hashes.SHA384() if isinstance(issuer_key.curve, ec.SECP384R1) else hashes.SHA256())


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def main() -> int:
    directory, bundle_id, product_id = sys.argv[1], sys.argv[2], sys.argv[3]
    root_key = ec.generate_private_key(ec.SECP384R1())
    root = certificate(name("Mailwake local App Store Root"), root_key.public_key(), name("Mailwake local App Store Root"), root_key, True, None)
    inter_key = ec.generate_private_key(ec.SECP384R1())
    inter = certificate(name("Mailwake local WWDR"), inter_key.public_key(), root.subject, root_key, True, "1.2.840.113635.100.6.2.1")
    leaf_key = ec.generate_private_key(ec.SECP256R1())
    leaf = certificate(name("Mailwake local StoreKit signing"), leaf_key.public_key(), inter.subject, inter_key, False, "1.2.840.113635.100.6.11.1")
    with open(os.path.join(directory, "appstore-root.pem"), "wb") as f:
        f.write(root.public_bytes(serialization.Encoding.PEM))
    now = int(time.time() * 1000)
    original = str(uuid.uuid4().int % 10**15)
    payload = {
        "transactionId": original + "1", "originalTransactionId": original, "bundleId": bundle_id, "productId": product_id,
        "purchaseDate": now - 1000, "expiresDate": now + 30 * 86400 * 1000, "type": "Auto-Renewable Subscription",
        "inAppOwnershipType": "PURCHASED", "signedDate": now, "environment": "Sandbox",
    }
    x5c = [base64.b64encode(c.public_bytes(serialization.Encoding.DER)).decode() for c in (leaf, inter, root)]
    signing_input = b64u(json.dumps({"alg": "ES256", "x5c": x5c}).encode()) + "." + b64u(json.dumps(payload).encode())
    r, s = utils.decode_dss_signature(leaf_key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
    print(signing_input + "." + b64u(r.to_bytes(32, "big") + s.to_bytes(32, "big")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
