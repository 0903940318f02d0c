"""api-bodies.txt: API request bodies that are not forms or plain JSON.

- Protocol Buffers (application/x-protobuf, application/protobuf): OpenTelemetry OTLP/HTTP exports (/v1/traces,
  /v1/metrics, /v1/logs), Prometheus remote-write, and app APIs; encoded by the protobuf wire format
  (varints, length-delimited strings and nested messages), as protobuf libraries write them.
- gRPC-web (application/grpc-web+proto binary, application/grpc-web-text base64): the 5-byte frame (flag, big-endian
  length) then the message, as grpc-web and Connect clients in browsers send them (X-Grpc-Web, X-User-Agent).
- NDJSON (application/x-ndjson, application/x-json-stream): Elasticsearch/OpenSearch _bulk, Filebeat/Vector/Fluent
  Bit log shipping, Loki-style streams, BigQuery-style inserts.
- application/octet-stream: S3 presigned PUTs, tus resumable uploads (PATCH, application/offset+octet-stream), raw
  file POSTs with X-File-Name, firmware and backup blobs; chunks of resumable uploads with their Content-Range
  (Google Cloud Storage's PUT, GitLab Runner's job log PATCH).
- Container logs as Fluent Bit ships them: each record's `log` a line with its final line break.
- multipart/related uploads (Google's `uploadType=multipart`): the file's metadata in JSON, then the file.
- Other media types: JSON:API (application/vnd.api+json), JSON Merge Patch (RFC 7386), JSON Patch (RFC 6902),
  GraphQL responses stored or relayed (application/graphql-response+json), AWS JSON 1.1 (Kinesis, CloudWatch Logs,
  Cognito, Secrets Manager, SSM, EventBridge with X-Amz-Target and SigV4), SOAP 1.1 (text/xml + SOAPAction) and
  SOAP 1.2 (application/soap+xml; action=...).
- Compressed bodies (Content-Encoding gzip or deflate): OpenTelemetry exporters (gzip is their default in several
  SDKs), log shippers and APM agents sending NDJSON (Vector, Fluent Bit, Filebeat, Elastic APM), Sentry SDK envelopes,
  mobile analytics batches (Segment-style /v1/batch, okhttp interceptors) and the browser RUM SDKs that deflate their
  intake requests (Datadog's `compressIntakeRequests`), compressed as zlib/gzip write them (gzip with mtime 0).
- Labels of tools of their own: YAML (an OpenAPI description, Kubernetes' server-side apply), S3's
  `binary/octet-stream`, Outlook's MAPI over HTTP, Jenkins' Stapler calls, QuickBooks Online's `application/text`
  query.
- Binary under a form's label: mobile analytics batches in protobuf, gzip-compressed, posted as
  `application/x-www-form-urlencoded` (Firebase's Android SDK to app-measurement.com).
"""
import base64
import gzip
import json
import random
import struct
import zlib
from urllib.parse import quote

from . import text
from .common import (Corpus, alnum, api_ref, app_client, aws_sigv4, bearer, browser, email, fetch, hexid,
                     host, iso, jsonb, pick, qs, sdk_client, ts, uid, weighted)

# --- protobuf wire format -----------------------------------------------------------------------------------------


def varint(n):
    out = bytearray()
    n &= (1 << 64) - 1
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(num, value):
    """One field: int -> varint, float -> fixed64 double, bytes/str -> length-delimited, list -> repeated."""
    if isinstance(value, list):
        return b"".join(field(num, v) for v in value)
    if isinstance(value, bool):
        return varint(num << 3) + varint(int(value))
    if isinstance(value, int):
        return varint(num << 3) + varint(value)
    if isinstance(value, float):
        return varint(num << 3 | 1) + struct.pack("<d", value)
    if isinstance(value, str):
        value = value.encode()
    return varint(num << 3 | 2) + varint(len(value)) + value


def message(*fields):
    return b"".join(field(n, v) for n, v in fields if v is not None)


def otlp_attr(k, v):
    any_value = message((1, v)) if isinstance(v, str) else message((3, v)) if isinstance(v, int) else message((4, v))
    return message((1, k), (2, any_value))


def otlp_traces(rng):
    svc = pick(rng, ["checkout", "cart-api", "frontend", "payments", "search", "notification-worker"])
    resource = message((1, [otlp_attr("service.name", svc), otlp_attr("service.version", f"1.{rng.randint(0, 40)}.{rng.randint(0, 9)}"),
                            otlp_attr("deployment.environment", pick(rng, ["production", "staging"])),
                            otlp_attr("telemetry.sdk.language", pick(rng, ["go", "java", "python", "nodejs"])),
                            otlp_attr("host.name", f"ip-10-0-{rng.randint(0, 255)}-{rng.randint(1, 254)}.ec2.internal")]))
    spans = []
    for _ in range(rng.randint(1, 12)):
        start = ts(rng) * 10 ** 9 + rng.randint(0, 10 ** 9)
        name = pick(rng, ["GET /api/v1/cart", "POST /checkout", "SELECT orders", "redis GET", "HTTP POST",
                          "kafka.produce order-events", "grpc.payments.v1.Payments/Charge", "render product page"])
        attrs = [otlp_attr("http.method", pick(rng, ["GET", "POST"])), otlp_attr("http.status_code", pick(rng, [200, 201, 404, 500])),
                 otlp_attr("net.peer.name", host(rng, "api"))]
        if name.startswith("SELECT"):
            attrs.append(otlp_attr("db.statement", "SELECT id, total FROM orders WHERE customer_id = $1 ORDER BY created_at DESC LIMIT 20"))
        spans.append(message((1, rng.randbytes(16)), (2, rng.randbytes(8)), (4, rng.randbytes(8)), (5, name),
                             (6, rng.randint(1, 5)), (7, start), (8, start + rng.randint(10 ** 5, 10 ** 10)), (9, attrs)))
    scope = message((1, message((1, pick(rng, ["io.opentelemetry.http", "opentelemetry.instrumentation.flask", "@opentelemetry/instrumentation-http"])),
                                (2, "0.48.0"))), (2, spans))
    return message((1, message((1, resource), (2, scope))))


