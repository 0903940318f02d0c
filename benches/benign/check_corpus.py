#!/usr/bin/env python3
"""Checks the framing of raw-request corpus files (benches/benign/*.txt and the like) and counts their requests.
Run from the repository root:

    python3 benches/benign/check_corpus.py                 # every benches/benign/*.txt and github-api/*.txt
    python3 benches/benign/check_corpus.py FILE...         # the files named

Each request must be: a request line `METHOD TARGET HTTP/1.1`, header lines `Name: value` (a token name, no bare
LF, no Transfer-Encoding), a Host header, a blank line, then exactly Content-Length bytes of body (a request with a
body must say its length); between requests only blank lines (CRLF). This is the format rulec replay and
benches/crs_compare.py read (split by Content-Length). Prints per file: requests, methods, distinct bodies, bytes;
exits 1 on the first malformed request of each file (it is named with its byte offset).
"""
import collections
import re
import sys
from pathlib import Path

TOKEN = re.compile(rb"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
REQUEST_LINE = re.compile(rb"^([A-Z]+) (\S+) HTTP/1\.1$")


def check(data):
    """(requests, methods counter, distinct bodies); raises ValueError(offset, why) on a malformed request."""
    pos, n = 0, len(data)
    count, methods, bodies = 0, collections.Counter(), set()
    while True:
        while data.startswith(b"\r\n", pos):
            pos += 2
        if pos >= n:
            return count, methods, len(bodies)
        end = data.find(b"\r\n\r\n", pos)
        if end < 0:
            raise ValueError(pos, "no blank line after the headers")
        head = data[pos:end]
        if b"\n" in head.replace(b"\r\n", b"") or b"\r" in head.replace(b"\r\n", b""):
            raise ValueError(pos, "a bare LF or CR in the head")
        lines = head.split(b"\r\n")
        m = REQUEST_LINE.match(lines[0])
        if not m:
            raise ValueError(pos, f"bad request line {lines[0][:80]!r}")
        length, hosts = None, 0
        for line in lines[1:]:
            name, sep, value = line.partition(b":")
            if not sep or not TOKEN.match(name):
                raise ValueError(pos, f"bad header line {line[:80]!r}")
            if value[:1] not in (b" ", b""):
                raise ValueError(pos, f"no space after the colon: {line[:80]!r}")
            lname = name.lower()
            if lname == b"host":
                hosts += 1
            elif lname == b"content-length":
                if length is not None or not value.strip().isdigit():
                    raise ValueError(pos, "a second or non-numeric Content-Length")
                length = int(value.strip())
            elif lname == b"transfer-encoding":
                raise ValueError(pos, "Transfer-Encoding (bodies must be framed by Content-Length)")
        if hosts != 1:
            raise ValueError(pos, f"{hosts} Host headers")
        body_start = end + 4
        length = length or 0
        if body_start + length > n:
            raise ValueError(pos, "Content-Length runs past the end of the file")
        body = data[body_start:body_start + length]
        after = body_start + length
        # The next request (or the end of the file) must follow after line ends only.
        nxt = after
        while data.startswith(b"\r\n", nxt):
            nxt += 2
        if nxt < n and not REQUEST_LINE.match(data[nxt:data.find(b"\r\n", nxt)]):
            raise ValueError(after, "bytes after the body that do not start a request: Content-Length too small?")
        if length == 0 and after == body_start and nxt == after and nxt < n:
            raise ValueError(after, "no blank line between requests")
        count += 1
        methods[m.group(1).decode()] += 1
        if body:
            bodies.add(body)
        pos = after


def main():
    root = Path(__file__).resolve().parent
    paths = [Path(p) for p in sys.argv[1:]] or sorted(root.glob("*.txt")) + sorted(root.glob("github-api/*.txt"))
    failed, total, size = 0, 0, 0
    for path in paths:
        data = path.read_bytes()
        try:
            count, methods, distinct = check(data)
        except ValueError as e:
            offset, why = e.args
            print(f"{path}: MALFORMED at byte {offset}: {why}")
            failed += 1
            continue
        total += count
        size += len(data)
        print(f"{path}: {count} requests, {distinct} distinct bodies, {len(data) / 1e6:.1f} MB, "
              + " ".join(f"{k} {v}" for k, v in methods.most_common()))
    print(f"{total} requests in {len(paths) - failed} files, {size / 1e6:.1f} MB" + (f"; {failed} MALFORMED" if failed else ""))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
