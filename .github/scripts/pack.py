#!/usr/bin/env python3
"""The release archives and their checksums, the same on every runner (Linux, macOS, Windows).

    python3 .github/scripts/pack.py archive OUT.tar.gz|OUT.zip BINARY [DOC ...]
    python3 .github/scripts/pack.py sums DIR

`archive` writes the binary (mode 0755) and the documents (0644) at the archive's top level, with
fixed owners and timestamps (SOURCE_DATE_EPOCH, else 0), so the same inputs give the same bytes.
`sums` writes DIR/SHA256SUMS in `sha256sum` format over every archive in DIR, sorted by name
(`sha256sum -c SHA256SUMS` checks it). Python's standard library only: no GNU tar, zip or
sha256sum needed on macOS or Windows runners.
"""

import gzip
import hashlib
import io
import os
import sys
import tarfile
import time
import zipfile

ARCHIVE_SUFFIXES = (".tar.gz", ".zip")
SUMS = "SHA256SUMS"


def epoch() -> int:
    return int(os.environ.get("SOURCE_DATE_EPOCH", "0"))


def members(binary: str, docs: list) -> list:
    """(name in the archive, path on disk, mode) for the binary and each document."""
    out = [(os.path.basename(binary), binary, 0o755)]
    out += [(os.path.basename(d), d, 0o644) for d in docs]
    return out


def write_tar_gz(out: str, entries: list) -> None:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, path, mode in entries:
            info = tarfile.TarInfo(name)
            info.size = os.path.getsize(path)
            info.mode = mode
            info.mtime = epoch()
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            with open(path, "rb") as f:
                tar.addfile(info, f)
    # gzip's header carries a timestamp too: fixed, like the members'.
    with open(out, "wb") as f, gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=epoch()) as gz:
        gz.write(raw.getvalue())


def write_zip(out: str, entries: list) -> None:
    # Zip timestamps cannot predate 1980.
    stamp = max(epoch(), 315532800)
    date_time = time.gmtime(stamp)[:6]
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, path, mode in entries:
            info = zipfile.ZipInfo(name, date_time=date_time)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (0o100000 | mode) << 16
            with open(path, "rb") as f:
                z.writestr(info, f.read())


def archive(out: str, binary: str, docs: list) -> None:
    entries = members(binary, docs)
    if out.endswith(".tar.gz"):
        write_tar_gz(out, entries)
    elif out.endswith(".zip"):
        write_zip(out, entries)
    else:
        raise SystemExit("archive name must end in .tar.gz or .zip: %s" % out)


def sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def sums(folder: str) -> None:
    names = sorted(n for n in os.listdir(folder) if n.endswith(ARCHIVE_SUFFIXES))
    if not names:
        raise SystemExit("no archives in %s" % folder)
    # LF line ends on Windows too: the file is checked by sha256sum and shasum alike.
    with open(os.path.join(folder, SUMS), "w", newline="\n") as f:
        for name in names:
            f.write("%s  %s\n" % (sha256(os.path.join(folder, name)), name))


def main() -> None:
    args = sys.argv[1:]
    if len(args) >= 3 and args[0] == "archive":
        archive(args[1], args[2], args[3:])
    elif len(args) == 2 and args[0] == "sums":
        sums(args[1])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