def otlp_logs(rng):
    recs = [message((1, ts(rng) * 10 ** 9), (2, rng.randint(1, 21)), (3, pick(rng, ["INFO", "WARN", "ERROR", "DEBUG"])),
                    (5, message((1, pick(rng, [text.sentence(rng, "en"), "user logged in", "payment authorised",
                                              f"cache miss for key product:{rng.randint(1, 99999)}",
                                              "retrying request (attempt 2/5)"])))),
                    (6, [otlp_attr("user.id", str(rng.randint(1, 99999)))]))
            for _ in range(rng.randint(1, 10))]
    return message((1, message((1, message((1, [otlp_attr("service.name", pick(rng, ["api", "worker"]))]))),
                               (2, message((2, recs))))))


def app_proto(rng):
    """A mobile or web app's own protobuf message: ids, strings in many languages, nested items, floats."""
    lang = pick(rng, text.LANGUAGES)
    items = [message((1, f"SKU-{rng.randint(1000, 99999)}"), (2, rng.randint(1, 5)), (3, rng.randint(100, 99999)),
                     (4, text.product(rng, lang))) for _ in range(rng.randint(1, 6))]
    return message((1, uid(rng)), (2, rng.randint(1, 10 ** 9)), (3, items), (4, text.address(rng, lang)),
                   (5, rng.uniform(-90, 90)), (6, rng.uniform(-180, 180)), (7, pick(rng, [True, False])),
                   (8, text.sentence(rng, lang) if rng.random() < 0.5 else None), (9, rng.randbytes(rng.randint(0, 32))))


def snappy_literal(data):
    """Snappy block format with literals only (what a remote-write body may look like on the wire)."""
    out = varint(len(data))
    for i in range(0, len(data), 60):
        chunk = data[i:i + 60]
        out += bytes([(len(chunk) - 1) << 2]) + chunk
    return out


def prom_remote_write(rng):
    series = []
    for _ in range(rng.randint(2, 15)):
        labels = [message((1, "__name__"), (2, pick(rng, ["http_requests_total", "process_cpu_seconds_total",
                                                          "node_memory_MemAvailable_bytes", "up"]))),
                  message((1, "job"), (2, pick(rng, ["node", "api", "postgres-exporter"]))),
                  message((1, "instance"), (2, f"10.0.{rng.randint(0, 9)}.{rng.randint(1, 254)}:9100"))]
        samples = [message((1, rng.uniform(0, 10 ** 6)), (2, ts(rng) * 1000)) for _ in range(rng.randint(1, 3))]
        series.append(message((1, labels), (2, samples)))
    return snappy_literal(message((1, series)))


def protobuf(rng, c):
    kind = rng.randrange(5)
    if kind in (0, 1):
        path = "/v1/traces" if kind == 0 else "/v1/logs"
        body = otlp_traces(rng) if kind == 0 else otlp_logs(rng)
        h = [("Host", pick(rng, ["otel-collector.monitoring.svc:4318", host(rng, "otel"), "otlp.eu01.nr-data.net"])),
             ("User-Agent", pick(rng, ["OTel-OTLP-Exporter-Go/1.32.0", "OTel-OTLP-Exporter-Java/1.44.1",
                                       "OTel-OTLP-Exporter-Python/1.28.2", "OTel-OTLP-Exporter-JavaScript/0.55.0"])),
             ("Content-Type", "application/x-protobuf"), ("Accept-Encoding", "gzip")]
        if rng.random() < 0.4:
            h.append(("api-key", hexid(rng, 40)))
        c.add("POST", path, h, body)
    elif kind == 2:
        h = [("Host", pick(rng, ["prometheus.internal:9090", host(rng, "metrics")])), ("User-Agent", "Prometheus/2.55.1"),
             ("Content-Encoding", "snappy"), ("Content-Type", "application/x-protobuf"),
             ("X-Prometheus-Remote-Write-Version", "0.1.0")]
        c.add("POST", pick(rng, ["/api/v1/write", "/api/v1/push", "/api/prom/push"]), h, prom_remote_write(rng))
    else:
        ctype = pick(rng, ["application/x-protobuf", "application/protobuf", "application/x-protobuf; messageType=\"shop.v2.Order\"",
                           "application/vnd.google.protobuf"])
        path = pick(rng, ["/api/v2/orders", "/sync/v3/batch", "/rpc/location/update", "/events/ingest", "/v1/feed/ack"])
        h = [("Host", host(rng, "api"))] + app_client(rng) + [("Content-Type", ctype), ("Accept", ctype.split(";")[0]),
                                                               ("Authorization", bearer(rng)),
                                                               ("X-Request-Id", uid(rng))]
        c.add(pick(rng, ["POST", "POST", "PUT"]), path, h, app_proto(rng))


def analytics_batch(rng):
    """A mobile analytics SDK's batch (Firebase's `app-measurement.com/a` shape): a bundle of events, each with its
    name and parameters (`_o` origin, `_sc` screen class, `value`, `currency`), timestamps and a session id."""
    events = []
    for _ in range(rng.randint(1, 6)):
        params = [message((1, "_o"), (2, pick(rng, ["auto", "app", "fcm"]))),
                  message((1, "_sc"), (2, pick(rng, ["MainActivity", "CheckoutActivity", "ProductDetailFragment", "SettingsActivity"])))]
        if rng.random() < 0.4:
            params += [message((1, "value"), (5, rng.uniform(1, 500))), message((1, "currency"), (2, pick(rng, ["EUR", "INR", "VND", "BRL"])))]
        events.append(message((1, params), (2, pick(rng, ["screen_view", "add_to_cart", "begin_checkout", "_e", "_vs", "session_start", "app_open"])),
                              (3, ts(rng) * 1000), (4, ts(rng) * 1000 - rng.randint(1, 10 ** 6))))
    return message((1, message((1, 1), (2, events), (7, pick(rng, ["android", "ios"])), (8, f"{rng.randint(10, 14)}"),
                               (11, f"1:{rng.randint(10 ** 11, 10 ** 12)}:android:{hexid(rng, 16)}"), (14, rng.randint(1, 99)),
                               (16, pick(rng, ["en_US", "vi_VN", "pt_BR", "de_DE"])), (21, uid(rng)))))


def form_labelled_protobuf(rng, c):
    """Binary sent under a form's label: Firebase's Android SDK posts its gzip-compressed protobuf batches as
    `application/x-www-form-urlencoded`, the default of the HTTP client it uses."""
    h = [("Content-Type", "application/x-www-form-urlencoded"), ("Content-Encoding", "gzip"),
         ("User-Agent", f"Dalvik/2.1.0 (Linux; U; Android {pick(rng, ['12', '13', '14'])}; {pick(rng, ['SM-A546B', 'Pixel 7', 'CPH2449', 'moto g54 5G'])} "
                        f"Build/{pick(rng, ['UP1A.231005.007', 'AP1A.240505.004', 'TP1A.220905.001'])})"),
         ("Host", pick(rng, ["app-measurement.com", "region1.app-measurement.com"])), ("Connection", "Keep-Alive"),
         ("Accept-Encoding", "gzip")]
    c.add("POST", "/a", h, gzip.compress(analytics_batch(rng), mtime=0))


