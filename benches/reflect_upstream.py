#!/usr/bin/env python3
"""A reflecting upstream for the CRS response tests, as go-ftw's backend albedo answers them; standard library only.

    python3 benches/reflect_upstream.py PORT

`POST /reflect` with a JSON body answers with the JSON's `status` (default 200), its `headers` (an object of
strings) and its `body` (or `encodedBody`, base64); a body that is no such JSON gets a 400. Any other request gets
an empty 200. Like albedo, a Go net/http server, an answer whose headers name no Content-Type gets the one Go's
`http.DetectContentType` sniffs from its first 512 bytes (the CRS tests rarely name one, and which bodies a proxy
inspects depends on it): HTML for a body that opens with an HTML tag, XML for `<?xml`, plain text for text. Every
answer carries `X-Compare-Upstream: 1`, the marker benches/crs_compare.py reads to tell the upstream's answers from
a proxy's own.
"""
import base64
import http.server
import json
import sys

# Go's net/http sniffing (src/net/http/sniff.go): the tags that make a body HTML when followed by a space or '>'.
HTML_TAGS = [b"<!DOCTYPE HTML", b"<HTML", b"<HEAD", b"<SCRIPT", b"<IFRAME", b"<H1", b"<DIV", b"<FONT", b"<TABLE",
             b"<A", b"<STYLE", b"<TITLE", b"<B", b"<BODY", b"<BR", b"<P", b"<!--"]
BINARY = set(range(0x00, 0x09)) | {0x0B} | set(range(0x0E, 0x1B)) | set(range(0x1C, 0x20))


def sniff(body):
    """The Content-Type Go's DetectContentType gives `body` (the text and markup cases; binary is octet-stream)."""
    data = body[:512]
    text = data.lstrip(b"\t\n\x0c\r ")
    for tag in HTML_TAGS:
        if text[: len(tag)].upper() == tag and text[len(tag): len(tag) + 1] in (b" ", b">"):
            return "text/html; charset=utf-8"
    if text.startswith(b"<?xml"):
        return "text/xml; charset=utf-8"
    if data.startswith(b"%PDF-"):
        return "application/pdf"
    if data.startswith(b"\x1f\x8b\x08"):
        return "application/x-gzip"
    if any(b in BINARY for b in data):
        return "application/octet-stream"
    return "text/plain; charset=utf-8"


def reflected(request_body):
    """(status, headers, body) of the answer /reflect gives `request_body`."""
    try:
        spec = json.loads(request_body)
    except ValueError:
        return 400, [], b""
    if not isinstance(spec, dict):
        return 400, [], b""
    status = spec.get("status") if isinstance(spec.get("status"), int) else 200
    headers = [(k, v) for k, v in (spec.get("headers") or {}).items() if isinstance(v, str)]
    body = b""
    if isinstance(spec.get("encodedBody"), str):
        try:
            body = base64.b64decode(spec["encodedBody"])
        except ValueError:
            body = b""
    elif isinstance(spec.get("body"), str):
        body = spec["body"].encode()
    return status, headers, body


class Reflect(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def read_body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return body
                body += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def answer(self):
        request_body = self.read_body()
        if self.path.split("?")[0] == "/reflect":
            status, headers, body = reflected(request_body)
        else:
            status, headers, body = 200, [], b""
        self.send_response_only(status)
        names = {k.lower() for k, _ in headers}
        for name, value in headers:
            if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                self.send_header(name, value)
        if "content-type" not in names and body and status not in (204, 304):
            self.send_header("Content-Type", sniff(body))
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Compare-Upstream", "1")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_HEAD = answer

    def log_message(self, *args):
        pass  # quiet: the proxies' logs are what is read


def main():
    port = int(sys.argv[1])
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Reflect)
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    main()
