//! The site policy: the values of CRS's policy settings that the proxy uses unless configured otherwise.
//!
//! CRS's `crs-setup.conf` defaults describe a classic web site of forms and pages; the regression suites test
//! them, and `rulec test` keeps them. Real sites and their browsers send more, and refusing it is not blocking an
//! attack: `navigator.sendBeacon` posts `text/plain`; browsers post `application/csp-report` and
//! `application/reports+json` to the endpoints a site names; analytics, logging and RPC clients send
//! protobuf, gRPC-web, NDJSON and `application/octet-stream`; event buses send CloudEvents. On recorded real
//! traffic, 920420 (content type not allowed) was three quarters of what CRS refused. These bodies are still
//! inspected: a body no parser takes is one raw value of `ARGS_POST`, and `REQUEST_BODY` rules read it.
//!
//! The restricted file extensions are CRS's less top-level domains and public certificates ([`RESTRICTED_EXTENSIONS`]);
//! the charsets add the legacy encodings of the web that keep ASCII as ASCII ([`ALLOWED_REQUEST_CONTENT_TYPE_CHARSET`]).
//!
//! The methods add PUT, PATCH and DELETE to CRS's GET, HEAD, POST and OPTIONS: every REST API a single-page
//! application or a mobile app talks to uses them, and a method is no attack (the request's content is inspected
//! whatever its method). WebDAV's, CalDAV's and CardDAV's methods are added for the same reason: file-sync,
//! calendar and contact clients speak them to the servers that implement them, and a server that does not
//! answers them with 405. What stays refused is what a method itself does or hides: `TRACE` and `TRACK` echo
//! the request with its cookies (cross-site tracing), `CONNECT` asks for a tunnel, and a made-up method is verb
//! tampering (a server configuration that limits GET and POST lets another method through).
//!
//! A site that is an API for programs says so with its [`Profile`]: there a body's label and the URLs of JSON
//! documents are no evidence of an attack.

use crate::evaluate::confirm::{Confirmation, is_json_document};
use crate::evaluate::verdict::{Verdict, excerpt_bytes};
use crate::request::HttpRequest;
use crate::request::coding::Coding;
use std::collections::BTreeMap;

/// Content types a request body may have, as 920420 reads them (`|type|`, lowercase): CRS's own, then what
/// browsers and API clients send to ordinary sites.
pub const ALLOWED_REQUEST_CONTENT_TYPE: &str = concat!(
    // CRS 4's defaults
    "|application/x-www-form-urlencoded| |multipart/form-data| |multipart/related| |text/xml| |application/xml| ",
    "|application/soap+xml| |application/json| |application/cloudevents+json| ",
    "|application/cloudevents-batch+json| ",
    // sendBeacon and fetch() with a string body; the text formats CalDAV, CardDAV and file sync clients put
    "|text/plain| |text/calendar| |text/vcard| |text/x-vcard| |text/markdown| ",
    // WebVTT and SubRip captions and transcripts, as meeting, video and podcast platforms upload them
    "|text/vtt| |application/x-subrip| ",
    // CSV and tab-separated values, which import APIs take as the body (Salesforce's Bulk API, a marketplace's
    // inventory flat file, a storage upload of an export)
    "|text/csv| |text/tab-separated-values| ",
    // EDI documents (X12, EDIFACT) and the S/MIME envelopes AS2 (RFC 4130) carries them in, signed and encrypted,
    // as trading partners post them to a B2B receiver
    "|application/edi-x12| |application/edifact| |application/edi-consent| |multipart/signed| ",
    // HL7 version 2 messages (lab results, admissions, orders) as hospital systems post them to an interface
    // engine's HTTP listener (Mirth Connect's `x-application/hl7-v2+er7`, its ER7 encoding named)
    "|application/hl7-v2| |application/hl7-v2+er7| |x-application/hl7-v2+er7| ",
    "|application/pkcs7-mime| |application/pkcs7-signature| ",
    // the Reporting API, CSP and network error reports; hyperlink auditing's pings (`<a ping>`, HTML's `PING` body)
    "|application/reports+json| |application/csp-report| |text/ping| ",
    // what browsers post on their own: certificate revocation checks (OCSP, RFC 6960) and DNS over HTTPS
    // (RFC 8484) to the responders and resolvers they are configured with
    "|application/ocsp-request| |application/dns-message| ",
    // binary and streaming API bodies; tus resumable uploads (Uppy in the browser) send their chunks as
    // `offset+octet-stream`
    "|application/octet-stream| |application/offset+octet-stream| |application/x-protobuf| |application/protobuf| |application/grpc-web| ",
    // S3's name for bytes of no known type, which its SDKs and tools write back when they copy or upload an
    // object; protobuf's lite runtime's label (mobile and game clients' APIs)
    "|binary/octet-stream| |application/x-protobuf-lite| ",
    // YAML documents (RFC 9512) that configuration and API tools post or put: OpenAPI descriptions, CI files,
    // Kubernetes' server-side apply
    "|application/yaml| |application/x-yaml| |text/yaml| |text/x-yaml| |application/apply-patch+yaml| ",
    // Google's JavaScript clients (reCAPTCHA, Maps, Firebase) label protobuf so, and their JSON encoding of it so
    "|application/x-protobuffer| |application/json+protobuf| ",
    "|application/grpc-web+proto| |application/grpc-web-text| |application/grpc-web-text+proto| ",
    "|application/x-ndjson| |application/ndjson| |application/x-json-stream| |application/jsonl| ",
    // session-replay batches compressed in the page (Microsoft Clarity labels its gzip so)
    "|application/x-clarity-gzip| ",
    // JSON media types of common API conventions
    "|application/vnd.api+json| |application/merge-patch+json| |application/json-patch+json| ",
    "|application/problem+json| |application/ld+json| |application/graphql| |application/graphql+json| ",
    "|application/x-amz-json-1.0| |application/x-amz-json-1.1| |application/x-sentry-envelope| |text/json| ",
    "|application/graphql-response+json| |application/vnd.google.protobuf| ",
    // Apache Thrift's RPC bodies (Evernote's clients and web app, services behind a Thrift HTTP transport)
    "|application/x-thrift| |application/vnd.apache.thrift.binary| |application/vnd.apache.thrift.compact| ",
    "|application/vnd.apache.thrift.json| ",
    // batch requests of OData services, Google's APIs and Azure Storage: multipart/mixed of application/http parts
    "|multipart/mixed| ",
    // the bulk API of Elasticsearch's clients (8.x label every request with a versioned vendor type, and their
    // other requests' JSON so), and Exchange ActiveSync, whose phones sync mail in WBXML
    "|application/vnd.elasticsearch+x-ndjson| |application/vnd.elasticsearch+json| |application/vnd.ms-sync.wbxml| ",
    // Outlook's MAPI over HTTP, how every Outlook for Windows reaches Exchange (`/mapi/emsmdb/`, `/mapi/nspi/`)
    "|application/mapi-http| ",
    // Jenkins' pages calling their server-side objects (Stapler's JavaScript proxy, `/$stapler/bound/...`), and
    // the label QuickBooks Online's query endpoint asks for (its SQL-like query as the body)
    "|application/x-stapler-method-invocation| |application/text| ",
    // Git's smart HTTP protocol: every `git fetch`, `clone` and `push` over HTTPS to a Git server (GitLab, Gitea,
    // Bitbucket, Overleaf's Git bridge) posts its negotiation and pack so
    "|application/x-git-upload-pack-request| |application/x-git-receive-pack-request|",
);