def grpc_web(rng, c):
    svc = pick(rng, ["shop.catalog.v1.CatalogService/ListProducts", "chat.v1.ChatService/SendMessage",
                     "auth.v1.AuthService/RefreshToken", "payments.v1.Payments/CreateIntent",
                     "grpc.health.v1.Health/Check", "maps.v2.Places/Autocomplete", "user.v1.Profile/Update"])
    msg = app_proto(rng) if rng.random() < 0.6 else message((1, text.prose(rng, sentences=1)), (2, uid(rng)),
                                                           (3, rng.randint(0, 100)))
    frame = b"\x00" + struct.pack(">I", len(msg)) + msg
    text_mode = rng.random() < 0.4
    ctype = ("application/grpc-web-text" if text_mode else pick(rng, ["application/grpc-web+proto", "application/grpc-web"]))
    body = base64.b64encode(frame) if text_mode else frame
    h = fetch(rng, *api_ref(rng, "grpc"), content_type=ctype,
              accept="application/grpc-web-text" if text_mode else "*/*",
              auth=bearer(rng) if rng.random() < 0.6 else None,
              extra=[("X-Grpc-Web", "1"), ("X-User-Agent", pick(rng, ["grpc-web-javascript/0.1", "connect-es/1.6.1"])),
                     ("grpc-timeout", f"{rng.randint(1, 60)}S")])
    c.add("POST", "/" + svc, h, body)


def ndjson(rng, c):
    kind = rng.randrange(4)
    if kind == 0:  # Elasticsearch bulk
        index = pick(rng, ["logs-app-2025.01.14", "products", "orders-v3", "filebeat-8.15.3", "audit"])
        lines = []
        for _ in range(rng.randint(1, 25)):
            op = pick(rng, ["index", "index", "create", "update", "delete"])
            meta = {op: {"_index": index, "_id": pick(rng, [uid(rng), str(rng.randint(1, 10 ** 7))])}}
            lines.append(jsonb(meta))
            lang = pick(rng, text.LANGUAGES)
            if op == "update":
                lines.append(jsonb({"doc": {"stock": rng.randint(0, 300), "updated_at": iso(rng)}, "doc_as_upsert": True}))
            elif op != "delete":
                lines.append(jsonb(pick(rng, [
                    {"@timestamp": iso(rng), "message": text.sentence(rng, lang), "log": {"level": pick(rng, ["info", "warn", "error"])},
                     "http": {"request": {"method": "GET"}, "response": {"status_code": pick(rng, [200, 404, 500])}},
                     "url": {"path": f"/api/v1/{pick(rng, ['cart', 'search', 'orders'])}", "query": f"q={quote(text.search_query(rng, lang))}"}},
                    {"name": text.product(rng, lang), "description": text.prose(rng, lang, 2), "price": rng.randint(100, 99999) / 100,
                     "tags": rng.sample(["sale", "new", "eco", "bestseller", "limited"], 2), "lang": lang}])))
        h = [("Host", pick(rng, ["es01.internal:9200", host(rng, "search"), "opensearch.logging.svc:9200"]))] + sdk_client(rng) + \
            [("Content-Type", pick(rng, ["application/x-ndjson", "application/vnd.elasticsearch+x-ndjson; compatible-with=8"])),
             ("Authorization", pick(rng, ["ApiKey " + base64.b64encode(f"{alnum(rng, 20)}:{alnum(rng, 22)}".encode()).decode(), bearer(rng)]))]
        c.add("POST", pick(rng, ["/_bulk", f"/{index}/_bulk", "/_bulk?refresh=wait_for", "/_bulk?pipeline=geoip"]), h, b"\n".join(lines) + b"\n")
    elif kind == 1:  # log shipper
        lines = [jsonb({"timestamp": iso(rng), "host": f"web-{rng.randint(1, 20)}", "service": pick(rng, ["nginx", "app", "worker"]),
                        "message": pick(rng, [text.sentence(rng, "en"),
                                              f"{rng.randint(1, 223)}.{rng.randint(0, 255)}.0.{rng.randint(1, 254)} - - \"GET /{pick(rng, ['', 'cart', 'p/123'])} HTTP/2.0\" 200 {rng.randint(100, 90000)}",
                                              f"job {uid(rng)} finished in {rng.randint(1, 9000)}ms"]),
                        "level": pick(rng, ["INFO", "WARN", "ERROR"]), "kubernetes": {"namespace": "prod", "pod": f"api-{hexid(rng, 10)}-{alnum(rng, 5).lower()}"}})
                 for _ in range(rng.randint(1, 30))]
        ua = pick(rng, ["Vector/0.43.1 (x86_64-unknown-linux-gnu)", "Fluent-Bit", "Filebeat/8.15.3", "Go-http-client/1.1"])
        ctype = pick(rng, ["application/x-ndjson", "application/x-json-stream", "application/x-ndjson; charset=utf-8"])
        h = [("Host", host(rng, "logs")), ("User-Agent", ua), ("Content-Type", ctype), ("Accept-Encoding", "gzip"),
             ("Authorization", bearer(rng))]
        c.add("POST", pick(rng, ["/ingest", "/api/v1/logs", "/services/collector/raw", "/_bulk", "/v1/input/" + hexid(rng, 32)]), h,
              b"\n".join(lines) + b"\n")
    elif kind == 2:  # JSON stream of app events
        lines = [jsonb({"type": pick(rng, ["message", "typing", "read", "reaction"]), "conversation_id": uid(rng),
                        "text": text.prose(rng, sentences=1), "sent_at": iso(rng)}) for _ in range(rng.randint(1, 12))]
        h = [("Host", host(rng, "api"))] + app_client(rng) + [("Content-Type", "application/x-json-stream"),
                                                              ("Authorization", bearer(rng))]
        c.add("POST", "/v2/sync/stream", h, b"\n".join(lines))
    else:  # ML / data APIs taking JSON lines
        lines = [jsonb({"id": i, "text": text.prose(rng, sentences=rng.randint(1, 2)), "label": pick(rng, [None, "positive", "negative", "neutral"])})
                 for i in range(rng.randint(2, 20))]
        h = [("Host", host(rng, "api"))] + sdk_client(rng) + [("Content-Type", "application/x-ndjson"), ("Authorization", bearer(rng))]
        c.add("POST", pick(rng, ["/v1/datasets/" + uid(rng) + "/rows", "/v1/embeddings/batch", "/import?format=jsonl"]), h, b"\n".join(lines))


