//! The variables of one request, each parsed on first use and then kept for the rest of the evaluation.
//!
//! A request that no rule inspects by cookie never has its cookies parsed; a body is parsed once however many
//! rules read `ARGS_POST`, `ARGS_POST_NAMES` or `XML`. Values borrow from the request wherever the bytes are
//! already there; what is derived (header lines, decoded arguments, JSON leaves...) and the lists of values are
//! written into an arena that the evaluation resets after the request, so no variable costs a heap allocation.

use crate::request::base64_text;
use crate::request::body::{
    BodyKind, Item, ParsedBody, parse_body, parse_cookies, parse_urlencoded,
};
use crate::request::{HttpRequest, HttpResponse};
use crate::rule::{Phase, Variable};
use bumpalo::Bump;
use bumpalo::collections::Vec as ArenaVec;
use std::cell::OnceCell;

/// A request's variables, lazily computed into `arena`.
pub struct RequestView<'a> {
    request: HttpRequest<'a>,
    /// The upstream's answer, when the view is of the response phase: then only the response's variables have
    /// values (the request's were inspected in its own phase), and without it only the request's do.
    response: Option<HttpResponse<'a>>,
    arena: &'a Bump,
    path: &'a str,
    query: &'a str,
    cells: [OnceCell<&'a [Item<'a>]>; Variable::COUNT],
    body: OnceCell<ParsedBody<'a>>,
}

/// The values of one variable: items of a collection, either their values or (for `*_NAMES`) their names.
#[derive(Clone, Copy)]
pub struct Values<'a> {
    items: &'a [Item<'a>],
    names_only: bool,
}

impl<'a> Values<'a> {
    /// `(index, key, value)` of each value; the index identifies the value within its variable for the
    /// lifetime of the view (the scratch keeps transformed values by it). Nameless raw-fallback items are not names.
    pub fn iter(&self) -> impl Iterator<Item = (usize, &'a [u8], &'a [u8])> + use<'a> {
        let names_only = self.names_only;
        self.items
            .iter()
            .enumerate()
            .filter(move |(_, item)| !names_only || (!item.name.is_empty() && !item.decoded))
            .map(move |(i, item)| {
                let value = if names_only { item.name } else { item.value };
                (i, item.name, value)
            })
    }

    /// How many values whose key `accepts` holds, as a rule counts them (`&ARGS`): those [`Values::iter`] yields,
    /// less the texts decoded from others, which are not values the request sent.
    pub fn count(&self, accepts: impl Fn(&[u8]) -> bool) -> usize {
        self.iter()
            .filter(|&(index, key, _)| !self.items[index].decoded && accepts(key))
            .count()
    }

    /// The value of the first item named `name` that the request sent (not a text decoded from another).
    pub fn value_of(&self, name: &[u8]) -> Option<&'a [u8]> {
        self.items
            .iter()
            .find(|item| !item.decoded && item.name == name)
            .map(|item| item.value)
    }

    /// How many indexes [`Values::iter`] may number (names-only values skip the nameless ones).
    pub fn slots(&self) -> usize {
        self.items.len()
    }

    /// The value at `index` (as [`Values::iter`] numbers them).
    pub fn get(&self, index: usize) -> Option<&'a [u8]> {
        let item = self.items.get(index)?;
        match self.names_only {
            true if item.name.is_empty() || item.decoded => None,
            true => Some(item.name),
            false => Some(item.value),
        }
    }
}

impl<'a> RequestView<'a> {
    /// The view of `request`, whose derived values go into `arena`.
    pub fn new(request: &HttpRequest<'a>, arena: &'a Bump) -> Self {
        let uri = request.uri;
        let (path, query) = uri.split_once('?').unwrap_or((uri, ""));
        RequestView {
            request: *request,
            response: None,
            arena,
            path,
            query,
            cells: std::array::from_fn(|_| OnceCell::new()),
            body: OnceCell::new(),
        }
    }

    /// The view of the response phase: `response`'s variables, for the request `request`.
    pub fn of_response(
        request: &HttpRequest<'a>,
        response: &HttpResponse<'a>,
        arena: &'a Bump,
    ) -> Self {
        RequestView {
            response: Some(*response),
            ..RequestView::new(request, arena)
        }
    }

    /// The phase whose variables have values: [`Phase::Response`] for a view of a response.
    pub fn phase(&self) -> Phase {
        match self.response {
            Some(_) => Phase::Response,
            None => Phase::Request,
        }
    }