/// Charsets a request's `Content-Type` may name, as 920480 reads them (`|label|`, lowercase): every label the
/// WHATWG Encoding Standard gives the encodings browsers implement that keep ASCII as ASCII (CRS's four among
/// them), as pages and their scripts write them (`charset=GBK`, `shift-jis`, `x-sjis`, `latin1`, `ks_c_5601-1987`):
/// a label a browser accepts is one a site's forms and `XMLHttpRequest`s come back with, the page's charset and
/// not an evasion. A site whose pages are in GBK, Big5, Shift_JIS, EUC-KR or windows-1251 gets its forms back
/// labelled so. What stays refused is what hides ASCII from a parser that assumes it: UTF-16 and UTF-32 (every
/// other byte NUL), UTF-7 (`+ADw-script+AD4-`), the stateful ISO-2022 family and HZ (escape sequences shift into
/// other tables), EBCDIC code pages (`ibm037`, `ibm500`: a body no ASCII rule can read, the classic bypass),
/// `x-user-defined` and labels no browser knows.
pub const ALLOWED_REQUEST_CONTENT_TYPE_CHARSET: &str = concat!(
    // UTF-8
    "|utf-8| |utf8| |unicode-1-1-utf-8| |unicode11utf8| |unicode20utf8| |x-unicode20utf8| ",
    // windows-1252, under which the Standard reads ASCII and ISO-8859-1 too (CRS's `iso-8859-1`)
    "|windows-1252| |ansi_x3.4-1968| |ascii| |cp1252| |cp819| |csisolatin1| |ibm819| |iso-8859-1| ",
    "|iso-ir-100| |iso8859-1| |iso88591| |iso_8859-1| |iso_8859-1:1987| |l1| |latin1| |us-ascii| ",
    "|x-cp1252| ",
    // ISO 8859 parts (CRS's `iso-8859-15` among them)
    "|iso-8859-2| |csisolatin2| |iso-ir-101| |iso8859-2| |iso88592| |iso_8859-2| |iso_8859-2:1987| ",
    "|l2| |latin2| |iso-8859-3| |csisolatin3| |iso-ir-109| |iso8859-3| |iso88593| |iso_8859-3| ",
    "|iso_8859-3:1988| |l3| |latin3| |iso-8859-4| |csisolatin4| |iso-ir-110| |iso8859-4| |iso88594| ",
    "|iso_8859-4| |iso_8859-4:1988| |l4| |latin4| |iso-8859-5| |csisolatincyrillic| |cyrillic| ",
    "|iso-ir-144| |iso8859-5| |iso88595| |iso_8859-5| |iso_8859-5:1988| |iso-8859-6| |arabic| ",
    "|asmo-708| |csiso88596e| |csiso88596i| |csisolatinarabic| |ecma-114| |iso-8859-6-e| ",
    "|iso-8859-6-i| |iso-ir-127| |iso8859-6| |iso88596| |iso_8859-6| |iso_8859-6:1987| |iso-8859-7| ",
    "|csisolatingreek| |ecma-118| |elot_928| |greek| |greek8| |iso-ir-126| |iso8859-7| |iso88597| ",
    "|iso_8859-7| |iso_8859-7:1987| |sun_eu_greek| |iso-8859-8| |csiso88598e| |csisolatinhebrew| ",
    "|hebrew| |iso-8859-8-e| |iso-ir-138| |iso8859-8| |iso88598| |iso_8859-8| |iso_8859-8:1988| ",
    "|visual| |iso-8859-8-i| |csiso88598i| |logical| |iso-8859-10| |csisolatin6| |iso-ir-157| ",
    "|iso8859-10| |iso885910| |l6| |latin6| |iso-8859-13| |iso8859-13| |iso885913| |iso-8859-14| ",
    "|iso8859-14| |iso885914| |iso-8859-15| |csisolatin9| |iso8859-15| |iso885915| |iso_8859-15| ",
    "|l9| |iso-8859-16| ",
    // Windows code pages (windows-1254 is also ISO-8859-9's, windows-874 TIS-620's)
    "|windows-874| |dos-874| |iso-8859-11| |iso8859-11| |iso885911| |tis-620| |windows-1250| ",
    "|cp1250| |x-cp1250| |windows-1251| |cp1251| |x-cp1251| |windows-1253| |cp1253| |x-cp1253| ",
    "|windows-1254| |cp1254| |csisolatin5| |iso-8859-9| |iso-ir-148| |iso8859-9| |iso88599| ",
    "|iso_8859-9| |iso_8859-9:1989| |l5| |latin5| |x-cp1254| |windows-1255| |cp1255| |x-cp1255| ",
    "|windows-1256| |cp1256| |x-cp1256| |windows-1257| |cp1257| |x-cp1257| |windows-1258| |cp1258| ",
    "|x-cp1258| ",
    // Cyrillic DOS, KOI8 and Mac
    "|ibm866| |866| |cp866| |csibm866| |koi8-r| |cskoi8r| |koi| |koi8| |koi8_r| |koi8-u| |koi8-ru| ",
    "|macintosh| |csmacintosh| |mac| |x-mac-roman| |x-mac-cyrillic| |x-mac-ukrainian| ",
    // multi-byte, ASCII-compatible: Chinese, Japanese, Korean
    "|gbk| |chinese| |csgb2312| |csiso58gb231280| |gb2312| |gb_2312| |gb_2312-80| |iso-ir-58| ",
    "|x-gbk| |gb18030| |big5| |big5-hkscs| |cn-big5| |csbig5| |x-x-big5| |euc-jp| ",
    "|cseucpkdfmtjapanese| |x-euc-jp| |shift_jis| |csshiftjis| |ms932| |ms_kanji| |shift-jis| |sjis| ",
    "|windows-31j| |x-sjis| |euc-kr| |cseuckr| |csksc56011987| |iso-ir-149| |korean| ",
    "|ks_c_5601-1987| |ks_c_5601-1989| |ksc5601| |ksc_5601| |windows-949|",
);

/// File extensions a request's path may not end in, as 920440 reads them (`.ext/`): CRS's list (backups, working
/// copies, configuration, keys, databases, logs, server-side code) less `.com` and `.ws`, top-level domains
/// that end a path naming a site (`/whois/example.com`, `/api/domains/shop.example.com`) far more often than a
/// DOS program or a Windows script that no web server of today runs, and `.crt` and `.cer`, certificates that
/// browsers and systems fetch to complete a chain (their issuer's URL in the certificate) and that hold no
/// secret (the keys, `.key`, `.pem`, `.pfx`, `.jks`, stay restricted).
pub const RESTRICTED_EXTENSIONS: &str = concat!(
    ".ani/ .asa/ .asax/ .ascx/ .back/ .backup/ .bak/ .bck/ .bk/ .bkp/ .bat/ .cdx/ .cfg/ .cmd/ .cnf/ ",
    ".compositefont/ .config/ .conf/ .copy/ .cs/ .csproj/ .csr/ .dat/ .db/ .dbf/ .dist/ .dll/ .dos/ ",
    ".dpkg-dist/ .drv/ .gadget/ .hta/ .htr/ .htw/ .ida/ .idc/ .idq/ .inc/ .inf/ .ini/ .jks/ .jse/ ",
    ".key/ .licx/ .lnk/ .log/ .mdb/ .msc/ .ocx/ .old/ .pass/ .pdb/ .pfx/ .pif/ .pem/ .pol/ .prf/ ",
    ".printer/ .pwd/ .rdb/ .rdp/ .reg/ .resources/ .resx/ .sav/ .save/ .scr/ .sct/ .sh/ .shs/ .sql/ ",
    ".sqlite/ .sqlite3/ .swap/ .swo/ .swp/ .sys/ .temp/ .tfstate/ .tlb/ .tmp/ .vb/ .vbe/ .vbs/ ",
    ".vbproj/ .vsdisco/ .vxd/ .webinfo/ .wsc/ .wsf/ .wsh/ .xsd/ .xsx/",
);

