"""binary-uploads.txt: multipart/form-data uploads of binary files as browsers, apps and SDKs send them, with the
boundary each client writes (Chrome/Safari ----WebKitFormBoundary, Firefox ----geckoformboundary, okhttp UUIDs,
curl, python-requests hex, Go mime/multipart, undici/axios ----formdata-undici-), and realistic file bodies: PNG
(valid chunks, zlib-compressed random pixels), JPEG (SOI, APP0 JFIF or APP1 Exif, DQT, SOF0, SOS, random entropy
data, EOI), GIF89a, WebP (RIFF), HEIC and MP4/MOV (ftyp boxes), PDF (objects, a Flate stream of random bytes, xref,
trailer), ZIP and Office Open XML (docx/xlsx built with zipfile: [Content_Types].xml, document parts), gzip, MP3 (ID3),
WAV, SQLite, plain CSV. Uploaded to avatar, attachment, media-library, document, support-ticket and import
endpoints (WordPress async-upload, Drupal, Rails Active Storage, Django, tus-less PHP forms), with the usual side
fields (title, alt text in many languages, CSRF tokens, chunk indexes of Dropzone/Plupload). Some go as they are, the
body the file itself labelled with its type, in a browser's PUT to a storage service's signed URL (S3, Google Cloud
Storage: a recording, a video, a document), as direct-to-storage uploaders send them, or in the finalizing request of
Google's resumable upload protocol (Gmail, Photos, Drive), labelled `application/x-www-form-urlencoded` as the page's
XMLHttpRequest labels it. File names carry apostrophes
inside words as French and Irish names do (`Relevé d'identité bancaire.pdf`, `O'Brien CV.pdf`), and beside one word
as Dutch names and English plurals do (`CV van 't Hof.docx`, `Students' essays.docx`); WebM recordings.
"""
import io
import random
import struct
import zipfile
import zlib
from urllib.parse import quote

from . import text
from .common import (Corpus, alnum, app_client, bearer, browser, cookie_header, fetch, form_post, hexid, host, pick,
                     sdk_client, uid, weighted)


def png(rng):
    w, h = rng.randint(8, 64), rng.randint(8, 64)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + rng.randbytes(w * 3) for _ in range(h))
    extra = chunk(b"tEXt", b"Software\x00" + pick(rng, [b"Adobe ImageReady", b"gnome-screenshot", b"Snipaste"])) if rng.random() < 0.4 else b""
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + extra
            + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def jpeg(rng):
    size = rng.randint(1500, 14000)
    if rng.random() < 0.5:
        app = b"\xff\xe0\x00\x10JFIF\x00\x01\x01\x01\x00H\x00H\x00\x00"
    else:
        exif = (b"Exif\x00\x00MM\x00*\x00\x00\x00\x08\x00\x02\x01\x0f\x00\x02\x00\x00\x00\x06\x00\x00\x00&\x01\x10\x00\x02\x00\x00\x00\x0e\x00\x00\x00,"
                b"\x00\x00\x00\x00" + pick(rng, [b"Apple\x00", b"Canon\x00", b"Xiaomi"]) + pick(rng, [b"iPhone 15 Pro\x00", b"Canon EOS R6\x00", b"Redmi Note 12"]))
        app = b"\xff\xe1" + struct.pack(">H", len(exif) + 2) + exif
    dqt = b"\xff\xdb\x00C\x00" + bytes(rng.randint(1, 60) for _ in range(64))
    sof = b"\xff\xc0\x00\x11\x08" + struct.pack(">HH", rng.randint(100, 4000), rng.randint(100, 4000)) + b"\x03\x01\x22\x00\x02\x11\x01\x03\x11\x01"
    sos = b"\xff\xda\x00\x0c\x03\x01\x00\x02\x11\x03\x11\x00\x3f\x00"
    data = rng.randbytes(size).replace(b"\xff", b"\xff\x00")  # byte stuffing as in real entropy-coded data
    return b"\xff\xd8" + app + dqt + sof + sos + data + b"\xff\xd9"


def gif(rng):
    w, h = rng.randint(1, 200), rng.randint(1, 200)
    return (b"GIF89a" + struct.pack("<HH", w, h) + b"\xf7\x00\x00" + rng.randbytes(768) + b"!\xf9\x04\x01\x00\x00\x00\x00,"
            + b"\x00\x00\x00\x00" + struct.pack("<HH", w, h) + b"\x00\x08" + rng.randbytes(rng.randint(100, 3000)) + b"\x00;")


def webp(rng):
    payload = b"VP8 " + struct.pack("<I", 0) + rng.randbytes(rng.randint(500, 9000))
    return b"RIFF" + struct.pack("<I", len(payload) + 4) + b"WEBP" + payload


