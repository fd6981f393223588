"""Writes the Sigstore test bundles of src/package/sigstore.rs and provenance.rs: a test trust root
(a Fulcio-like root and intermediate, P-384, and a Rekor-like P-256 log key), and, signed under
it the way Fulcio, Rekor and npm/PyPI do, npm's attestations document for the tarball `TARBALL`
(Rekor kind `intoto` 0.0.2), one such bundle logged after its certificate expired, and PyPI's
provenance for the wheel `WHEEL` (kind `dsse` 0.0.1).

The registries this project's tests reach serve no attestations, so these bundles are made here
(the one real bundle, pypi_attestations-0.0.19.tar.gz.provenance.json, is PyPI's Integrity API
answer for that file, verified against Sigstore's public-good root in the binary).
Rerun (python3 generate.py, with `cryptography`) to make new keys; the tests read the outputs.
"""

import base64
import datetime
import hashlib
import json

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, ObjectIdentifier

TARBALL = b"the npm tarball this statement is about\n"
WHEEL = b"the wheel this statement is about\n"
INTEGRATED = 1767225600  # 2026-01-01T00:00:00Z
REPO = "https://github.com/example-org/example-server"
COMMIT = "0123456789abcdef0123456789abcdef01234567"
WORKFLOW = REPO + "/.github/workflows/release.yml@refs/tags/v1.0.0"
ISSUER = "https://token.actions.githubusercontent.com"

b64 = lambda b: base64.b64encode(b).decode()
at = lambda t: datetime.datetime.fromtimestamp(t, datetime.timezone.utc)


def der(cert):
    return cert.public_bytes(serialization.Encoding.DER)


def ca(name, key, issuer_name, issuer_key, path_length, eku=None):
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(x509.NameOID.COMMON_NAME, name)]))
        .issuer_name(issuer_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(at(INTEGRATED - 365 * 86400))
        .not_valid_after(at(INTEGRATED + 3650 * 86400))
        .add_extension(x509.BasicConstraints(ca=True, path_length=path_length), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False),
            critical=True,
        )
    )
    if eku:
        # As Fulcio's intermediate: code signing only.
        builder = builder.add_extension(x509.ExtendedKeyUsage(eku), critical=False)
    return builder.sign(issuer_key, hashes.SHA384())


def utf8(text):
    raw = text.encode()
    return bytes([0x0C, len(raw)]) + raw


def fulcio(n):
    return ObjectIdentifier(f"1.3.6.1.4.1.57264.1.{n}")


root_key = ec.generate_private_key(ec.SECP384R1())
root_name = x509.Name([x509.NameAttribute(x509.NameOID.COMMON_NAME, "test-fulcio-root")])
root = ca("test-fulcio-root", root_key, root_name, root_key, 1)
inter_key = ec.generate_private_key(ec.SECP384R1())
inter = ca(
    "test-fulcio-intermediate", inter_key, root_name, root_key, 0, [ExtendedKeyUsageOID.CODE_SIGNING]
)
rekor_key = ec.generate_private_key(ec.SECP256R1())
rekor_spki = rekor_key.public_key().public_bytes(
    serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
)
log_id = hashlib.sha256(rekor_spki).digest()


def leaf(key):
    return (
        x509.CertificateBuilder()
        .subject_name(x509.Name([]))
        .issuer_name(inter.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(at(INTEGRATED - 60))
        .not_valid_after(at(INTEGRATED + 540))
        .add_extension(
            x509.KeyUsage(True, False, False, False, False, False, False, False, False),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CODE_SIGNING]), critical=False)
        .add_extension(
            x509.SubjectAlternativeName([x509.UniformResourceIdentifier(WORKFLOW)]), critical=True
        )
        .add_extension(x509.UnrecognizedExtension(fulcio(1), ISSUER.encode()), critical=False)
        .add_extension(x509.UnrecognizedExtension(fulcio(8), utf8(ISSUER)), critical=False)
        .add_extension(x509.UnrecognizedExtension(fulcio(12), utf8(REPO)), critical=False)
        .add_extension(x509.UnrecognizedExtension(fulcio(13), utf8(COMMIT)), critical=False)
        .add_extension(x509.UnrecognizedExtension(fulcio(18), utf8(WORKFLOW)), critical=False)
        .sign(inter_key, hashes.SHA384())
    )


def pem(cert):
    return cert.public_bytes(serialization.Encoding.PEM)