/// Methods a request may use, as 911100 reads them: CRS's, REST's, and those of WebDAV (RFC 4918) with the
/// calendar and address-book protocols built on it (CalDAV's `REPORT` and `MKCALENDAR`, RFC 3253 and 4791),
/// which file-sync, calendar and contact clients (Nextcloud and ownCloud's, Windows', macOS's and iOS's, Thunderbird's) send,
/// WebDAV's `SEARCH` (RFC 5323: Nextcloud's file search), and OData's `MERGE` (SharePoint's and SAP Gateway's partial
/// update, mostly sent as a `POST` with `X-HTTP-Method: MERGE`).
pub const ALLOWED_METHODS: &str = concat!(
    "GET HEAD POST OPTIONS PUT PATCH DELETE ",
    "PROPFIND PROPPATCH MKCOL COPY MOVE LOCK UNLOCK REPORT MKCALENDAR SEARCH MERGE",
);

/// The name of the setting that lists the methods a request may use (CRS's `tx.allowed_methods`).
pub const ALLOWED_METHODS_SETTING: &str = "allowed_methods";

/// The settings the proxy uses by default, by name.
pub fn site_settings() -> BTreeMap<String, String> {
    BTreeMap::from([
        (
            ALLOWED_METHODS_SETTING.to_owned(),
            ALLOWED_METHODS.to_owned(),
        ),
        (
            "allowed_request_content_type".to_owned(),
            ALLOWED_REQUEST_CONTENT_TYPE.to_owned(),
        ),
        (
            "allowed_request_content_type_charset".to_owned(),
            ALLOWED_REQUEST_CONTENT_TYPE_CHARSET.to_owned(),
        ),
        (
            "restricted_extensions".to_owned(),
            RESTRICTED_EXTENSIONS.to_owned(),
        ),
    ])
}

/// What a site serves, as far as judging its requests goes: `domains.<host>.profile` (and `rules.profile` for the
/// rest), `rulec replay --profile`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    /// Pages and forms for browsers, with their APIs: CRS's policy as the site policy above widens it.
    #[default]
    Web,
    /// An API for programs (REST, GraphQL, RPC, webhooks): clients label bodies with vendor media types or not
    /// at all, and JSON documents carry URLs as data.
    Api,
}

/// The rules that refuse a body without `Content-Type`: 920340 (a `Content-Length`) and 920640 (a body). CRS
/// refuses it because ModSecurity then reads the body as nothing. The engine types every body by its content
/// (JSON, form, XML, text or binary runs) whatever its label says, so a missing label hides nothing from the
/// rules, and browsers send one: `fetch()` and `navigator.sendBeacon` with an `ArrayBuffer` or an untyped `Blob`
/// body label nothing, as older SDKs posting JSON do.
const MISSING_LABEL_RULES: [u32; 2] = [920340, 920640];

/// The rule that refuses a body labelled with a media type the site policy does not list (920420). For a
/// site's pages the list is the policy; an API's clients label bodies with vendor media types.
const UNLISTED_LABEL_RULE: u32 = 920420;

/// The rule that refuses a URL ending in `?` (931120): the trick that cuts off what a page appends to a
/// parameter it includes as a file (`include($_GET['page'] . '.php')`). In a JSON document a URL is data and a
/// trailing `?` truncates nothing: URL builders leave an empty query that way (`.../avatars/u/4?`).
const TRUNCATED_URL_RULE: u32 = 931120;

/// The rule that refuses restricted request headers (920450), `Content-Encoding` among them: CRS's reason is a
/// body ModSecurity cannot decode. A body in a coding the engine undoes ([`Coding`]) is read decoded.
const RESTRICTED_HEADER_RULE: u32 = 920450;

/// The headers by which a client asks the application to take a `POST` as another method (`X-HTTP-Method-Override:
/// PUT`), which 920450 refuses: an override can pass a method the site's policy refuses through the proxy as a
/// `POST`. WordPress's block editor saves every post so (its API client sends `PUT` and `DELETE` as `POST` with
/// the header), as SharePoint's and OData clients send `MERGE`. An override to a method the policy allows
/// (`allowed_methods` in force) asks for nothing the client could not send as its method; on another method than
/// `POST` (a link's `GET` that deletes) it still counts.
const METHOD_OVERRIDE_HEADERS: [&str; 3] = [
    "x-http-method-override",
    "x-http-method",
    "x-method-override",
];

/// The methods by which a client sends a chunk of a resumable upload with its `Content-Range` (920450): Google
/// Cloud Storage's and Drive's resumable uploads (`PUT`, `bytes 0-524287/2000000`), GitLab Runner's job logs
/// (`PATCH`, `0-1289`), GitHub Actions' cache. CRS restricts the header because a partial `PUT` a server takes
/// for a whole one overwrites a file with a fragment; a range that names exactly the bytes of the body is the
/// protocol of an upload API, which only such an API accepts.
const UPLOAD_CHUNK_METHODS: [&str; 3] = ["PUT", "PATCH", "POST"];

/// The rule that refuses a multipart file name or field name with a quote, `;`, `=` or a backslash (920120): those
/// can end the parameter a parser reads and start another (`filename="a.jpg'; filename='a.php"`). An apostrophe
/// beside a letter inside a file's name (`O'Brien CV.pdf`, `Relevé d'identité.pdf`, `CV van 't Hof.docx`,
/// `Students' essays.zip`) ends nothing without the `;` and `=` that would start a parameter: such a name is
/// weighed as the file's name. One that opens or closes the name may be a quote a parser reads.
const MULTIPART_NAME_RULE: u32 = 920120;

/// The rule that refuses a multipart part's header line with a character outside the printable ones before a
/// colon (922130): a header name with a blank or a control character in it (`Content-\x0eDisposition:`), which
/// parsers split differently. Its pattern also reads a blank and the `name="` parameter before a colon inside the
/// part's name, as JSF names every field of a form (`loginForm:username`) and Moodle its quiz answers
/// (`q578254:1_:sequencecheck`): a colon in the name the parser read is no header's end.
const MULTIPART_HEADER_RULE: u32 = 922130;

/// The one expectation HTTP defines (RFC 9110, section 10.1.1), which 920450 refuses with the `Expect` header:
/// curl sends it with every body over 1 KiB, .NET's HTTP clients and the AWS SDKs' uploads with theirs. CRS lists
/// the header because front ends and back ends that disagree on it can be desynchronised; the proxy answers the
/// expectation itself (hyper sends `100 Continue` when the body is read) and removes the header before
/// forwarding (`forward.rs`), so the application's server never sees one to disagree on.
const CONTINUE_EXPECTATION: &[u8] = b"100-continue";

/// Encrypted content coding (RFC 8188), which Web Push (RFC 8291) requires: a site's push server (Nextcloud's
/// UnifiedPush, a self-hosted ntfy or Mozilla autopush) receives messages that only the subscribed browser can
/// decrypt. No server decodes such a body, so it hides nothing from the rules; it is inspected as sent.
const ENCRYPTED_CODING: &[u8] = b"aes128gcm";

/// The rule that refuses a GET or HEAD request with a body (920170). What it guards against is a second request
/// smuggled in a body that a server behind the proxy ignores; Elasticsearch's and OpenSearch's search APIs take
/// their query as a JSON body of a GET, as do clients that send one by habit. A JSON document is no HTTP request.
const GET_BODY_RULE: u32 = 920170;

/// The rules that refuse a path naming a file no server should serve: 930130 (`.env`, `Dockerfile`,
/// `nginx.conf`, `.git/`) and 920440 (restricted extensions). What they guard against is reading such a file, by
/// `GET` (or `POST`, which some servers answer with a static file too). A `PUT` or `PATCH` whose body is a JSON
/// document writes an API's resource under that name (a code forge's contents API:
/// `PUT /repos/o/r/contents/deploy/nginx.conf`): no server answers either method with a file, and a JSON document
/// stored as the file a server would read is no working `.htaccess`, `web.config` or `.env`.
const FILE_PATH_RULES: [u32; 2] = [930130, 920440];