def ftyp(rng, brand):
    box = b"ftyp" + brand + b"\x00\x00\x00\x00" + brand + b"mif1" if brand == b"heic" else b"ftyp" + brand + b"\x00\x00\x02\x00" + brand + b"iso2avc1mp41"
    data = rng.randbytes(rng.randint(2000, 16000))
    return struct.pack(">I", len(box) + 4) + box + struct.pack(">I", len(data) + 8) + (b"mdat" if brand != b"heic" else b"meta") + data


def pdf(rng):
    stream = zlib.compress(rng.randbytes(rng.randint(500, 9000)), 1)
    title = text.title(rng, "en").encode("latin-1", "replace")
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
            b"<< /Length " + str(len(stream)).encode() + b" /Filter /FlateDecode >>\nstream\n" + stream + b"\nendstream",
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            b"<< /Title (" + title.replace(b"(", b"\\(").replace(b")", b"\\)") + b") /Producer (" +
            pick(rng, [b"Microsoft\xae Word for Microsoft 365", b"LibreOffice 24.2", b"Skia/PDF m131", b"macOS Version 15.1 Quartz PDFContext"]) + b") >>"]
    out = b"%PDF-1." + str(rng.randint(4, 7)).encode() + b"\n%\xe2\xe3\xcf\xd3\n"
    offsets = []
    for i, o in enumerate(objs, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + o + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode() + b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return out


def zip_file(rng, members):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members:
            info = zipfile.ZipInfo(name, date_time=(2025, rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59), 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return buf.getvalue()


def docx(rng):
    lang = pick(rng, text.LANGUAGES)
    paras = "".join(f"<w:p><w:r><w:t xml:space=\"preserve\">{text.sentence(rng, lang).replace('&', '&amp;').replace('<', '&lt;')}</w:t></w:r></w:p>"
                    for _ in range(rng.randint(3, 30)))
    return zip_file(rng, [
        ("[Content_Types].xml", '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                                '<Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" '
                                'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'),
        ("_rels/.rels", '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>'),
        ("word/document.xml", '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
                              f"<w:body>{paras}</w:body></w:document>"),
        ("word/media/image1.png", png(rng)),
    ])


def xlsx(rng):
    rows = "".join(f'<row r="{i}"><c r="A{i}" t="inlineStr"><is><t>{text.product(rng, pick(rng, text.LANGUAGES))}</t></is></c><c r="B{i}"><v>{rng.randint(1, 9999)}</v></c></row>'
                   for i in range(1, rng.randint(5, 80)))
    return zip_file(rng, [
        ("[Content_Types].xml", '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                                '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>'),
        ("xl/workbook.xml", '<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheets><sheet name="Sheet1" sheetId="1"/></sheets></workbook>'),
        ("xl/worksheets/sheet1.xml", f'<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>{rows}</sheetData></worksheet>'),
    ])


def plain_zip(rng):
    return zip_file(rng, [(f"{pick(rng, ['export', 'photos', 'logs'])}/{alnum(rng, 6).lower()}.{pick(rng, ['jpg', 'bin', 'log'])}", rng.randbytes(rng.randint(200, 8000)))
                          for _ in range(rng.randint(1, 5))])


def gzip_file(rng):
    return b"\x1f\x8b\x08\x00" + struct.pack("<I", rng.randint(1700000000, 1760000000)) + b"\x00\x03" + rng.randbytes(rng.randint(500, 15000))


def mp3(rng):
    return b"ID3\x04\x00\x00\x00\x00\x01\x00" + b"TIT2" + struct.pack(">I", 12) + b"\x00\x00\x03" + alnum(rng, 11).encode() + \
        b"".join(b"\xff\xfb\x90\x64" + rng.randbytes(413) for _ in range(rng.randint(3, 30)))


def wav(rng):
    data = rng.randbytes(rng.randint(1000, 16000))
    return b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVEfmt " + struct.pack("<IHHIIHH", 16, 1, 1, 16000, 32000, 2, 16) + b"data" + struct.pack("<I", len(data)) + data


def webm(rng):
    """An EBML header (WebM's signature and doctype), then clusters of frames."""
    return b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\xf7\x81\x01\x42\x82\x84webm" + rng.randbytes(rng.randint(2000, 12000))


def sqlite(rng):
    return b"SQLite format 3\x00" + struct.pack(">H", 4096) + b"\x01\x01\x00@  " + rng.randbytes(rng.randint(2000, 8000))


def csv_file(rng):
    lang = pick(rng, text.LANGUAGES)
    lines = ["sku;name;price;stock;note"] + [f"{alnum(rng, 6).upper()};\"{text.product(rng, lang)}\";{rng.randint(1, 999)},{rng.randint(0, 99):02d};{rng.randint(0, 500)};\"{text.sentence(rng, lang)}\""
                                             for _ in range(rng.randint(3, 60))]
    return ("\ufeff" if rng.random() < 0.3 else "").encode() + "\r\n".join(lines).encode()


KINDS = [(5, "image/jpeg", ["IMG_{n}.JPG", "photo.jpg", "DSC0{n}.jpg", "20250114_{n}.jpg", "Фото {n}.jpg", "写真{n}.jpeg"], jpeg),
         (3, "image/png", ["Screenshot 2025-01-14 at {n}.png", "avatar.png", "logo-final (2).png", "Bildschirmfoto {n}.png"], png),
         (1, "image/gif", ["animation.gif", "reaction-{n}.gif"], gif),
         (1, "image/webp", ["banner-{n}.webp", "product.webp"], webp),
         (1, "image/heic", ["IMG_{n}.HEIC"], lambda rng: ftyp(rng, b"heic")),
         (1, "video/mp4", ["video-{n}.mp4", "VID_2025{n}.mp4", "screen recording.mov"], lambda rng: ftyp(rng, b"isom")),
         (3, "application/pdf", ["invoice-{n}.pdf", "Rechnung_{n}.pdf", "CV - {name}.pdf", "contrat signé.pdf", "scan0{n}.pdf",
                                    "Relevé d'identité bancaire.pdf", "Attestation d'assurance {n}.pdf", "O'Brien CV.pdf"], pdf),
         (2, "application/vnd.openxmlformats-officedocument.wordprocessingml.document", ["letter.docx", "Bewerbung {name}.docx", "proposal_v{n}.docx",
                                                                                 "CV van 't Hof.docx", "Students' essays {n}.docx"], docx),
         (1, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", ["inventory.xlsx", "budget 2025.xlsx", "listino prezzi.xlsx"], xlsx),
         (1, "application/zip", ["photos.zip", "export-{n}.zip", "site-backup.zip"], plain_zip),
         (1, "application/gzip", ["logs-{n}.tar.gz", "dump.sql.gz"], gzip_file),
         (1, "audio/mpeg", ["voice message {n}.mp3", "podcast-ep{n}.mp3"], mp3),
         (1, "audio/wav", ["recording-{n}.wav"], wav),
         (1, "video/webm", ["screen-recording-{n}.webm", "clip.webm"], webm),
         (1, "application/vnd.sqlite3", ["app-data.sqlite", "backup.db"], sqlite),
         (1, "text/csv", ["products.csv", "import_{n}.csv", "Kunden.csv"], csv_file)]


def boundary_for(rng, client):
    if client == "chrome" or client == "safari":
        return "----WebKitFormBoundary" + alnum(rng, 16)
    if client == "firefox":
        return pick(rng, ["----geckoformboundary" + hexid(rng, 32), "-" * 27 + str(rng.randint(10 ** 28, 10 ** 29))])
    if client == "app":
        return uid(rng)
    return pick(rng, ["-" * 24 + hexid(rng, 16), hexid(rng, 32), hexid(rng, 60), "----formdata-undici-0" + str(rng.randint(10 ** 10, 10 ** 11))])


def part(boundary, name, value, filename=None, ctype=None):
    disp = f'Content-Disposition: form-data; name="{name}"'
    if filename is not None:
        disp += f'; filename="{filename}"'
    head = f"--{boundary}\r\n{disp}\r\n" + (f"Content-Type: {ctype}\r\n" if ctype else "") + "\r\n"
    return head.encode() + (value if isinstance(value, bytes) else value.encode()) + b"\r\n"


ENDPOINTS = [("/wp-admin/async-upload.php", "async-upload", [("name", "{fn}"), ("action", "upload-attachment"), ("_wpnonce", "{hex10}"), ("post_id", "{num}")]),
             ("/rails/active_storage/direct_uploads", "file", []),
             ("/api/v1/attachments", "file", [("ticket_id", "{num}"), ("comment", "{sentence}")]),
             ("/account/avatar", "avatar", [("csrfmiddlewaretoken", "{tok}")]),
             ("/media/upload", "files[]", [("alt", "{title}"), ("folder", "{folder}")]),
             ("/upload.php", "userfile", [("MAX_FILE_SIZE", "10485760")]),
             ("/api/documents", "document", [("title", "{title}"), ("tags", "invoice,2025")]),
             ("/file/ajax/field_image/und/0/form-{hex10}", "files[field_image_und_0]", [("form_build_id", "form-{tok}"), ("form_id", "article_node_form")]),
             ("/chunks", "file", [("dzuuid", "{uuid}"), ("dzchunkindex", "{small}"), ("dztotalfilesize", "{num}"), ("dzchunksize", "2000000"), ("dztotalchunkcount", "3"), ("dzchunkbyteoffset", "0")]),
             ("/api/import", "csv", [("mode", "upsert"), ("delimiter", ";")])]


def fill(rng, v, fn):
    return (v.replace("{fn}", fn).replace("{hex10}", hexid(rng, 10)).replace("{num}", str(rng.randint(1, 999999)))
            .replace("{sentence}", text.sentence(rng)).replace("{tok}", alnum(rng, 43)).replace("{title}", text.title(rng))
            .replace("{folder}", pick(rng, ["2025/01", "Produits/Été", "uploads"])).replace("{uuid}", uid(rng)).replace("{small}", str(rng.randint(0, 2))))


def build(n=1000, seed=0xB1DA7A):
    rng = random.Random(seed)
    c = Corpus("binary-uploads")
    for _ in range(n):
        path, field, extra = pick(rng, ENDPOINTS)
        path = fill(rng, path, "")
        files = []
        for _ in range(weighted(rng, [(8, 1), (2, 2), (1, 3)])):
            _, ctype, names, gen = weighted(rng, [(w, (w, ct, nm, g)) for w, ct, nm, g in KINDS])
            fn = pick(rng, names).replace("{n}", str(rng.randint(1, 9999))).replace("{name}", text.name(rng))
            if rng.random() < 0.05:
                ctype = "application/octet-stream"  # browsers send this for extensions they do not know
            files.append((fn, ctype, gen(rng)))
        client = weighted(rng, [(9, "browser"), (2, "app"), (1, "sdk")])
        br = browser(rng)
        if client == "browser" and rng.random() < 0.15:
            fn, ctype, data = files[0]
            if rng.random() < 0.3:
                # Google's resumable upload protocol (a Gmail attachment, a Photos or Drive upload from the page):
                # the file's bytes go in the finalizing request under XMLHttpRequest's form label.
                hst, path = pick(rng, [("mail.google.com", "/mail/u/0/upload/?ui=2&ik=" + hexid(rng, 10)),
                                       ("photos.google.com", "/_/upload/uploadmedia/rupio/interactive?authuser=0"),
                                       ("drive.google.com", "/upload/drive/v2internal/files?uploadType=resumable")])
                extra = [("X-Goog-Upload-Command", "upload, finalize"), ("X-Goog-Upload-Offset", "0")]
                c.add("POST", f"{path}&upload_id={alnum(rng, 80)}&upload_protocol=resumable",
                      fetch(rng, hst, f"https://{hst}/", content_type="application/x-www-form-urlencoded;charset=utf-8",
                            accept="*/*", extra=extra, b=br), data)
                continue
            hst = pick(rng, ["uploads.s3.eu-west-1.amazonaws.com", "storage.googleapis.com"])
            key = f"/u/{uid(rng)}/{quote(fn)}"
            signed = f"{key}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA{alnum(rng, 16).upper()}%2F20250114%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20250114T101500Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature={hexid(rng, 64)}"
            page = host(rng, pick(rng, ["www", "app"]))
            c.add("PUT", signed, fetch(rng, hst, f"https://{page}/", content_type=ctype, accept="*/*", b=br), data)
            continue
        b = boundary_for(rng, br[0] if client == "browser" else client)
        body = b"".join(part(b, k, fill(rng, v, files[0][0])) for k, v in extra)
        for fn, ctype, data in files:
            body += part(b, field, data, filename=fn, ctype=ctype)
        body += f"--{b}--\r\n".encode()
        ctype_h = f"multipart/form-data; boundary={b}"
        if client == "browser":
            hst = host(rng, pick(rng, ["www", "app", "admin", "support"]))
            if rng.random() < 0.5:
                h = fetch(rng, hst, f"https://{hst}/", content_type=ctype_h, accept="application/json, text/javascript, */*; q=0.01",
                          cookie=cookie_header(rng), extra=[("X-Requested-With", "XMLHttpRequest")] if rng.random() < 0.4 else [], b=br)
            else:
                h = form_post(rng, hst, f"https://{hst}{path}", ctype_h, cookie=cookie_header(rng), b=br)
        elif client == "app":
            h = [("Host", host(rng, "api"))] + app_client(rng) + [("Authorization", bearer(rng)), ("Content-Type", ctype_h)]
        else:
            h = [("Host", host(rng, "api"))] + sdk_client(rng) + [("Authorization", bearer(rng)), ("Content-Type", ctype_h)]
        c.add(pick(rng, ["POST", "POST", "POST", "PUT"]), path, h, body)
    return c