    /// The request's method, as received.
    pub fn method(&self) -> &'a str {
        self.request.method
    }

    /// The request's target, as received (`/path?query`).
    pub fn target(&self) -> &'a str {
        self.request.uri
    }

    /// The request's headers, as received.
    pub fn headers(&self) -> &'a [(&'a str, &'a [u8])] {
        self.request.headers
    }

    /// The host the request is for: the first `Host` header without its port or a final dot (`None` when there is
    /// none). Rules scoped to `hosts` compare it case-insensitively.
    pub fn host(&self) -> Option<&'a [u8]> {
        let value = self.header("host").next()?.trim_ascii();
        let name = match value.first() {
            // An IPv6 literal keeps its brackets; its port follows them.
            Some(b'[') => value
                .iter()
                .position(|&b| b == b']')
                .map_or(value, |end| &value[..=end]),
            _ => value.split(|&b| b == b':').next().unwrap_or(value),
        };
        Some(name.strip_suffix(b".").unwrap_or(name))
    }

    /// The values of `variable`.
    pub fn values(&self, variable: Variable) -> Values<'a> {
        use Variable::*;
        if variable.phase() != self.phase() {
            return Values {
                items: &[],
                names_only: false,
            };
        }
        let (items, names_only): (&'a [Item<'a>], bool) = match variable {
            ArgsPost => (self.parsed_body().args, false),
            ArgsPostNames => (self.parsed_body().args, true),
            Xml => (self.parsed_body().xml, false),
            Files => (self.parsed_body().files, false),
            MultipartPartHeaders => (self.parsed_body().part_headers, false),
            FilesNames => (self.parsed_body().files, true),
            ArgsNames | ArgsGetNames => (self.cell(ArgsGet), true),
            CookieNames | RequestCookiesNames => (self.cell(RequestCookies), true),
            RequestHeadersNames => (self.cell(RequestHeaders), true),
            ResponseHeadersNames => (self.cell(ResponseHeaders), true),
            other => (self.cell(other), false),
        };
        Values { items, names_only }
    }

    fn parsed_body(&self) -> ParsedBody<'a> {
        *self.body.get_or_init(|| {
            let content_type = self.header("content-type").next();
            let mut parsed = parse_body(self.arena, self.request.body, content_type);
            parsed.args = base64_text::with_decoded(self.arena, parsed.args);
            parsed
        })
    }

    /// Values of the headers named `name` (case-insensitive), in order.
    fn header<'s>(&'s self, name: &'s str) -> impl Iterator<Item = &'a [u8]> + 's {
        self.request
            .headers
            .iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| *v)
    }

    fn cell(&self, variable: Variable) -> &'a [Item<'a>] {
        self.cells[variable.index()].get_or_init(|| self.compute(variable))
    }

    fn single(&self, value: &'a [u8]) -> &'a [Item<'a>] {
        std::slice::from_ref(self.arena.alloc(Item::raw(value)))
    }

    /// `parts` concatenated in the arena.
    fn joined(&self, parts: &[&[u8]]) -> &'a [u8] {
        let mut out = ArenaVec::new_in(self.arena);
        out.extend_from_slices_copy(parts);
        out.into_bump_slice()
    }

    /// A request variable's values, by where they come from: the request line, the headers, the body; a
    /// response variable's from the response.
    fn compute(&self, variable: Variable) -> &'a [Item<'a>] {
        use Variable::*;
        match variable {
            RequestLine | RequestFilename | RequestBasename | RequestMethod | RequestProtocol
            | RequestUri | QueryString | Args | ArgsGet => self.line_values(variable),
            Headers | RequestHeaders | Cookie | RequestCookies => self.header_values(variable),
            Body | RequestBody | RequestBodyLength | ReqbodyProcessor | ArgsCombinedSize => {
                self.body_values(variable)
            }
            ResponseStatus
            | ResponseProtocol
            | ResponseHeaders
            | ResponseBody
            | ResponseContentType
            | ResponseContentLength => self.response_values(variable),
            // Served by `values` from other collections; never stored under their own index.
            ArgsNames | CookieNames | ArgsGetNames | ArgsPost | ArgsPostNames
            | RequestCookiesNames | RequestHeadersNames | ResponseHeadersNames | Xml | Files
            | FilesNames | MultipartPartHeaders => &[],
        }
    }

    /// The values of a variable of the request line: the line, its parts, the query's arguments.
    fn line_values(&self, variable: Variable) -> &'a [Item<'a>] {
        use Variable::*;
        let r = &self.request;
        match variable {
            RequestLine => {
                let line = match r.version.is_empty() {
                    true => self.joined(&[r.method.as_bytes(), b" ", r.uri.as_bytes()]),
                    false => self.joined(&[
                        r.method.as_bytes(),
                        b" ",
                        r.uri.as_bytes(),
                        b" ",
                        r.version.as_bytes(),
                    ]),
                };
                self.single(line)
            }
            RequestFilename => self.single(self.path.as_bytes()),
            RequestBasename => {
                let base = self.path.rsplit('/').next().unwrap_or(self.path);
                self.single(base.as_bytes())
            }
            RequestMethod => self.single(r.method.as_bytes()),
            RequestProtocol => self.single(r.version.as_bytes()),
            RequestUri => self.single(r.uri.as_bytes()),
            QueryString => self.single(self.query.as_bytes()),
            Args => self.arena.alloc_slice_fill_iter(
                self.cell(ArgsGet)
                    .iter()
                    .map(|item| Item::new(item.name, self.joined(&[item.name, b"=", item.value]))),
            ),
            ArgsGet => base64_text::with_decoded(
                self.arena,
                parse_urlencoded(self.arena, self.query.as_bytes(), b'&'),
            ),
            _ => &[],
        }
    }

    /// The values of a variable of the request's headers (cookies included).
    fn header_values(&self, variable: Variable) -> &'a [Item<'a>] {
        use Variable::*;
        let (r, arena) = (&self.request, self.arena);
        match variable {
            Headers => arena.alloc_slice_fill_iter(r.headers.iter().map(|(name, value)| {
                let name = name.as_bytes();
                Item::new(name, self.joined(&[name, b": ", value]))
            })),
            RequestHeaders => arena.alloc_slice_fill_iter(
                r.headers
                    .iter()
                    .map(|(name, value)| Item::new(name.as_bytes(), value)),
            ),
            Cookie => ArenaVec::from_iter_in(
                self.header("cookie").map(|v| Item::new(b"Cookie", v)),
                arena,
            )
            .into_bump_slice(),
            RequestCookies => {
                let mut items = ArenaVec::new_in(arena);
                for header in self.header("cookie") {
                    parse_cookies(header, &mut items);
                }
                base64_text::with_decoded(arena, items.into_bump_slice())
            }
            _ => &[],
        }
    }

    /// The values of a variable of the request's body as a whole (its parsed parts are served by `values`).
    fn body_values(&self, variable: Variable) -> &'a [Item<'a>] {
        use Variable::*;
        let (r, arena) = (&self.request, self.arena);
        match variable {
            Body => self.single(r.body),
            RequestBody => match BodyKind::from_content_type(self.header("content-type").next()) {
                BodyKind::UrlEncoded | BodyKind::Json | BodyKind::Related | BodyKind::Other => {
                    self.single(r.body)
                }
                BodyKind::Xml | BodyKind::Multipart => &[],
            },
            RequestBodyLength => {
                let length = r.body.len().to_string();
                self.single(arena.alloc_str(&length).as_bytes())
            }
            ReqbodyProcessor => {
                match BodyKind::from_content_type(self.header("content-type").next()) {
                    BodyKind::UrlEncoded => self.single(b"URLENCODED"),
                    BodyKind::Multipart => self.single(b"MULTIPART"),
                    BodyKind::Xml => self.single(b"XML"),
                    BodyKind::Json => self.single(b"JSON"),
                    BodyKind::Related | BodyKind::Other => &[],
                }
            }
            ArgsCombinedSize => {
                let size: usize = [self.cell(ArgsGet), self.parsed_body().args]
                    .iter()
                    .flat_map(|items| items.iter())
                    .filter(|item| !item.decoded)
                    .map(|item| item.name.len() + item.value.len())
                    .sum();
                self.single(arena.alloc_str(&size.to_string()).as_bytes())
            }
            _ => &[],
        }
    }
}