/// The rule that refuses a path ending in a restricted extension (920440), and the one extension of its list that
/// names a program the server runs rather than a file it serves: an ISAPI extension (`.dll`), IIS's CGI, which
/// answers its own URL with the parameters of a query string or a form (interlibrary loan's
/// `/illiad/illiad.dll?Action=10&Form=30`, SharePoint's `_vti_bin/owssvr.dll?Cmd=...`, the shipping and auction
/// sites of the 2000s still running). What the rule guards against, downloading such a file, asks for the path
/// alone; climbing out of the directory to a system's program (`..%c0%af../winnt/system32/cmd.exe`) is the
/// traversal rules'.
const RESTRICTED_EXTENSION_RULE: u32 = 920440;
const PROGRAM_EXTENSION: &str = ".dll";

/// The methods that write the resource a path names, with the document a body carries.
const WRITE_METHODS: [&str; 2] = ["PUT", "PATCH"];

/// The rule that refuses a `Content-Type` CRS's pattern does not take (920470): its parameter names are a list
/// (`charset`, `boundary`, `action`...). Clients send others in well-formed media types: OData's
/// `odata.metadata=minimal`, Elasticsearch's `compatible-with=8`, protobuf's `messageType`, JSON-LD's `profile`.
/// What the rule is for, a header that is no media type (an OGNL expression, a parameter without a value, a
/// value with blanks after `=`), still counts.
const MEDIA_TYPE_RULE: u32 = 920470;

/// The rule that refuses an `Accept` header CRS's pattern does not take (920600). It is there for the charset: a
/// server may answer in the one the client asks for, and the response rules read ASCII-compatible ones only. A
/// list that names no charset ([`asks_for_no_charset`]) leaves the answer in the server's own, whatever else is
/// odd in it (Pinterest's scripts send `application/json, text/javascript, */*, q=0.01`). A value that is no
/// list of media ranges (a path, as Rails' CVE-2019-5418 reads one from the header) still counts.
const ACCEPT_RULE: u32 = 920600;

/// The rule that refuses a `Content-Type` naming a JSON or XML type after its own (921421): a parser that reads
/// the later one gets a body the rules read as another. `multipart/related` names its root part's type in its
/// `type` parameter (RFC 2387), and MTOM its XML's in `start-info` (SOAP with attachments: Office's file sync,
/// `multipart/related; type="application/xop+xml"; start-info="text/xml"`); the engine reads each part by the
/// type its own headers give (`body.rs`), so those parameters relabel nothing.
const DECLARED_TYPE_RULE: u32 = 921421;

/// The structured syntax suffixes (RFC 6839) whose bodies the engine parses as the suffix says, whatever the
/// media type before it (`application/scim+json` of SCIM provisioning, `application/atom+xml`).
const PARSED_SUFFIXES: [&str; 2] = ["+json", "+xml"];

/// File formats a body labelled with a media type of theirs begins with (their signatures), for the files
/// clients put as they are: WebDAV and sync clients, direct uploads to storage, the body of a `PUT`. A body that
/// is what its label says is read by the rules as binary text runs, as an unlabelled one would be.
const SIGNATURES: &[(&str, &[u8])] = &[
    ("application/pdf", b"%PDF-"),
    ("image/jpeg", b"\xff\xd8\xff"),
    ("image/png", b"\x89PNG\r\n\x1a\n"),
    ("image/gif", b"GIF8"),
    ("image/webp", b"RIFF"),
    // Audio and video that sites take as they are recorded (voice messages, uploads to storage).
    ("audio/wav", b"RIFF"),
    ("audio/x-wav", b"RIFF"),
    ("audio/wave", b"RIFF"),
    ("audio/webm", b"\x1a\x45\xdf\xa3"),
    ("video/webm", b"\x1a\x45\xdf\xa3"),
    ("audio/ogg", b"OggS"),
    ("video/ogg", b"OggS"),
    ("audio/flac", b"fLaC"),
    ("audio/mpeg", b"ID3"),
    ("application/zip", b"PK\x03\x04"),
    ("application/gzip", b"\x1f\x8b"),
    ("application/x-gzip", b"\x1f\x8b"),
    ("application/vnd.sqlite3", b"SQLite format 3\0"),
    ("application/x-sqlite3", b"SQLite format 3\0"),
    // Office Open XML and OpenDocument files are zip archives.
    (
        "application/vnd.openxmlformats-officedocument.",
        b"PK\x03\x04",
    ),
    ("application/vnd.oasis.opendocument.", b"PK\x03\x04"),
];

/// ISO base media files (MP4, QuickTime, HEIC) carry their signature, `ftyp`, after a 4-byte box size.
const ISO_MEDIA: [&str; 7] = [
    "video/mp4",
    "video/quicktime",
    "image/heic",
    "image/avif",
    "audio/mp4",
    "audio/x-m4a",
    "video/3gpp",
];

/// Whether `body` begins as the files of one of [`SIGNATURES`] or [`ISO_MEDIA`] do, whatever its label.
pub(crate) fn is_file(body: &[u8]) -> bool {
    SIGNATURES
        .iter()
        .any(|(_, signature)| body.starts_with(signature))
        || is_iso_media(body)
}

/// Whether `body` begins as an ISO base media file does: a box size, then `ftyp`.
fn is_iso_media(body: &[u8]) -> bool {
    body.get(4..8) == Some(b"ftyp")
}

/// Whether `body` begins as files of `media_type` (as 920420 reports it) do.
pub(crate) fn is_labelled_file(media_type: &str, body: &[u8]) -> bool {
    let media_type = bare_media_type(media_type);
    let signed = SIGNATURES
        .iter()
        .any(|(label, signature)| label_fits(label, &media_type) && body.starts_with(signature));
    signed || (ISO_MEDIA.contains(&media_type.as_str()) && is_iso_media(body))
}

/// Whether `body` is binary (a NUL byte, or bytes that are not UTF-8) under a label of a media file's type, an
/// image (not SVG, which is markup), audio, video or a font: a chunk of a resumable upload (Twitch's and
/// YouTube's video parts, a podcast's audio) starts mid-file, where no signature is, and the engine reads it as
/// its content says (binary text runs) whatever the label; a text body so labelled still counts.
pub(crate) fn is_media_bytes(media_type: &str, body: &[u8]) -> bool {
    let media_type = bare_media_type(media_type);
    let media = match media_type.split_once('/') {
        Some(("image", subtype)) => !subtype.contains("svg"),
        Some((kind, _)) => matches!(kind, "audio" | "video" | "font"),
        None => false,
    };
    media && (body.contains(&0) || std::str::from_utf8(body).is_err())
}

/// Whether files of `media_type` have a signature here ([`SIGNATURES`], [`ISO_MEDIA`]) that
/// [`is_labelled_file`] checks.
pub(crate) fn has_signature(media_type: &str) -> bool {
    let media_type = bare_media_type(media_type);
    SIGNATURES
        .iter()
        .any(|(label, _)| label_fits(label, &media_type))
        || ISO_MEDIA.contains(&media_type.as_str())
}