def signed(subject_name, digest_alg, digest, kind, integrated=INTEGRATED):
    """A statement about one file, its DSSE signature, the leaf and the log entry."""
    statement = {
        "_type": "https://in-toto.io/Statement/v1",
        "subject": [{"name": subject_name, "digest": {digest_alg: digest}}],
        "predicateType": "https://slsa.dev/provenance/v1",
        "predicate": {
            "buildDefinition": {
                "buildType": "https://slsa-framework.github.io/github-actions-buildtypes/workflow/v1",
                "externalParameters": {
                    "workflow": {
                        "ref": "refs/tags/v1.0.0",
                        "repository": REPO,
                        "path": ".github/workflows/release.yml",
                    }
                },
            }
        },
    }
    payload = json.dumps(statement, separators=(",", ":")).encode()
    payload_type = "application/vnd.in-toto+json"
    key = ec.generate_private_key(ec.SECP256R1())
    cert = leaf(key)
    pae = b"DSSEv1 %d %s %d %s" % (len(payload_type), payload_type.encode(), len(payload), payload)
    signature = key.sign(pae, ec.ECDSA(hashes.SHA256()))
    payload_hash = {"algorithm": "sha256", "value": hashlib.sha256(payload).hexdigest()}
    if kind == "intoto":
        body = {
            "apiVersion": "0.0.2",
            "kind": "intoto",
            "spec": {
                "content": {
                    "envelope": {
                        "payloadType": payload_type,
                        "signatures": [{"publicKey": b64(pem(cert)), "sig": b64(b64(signature).encode())}],
                    },
                    "hash": {"algorithm": "sha256", "value": hashlib.sha256(payload).hexdigest()},
                    "payloadHash": payload_hash,
                }
            },
        }
    else:
        body = {
            "apiVersion": "0.0.1",
            "kind": "dsse",
            "spec": {
                "envelopeHash": {"algorithm": "sha256", "value": hashlib.sha256(payload).hexdigest()},
                "payloadHash": payload_hash,
                "signatures": [{"signature": b64(signature), "verifier": b64(pem(cert))}],
            },
        }
    body_b64 = b64(json.dumps(body, separators=(",", ":"), sort_keys=True).encode())
    log_index = 424242
    set_payload = json.dumps(
        {"body": body_b64, "integratedTime": integrated, "logID": log_id.hex(), "logIndex": log_index},
        separators=(",", ":"),
        sort_keys=True,
    ).encode()
    entry = {
        "logIndex": str(log_index),
        "logId": {"keyId": b64(log_id)},
        "kindVersion": {"kind": kind, "version": body["apiVersion"]},
        "integratedTime": str(integrated),
        "inclusionPromise": {"signedEntryTimestamp": b64(rekor_key.sign(set_payload, ec.ECDSA(hashes.SHA256())))},
        "canonicalizedBody": body_b64,
    }
    return payload, payload_type, signature, cert, entry


def write(name, value):
    with open(name, "w") as f:
        json.dump(value, f, indent=2)
        f.write("\n")


write(
    "trusted_root.json",
    {
        "mediaType": "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
        "tlogs": [
            {
                "baseUrl": "https://rekor.test",
                "hashAlgorithm": "SHA2_256",
                "publicKey": {
                    "rawBytes": b64(rekor_spki),
                    "keyDetails": "PKIX_ECDSA_P256_SHA_256",
                    "validFor": {"start": "2025-01-01T00:00:00Z"},
                },
                "logId": {"keyId": b64(log_id)},
            }
        ],
        "certificateAuthorities": [
            {
                "subject": {"organization": "test", "commonName": "test-fulcio"},
                "uri": "https://fulcio.test",
                "certChain": {"certificates": [{"rawBytes": b64(der(inter))}, {"rawBytes": b64(der(root))}]},
                "validFor": {"start": "2025-01-01T00:00:00Z"},
            }
        ],
        "ctlogs": [],
        "timestampAuthorities": [],
    },
)

sha512 = hashlib.sha512(TARBALL).hexdigest()
payload, ptype, sig, cert, entry = signed("pkg:npm/example-server@1.0.0", "sha512", sha512, "intoto")
write(
    "npm_attestations.json",
    {
        "attestations": [
            {
                "predicateType": "https://slsa.dev/provenance/v1",
                "bundle": {
                    "mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json",
                    "verificationMaterial": {"certificate": {"rawBytes": b64(der(cert))}, "tlogEntries": [entry]},
                    "dsseEnvelope": {"payload": b64(payload), "payloadType": ptype, "signatures": [{"sig": b64(sig), "keyid": ""}]},
                },
            }
        ]
    },
)

# Logged an hour after its certificate expired: Rekor's promise is genuine, the chain is not valid.
payload, ptype, sig, cert, entry = signed(
    "pkg:npm/example-server@1.0.0", "sha512", sha512, "intoto", integrated=INTEGRATED + 3600
)
write(
    "npm_bundle_logged_late.json",
    {
        "mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json",
        "verificationMaterial": {"certificate": {"rawBytes": b64(der(cert))}, "tlogEntries": [entry]},
        "dsseEnvelope": {"payload": b64(payload), "payloadType": ptype, "signatures": [{"sig": b64(sig), "keyid": ""}]},
    },
)

sha256 = hashlib.sha256(WHEEL).hexdigest()
payload, ptype, sig, cert, entry = signed("example_server-1.0.0-py3-none-any.whl", "sha256", sha256, "dsse")
write(
    "pypi_provenance.json",
    {
        "version": 1,
        "attestation_bundles": [
            {
                "publisher": {"kind": "GitHub", "repository": "example-org/example-server", "workflow": "release.yml", "environment": None},
                "attestations": [
                    {
                        "version": 1,
                        "verification_material": {"certificate": b64(der(cert)), "transparency_entries": [entry]},
                        "envelope": {"statement": b64(payload), "signature": b64(sig)},
                    }
                ],
            }
        ],
    },
)
write("subjects.json", {"npmIntegrity": "sha512-" + b64(hashlib.sha512(TARBALL).digest()), "pypiSha256": sha256})
