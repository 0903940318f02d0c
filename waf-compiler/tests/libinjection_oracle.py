"""Differential oracle: runs C libinjection (PyPI `libinjection-python`) on payloads given by the Rust tests.

Protocol: one payload per stdin line, hex-encoded (payloads hold arbitrary bytes, newlines included).
One stdout line per payload: `<is_sqli 0|1>\t<fingerprint>\t<is_xss 0|1>`; the fingerprint is the one
the C library leaves in its state (the matching one when is_sqli is 1).
"""
import sys

import libinjection


class RawBytes(str):
    """The wrapper calls `.encode()` on its argument; this hands it the exact bytes, not UTF-8 of text."""

    def __new__(cls, raw):
        obj = str.__new__(cls, raw.decode("latin-1"))
        obj.raw = raw
        return obj

    def encode(self, *args, **kwargs):
        return self.raw


def main():
    out = sys.stdout
    for line in sys.stdin:
        payload = RawBytes(bytes.fromhex(line.strip()))
        sqli = libinjection.is_sql_injection(payload)
        xss = libinjection.is_xss(payload)
        out.write("%d\t%s\t%d\n" % (int(sqli["is_sqli"]), sqli["fingerprint"], int(xss["is_xss"])))


if __name__ == "__main__":
    main()