/// `media_type` without its parameters, lower-cased.
fn bare_media_type(media_type: &str) -> String {
    media_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// Whether the label of [`SIGNATURES`] (a media type, or a family of them ending in `.`) names `media_type`.
fn label_fits(label: &str, media_type: &str) -> bool {
    match label.strip_suffix('.') {
        Some(family) => media_type.starts_with(family),
        None => media_type == label,
    }
}

/// Whether `value` is a media type as RFC 9110 writes one (section 8.3.1): `type/subtype`, then parameters
/// `; name=value`, each name a token and each value a token or a quoted string.
fn is_well_formed_media_type(value: &[u8]) -> bool {
    media_type_with(value, &is_parameter)
}

/// A media type whose parameters each pass `parameter`.
fn media_type_with(value: &[u8], parameter: &dyn Fn(&[u8]) -> bool) -> bool {
    let mut parts = split_parameters(value);
    let Some(Some((kind, subtype))) = parts.next().map(|media| split_at(media.trim_ascii(), b'/'))
    else {
        return false;
    };
    is_token(kind) && is_token(subtype) && parts.all(parameter)
}

/// The charsets CRS's pattern for `Accept` takes: ASCII-compatible ones the response rules read.
const READABLE_CHARSETS: [&[u8]; 4] = [b"utf-8", b"iso-8859-1", b"iso-8859-15", b"windows-1252"];

/// Whether the `Content-Type` value `sent` is a well-formed `multipart/related` whose only JSON or XML types are
/// the values of its `type` and `start-info` parameters ([`DECLARED_TYPE_RULE`]).
fn names_related_parts_only(sent: &[u8]) -> bool {
    let mut parts = split_parameters(sent);
    let related = parts.next().is_some_and(|media| {
        media
            .trim_ascii()
            .eq_ignore_ascii_case(b"multipart/related")
    });
    related
        && is_well_formed_media_type(sent)
        && parts.all(|parameter| {
            let Some((name, value)) = split_at(parameter.trim_ascii(), b'=') else {
                return true;
            };
            let value = value.to_ascii_lowercase();
            let names_a_type = [b"json".as_slice(), b"xml"]
                .iter()
                .any(|kind| memchr::memmem::find(&value, kind).is_some());
            !names_a_type
                || name.eq_ignore_ascii_case(b"type")
                || name.eq_ignore_ascii_case(b"start-info")
        })
}

/// Whether `value`, an `Accept` header, asks for no charset the response rules cannot read ([`ACCEPT_RULE`]):
/// it is a list of media ranges ([`is_media_range_list`]) whose every `charset` parameter names one of
/// [`READABLE_CHARSETS`] (Wikipedia's page previews ask for
/// `application/json; charset=utf-8; profile="https://www.mediawiki.org/wiki/Specs/Summary/1.2.0"`). An empty
/// header is no list: CRS counts it as a client's anomaly (920310 and this rule), and browsers never send one.
fn asks_for_no_charset(value: &[u8]) -> bool {
    let readable = |parameter: &[u8]| {
        is_parameter(parameter)
            && split_at(parameter.trim_ascii(), b'=').is_none_or(|(name, charset)| {
                let charset = charset.strip_prefix(b"\"").unwrap_or(charset);
                let charset = charset.strip_suffix(b"\"").unwrap_or(charset);
                !name.eq_ignore_ascii_case(b"charset")
                    || READABLE_CHARSETS
                        .iter()
                        .any(|known| charset.eq_ignore_ascii_case(known))
            })
    };
    // A bare word where a media range belongs (Microsoft Teams' `Accept: json`) names no charset either.
    let bare_word = |element: &[u8]| {
        let element = element.trim_ascii();
        !element.is_empty()
            && element
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'+'))
    };
    !value.trim_ascii().is_empty()
        && value
            .split(|&b| b == b',')
            .all(|element| bare_word(element) || media_range_list_with(element, &readable))
}

/// Whether `value` is a list of media ranges as `Accept` headers carry them: each element a media range with
/// its parameters (`*` alone as old clients write it: `*; q=.2`), parameters alone (`*/*, q=0.01`, a comma
/// where a semicolon belongs) or nothing (a trailing comma).
pub(crate) fn is_media_range_list(value: &[u8]) -> bool {
    media_range_list_with(value, &is_parameter)
}

/// A list of media ranges ([`is_media_range_list`]) whose parameters each pass `parameter`.
fn media_range_list_with(value: &[u8], parameter: &dyn Fn(&[u8]) -> bool) -> bool {
    value.split(|&b| b == b',').all(|element| {
        let element = element.trim_ascii();
        let mut parts = split_parameters(element);
        match parts.next().map(<[u8]>::trim_ascii) {
            None | Some(b"") => element.is_empty(),
            Some(b"*") => parts.all(parameter),
            Some(first) if first.contains(&b'=') => parameter(first) && parts.all(parameter),
            Some(_) => media_type_with(element, parameter),
        }
    })
}

/// Whether the hit of 922130 (`excerpt`) on the headers of the part `variable` names is blanks, `name="` and a
/// beginning of that part's name that ends with a colon.
fn colon_in_part_name(variable: &str, excerpt: &str) -> bool {
    let (Some(part), Some(hit)) = (
        variable.strip_prefix("MULTIPART_PART_HEADERS:"),
        excerpt_bytes(excerpt),
    ) else {
        return false;
    };
    let Some(at) = memchr::memmem::find(&hit, b"name=\"") else {
        return false;
    };
    let named = &hit[at + b"name=\"".len()..];
    hit[..at].iter().all(u8::is_ascii_whitespace)
        && named.ends_with(b":")
        && part
            .as_bytes()
            .get(..named.len())
            .is_some_and(|start| start.eq_ignore_ascii_case(named))
}

/// Whether `name` holds none of the bytes 920120 refuses but apostrophes, each inside the name (neither its
/// first byte nor its last) and beside a letter (of any script).
fn has_apostrophes_only(name: &[u8]) -> bool {
    let letter = |at: Option<&u8>| at.is_some_and(|b| b.is_ascii_alphabetic() || *b >= 0x80);
    name.iter().enumerate().all(|(i, b)| match b {
        b'\'' => {
            i > 0 && i + 1 < name.len() && (letter(name.get(i - 1)) || letter(name.get(i + 1)))
        }
        b'"' | b';' | b'=' | b'\\' => false,
        _ => true,
    })
}

/// Whether the `Content-Range` value `sent` (RFC 9110's `bytes first-last/complete`, `complete` perhaps `*`, or
/// `first-last` alone as GitLab's runner sends it) names a range of exactly `body_len` bytes.
fn ranges_the_body(sent: &[u8], body_len: usize) -> bool {
    let sent = sent.trim_ascii();
    let sent = sent.strip_prefix(b"bytes ").unwrap_or(sent);
    let (range, complete) = match split_at(sent, b'/') {
        Some((range, complete)) => (range, Some(complete)),
        None => (sent, None),
    };
    let number = |digits: &[u8]| -> Option<u64> {
        (!digits.is_empty() && digits.iter().all(u8::is_ascii_digit))
            .then(|| std::str::from_utf8(digits).ok()?.parse().ok())
            .flatten()
    };
    let Some((Some(first), Some(last))) =
        split_at(range, b'-').map(|(first, last)| (number(first), number(last)))
    else {
        return false;
    };
    let complete_holds = match complete {
        None | Some(b"*") => true,
        Some(digits) => number(digits).is_some_and(|complete| last < complete),
    };
    first <= last && complete_holds && (last - first).checked_add(1) == u64::try_from(body_len).ok()
}

/// Whether the override header's value `sent` names one method (a token) that `allowed_methods` lists (none in
/// force: no rule refuses a method, so none is kept from the client).
fn overrides_to_an_allowed_method(sent: &[u8], allowed_methods: Option<&str>) -> bool {
    let method = sent.trim_ascii();
    is_token(method)
        && allowed_methods.is_none_or(|allowed| {
            allowed
                .split_ascii_whitespace()
                .any(|listed| listed.as_bytes().eq_ignore_ascii_case(method))
        })
}