def upload_chunk(rng, c):
    """A chunk of a resumable upload, with the Content-Range of its bytes: Google Cloud Storage's resumable PUT
    (`bytes first-last/total`, `*` while the total is unknown) and GitLab Runner's job log (`PATCH`, `first-last`,
    the lines of the job's output with their ANSI colours and section markers)."""
    if rng.random() < 0.5:
        total = rng.randint(3, 40) * 262144
        first = rng.randint(0, total // 262144 - 2) * 262144
        data = rng.randbytes(pick(rng, [262144, 4096, rng.randint(100, 8000)]))
        last = first + len(data) - 1
        h = [("Host", "storage.googleapis.com")] + sdk_client(rng) + [
            ("Content-Type", "application/octet-stream"),
            ("Content-Range", f"bytes {first}-{last}/{pick(rng, [str(max(total, last + 1)), '*'])}"), ("Authorization", bearer(rng))]
        c.add("PUT", f"/upload/storage/v1/b/{pick(rng, ['media-prod', 'backups-eu'])}/o?uploadType=resumable&upload_id={alnum(rng, 60)}", h, data)
    else:
        first = rng.randint(0, 40) * 1000
        lines = [f"\x1b[32;1m$ {pick(rng, ['npm ci', 'bundle exec rspec', 'go test ./...', 'make build', 'docker build -t app .'])}\x1b[0;m",
                 f"section_start:{ts(rng)}:step_script\r\x1b[0K\x1b[0K\x1b[36;1mExecuting \"step_script\" stage of the job script\x1b[0;m",
                 f"Fetching changes with git depth set to 20...",
                 f"Reinitialized existing Git repository in /builds/{pick(rng, ['acme', 'platform'])}/{pick(rng, ['api', 'web'])}/.git/",
                 f"ok  \tgithub.com/acme/api/internal/orders\t{rng.uniform(0.01, 9):.3f}s",
                 f"\x1b[32;1mJob succeeded\x1b[0;m"]
        data = ("\n".join(rng.sample(lines, rng.randint(2, len(lines)))) + "\n").encode()
        h = [("Host", host(rng, "gitlab")), ("User-Agent", f"gitlab-runner 17.{rng.randint(0, 6)}.0 (17-{rng.randint(0, 6)}-stable; go1.22.7; linux/amd64)"),
             ("Content-Type", "text/plain"), ("Content-Range", f"{first}-{first + len(data) - 1}"),
             ("Job-Token", f"glcbt-64_{alnum(rng, 20)}"), ("Accept-Encoding", "gzip")]
        c.add("PATCH", f"/api/v4/jobs/{rng.randint(10 ** 6, 10 ** 8)}/trace", h, data)


def related_upload(rng, c):
    """An upload with its metadata in one `multipart/related` body (RFC 2387), as Google's API clients send
    `uploadType=multipart`: a JSON part (its non-ASCII escaped as Python's json writes it) and the file's part."""
    name = pick(rng, ["Rapport – T3 2025.pdf", "Müller & Söhne Angebot.pdf", "résumé (final).pdf", "scan 2025-03-02.jpg", "notes.txt"])
    meta = json.dumps({"name": name, "parents": [alnum(rng, 33)], "description": text.sentence(rng, pick(rng, text.LANGUAGES))}).encode()
    kind = name.rsplit(".", 1)[1]
    data = {"pdf": b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n" + rng.randbytes(rng.randint(200, 3000)),
            "jpg": b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + rng.randbytes(rng.randint(200, 3000)),
            "txt": text.prose(rng, sentences=3).encode()}[kind]
    ctype = {"pdf": "application/pdf", "jpg": "image/jpeg", "txt": "text/plain"}[kind]
    boundary = "=" * 15 + str(rng.randint(10 ** 18, 10 ** 19)) + "=="
    body = (f"--{boundary}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n".encode() + meta
            + f"\r\n--{boundary}\r\nContent-Type: {ctype}\r\n\r\n".encode() + data + f"\r\n--{boundary}--".encode())
    h = [("Host", "www.googleapis.com")] + sdk_client(rng) + [("Content-Type", f'multipart/related; boundary="{boundary}"'),
                                                             ("Authorization", bearer(rng))]
    c.add("POST", "/upload/drive/v3/files?uploadType=multipart&fields=id%2CwebViewLink&supportsAllDrives=true", h, body)


def container_logs(rng, c):
    """Container logs as Fluent Bit ships them from a node to Elasticsearch: each record's `log` is a line as the
    container runtime wrote it, with its final line break, an access log's line among them."""
    lines = []
    for _ in range(rng.randint(1, 12)):
        lines.append(jsonb({"index": {"_index": f"logstash-{pick(rng, ['2025.01.14', '2025.03.02'])}"}}))
        log = pick(rng, [f"{rng.randint(1, 223)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)} - - [14/Jan/2025:07:06:41 +0000] "
                         f"\"{pick(rng, ['GET', 'POST'])} /v1/{pick(rng, ['shipments', 'orders', 'health'])}/{rng.randint(1, 99999)} HTTP/1.1\" "
                         f"{pick(rng, [200, 201, 404])} {rng.randint(10, 9000)} \"-\" \"{pick(rng, ['okhttp/4.12.0', 'kube-probe/1.30', 'Mozilla/5.0'])}\"\n",
                         f"{iso(rng)} INFO  [main] o.s.b.w.embedded.tomcat.TomcatWebServer : Tomcat started on port 8080 (http)\n",
                         f"level=info ts={iso(rng)} caller=main.go:{rng.randint(10, 400)} msg=\"{text.sentence(rng, 'en')}\"\n"])
        lines.append(jsonb({"@timestamp": iso(rng), "log": log, "stream": pick(rng, ["stdout", "stderr"]), "time": iso(rng),
                            "kubernetes": {"pod_name": f"api-{hexid(rng, 10)}-{alnum(rng, 5).lower()}", "namespace_name": "prod",
                                           "container_name": pick(rng, ["api", "nginx", "worker"])}}))
    h = [("Host", pick(rng, ["es01.internal:9200", "elasticsearch.logging.svc:9200"])), ("User-Agent", "Fluent-Bit"),
         ("Content-Type", "application/x-ndjson"), ("Authorization", "Basic " + base64.b64encode(f"fluentbit:{alnum(rng, 16)}".encode()).decode())]
    c.add("POST", "/_bulk", h, b"\n".join(lines) + b"\n")


def octet_stream(rng, c):
    size = int(rng.choice([rng.randint(16, 2048), rng.randint(2048, 20000)]))
    data = rng.randbytes(size)
    kind = rng.randrange(4)
    if kind == 0:  # S3 presigned PUT
        key = f"uploads/{uid(rng)}/{pick(rng, ['IMG_4821.HEIC', 'scan 2024-11-02.pdf', 'export (3).zip', 'voice-note.m4a', 'data.parquet'])}"
        day = pick(rng, ["20241125", "20250312"])
        q = [("X-Amz-Algorithm", "AWS4-HMAC-SHA256"), ("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD"),
             ("X-Amz-Credential", f"ASIA{alnum(rng, 16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}/{day}/eu-west-1/s3/aws4_request"),
             ("X-Amz-Date", f"{day}T101500Z"), ("X-Amz-Expires", "900"),
             ("X-Amz-Security-Token", base64.b64encode(rng.randbytes(300)).decode()),
             ("X-Amz-Signature", hexid(rng, 64)), ("X-Amz-SignedHeaders", "host"), ("x-id", "PutObject")]
        b = browser(rng)
        h = fetch(rng, f"{pick(rng, ['uploads', 'media', 'user-files'])}-{alnum(rng, 6).lower()}.s3.eu-west-1.amazonaws.com",
                  f"https://{host(rng, 'app')}/", content_type="application/octet-stream", accept="*/*", b=b)
        c.add("PUT", "/" + quote(key) + "?" + qs(q), h, data)
    elif kind == 1:  # tus resumable upload
        offset = rng.randint(0, 50) * 5242880
        h = fetch(rng, *api_ref(rng, "upload"), content_type="application/offset+octet-stream",
                  accept="*/*", auth=bearer(rng),
                  extra=[("Tus-Resumable", "1.0.0"), ("Upload-Offset", str(offset))])
        c.add("PATCH", f"/files/{hexid(rng, 32)}", h, data)
    elif kind == 2:  # raw POST with the name in a header
        fname = pick(rng, ["firmware-v2.4.1.bin", "backup_2025-01-14.tar.gz", "Präsentation Q3.pptx", "photo.jpg", "дамп.sql.gz"])
        h = [("Host", host(rng, "api"))] + pick(rng, [sdk_client(rng), app_client(rng)]) + [
            ("Content-Type", "application/octet-stream"), ("Authorization", bearer(rng)),
            ("X-File-Name", quote(fname)), ("Content-Disposition", f"attachment; filename*=UTF-8''{quote(fname)}")]
        c.add(pick(rng, ["POST", "PUT"]), pick(rng, ["/api/v1/files", "/upload/raw", f"/devices/{hexid(rng, 12)}/firmware", "/backups"]), h, data)
    else:  # Dropbox-style content upload: arguments as JSON in a header
        args = {"path": f"/{pick(rng, ['Photos', 'Documents', 'Camera Uploads'])}/{pick(rng, ['IMG_0001.jpg', 'notes (1).txt', 'Rechnung März.pdf'])}",
                "mode": "add", "autorename": True, "mute": False}
        h = [("Host", "content.example.net")] + sdk_client(rng) + [("Authorization", bearer(rng)),
                                                                   ("Dropbox-API-Arg", json.dumps(args)),  # the SDKs escape non-ASCII as \\uXXXX
                                                                   ("Content-Type", "application/octet-stream")]
        c.add("POST", "/2/files/upload", h, data)


def json_api_spec(rng, c):
    typ = pick(rng, ["articles", "comments", "people", "orders", "products", "tickets"])
    lang = pick(rng, text.LANGUAGES)
    attrs = {"title": text.title(rng, lang), "body": text.prose(rng, lang), "published": rng.random() < 0.5,
             "tags": rng.sample(["news", "howto", "release", "faq", "promo"], 2)}
    doc = {"data": {"type": typ, "attributes": attrs,
                    "relationships": {"author": {"data": {"type": "people", "id": str(rng.randint(1, 9999))}},
                                      "tags": {"data": [{"type": "tags", "id": str(rng.randint(1, 99))} for _ in range(rng.randint(0, 3))]}}}}
    method = pick(rng, ["POST", "PATCH"])
    path = f"/api/{typ}" if method == "POST" else f"/api/{typ}/{rng.randint(1, 99999)}"
    if method == "PATCH":
        doc["data"]["id"] = path.rsplit("/", 1)[1]
    h = fetch(rng, *api_ref(rng), content_type="application/vnd.api+json",
              accept="application/vnd.api+json", auth=bearer(rng))
    c.add(method, path + pick(rng, ["", "?include=author,tags", "?fields[articles]=title,body"]), h, jsonb(doc))


def merge_patch(rng, c):
    lang = pick(rng, text.LANGUAGES)
    doc = pick(rng, [{"displayName": text.name(rng, lang), "bio": text.sentence(rng, lang), "phone": None},
                     {"address": {"line1": text.address(rng, lang), "city": text.city(rng, lang), "line2": None}},
                     {"settings": {"notifications": {"email": rng.random() < 0.5, "sms": None}, "theme": pick(rng, ["dark", "light", "system"])}},
                     {"metadata": {"labels": {"team": pick(rng, ["payments", "search"]), "owner": None}}, "spec": {"replicas": rng.randint(1, 9)}}])
    h = fetch(rng, *api_ref(rng), content_type="application/merge-patch+json", auth=bearer(rng))
    c.add("PATCH", pick(rng, [f"/v1/users/{rng.randint(1, 99999)}", "/v1/me", f"/apis/apps/v1/namespaces/prod/deployments/{pick(rng, ['api', 'web'])}"]), h, jsonb(doc))


def json_patch(rng, c):
    ops = []
    for _ in range(rng.randint(1, 6)):
        op = pick(rng, ["replace", "add", "remove", "test", "move", "copy"])
        path = pick(rng, ["/name", "/address/city", "/tags/-", "/items/0/quantity", "/profile/bio", "/settings/locale",
                          "/spec/template/spec/containers/0/image", "/metadata/annotations/app.kubernetes.io~1version"])
        o = {"op": op, "path": path}
        if op in ("replace", "add", "test"):
            o["value"] = pick(rng, [text.sentence(rng), rng.randint(0, 99), True, None, {"k": "v"}, ["a", "b"]])
        if op in ("move", "copy"):
            o["from"] = pick(rng, ["/draft/body", "/tags/0", "/old/address"])
        ops.append(o)
    h = fetch(rng, *api_ref(rng), content_type="application/json-patch+json", auth=bearer(rng))
    c.add("PATCH", pick(rng, [f"/api/v1/documents/{uid(rng)}", f"/users/{rng.randint(1, 99999)}", "/scim/v2/Users/" + uid(rng)]), h, jsonb(ops))


def graphql_response(rng, c):
    lang = pick(rng, text.LANGUAGES)
    doc = {"data": {"product": {"id": f"gid://shop/Product/{rng.randint(1000000, 9999999)}", "title": text.product(rng, lang),
                                "descriptionHtml": f"<p>{text.sentence(rng, lang)}</p>",
                                "variants": {"edges": [{"node": {"id": uid(rng), "price": {"amount": f"{rng.randint(1, 500)}.00", "currencyCode": "EUR"}}}
                                                       for _ in range(rng.randint(1, 4))]}}}}
    if rng.random() < 0.3:
        doc["errors"] = [{"message": "Field 'inventory' is deprecated", "path": ["product", "inventory"],
                          "extensions": {"code": "DEPRECATED"}}]
    h = [("Host", host(rng, "cache"))] + sdk_client(rng) + [("Content-Type", "application/graphql-response+json; charset=utf-8"),
                                                            ("Authorization", bearer(rng))]
    c.add(pick(rng, ["PUT", "POST"]), f"/persisted/{hexid(rng, 64)}", h, jsonb(doc))


AWS_TARGETS = [
    ("kinesis", "Kinesis_20131202.PutRecord", lambda rng: {"StreamName": pick(rng, ["clickstream", "orders"]), "PartitionKey": uid(rng),
                                                            "Data": base64.b64encode(jsonb({"event": "view", "sku": rng.randint(1, 9999)})).decode()}),
    ("logs", "Logs_20140328.PutLogEvents", lambda rng: {"logGroupName": f"/aws/lambda/{pick(rng, ['resize', 'checkout'])}",
                                                        "logStreamName": f"2025/01/14/[$LATEST]{hexid(rng, 32)}",
                                                        "logEvents": [{"timestamp": ts(rng) * 1000, "message": pick(rng, [
                                                            f"START RequestId: {uid(rng)} Version: $LATEST", text.sentence(rng, 'en'),
                                                            f"REPORT RequestId: {uid(rng)}\tDuration: {rng.uniform(1, 900):.2f} ms"])} for _ in range(rng.randint(1, 5))]}),
    ("cognito-idp", "AWSCognitoIdentityProviderService.InitiateAuth", lambda rng: {
        "AuthFlow": "USER_SRP_AUTH", "ClientId": alnum(rng, 26).lower(),
        "AuthParameters": {"USERNAME": email(rng), "SRP_A": hexid(rng, 512)}, "ClientMetadata": {}}),
    ("secretsmanager", "secretsmanager.GetSecretValue", lambda rng: {"SecretId": f"prod/{pick(rng, ['db', 'stripe', 'smtp'])}/credentials"}),
    ("ssm", "AmazonSSM.GetParametersByPath", lambda rng: {"Path": f"/{pick(rng, ['shop', 'api'])}/prod/", "Recursive": True, "WithDecryption": True}),
    ("events", "AWSEvents.PutEvents", lambda rng: {"Entries": [{"Source": "com.example.orders", "DetailType": "OrderPlaced",
                                                                "Detail": jsonb({"orderId": uid(rng), "total": rng.randint(1, 900)}).decode(),
                                                                "EventBusName": "default"}]}),
    ("codebuild", "CodeBuild_20161006.StartBuild", lambda rng: {"projectName": pick(rng, ["web", "api"]),
                                                                "environmentVariablesOverride": [{"name": "GIT_SHA", "value": hexid(rng, 40), "type": "PLAINTEXT"}]}),
]


def amz_json(rng, c):
    service, target, make = pick(rng, AWS_TARGETS)
    auth, date, region = aws_sigv4(rng, service)
    body = jsonb(make(rng))
    endpoint = f"{service}.{region}.amazonaws.com"
    h = [("Host", endpoint)] + sdk_client(rng) + [("Content-Type", "application/x-amz-json-1.1"), ("X-Amz-Target", target),
                                                  ("X-Amz-Date", date), ("Authorization", auth)]
    if rng.random() < 0.5:
        h.append(("X-Amz-Security-Token", base64.b64encode(rng.randbytes(400)).decode()))
    c.add("POST", "/", h, body)


SOAP_OPS = [
    ("http://tempuri.org/IShippingService/CreateShipment", "CreateShipment",
     lambda rng, lang: f"<Recipient><Name>{text.name(rng, lang)}</Name><Street>{text.address(rng, lang)}</Street>"
                       f"<City>{text.city(rng, lang)}</City></Recipient><WeightKg>{rng.uniform(0.1, 30):.2f}</WeightKg>"),
    ("urn:ec.europa.eu:taxud:vies:services:checkVat/checkVat", "checkVat",
     lambda rng, lang: f"<countryCode>{pick(rng, ['DE', 'FR', 'IT', 'PL'])}</countryCode><vatNumber>{rng.randint(100000000, 999999999)}</vatNumber>"),
    ("http://www.example.com/payments/Authorize", "Authorize",
     lambda rng, lang: f"<Amount currency=\"EUR\">{rng.randint(1, 900)}.{rng.randint(0, 99):02d}</Amount><Reference>INV-{rng.randint(1000, 99999)}</Reference>"
                       f"<Description><![CDATA[{text.sentence(rng, lang)}]]></Description>"),
    ("urn:GetStockLevels", "GetStockLevels",
     lambda rng, lang: "".join(f"<Sku>{alnum(rng, 8).upper()}</Sku>" for _ in range(rng.randint(1, 6)))),
]


def soap(rng, c):
    action, op, make = pick(rng, SOAP_OPS)
    lang = pick(rng, text.LANGUAGES)
    security = ""
    if rng.random() < 0.4:
        security = ("<soap:Header><wsse:Security xmlns:wsse=\"http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd\">"
                    f"<wsse:UsernameToken><wsse:Username>{pick(rng, ['shop-integration', 'erp'])}</wsse:Username>"
                    f"<wsse:Password Type=\"http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText\">{alnum(rng, 16)}</wsse:Password>"
                    "</wsse:UsernameToken></wsse:Security></soap:Header>")
    v12 = rng.random() < 0.4
    ns = "http://www.w3.org/2003/05/soap-envelope" if v12 else "http://schemas.xmlsoap.org/soap/envelope/"
    body = (f"<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<soap:Envelope xmlns:soap=\"{ns}\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">"
            f"{security}<soap:Body><{op} xmlns=\"{action.rsplit('/', 1)[0]}\">{make(rng, lang)}</{op}></soap:Body></soap:Envelope>")
    h = [("Host", host(rng, pick(rng, ["ws", "soap", "erp"])))] + pick(rng, [
        [("User-Agent", "Apache-CXF/3.5.9")], [("User-Agent", "PHP-SOAP/8.2.26")], [("User-Agent", "Zeep/4.3.1 (www.python-zeep.org)")],
        [("User-Agent", "Mozilla/4.0 (compatible; MSIE 6.0; MS Web Services Client Protocol 4.0.30319.42000)")]])
    if v12:
        h.append(("Content-Type", f"application/soap+xml; charset=utf-8; action=\"{action}\""))
    else:
        h += [("Content-Type", "text/xml; charset=utf-8"), ("SOAPAction", f"\"{action}\"")]
    c.add("POST", pick(rng, ["/Service.svc", "/ws/ShippingService", "/taxud/vies/services/checkVatService", "/soap/v2"]), h, body)


def compressed(rng, c):
    kind = rng.randrange(5)
    if kind == 0:  # OTLP/HTTP with gzip
        body = otlp_traces(rng) if rng.random() < 0.6 else otlp_logs(rng)
        h = [("Host", pick(rng, ["otel-collector.monitoring.svc:4318", host(rng, "otel")])),
             ("User-Agent", pick(rng, ["OTel-OTLP-Exporter-Go/1.32.0", "OTel-OTLP-Exporter-Java/1.44.1",
                                       "OTel-OTLP-Exporter-Python/1.28.2"])),
             ("Content-Type", "application/x-protobuf"), ("Content-Encoding", "gzip"), ("Accept-Encoding", "gzip")]
        c.add("POST", pick(rng, ["/v1/traces", "/v1/logs"]), h, gzip.compress(body, mtime=0))
    elif kind == 1:  # log shippers and APM agents: NDJSON, gzip
        lines = [jsonb({"@timestamp": iso(rng), "message": pick(rng, [
            text.sentence(rng, pick(rng, text.LANGUAGES)),
            f"{rng.randint(1, 223)}.{rng.randint(0, 255)}.0.{rng.randint(1, 254)} - - [{iso(rng)}] \"POST /api/{pick(rng, ['login', 'cart', 'search'])} HTTP/1.1\" {pick(rng, [200, 302, 404])} {rng.randint(100, 9000)}",
            f"SELECT id, name FROM products WHERE category_id = {rng.randint(1, 99)} took {rng.randint(1, 900)}ms"]),
            "log.level": pick(rng, ["info", "warn", "error"]), "service.name": pick(rng, ["checkout", "search", "auth"])})
            for _ in range(rng.randint(1, 40))]
        ua = pick(rng, ["Vector/0.43.1 (x86_64-unknown-linux-gnu)", "Fluent-Bit", "Filebeat/8.15.3",
                        "apm-agent-nodejs/4.8.1 (checkout 2.4.0)", "apm-agent-java/1.52.1"])
        path = "/intake/v2/events" if ua.startswith("apm") else pick(rng, ["/_bulk", "/ingest", "/api/v1/logs"])
        h = [("Host", host(rng, "logs")), ("User-Agent", ua), ("Content-Type", "application/x-ndjson"),
             ("Content-Encoding", "gzip"), ("Accept-Encoding", "gzip"), ("Authorization", bearer(rng))]
        c.add("POST", path, h, gzip.compress(b"\n".join(lines) + b"\n", mtime=0))
    elif kind == 2:  # Sentry SDK envelope, gzip
        event_id = hexid(rng, 32)
        header = jsonb({"event_id": event_id, "sent_at": iso(rng), "sdk": {"name": "sentry.python", "version": "2.19.2"}})
        event = jsonb({"event_id": event_id, "level": "error", "platform": "python", "exception": {"values": [{
            "type": pick(rng, ["KeyError", "ValueError", "OperationalError"]),
            "value": pick(rng, ["'user_id'", "invalid literal for int() with base 10: 'abc'",
                                "(psycopg2.OperationalError) could not connect to server"]),
            "stacktrace": {"frames": [{"filename": f"app/{pick(rng, ['views', 'models', 'tasks'])}.py",
                                       "function": pick(rng, ["get", "save", "run"]), "lineno": rng.randint(1, 900)}]}}]}})
        body = header + b"\n" + jsonb({"type": "event", "length": len(event)}) + b"\n" + event + b"\n"
        h = [("Host", host(rng, "sentry")), ("User-Agent", "sentry.python/2.19.2"),
             ("Content-Type", "application/x-sentry-envelope"), ("Content-Encoding", "gzip"),
             ("X-Sentry-Auth", f"Sentry sentry_key={hexid(rng, 32)}, sentry_version=7, sentry_client=sentry.python/2.19.2")]
        c.add("POST", f"/api/{rng.randint(1, 999)}/envelope/", h, gzip.compress(body, mtime=0))
    elif kind == 3:  # mobile analytics batch, gzip
        batch = {"batch": [{"type": pick(rng, ["track", "screen", "identify"]), "event": pick(rng, ["Order Completed", "Product Viewed", "Signed In"]),
                            "properties": {"name": text.product(rng, pick(rng, text.LANGUAGES)), "price": rng.randint(100, 9999) / 100,
                                           "search": text.search_query(rng, pick(rng, text.LANGUAGES))},
                            "anonymousId": uid(rng), "timestamp": iso(rng), "messageId": uid(rng)} for _ in range(rng.randint(1, 15))],
                 "sentAt": iso(rng)}
        h = [("Host", pick(rng, ["api.segment.io", host(rng, "events")]))] + app_client(rng) + [
            ("Content-Type", "application/json; charset=utf-8"), ("Content-Encoding", "gzip"),
            ("Authorization", "Basic " + base64.b64encode(f"{alnum(rng, 32)}:".encode()).decode())]
        c.add("POST", "/v1/batch", h, gzip.compress(jsonb(batch), mtime=0))
    else:  # a browser RUM SDK deflating its intake request
        events = [jsonb({"type": pick(rng, ["view", "action", "resource", "error"]), "date": rng.randint(1700000000000, 1800000000000),
                         "view": {"url": f"https://{host(rng, 'www')}/{pick(rng, ['', 'cart', 'checkout?step=2', 'search?q=' + quote(text.search_query(rng, 'en'))])}",
                                  "referrer": ""},
                         "session": {"id": uid(rng)}, "service": "web-store"}) for _ in range(rng.randint(1, 20))]
        h = fetch(rng, *api_ref(rng, "browser-intake"), content_type="text/plain;charset=UTF-8", accept="*/*",
                  extra=[("Content-Encoding", "deflate")])
        tags = quote(f"sdk_version:5.35.0,api:fetch,env:prod,service:web-store", safe="")
        c.add("POST", f"/api/v2/rum?ddsource=browser&ddtags={tags}&dd-api-key=pub{hexid(rng, 32)}&dd-evp-origin=browser"
              f"&dd-request-id={uid(rng)}&batch_time={rng.randint(1700000000000, 1800000000000)}", h,
              zlib.compress(b"\n".join(events)))


def labelled_by_tools(rng, c):
    """Bodies under the labels tools of their own write: a YAML document (an OpenAPI description uploaded to a docs
    host, Kubernetes' server-side apply), S3's `binary/octet-stream` from a sync tool, Outlook's MAPI over HTTP to
    Exchange, a Jenkins page calling a bound object through Stapler, QuickBooks Online's query endpoint."""
    kind = rng.randrange(5)
    if kind == 0:
        name = pick(rng, ["orders", "billing", "inventory"])
        if rng.random() < 0.5:
            doc = (f"openapi: 3.0.3\ninfo:\n  title: {name.title()} API\n  version: 1.{rng.randint(0, 9)}.0\n"
                   f"paths:\n  /{name}/{{id}}:\n    get:\n      summary: Get one of the {name} (by id)\n"
                   f"      parameters:\n        - name: id\n          in: path\n          required: true\n"
                   f"          schema: {{type: string, pattern: '^[a-z0-9-]+$'}}\n      responses:\n        '200': {{description: OK}}\n")
            c.add("PUT", f"/api/v1/specs/{name}", fetch(rng, host(rng, "api"), f"https://{host(rng, 'docs')}/", content_type="application/yaml",
                                                       auth=bearer(rng)), doc)
        else:
            doc = (f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: shop\nspec:\n"
                   f"  replicas: {rng.randint(1, 6)}\n  template:\n    spec:\n      containers:\n        - name: app\n"
                   f"          image: registry.example.com/{name}:1.{rng.randint(0, 40)}\n          args: [\"--port=8080\", \"--log-level=info\"]\n")
            c.add("PATCH", f"/apis/apps/v1/namespaces/shop/deployments/{name}?fieldManager=kubectl&force=true",
                  [("Host", "k8s.example.internal:6443"), ("User-Agent", "kubectl/v1.31.2 (linux/amd64) kubernetes/5864a46"),
                   ("Accept", "application/json"), ("Content-Type", "application/apply-patch+yaml"), ("Authorization", bearer(rng))], doc)
    elif kind == 1:
        c.add("PUT", f"/{pick(rng, ['backup', 'exports'])}/{uid(rng)}.bin", [("Host", f"{alnum(rng, 8).lower()}.s3.amazonaws.com"),
              ("User-Agent", "rclone/v1.68.1"), ("Content-Type", "binary/octet-stream"), ("x-amz-content-sha256", "UNSIGNED-PAYLOAD"),
              ("x-amz-date", "20251102T101500Z"), ("Authorization", f"AWS4-HMAC-SHA256 Credential=AKIA{alnum(rng, 16).upper()}/20251102/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature={hexid(rng, 64)}")],
              rng.randbytes(rng.randint(64, 4096)))
    elif kind == 2:
        c.add("POST", f"/mapi/emsmdb/?MailboxId={uid(rng)}@example.com", [("Host", "mail.example.com"),
              ("User-Agent", "Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.17928; Pro)"),
              ("Content-Type", "application/mapi-http"), ("X-RequestType", "Execute"), ("X-ClientInfo", "{" + uid(rng).upper() + "}-1"),
              ("X-RequestId", "{" + uid(rng).upper() + "}:" + str(rng.randint(1, 999))), ("X-ClientApplication", "Outlook/16.0.17928.20114"),
              ("Authorization", "Negotiate " + base64.b64encode(rng.randbytes(96)).decode())], rng.randbytes(rng.randint(40, 900)))
    elif kind == 3:
        b = browser(rng)
        c.add("POST", f"/$stapler/bound/{uid(rng)}/{pick(rng, ['fetchQueue', 'doAutoRefresh', 'getBuildStatus'])}",
              fetch(rng, "ci.example.com", "https://ci.example.com/job/shop/", content_type="application/x-stapler-method-invocation;charset=UTF-8",
                    accept="application/json, text/javascript, */*", b=b, extra=[("Crumb", hexid(rng, 64))]),
              pick(rng, ["[]", "[\"shop\"]", "[5]"]))
    else:
        query = pick(rng, ["select * from Invoice where Balance > '0' startposition 1 maxresults 100",
                           f"SELECT Id, DisplayName FROM Customer WHERE DisplayName LIKE '%{pick(rng, ['Smith', 'Müller'])}%'",
                           "select * from Item where Type = 'Inventory' orderby Name"])
        c.add("POST", f"/v3/company/{rng.randint(10**15, 10**16)}/query?minorversion=75", [("Host", "quickbooks.api.example.com"),
              ("User-Agent", "Intuit-QuickBooks-SDK/6.3.0 (Node.js)"), ("Accept", "application/json"), ("Content-Type", "application/text"),
              ("Authorization", bearer(rng))], query)


def build(n=2500, seed=0xA91B0D):
    rng = random.Random(seed)
    c = Corpus("api-bodies")
    makers = [(4, protobuf), (3, grpc_web), (4, ndjson), (3, octet_stream), (2, json_api_spec), (2, merge_patch),
              (2, json_patch), (1, graphql_response), (2, amz_json), (2, soap), (3, compressed), (1, form_labelled_protobuf),
              (1, upload_chunk), (1, container_logs), (1, related_upload), (1, labelled_by_tools)]
    for _ in range(n):
        weighted(rng, makers)(rng, c)
    return c