impl<'a> RequestView<'a> {
    /// The values of a response variable (none in a view of the request).
    fn response_values(&self, variable: Variable) -> &'a [Item<'a>] {
        use Variable::*;
        let Some(response) = self.response else {
            return &[];
        };
        let arena = self.arena;
        let header = |wanted: &str| {
            response
                .headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(wanted))
                .map(|(_, v)| *v)
        };
        match variable {
            ResponseStatus => {
                let status = arena.alloc_str(&response.status.to_string());
                self.single(status.as_bytes())
            }
            ResponseProtocol => self.single(response.version.as_bytes()),
            ResponseHeaders => arena.alloc_slice_fill_iter(
                response
                    .headers
                    .iter()
                    .map(|(name, value)| Item::new(name.as_bytes(), value)),
            ),
            ResponseBody => response.body.map_or(&[], |body| self.single(body)),
            ResponseContentType => header("content-type").map_or(&[], |v| self.single(v)),
            ResponseContentLength => header("content-length").map_or(&[], |v| self.single(v)),
            _ => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(view: &RequestView<'_>, v: Variable) -> Vec<(String, String)> {
        view.values(v)
            .iter()
            .map(|(_, k, v)| {
                (
                    String::from_utf8_lossy(k).into_owned(),
                    String::from_utf8_lossy(v).into_owned(),
                )
            })
            .collect()
    }

    fn values(view: &RequestView<'_>, v: Variable) -> Vec<String> {
        collect(view, v).into_iter().map(|(_, v)| v).collect()
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    fn with_request<R>(
        method: &str,
        uri: &str,
        headers: &[(&str, &[u8])],
        body: &[u8],
        f: impl FnOnce(&RequestView<'_>) -> R,
    ) -> R {
        let request = HttpRequest {
            method,
            uri,
            version: "HTTP/1.1",
            headers,
            body,
        };
        f(&RequestView::new(&request, &Bump::new()))
    }

    #[test]
    fn base64_texts_are_values_but_not_names_or_arguments() {
        let cookie: &[u8] = b"pref=eyJ0aGVtZSI6ImRhcmsifQ";
        with_request(
            "GET",
            "/?f=Li4vLi4vZXRjL3Bhc3N3ZA%3D%3D&q=shoes",
            &[("Cookie", cookie)],
            b"",
            |view| {
                assert_eq!(
                    values(view, Variable::ArgsGet),
                    ["Li4vLi4vZXRjL3Bhc3N3ZA==", "shoes", "../../etc/passwd"]
                );
                assert_eq!(values(view, Variable::ArgsGetNames), ["f", "q"]);
                assert_eq!(view.values(Variable::ArgsGet).count(|_| true), 2);
                assert_eq!(
                    collect(view, Variable::RequestCookies),
                    pairs(&[("pref", "eyJ0aGVtZSI6ImRhcmsifQ"), ("pref", "dark")])
                );
            },
        );
    }

    #[test]
    fn the_nine_specified_variables() {
        let headers: &[(&str, &[u8])] = &[
            ("Host", b"example.com"),
            ("Cookie", b"sid=abc; theme=dark"),
            ("User-Agent", b"curl/8"),
        ];
        with_request(
            "GET",
            "/shop/item.php?id=1%27&q=a+b&flag",
            headers,
            b"",
            |v| {
                use Variable::*;
                assert_eq!(
                    values(v, RequestLine),
                    ["GET /shop/item.php?id=1%27&q=a+b&flag HTTP/1.1"]
                );
                assert_eq!(values(v, RequestFilename), ["/shop/item.php"]);
                assert_eq!(values(v, RequestBasename), ["item.php"]);
                assert_eq!(values(v, Args), ["id=1'", "q=a b", "flag="]);
                assert_eq!(values(v, ArgsNames), ["id", "q", "flag"]);
                assert_eq!(
                    values(v, Headers),
                    [
                        "Host: example.com",
                        "Cookie: sid=abc; theme=dark",
                        "User-Agent: curl/8"
                    ]
                );
                assert_eq!(values(v, Body), [""]);
                assert_eq!(values(v, Cookie), ["sid=abc; theme=dark"]);
                assert_eq!(values(v, CookieNames), ["sid", "theme"]);
            },
        );
    }

    #[test]
    fn modsecurity_collections() {
        let headers: &[(&str, &[u8])] = &[
            ("Cookie", b"a=1;b"),
            ("Cookie", b" c=x=y"),
            ("Content-Type", b"application/x-www-form-urlencoded"),
        ];
        with_request(
            "POST",
            "/p?x=1&y=%3Cb%3E",
            headers,
            b"user=bob&pw=%27or",
            |v| {
                use Variable::*;
                assert_eq!(collect(v, ArgsGet), pairs(&[("x", "1"), ("y", "<b>")]));
                assert_eq!(values(v, ArgsGetNames), ["x", "y"]);
                assert_eq!(
                    collect(v, ArgsPost),
                    pairs(&[("user", "bob"), ("pw", "'or")])
                );
                assert_eq!(values(v, ArgsPostNames), ["user", "pw"]);
                assert_eq!(
                    collect(v, RequestCookies),
                    pairs(&[("a", "1"), ("b", ""), ("c", "x=y")])
                );
                assert_eq!(values(v, RequestCookiesNames), ["a", "b", "c"]);
                assert_eq!(values(v, Cookie), ["a=1;b", " c=x=y"]);
                assert_eq!(
                    values(v, RequestHeadersNames),
                    ["Cookie", "Cookie", "Content-Type"]
                );
                assert_eq!(
                    collect(v, RequestHeaders)[2],
                    (
                        "Content-Type".into(),
                        "application/x-www-form-urlencoded".into()
                    )
                );
                assert_eq!(values(v, RequestMethod), ["POST"]);
                assert_eq!(values(v, RequestProtocol), ["HTTP/1.1"]);
                assert_eq!(values(v, RequestUri), ["/p?x=1&y=%3Cb%3E"]);
                assert_eq!(values(v, QueryString), ["x=1&y=%3Cb%3E"]);
                assert!(values(v, Xml).is_empty());
            },
        );
    }

    #[test]
    fn json_body_leaves_with_dotted_names() {
        let headers: &[(&str, &[u8])] = &[("content-type", b"application/json; charset=utf-8")];
        let body = br#"{"user":{"name":"x' or 1=1","ids":[1,true,null]},"k\"":"v"}"#;
        with_request("POST", "/", headers, body, |v| {
            let mut got = collect(v, Variable::ArgsPost);
            got.sort();
            assert_eq!(
                got,
                pairs(&[
                    ("json.k\"", "v"),
                    ("json.user.ids.0", "1"),
                    ("json.user.ids.1", "true"),
                    ("json.user.ids.2", ""),
                    ("json.user.name", "x' or 1=1"),
                ])
            );
        });
    }

    #[test]
    fn json_repeated_keys_are_each_inspected_and_numbers_keep_their_json_text() {
        let headers: &[(&str, &[u8])] = &[("content-type", b"application/json")];
        // An application may read the first `id` or the last: both are inspected.
        let body = br#"{"id":"1","id":"1' or 1=1","n":[1e100,89.5,-3,0.1]}"#;
        with_request("POST", "/", headers, body, |v| {
            assert_eq!(
                collect(v, Variable::ArgsPost),
                pairs(&[
                    ("json.id", "1"),
                    ("json.id", "1' or 1=1"),
                    ("json.n.0", "1e+100"),
                    ("json.n.1", "89.5"),
                    ("json.n.2", "-3"),
                    ("json.n.3", "0.1"),
                ])
            );
        });
        // Invalid JSON, even after valid leaves: the raw body only.
        with_request("POST", "/", headers, br#"{"a":"x","b":"#, |v| {
            assert_eq!(values(v, Variable::ArgsPost), [r#"{"a":"x","b":"#]);
        });
    }

    #[test]
    fn multipart_fields_not_files() {
        let headers: &[(&str, &[u8])] = &[("Content-Type", b"multipart/form-data; boundary=XyZ")];
        let body = b"--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1' or 1=1\r\n--XyZ\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x.txt\"\r\nContent-Type: text/plain\r\n\r\nfile body\r\n--XyZ--\r\n";
        with_request("POST", "/", headers, body, |v| {
            assert_eq!(collect(v, Variable::ArgsPost), pairs(&[("a", "1' or 1=1")]));
        });
    }

    #[test]
    fn multipart_part_headers_body_length_and_processor() {
        let headers: &[(&str, &[u8])] = &[("Content-Type", b"multipart/form-data; boundary=XyZ")];
        let body = b"--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\nContent-Type: text/plain; charset=utf-7\r\n\r\n1\r\n--XyZ\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x.txt\"\r\n\r\nfile body\r\n--XyZ--\r\n";
        with_request("POST", "/?q=ab", headers, body, |v| {
            assert_eq!(
                collect(v, Variable::MultipartPartHeaders),
                pairs(&[
                    ("a", "Content-Disposition: form-data; name=\"a\""),
                    ("a", "Content-Type: text/plain; charset=utf-7"),
                    (
                        "f",
                        "Content-Disposition: form-data; name=\"f\"; filename=\"x.txt\""
                    ),
                ])
            );
            assert_eq!(
                values(v, Variable::RequestBodyLength),
                [body.len().to_string()]
            );
            assert_eq!(values(v, Variable::ReqbodyProcessor), ["MULTIPART"]);
            // q=ab (3) and a=1 (2).
            assert_eq!(values(v, Variable::ArgsCombinedSize), ["5"]);
        });
        with_request("GET", "/", &[], b"", |v| {
            assert_eq!(values(v, Variable::RequestBodyLength), ["0"]);
            assert!(values(v, Variable::ReqbodyProcessor).is_empty());
            assert!(values(v, Variable::MultipartPartHeaders).is_empty());
        });
    }

    #[test]
    fn xml_text_and_attributes() {
        let headers: &[(&str, &[u8])] = &[("Content-Type", b"text/xml")];
        let body = b"<?xml version=\"1.0\"?><a x=\"1 &amp; 2\"><b>one</b><c y='z'/>t&lt;wo<![CDATA[<3>]]></a>";
        with_request("POST", "/", headers, body, |v| {
            assert_eq!(
                collect(v, Variable::Xml),
                pairs(&[
                    ("@*", "1 & 2"),
                    ("/*", "one"),
                    ("@*", "z"),
                    ("/*", "t<wo<3>")
                ])
            );
            assert!(values(v, Variable::ArgsPost).is_empty());
        });
    }

    #[test]
    fn malformed_bodies_are_inspected_raw() {
        let cases: &[(&[u8], &[u8], &str)] = &[
            (b"application/json", b"{\"a\": 1' or 1=1", "ARGS_POST"),
            (
                b"multipart/form-data; boundary=b",
                b"no delimiter' or 1=1",
                "ARGS_POST",
            ),
            (b"multipart/form-data", b"--b\r\n' or 1=1", "ARGS_POST"),
            (b"text/plain", b"' or 1=1", "ARGS_POST"),
            (b"application/xml", b"<a>' or 1=1</b>", "XML"),
        ];
        for (ct, body, var) in cases {
            let headers: &[(&str, &[u8])] = &[("Content-Type", ct)];
            with_request("POST", "/", headers, body, |v| {
                let variable = if *var == "XML" {
                    Variable::Xml
                } else {
                    Variable::ArgsPost
                };
                let got = values(v, variable);
                assert!(
                    got.iter().any(|g| g.as_bytes() == *body),
                    "{:?}: raw body missing from {var}: {got:?}",
                    String::from_utf8_lossy(ct)
                );
                // Raw fallback values are not argument names.
                assert!(values(v, Variable::ArgsPostNames).is_empty());
            });
        }
    }

    #[test]
    fn limits_fall_back_to_raw() {
        let query: String = (0..crate::request::body::MAX_ARGS + 5)
            .map(|i| format!("a{i}=1&"))
            .collect();
        let uri = format!("/?{query}tail=' or 1=1");
        with_request("GET", &uri, &[], b"", |v| {
            let got = values(v, Variable::ArgsGet);
            assert_eq!(got.len(), crate::request::body::MAX_ARGS + 1);
            assert!(got.last().unwrap().ends_with("tail=' or 1=1"));
        });
        let cookies: String = (0..crate::request::body::MAX_ARGS + 5)
            .map(|i| format!("c{i}=1; "))
            .collect();
        let cookies = format!("{cookies}tail=' or 1=1");
        let headers: &[(&str, &[u8])] = &[("Cookie", cookies.as_bytes())];
        with_request("GET", "/", headers, b"", |v| {
            let got = values(v, Variable::RequestCookies);
            assert_eq!(got.len(), crate::request::body::MAX_ARGS + 1);
            assert_eq!(got[0], "1");
            assert!(got.last().unwrap().ends_with("tail=' or 1=1"));
        });
        let key = "k".repeat(10_000);
        let wide = format!("{{\"{key}\": [{}1]}}", "1,".repeat(500));
        let json: &[(&str, &[u8])] = &[("Content-Type", b"application/json")];
        with_request("POST", "/", json, wide.as_bytes(), |v| {
            let names: usize = v
                .values(Variable::ArgsPostNames)
                .iter()
                .map(|(_, k, _)| k.len())
                .sum();
            assert!(
                names <= 2 * wide.len() + 4096,
                "leaf names are bounded by the body size"
            );
            assert_eq!(
                values(v, Variable::ArgsPost).last(),
                Some(&wide),
                "the rest is inspected raw"
            );
        });
        let deep = format!("{}1{}", "[".repeat(100), "]".repeat(100));
        let headers: &[(&str, &[u8])] = &[("Content-Type", b"application/json")];
        with_request("POST", "/", headers, deep.as_bytes(), |v| {
            assert_eq!(values(v, Variable::ArgsPost), vec![deep.to_owned()]);
        });
    }
}