/// A token of RFC 9110: the characters of a media type's names and of a parameter's plain value.
fn is_token(s: &[u8]) -> bool {
    !s.is_empty()
        && s.iter()
            .all(|&b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// A quoted string of RFC 9110, with its backslash escapes.
fn is_quoted(s: &[u8]) -> bool {
    let Some(inner) = s.strip_prefix(b"\"").and_then(|s| s.strip_suffix(b"\"")) else {
        return false;
    };
    let mut escaped = false;
    inner.iter().all(|&b| {
        let fits = escaped || (b != b'"' && (b == b'\t' || b >= 0x20) && b != 0x7f);
        escaped = !escaped && b == b'\\';
        fits
    }) && !escaped
}

/// A parameter of a media type (`charset=utf-8`, `q=0.9`, `profile="..."`), or nothing between two semicolons.
fn is_parameter(parameter: &[u8]) -> bool {
    let parameter = parameter.trim_ascii();
    parameter.is_empty()
        || split_at(parameter, b'=')
            .is_some_and(|(name, value)| is_token(name) && (is_token(value) || is_quoted(value)))
}

/// `s` split at the first `byte`, without it.
fn split_at(s: &[u8], byte: u8) -> Option<(&[u8], &[u8])> {
    let at = s.iter().position(|&b| b == byte)?;
    Some((&s[..at], &s[at + 1..]))
}

/// `value` split at the semicolons that are not inside a quoted string.
fn split_parameters(value: &[u8]) -> impl Iterator<Item = &[u8]> {
    let (mut quoted, mut escaped) = (false, false);
    value.split(move |&b| {
        match b {
            _ if escaped => escaped = false,
            b'\\' if quoted => escaped = true,
            b'"' => quoted = !quoted,
            b';' if !quoted => return true,
            _ => {}
        }
        false
    })
}

/// Whether the label (as 920420 reports it) is `json` and no media type: Bumble's and Badoo's web apps label
/// every call of their API so (`Content-Type: json`). The engine types a body by its content whatever its label,
/// so such a body that is a JSON document is read as one.
fn names_json_alone(label: &str) -> bool {
    label
        .split(';')
        .next()
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("json"))
}

/// Whether `media_type` (as 920420 reports it) ends in a [`PARSED_SUFFIXES`] suffix.
fn has_parsed_suffix(media_type: &str) -> bool {
    let media_type = media_type.split(';').next().unwrap_or_default().trim();
    PARSED_SUFFIXES.iter().any(|suffix| {
        media_type.len() > suffix.len()
            && media_type[media_type.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
    })
}

impl Profile {
    pub fn name(self) -> &'static str {
        match self {
            Profile::Web => "web",
            Profile::Api => "api",
        }
    }

    /// Weighs `verdict`'s matches as this profile sees them: a match that is no evidence here stays in the
    /// verdict, unconfirmed with the reason, and adds nothing to the anomaly score. For every profile: a body
    /// without a label ([`MISSING_LABEL_RULES`]), one labelled with a [`PARSED_SUFFIXES`] media type, a
    /// file `body` that is what its label says ([`SIGNATURES`]) or a media file's binary bytes ([`is_media_bytes`]),
    /// and a URL ending in `?` in a value of a JSON
    /// body ([`TRUNCATED_URL_RULE`]), a `Content-Encoding` the engine undid on the body (`decoded`, from
    /// [`Coding::undo`], [`RESTRICTED_HEADER_RULE`]) or one no server decodes ([`ENCRYPTED_CODING`]), `Expect: 100-continue` ([`CONTINUE_EXPECTATION`]), a JSON document as a GET's body ([`GET_BODY_RULE`]), a
    /// restricted file's name in the path of a JSON document's `PUT` or `PATCH` ([`FILE_PATH_RULES`]), an ISAPI
    /// extension called with parameters ([`PROGRAM_EXTENSION`]), a `POST`'s
    /// override to an allowed method ([`METHOD_OVERRIDE_HEADERS`]), an upload chunk's `Content-Range`
    /// ([`UPLOAD_CHUNK_METHODS`]), the parts' types of a `multipart/related` body ([`DECLARED_TYPE_RULE`]), an
    /// apostrophe inside a word of an uploaded
    /// file's name ([`MULTIPART_NAME_RULE`]), and a well-formed media type with a parameter CRS does
    /// not list ([`MEDIA_TYPE_RULE`]), an `Accept` list that asks for no charset the response rules cannot read
    /// ([`ACCEPT_RULE`]). For [`Profile::Api`] also an unlisted label
    /// ([`UNLISTED_LABEL_RULE`]), and remote file inclusion (`attack-rfi`) in a value of a JSON body: an API's
    /// documents carry URLs (avatars, callbacks, links) as data, while file inclusion is an attack on a page
    /// parameter that names a file to include.
    pub fn weigh(
        self,
        verdict: &mut Verdict,
        request: &HttpRequest<'_>,
        decoded: Option<Coding>,
        allowed_methods: Option<&str>,
    ) {
        let body = request.body;
        // Whether every header `name` of the request `holds` (is a well-formed media type, says the one value of
        // a restricted header that hides nothing).
        let every_header = |name: &str, holds: &dyn Fn(&[u8]) -> bool| {
            request
                .headers
                .iter()
                .filter(|(header, _)| header.eq_ignore_ascii_case(name))
                .all(|&(_, sent)| holds(sent))
        };
        let every_header_is = |name: &str, value: &[u8]| {
            every_header(name, &|sent| sent.trim_ascii().eq_ignore_ascii_case(value))
        };
        for m in &mut verdict.matches {
            let reason = if MISSING_LABEL_RULES.contains(&m.rule_id) {
                "a body without a label is typed by its content, which the rules read"
            } else if m.rule_id == UNLISTED_LABEL_RULE && has_parsed_suffix(&m.value_excerpt) {
                "a structured syntax suffix (RFC 6839): the body is parsed as JSON or XML, as its label says"
            } else if m.rule_id == UNLISTED_LABEL_RULE
                && names_json_alone(&m.value_excerpt)
                && is_json_document(body)
            {
                "a body labelled `json` alone that is a JSON document: parsed as JSON, as its label says"
            } else if m.rule_id == UNLISTED_LABEL_RULE && is_labelled_file(&m.value_excerpt, body) {
                "a file that is what its label says (its signature), read as binary text runs"
            } else if m.rule_id == UNLISTED_LABEL_RULE && is_media_bytes(&m.value_excerpt, body) {
                "a media file's bytes (an upload's chunk starts mid-file, without the signature), read as binary text runs"
            } else if m.rule_id == RESTRICTED_HEADER_RULE
                && decoded.is_some()
                && m.value_excerpt.eq_ignore_ascii_case("content-encoding")
            {
                "the body's coding was undone: the rules read it decoded"
            } else if m.rule_id == RESTRICTED_HEADER_RULE
                && m.value_excerpt.eq_ignore_ascii_case("content-encoding")
                && every_header_is("content-encoding", ENCRYPTED_CODING)
            {
                "an encrypted body (RFC 8188, Web Push) no server decodes: inspected as sent"
            } else if m.rule_id == RESTRICTED_HEADER_RULE
                && m.value_excerpt.eq_ignore_ascii_case("expect")
                && every_header_is("expect", CONTINUE_EXPECTATION)
            {
                "`Expect: 100-continue` is answered by the proxy and not forwarded"
            } else if m.rule_id == RESTRICTED_HEADER_RULE
                && request.method == "POST"
                && METHOD_OVERRIDE_HEADERS
                    .iter()
                    .any(|name| m.value_excerpt.eq_ignore_ascii_case(name))
                && every_header(&m.value_excerpt, &|sent| {
                    overrides_to_an_allowed_method(sent, allowed_methods)
                })
            {
                "a method override to a method the policy allows, on a POST"
            } else if m.rule_id == RESTRICTED_HEADER_RULE
                && m.value_excerpt.eq_ignore_ascii_case("content-range")
                && UPLOAD_CHUNK_METHODS
                    .iter()
                    .any(|method| request.method.eq_ignore_ascii_case(method))
                && every_header("content-range", &|sent| ranges_the_body(sent, body.len()))
            {
                "a chunk of a resumable upload: its `Content-Range` names exactly the body's bytes"
            } else if m.rule_id == MULTIPART_NAME_RULE
                && m.variable.starts_with("FILES:")
                && excerpt_bytes(&m.value_excerpt).is_some_and(|name| has_apostrophes_only(&name))
            {
                "a file's name with an apostrophe beside a letter inside it, which starts no parameter"
            } else if m.rule_id == MULTIPART_HEADER_RULE
                && colon_in_part_name(&m.variable, &m.value_excerpt)
            {
                "a colon inside the part's name (`name=\"form:field\"`), not a header name's end"
            } else if m.rule_id == GET_BODY_RULE && is_json_document(body) {
                "a JSON document as a GET's body (a search API's query) carries no second request"
            } else if FILE_PATH_RULES.contains(&m.rule_id)
                && m.variable.starts_with("REQUEST_")
                && WRITE_METHODS
                    .iter()
                    .any(|method| request.method.eq_ignore_ascii_case(method))
                && is_json_document(body)
            {
                "a JSON document written by PUT or PATCH: the path names an API's resource, not a file served"
            } else if m.rule_id == RESTRICTED_EXTENSION_RULE
                && m.value_excerpt.eq_ignore_ascii_case(PROGRAM_EXTENSION)
                && (request.uri.contains('?') || !body.is_empty())
            {
                "an ISAPI extension called with parameters: the server runs it and serves no file"
            } else if m.rule_id == DECLARED_TYPE_RULE
                && every_header("content-type", &names_related_parts_only)
            {
                "the types of a multipart/related body's parts in its `type` and `start-info` parameters"
            } else if m.rule_id == MEDIA_TYPE_RULE
                && every_header("content-type", &is_well_formed_media_type)
            {
                "a well-formed media type (RFC 9110): a parameter CRS does not list is no attack"
            } else if m.rule_id == ACCEPT_RULE && every_header("accept", &asks_for_no_charset) {
                "an `Accept` list that asks for no charset: the answer is in the server's own"
            } else if m.rule_id == TRUNCATED_URL_RULE && m.variable.starts_with("ARGS_POST:json.") {
                "a URL in a JSON document is data: a trailing `?` truncates no file name there"
            } else if self == Profile::Web {
                continue;
            } else if m.rule_id == UNLISTED_LABEL_RULE {
                "the api profile: a body's label is not judged, its content is"
            } else if m.tags.iter().any(|tag| tag == "attack-rfi")
                && m.variable.starts_with("ARGS_POST:json.")
            {
                "the api profile: a URL in a JSON document is data"
            } else {
                continue;
            };
            m.confirmation = Some(Confirmation {
                confirmed: false,
                reason: reason.to_owned(),
            });
        }
    }
}

impl std::str::FromStr for Profile {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name {
            "web" => Ok(Profile::Web),
            "api" => Ok(Profile::Api),
            other => Err(format!("unknown profile {other:?}: expected web or api")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structured_suffixes_are_parsed_types() {
        assert!(has_parsed_suffix("application/scim+json"));
        assert!(has_parsed_suffix("application/atom+XML; charset=utf-8"));
        assert!(!has_parsed_suffix("application/vnd.ms-sync.wbxml"));
        assert!(!has_parsed_suffix("+json"));
        assert!(names_json_alone("json"));
        assert!(names_json_alone("JSON; charset=utf-8"));
        assert!(!names_json_alone("application/x-json-stream"));
        assert!(!names_json_alone("jsonp"));
    }

    #[test]
    fn media_types_are_judged_by_their_grammar() {
        for good in [
            "application/json;odata.metadata=minimal;odata.streaming=true",
            "application/vnd.elasticsearch+x-ndjson; compatible-with=8",
            "application/x-protobuf; messageType=\"shop.v2.Order\"",
            "multipart/form-data; boundary=----WebKitFormBoundary12345",
            "text/plain;charset=UTF-8;",
            "application/ld+json; profile=\"https://www.w3.org/ns/activitystreams; a=b\"",
        ] {
            assert!(is_well_formed_media_type(good.as_bytes()), "{good}");
        }
        for bad in [
            "%{(#nike='multipart/form-data').(#dm=@ognl",
            "text/plain; charset=\"UTF-8\"; garbage",
            "text/xml; blah",
            "multipart/form-data; boundary=  test_data_123456",
            "text/plain; charset=\"open",
            "text",
            "text/plain; a=b c",
        ] {
            assert!(!is_well_formed_media_type(bad.as_bytes()), "{bad}");
        }
    }

    #[test]
    fn an_accept_list_that_names_no_charset_asks_for_none() {
        for good in [
            "application/json, text/javascript, */*, q=0.01",
            "text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2",
            "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8,",
            r#"application/json; charset=utf-8; profile="https://www.mediawiki.org/wiki/Specs/Summary/1.2.0""#,
            "json",
            "json, text/plain",
        ] {
            assert!(asks_for_no_charset(good.as_bytes()), "{good}");
        }
        for bad in [
            "text/html;charset=utf-7",
            "*/*, charset=utf-16",
            "text/html; charset=utf-8x",
            "../../../../etc/passwd{{",
            "Accept: application/vnd.github.valkyrie+json",
            "text/html, (x)",
            "",
            "json;charset=utf-7",
            "a|id",
        ] {
            assert!(!asks_for_no_charset(bad.as_bytes()), "{bad}");
        }
    }

    #[test]
    fn a_json_document_is_no_smuggled_request() {
        assert!(is_json_document(
            br#" {"query":{"match_all":{}},"size":10} "#
        ));
        assert!(is_json_document(b"[]"));
        assert!(!is_json_document(
            b"GET /admin HTTP/1.1\r\nHost: internal\r\n\r\n"
        ));
        assert!(!is_json_document(b"{\"open\":"));
    }

    /// Whether the web profile weighs a match of `rule_id` at `variable` on `value` as no evidence in `request`.
    fn weighed_out(rule_id: u32, variable: &str, value: &str, request: &HttpRequest<'_>) -> bool {
        let mut verdict = Verdict {
            matches: vec![crate::evaluate::verdict::RuleMatch {
                rule_id,
                variable: variable.to_owned(),
                value_excerpt: value.to_owned(),
                msg: String::new(),
                severity: None,
                action: crate::rule::Action::Block,
                paranoia_level: 1,
                tags: Vec::new(),
                confirmation: None,
            }],
            ..Default::default()
        };
        Profile::Web.weigh(&mut verdict, request, None, Some(ALLOWED_METHODS));
        verdict.matches[0].confirmation.is_some()
    }

    #[test]
    fn a_resource_written_by_put_is_no_file_served() {
        let weighed = |method: &str, body: &[u8], variable: &str| {
            let request = HttpRequest {
                method,
                uri: "/repos/o/r/contents/deploy/nginx.conf",
                version: "HTTP/1.1",
                headers: &[],
                body,
            };
            weighed_out(930130, variable, "nginx.conf", &request)
        };
        let document = br#"{"message":"deploy","content":"c2VydmVyIHt9"}"#;
        assert!(weighed("PUT", document, "REQUEST_FILENAME"));
        assert!(weighed("PATCH", document, "REQUEST_FILENAME"));
        assert!(!weighed("GET", b"", "REQUEST_FILENAME"));
        assert!(!weighed("POST", document, "REQUEST_FILENAME"));
        assert!(!weighed(
            "PUT",
            b"server { listen 80; }",
            "REQUEST_FILENAME"
        ));
        assert!(!weighed("PUT", document, "ARGS_POST:json.path"));
    }

    #[test]
    fn an_isapi_extension_called_with_parameters_serves_no_file() {
        let weighed = |method: &str, uri: &str, body: &[u8], extension: &str| {
            let request = HttpRequest {
                method,
                uri,
                version: "HTTP/1.1",
                headers: &[],
                body,
            };
            weighed_out(920440, "REQUEST_BASENAME", extension, &request)
        };
        assert!(weighed(
            "GET",
            "/illiad/illiad.dll?Action=10&Form=30",
            b"",
            ".dll"
        ));
        assert!(weighed(
            "POST",
            "/illiad/illiad.dll",
            b"ILLiadForm=Login&Username=a",
            ".dll"
        ));
        assert!(!weighed("GET", "/bin/Newtonsoft.Json.dll", b"", ".dll"));
        assert!(!weighed("GET", "/backup/site.bak?download=1", b"", ".bak"));
    }

    #[test]
    fn a_colon_inside_a_parts_name_is_no_header_name() {
        assert!(colon_in_part_name(
            "MULTIPART_PART_HEADERS:q578254:1_:sequencecheck",
            " name=\\x22q578254:"
        ));
        assert!(colon_in_part_name(
            "MULTIPART_PART_HEADERS:loginForm:username",
            " name=\\x22loginform:"
        ));
        // A header name with a control character, a name the hit does not begin.
        assert!(!colon_in_part_name(
            "MULTIPART_PART_HEADERS:file",
            "\\x0econtent-disposition:"
        ));
        assert!(!colon_in_part_name(
            "MULTIPART_PART_HEADERS:other",
            " name=\\x22q578254:"
        ));
        assert!(!colon_in_part_name(
            "MULTIPART_PART_HEADERS:file",
            " filename=\\x22c:"
        ));
    }

    #[test]
    fn an_apostrophe_inside_a_file_name_is_no_evidence() {
        let request = HttpRequest {
            method: "POST",
            uri: "/upload",
            version: "HTTP/1.1",
            headers: &[],
            body: b"",
        };
        let weighed = |variable: &str, name: &[u8]| {
            weighed_out(
                MULTIPART_NAME_RULE,
                variable,
                &crate::evaluate::verdict::excerpt(name),
                &request,
            )
        };
        assert!(weighed("FILES:cv", b"Giovanni Dell'Acqua CV 2024.pdf"));
        assert!(weighed("FILES:doc", "Relevé d'identité.pdf".as_bytes()));
        assert!(!weighed("FILES:cv", b"x.jpg'; filename='x.php"));
        assert!(weighed("FILES:cv", b"CV-van 't Hof.docx"));
        assert!(weighed("FILES:essays", b"Students' essays.zip"));
        assert!(!weighed("FILES:cv", b"'shell.php"));
        assert!(!weighed("FILES:cv", b"shell.php'"));
        assert!(!weighed("FILES:cv", b"x.jpg ' .php"));
        assert!(!weighed("FILES_NAMES:cv", b"Dell'Acqua"));
    }

    #[test]
    fn a_method_override_to_an_allowed_method_is_no_evidence() {
        let weighed = |method: &str, name: &str, value: &[u8]| {
            let headers = [(name, value)];
            let request = HttpRequest {
                method,
                uri: "/wp-json/wp/v2/posts/42",
                version: "HTTP/1.1",
                headers: &headers,
                body: b"{}",
            };
            weighed_out(
                RESTRICTED_HEADER_RULE,
                "REQUEST_HEADERS_NAMES:X-HTTP-Method-Override",
                &name.to_ascii_lowercase(),
                &request,
            )
        };
        assert!(weighed("POST", "X-HTTP-Method-Override", b"PUT"));
        assert!(weighed("POST", "X-HTTP-Method", b"DELETE"));
        // A method the policy refuses, an override on a GET, a value that is no method.
        assert!(!weighed("POST", "X-HTTP-Method-Override", b"TRACE"));
        assert!(!weighed("GET", "X-HTTP-Method-Override", b"DELETE"));
        assert!(!weighed("POST", "X-HTTP-Method-Override", b"PUT, TRACE"));
    }

    #[test]
    fn a_related_body_names_its_parts_types() {
        assert!(names_related_parts_only(
            br#"multipart/related; type="application/xop+xml"; boundary="urn:uuid:4f94"; start="<53df>"; start-info="text/xml""#
        ));
        assert!(names_related_parts_only(
            br#"multipart/related; type="application/json"; boundary=x"#
        ));
        // Another type hidden in another parameter, another media type, a malformed value.
        assert!(!names_related_parts_only(
            b"multipart/related; boundary=x; charset=application/json"
        ));
        assert!(!names_related_parts_only(
            b"text/plain; type=application/json"
        ));
        assert!(!names_related_parts_only(
            b"multipart/related; type=application/json; x"
        ));
    }

    #[test]
    fn an_upload_chunk_names_its_own_bytes() {
        let weighed = |method: &str, range: &[u8], body: &[u8]| {
            let headers = [("Content-Range", range)];
            let request = HttpRequest {
                method,
                uri: "/api/v4/jobs/5884267/trace",
                version: "HTTP/1.1",
                headers: &headers,
                body,
            };
            weighed_out(
                RESTRICTED_HEADER_RULE,
                "REQUEST_HEADERS_NAMES:Content-Range",
                "content-range",
                &request,
            )
        };
        assert!(weighed("PATCH", b"0-4", b"hello"));
        assert!(weighed("PUT", b"bytes 10-14/15", b"hello"));
        assert!(weighed("PUT", b"bytes 0-4/*", b"hello"));
        // A range that is not the body's, past the whole, on a GET, or no range at all.
        assert!(!weighed("PUT", b"bytes 0-99/100", b"hello"));
        assert!(!weighed("PUT", b"bytes 0-4/4", b"hello"));
        assert!(!weighed("GET", b"0-4", b"hello"));
        assert!(!weighed("PUT", b"bytes */100", b""));
        assert!(!weighed("PUT", b"bytes 4-0", b"hello"));
        assert!(!weighed("PUT", b"bytes 0-18446744073709551615", b"hello"));
    }

    #[test]
    fn an_encrypted_push_message_is_inspected_as_sent() {
        let weighed = |coding: &[u8]| {
            let headers = [("Content-Encoding", coding)];
            let request = HttpRequest {
                method: "POST",
                uri: "/push/e495bc27",
                version: "HTTP/1.1",
                headers: &headers,
                body: b"\x8a\x01\xff",
            };
            weighed_out(
                RESTRICTED_HEADER_RULE,
                "REQUEST_HEADERS_NAMES:Content-Encoding",
                "content-encoding",
                &request,
            )
        };
        assert!(weighed(b"aes128gcm"));
        assert!(!weighed(b"x-custom"));
        assert!(!weighed(b"aes128gcm, gzip"));
    }

    #[test]
    fn files_are_what_their_signature_says() {
        assert!(is_labelled_file("application/pdf", b"%PDF-1.7\n..."));
        assert!(is_labelled_file("video/mp4", b"\0\0\0\x18ftypmp42"));
        assert!(is_media_bytes("video/mp4", b"Y\xdb\x86\xd5\x11<\xb4U\xdf("));
        assert!(is_media_bytes("audio/mpeg; x=1", b"\0\x01\x02id3"));
        assert!(!is_media_bytes("video/mp4", b"q=' union select 1 --"));
        assert!(!is_media_bytes("image/svg+xml", b"\0<svg onload=alert(1)>"));
        assert!(!is_media_bytes("application/x-thing", b"\0\xff"));
        assert!(is_labelled_file(
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            b"PK\x03\x04..."
        ));
        assert!(!is_labelled_file(
            "application/pdf",
            b"<?php system($_GET['c']);"
        ));
        assert!(!is_labelled_file("application/x-msdownload", b"MZ\x90\0"));
        assert!(is_labelled_file("audio/wav", b"RIFF\x24\x08\0\0WAVEfmt "));
        assert!(is_labelled_file(
            "video/webm",
            b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81"
        ));
        assert!(!is_labelled_file(
            "video/webm",
            b"<script>alert(1)</script>"
        ));
    }
}
