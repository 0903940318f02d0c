//! The rule model: what a YAML rule says, as plain serde types.
//!
//! These types are the contract of `docs/rule-format.md`. They carry no compiled state, so other tools (the CRS
//! converter) can build them and write YAML with any serde serializer; [`crate::compile`] turns them into something
//! that runs. Validation that serde cannot express (a regex that does not compile, a capture group that does not
//! exist) happens at compile time and is reported with the same file/rule/field context as a parse error.

// A rule's operator: its variants and YAML names are generated from the operator list (`operator/mod.rs`), in
// a module that imports nothing of the crate.
pub use crate::operator::kind::OperatorKind;
use serde::{Deserialize, Serialize};
use std::fmt;

/// One rule, as written in YAML.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub id: u32,
    pub msg: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<Severity>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    #[serde(default = "default_paranoia_level")]
    pub paranoia_level: u8,
    #[serde(default)]
    pub operator: OperatorKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// The name of a setting (`rules.crs_settings` / `rulec --crs-setting`) that replaces `pattern` when it is
    /// given: CRS's `%{tx.allowed_methods}` and the other 901 defaults, which operators tune per site. `pattern`
    /// holds the default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setting: Option<String>,
    /// The phrases of a `pm` operator (ModSecurity's `@pm` and `@pmFromFile`), matched case-insensitively.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub phrases: Vec<String>,
    /// The rule matches a value when its operator does NOT (ModSecurity's `!@op`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub negate: bool,
    pub variables: Vec<VariableSpec>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub transforms: Vec<Transform>,
    /// ModSecurity's `multiMatch`: the operator also sees the value before any transform and after each
    /// transform that changed it; any of these matching is a match.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub multi_match: bool,
    pub action: Action,
    /// Extra conditions on the same value (the chain extension of the rule format).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chain: Vec<ChainCondition>,
    /// The host names the rule applies to (the request's `Host`, without port, any case); empty: every host. A
    /// rule scoped to other hosts does not run at all, so it neither matches nor scores for this request.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<String>,
    /// Conditions on settings, decided when the rules are compiled: a rule whose conditions do not all hold
    /// is loaded and validated but does not run (CRS's `SecRule TX:crs_validate_utf8_encoding "@eq 1"` heads).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub when: Vec<SettingCondition>,
    /// The parser that confirms a hit of the rule before it scores in full (`confirm:`): absent, the rule's
    /// `attack-*` tag chooses ([`Confirm::for_tags`]); `none` turns confirmation off for the rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirm: Option<Confirm>,
    /// When the rule runs: on the request (the default), on the upstream's response (ModSecurity's phases 3 and
    /// 4), or once the transaction is over (phase 5, CRS's correlation report).
    #[serde(default, skip_serializing_if = "Phase::is_request")]
    pub phase: Phase,
}

/// When a rule runs. A request rule reads the request's variables, a response rule the response's
/// (`RESPONSE_*`): a rule that read the other side's would never see a value, so the loader refuses it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// ModSecurity's phases 1 and 2: the request's head and body.
    #[default]
    Request,
    /// ModSecurity's phases 3 and 4: the response's status, headers and (inspected) body, scored against the
    /// outbound threshold.
    Response,
    /// ModSecurity's phase 5: after the transaction, reading its scores (`operator: anomaly_report`).
    Logging,
}

impl Phase {
    pub fn is_request(&self) -> bool {
        *self == Phase::Request
    }

    /// The name used in YAML.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Request => "request",
            Phase::Response => "response",
            Phase::Logging => "logging",
        }
    }
}

/// Which language a pattern hit is parsed as before it scores in full ([`crate::evaluate::confirm`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Confirm {
    /// SQL: libinjection's SQL tokenizer and fingerprints, in every quote context.
    Sql,
    /// HTML and JavaScript: libinjection's HTML5 tokenizer, in every HTML context.
    Xss,
    /// A POSIX shell or Windows command line: a command in command position ([`crate::evaluate::confirm`]).
    Shell,
    /// Code of a language with no parser here (PHP, JavaScript, file paths and URLs): a hit counts in a
    /// value of code or a plain name, not in a JSON document, text or a document of several lines.
    Code,
    /// Session fixation: the parameter can have come through a link or a form the victim was sent to (a
    /// navigation, not a script's request; not a JSON body).
    Fixation,
    /// Request smuggling and response splitting: an HTTP message (a request or status line, header lines, a
    /// forged page) that starts the value or one of its lines.
    Message,
    /// Unicode escapes (`\u00e4`, `%u00e4`): one counts when it decodes to ASCII, or through the best-fit map
    /// to punctuation; escapes of letters beyond ASCII (JSON's `ensure_ascii`) do not.
    Escape,
    /// Log4j lookups (`${jndi:...}`, `${ctx:...}`) and Java's classes: a hit counts as written unless it names a
    /// lookup Log4j would not resolve (`${ctx.status}`, a template literal's member: a lookup's prefix ends with
    /// a colon), a package that a parameter's name starts with and no expression reaches (Struts 1's
    /// `org.apache.struts.taglib.html.TOKEN`), a class an error report names (the exception a program threw),
    /// or what a whole JSON body holds across its members, which the rule reads one by one.
    Lookup,
    /// No confirmation: every hit scores in full.
    None,
}

impl Confirm {
    /// The confirmer of a rule that does not name one, by its CRS family tag: SQL injection, XSS and remote
    /// command execution have a parser here; PHP, Node.js and other generic injections, server-side request
    /// forgery, and local and remote file inclusion are checked for their shape ([`Confirm::Code`]); request
    /// smuggling and response splitting for a message where a line starts ([`Confirm::Message`]). Rules of
    /// other families score as written: the rest of protocol, scanners, and Java, whose attacks are documents (serialised
    /// objects in XML or JSON). Session fixation is checked for how the request came ([`Confirm::Fixation`]).
    pub fn for_tags(tags: &[String]) -> Option<Confirm> {
        FAMILIES
            .iter()
            .find(|(tag, _)| tags.iter().any(|t| t == tag))
            .map(|&(_, confirm)| confirm)
    }
}

/// Family tags and their confirmers, the more specific first: CRS tags its Java and Node.js rules
/// `attack-rce` too, and their language decides.
const FAMILIES: &[(&str, Confirm)] = &[
    ("attack-sqli", Confirm::Sql),
    ("attack-xss", Confirm::Xss),
    ("attack-injection-php", Confirm::Code),
    ("attack-injection-generic", Confirm::Code),
    ("attack-lfi", Confirm::Code),
    ("attack-rfi", Confirm::Code),
    ("attack-ssrf", Confirm::Code),
    ("attack-fixation", Confirm::Fixation),
    // CRS tags its protocol attacks by CAPEC pattern: 33 is HTTP request smuggling, 34 response splitting.
    ("capec/1000/210/272/220/33", Confirm::Message),
    ("capec/1000/210/272/220/34", Confirm::Message),
    // ... and Unicode encoding abuse by CAPEC 72 (URL encoding).
    ("capec/1000/255/153/267/72", Confirm::Escape),
    // Java's argument injections (CAPEC 137/6: the Log4j lookups, suspicious classes) are checked for a lookup
    // Log4j resolves; its other attacks are documents (serialised objects in XML or JSON): scored as written.
    ("capec/1000/152/137/6", Confirm::Lookup),
    // ... and so are its suspicious classes (CAPEC 248, command injection), which also count as written unless
    // a parameter's name merely starts with a package (Struts 1's `org.apache.struts.taglib.html.TOKEN`).
    ("capec/1000/152/248", Confirm::Lookup),
    ("language-java", Confirm::None),
    ("language-shell", Confirm::Shell),
    ("language-powershell", Confirm::Shell),
    ("attack-rce", Confirm::Shell),
];

impl Rule {
    /// Whether the rule runs for a request to `host` (the `Host` header's name part; `None` when absent).
    pub fn applies_to(&self, host: Option<&[u8]>) -> bool {
        self.hosts.is_empty()
            || host.is_some_and(|host| {
                self.hosts
                    .iter()
                    .any(|h| h.as_bytes().eq_ignore_ascii_case(host))
            })
    }
}

/// A condition on a setting (`rules.crs_settings`, `rulec --crs-setting`), decided at compile time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SettingCondition {
    pub setting: String,
    /// The setting's value when none is configured; absent: the setting has no value unless configured (a
    /// condition on its value then does not hold, whatever the operator).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// ModSecurity's `&TX:NAME`: the condition reads `1` when the setting has a value, `0` when not.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub count: bool,
    /// One of the operators that are not searches (`equals`, `within`, `eq`, `gt`, ...).
    pub operator: OperatorKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub negate: bool,
}

/// The fields a rule must have; checked before serde so the error can name the field plainly.
pub const REQUIRED_FIELDS: [&str; 4] = ["id", "msg", "variables", "action"];

fn default_paranoia_level() -> u8 {
    1
}

/// Highest paranoia level, as in the CRS.
pub const MAX_PARANOIA_LEVEL: u8 = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Severity {
    Critical,
    High,
    Medium,
    Low,
}

impl Severity {
    /// What a `block` rule of this severity adds to the request's anomaly score: CRS's defaults for its
    /// CRITICAL, ERROR, WARNING and NOTICE (`tx.critical_anomaly_score` etc. in crs-setup.conf).
    pub fn anomaly_score(self) -> u32 {
        match self {
            Severity::Critical => 5,
            Severity::High => 4,
            Severity::Medium => 3,
            Severity::Low => 2,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Critical => "CRITICAL",
            Severity::High => "HIGH",
            Severity::Medium => "MEDIUM",
            Severity::Low => "LOW",
        })
    }
}

/// What a match does: `deny` blocks the request, `log` only reports it, `block` adds the rule's anomaly score
/// (by severity, [`Severity::anomaly_score`]) and blocks once the request's score reaches the threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Deny,
    Log,
    Block,
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Action::Deny => "deny",
            Action::Log => "log",
            Action::Block => "block",
        })
    }
}

/// A transform, applied to a value before the operator sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transform {
    None,
    UrlDecode,
    UrlDecodeUni,
    Lowercase,
    Utf8ToUnicode,
    RemoveNulls,
    ReplaceComments,
    RemoveCommentsChar,
    RemoveWhitespace,
    CompressWhitespace,
    HtmlEntityDecode,
    Trim,
    CmdLine,
    JsDecode,
    CssDecode,
    NormalizePath,
    NormalizePathWin,
    EscapeSeqDecode,
    Base64Decode,
    HexEncode,
    Length,
}

impl Transform {
    pub const ALL: [Transform; 21] = [
        Transform::None,
        Transform::UrlDecode,
        Transform::UrlDecodeUni,
        Transform::Lowercase,
        Transform::Utf8ToUnicode,
        Transform::RemoveNulls,
        Transform::ReplaceComments,
        Transform::RemoveCommentsChar,
        Transform::RemoveWhitespace,
        Transform::CompressWhitespace,
        Transform::HtmlEntityDecode,
        Transform::Trim,
        Transform::CmdLine,
        Transform::JsDecode,
        Transform::CssDecode,
        Transform::NormalizePath,
        Transform::NormalizePathWin,
        Transform::EscapeSeqDecode,
        Transform::Base64Decode,
        Transform::HexEncode,
        Transform::Length,
    ];

    /// The name used in YAML.
    pub fn name(self) -> &'static str {
        match self {
            Transform::None => "none",
            Transform::UrlDecode => "url_decode",
            Transform::UrlDecodeUni => "url_decode_uni",
            Transform::Lowercase => "lowercase",
            Transform::Utf8ToUnicode => "utf8_to_unicode",
            Transform::RemoveNulls => "remove_nulls",
            Transform::ReplaceComments => "replace_comments",
            Transform::RemoveCommentsChar => "remove_comments_char",
            Transform::RemoveWhitespace => "remove_whitespace",
            Transform::CompressWhitespace => "compress_whitespace",
            Transform::HtmlEntityDecode => "html_entity_decode",
            Transform::Trim => "trim",
            Transform::CmdLine => "cmd_line",
            Transform::JsDecode => "js_decode",
            Transform::CssDecode => "css_decode",
            Transform::NormalizePath => "normalize_path",
            Transform::NormalizePathWin => "normalize_path_win",
            Transform::EscapeSeqDecode => "escape_seq_decode",
            Transform::Base64Decode => "base64_decode",
            Transform::HexEncode => "hex_encode",
            Transform::Length => "length",
        }
    }
}

/// A request variable (a collection of zero or more named values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Variable {
    // The nine variables of the specification.
    RequestLine,
    RequestFilename,
    RequestBasename,
    Args,
    ArgsNames,
    Headers,
    Body,
    Cookie,
    CookieNames,
    // ModSecurity-style collections for faithful CRS conversions.
    ArgsGet,
    ArgsGetNames,
    ArgsPost,
    ArgsPostNames,
    RequestCookies,
    RequestCookiesNames,
    RequestHeaders,
    RequestHeadersNames,
    RequestMethod,
    RequestProtocol,
    RequestUri,
    QueryString,
    Xml,
    Files,
    FilesNames,
    /// The raw body unless it is XML or multipart, as ModSecurity's `REQUEST_BODY` (whose XML and multipart
    /// body processors do not keep it; their contents are `XML`, and `ARGS_POST` and `FILES`).
    RequestBody,
    /// The body's length in bytes, in decimal.
    RequestBodyLength,
    /// The body processor the `Content-Type` selects: `URLENCODED`, `MULTIPART`, `XML`, `JSON`; no value
    /// otherwise.
    ReqbodyProcessor,
    /// Each header line of each multipart part (`Content-Type: text/plain`), keyed by the part's name.
    MultipartPartHeaders,
    /// The total length of the arguments' names and values (query and body), in decimal.
    ArgsCombinedSize,
    // The response, for `phase: response` rules.
    /// The response's status code (`200`).
    ResponseStatus,
    /// The response's protocol (`HTTP/1.1`).
    ResponseProtocol,
    /// The response's header values, keyed by name (`names` narrows).
    ResponseHeaders,
    /// The response's header names.
    ResponseHeadersNames,
    /// The response's body as inspected (decompressed, up to the body limit); no value when the body is not
    /// inspected.
    ResponseBody,
    /// The response's `Content-Type` value.
    ResponseContentType,
    /// The response's `Content-Length` value, when it has one.
    ResponseContentLength,
}

impl Variable {
    pub const COUNT: usize = 36;
    pub const ALL: [Variable; Variable::COUNT] = [
        Variable::RequestLine,
        Variable::RequestFilename,
        Variable::RequestBasename,
        Variable::Args,
        Variable::ArgsNames,
        Variable::Headers,
        Variable::Body,
        Variable::Cookie,
        Variable::CookieNames,
        Variable::ArgsGet,
        Variable::ArgsGetNames,
        Variable::ArgsPost,
        Variable::ArgsPostNames,
        Variable::RequestCookies,
        Variable::RequestCookiesNames,
        Variable::RequestHeaders,
        Variable::RequestHeadersNames,
        Variable::RequestMethod,
        Variable::RequestProtocol,
        Variable::RequestUri,
        Variable::QueryString,
        Variable::Xml,
        Variable::Files,
        Variable::FilesNames,
        Variable::RequestBody,
        Variable::RequestBodyLength,
        Variable::ReqbodyProcessor,
        Variable::MultipartPartHeaders,
        Variable::ArgsCombinedSize,
        Variable::ResponseStatus,
        Variable::ResponseProtocol,
        Variable::ResponseHeaders,
        Variable::ResponseHeadersNames,
        Variable::ResponseBody,
        Variable::ResponseContentType,
        Variable::ResponseContentLength,
    ];

    /// The name used in YAML and in match reports.
    pub fn name(self) -> &'static str {
        match self {
            Variable::RequestLine => "REQUEST_LINE",
            Variable::RequestFilename => "REQUEST_FILENAME",
            Variable::RequestBasename => "REQUEST_BASENAME",
            Variable::Args => "ARGS",
            Variable::ArgsNames => "ARGS_NAMES",
            Variable::Headers => "HEADERS",
            Variable::Body => "BODY",
            Variable::Cookie => "COOKIE",
            Variable::CookieNames => "COOKIE_NAMES",
            Variable::ArgsGet => "ARGS_GET",
            Variable::ArgsGetNames => "ARGS_GET_NAMES",
            Variable::ArgsPost => "ARGS_POST",
            Variable::ArgsPostNames => "ARGS_POST_NAMES",
            Variable::RequestCookies => "REQUEST_COOKIES",
            Variable::RequestCookiesNames => "REQUEST_COOKIES_NAMES",
            Variable::RequestHeaders => "REQUEST_HEADERS",
            Variable::RequestHeadersNames => "REQUEST_HEADERS_NAMES",
            Variable::RequestMethod => "REQUEST_METHOD",
            Variable::RequestProtocol => "REQUEST_PROTOCOL",
            Variable::RequestUri => "REQUEST_URI",
            Variable::QueryString => "QUERY_STRING",
            Variable::Xml => "XML",
            Variable::Files => "FILES",
            Variable::FilesNames => "FILES_NAMES",
            Variable::RequestBody => "REQUEST_BODY",
            Variable::RequestBodyLength => "REQUEST_BODY_LENGTH",
            Variable::ReqbodyProcessor => "REQBODY_PROCESSOR",
            Variable::MultipartPartHeaders => "MULTIPART_PART_HEADERS",
            Variable::ArgsCombinedSize => "ARGS_COMBINED_SIZE",
            Variable::ResponseStatus => "RESPONSE_STATUS",
            Variable::ResponseProtocol => "RESPONSE_PROTOCOL",
            Variable::ResponseHeaders => "RESPONSE_HEADERS",
            Variable::ResponseHeadersNames => "RESPONSE_HEADERS_NAMES",
            Variable::ResponseBody => "RESPONSE_BODY",
            Variable::ResponseContentType => "RESPONSE_CONTENT_TYPE",
            Variable::ResponseContentLength => "RESPONSE_CONTENT_LENGTH",
        }
    }

    /// The phase whose message the variable reads: [`Phase::Response`] for `RESPONSE_*`, else
    /// [`Phase::Request`].
    pub fn phase(self) -> Phase {
        match self {
            Variable::ResponseStatus
            | Variable::ResponseProtocol
            | Variable::ResponseHeaders
            | Variable::ResponseHeadersNames
            | Variable::ResponseBody
            | Variable::ResponseContentType
            | Variable::ResponseContentLength => Phase::Response,
            _ => Phase::Request,
        }
    }

    /// Index into per-variable tables; stable for the life of the process.
    pub fn index(self) -> usize {
        self as usize
    }

    /// Whether `names`/`exclude` compare keys case-insensitively (header names are case-insensitive in HTTP).
    pub fn case_insensitive_keys(self) -> bool {
        matches!(
            self,
            Variable::Headers
                | Variable::RequestHeaders
                | Variable::RequestHeadersNames
                | Variable::ResponseHeaders
                | Variable::ResponseHeadersNames
        )
    }

    pub fn parse(name: &str) -> Option<Variable> {
        Variable::ALL.into_iter().find(|v| v.name() == name)
    }
}

/// A variable as a rule names it, optionally narrowed to some keys.
///
/// YAML accepts the simple form (`ARGS`) and the advanced form (`{type: HEADERS, names: [...], exclude: [...]}`).
/// A `names`/`exclude` entry written `/regex/` is a regex on the key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "VariableSpecRepr", into = "VariableSpecRepr")]
pub struct VariableSpec {
    pub variable: Variable,
    pub names: Vec<String>,
    pub exclude: Vec<String>,
    /// The rule sees one value instead of the selected ones: how many there are, in decimal (ModSecurity's
    /// `&ARGS`).
    pub count: bool,
}

impl VariableSpec {
    /// The whole collection, not narrowed.
    pub fn all(variable: Variable) -> Self {
        VariableSpec {
            variable,
            names: Vec::new(),
            exclude: Vec::new(),
            count: false,
        }
    }
}

#[derive(Serialize, Deserialize)]
#[serde(
    untagged,
    expecting = "a variable name or a mapping {type, names, exclude}"
)]
enum VariableSpecRepr {
    Name(String),
    Full {
        #[serde(rename = "type")]
        kind: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        names: Vec<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        exclude: Vec<String>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        count: bool,
    },
}

/// A variable name no [`Variable`] has (serde shows it as the field's error).
#[derive(Debug, thiserror::Error)]
#[error("unknown variable `{0}`, expected one of {known}", known = Variable::ALL.iter().map(|v| v.name()).collect::<Vec<_>>().join(", "))]
pub struct UnknownVariable(String);

impl TryFrom<VariableSpecRepr> for VariableSpec {
    type Error = UnknownVariable;

    fn try_from(repr: VariableSpecRepr) -> Result<Self, UnknownVariable> {
        let (kind, names, exclude, count) = match repr {
            VariableSpecRepr::Name(name) => (name, Vec::new(), Vec::new(), false),
            VariableSpecRepr::Full {
                kind,
                names,
                exclude,
                count,
            } => (kind, names, exclude, count),
        };
        let variable = Variable::parse(&kind).ok_or(UnknownVariable(kind))?;
        Ok(VariableSpec {
            variable,
            names,
            exclude,
            count,
        })
    }
}

impl From<VariableSpec> for VariableSpecRepr {
    fn from(spec: VariableSpec) -> Self {
        if spec.names.is_empty() && spec.exclude.is_empty() && !spec.count {
            VariableSpecRepr::Name(spec.variable.name().to_owned())
        } else {
            VariableSpecRepr::Full {
                kind: spec.variable.name().to_owned(),
                names: spec.names,
                exclude: spec.exclude,
                count: spec.count,
            }
        }
    }
}

/// One extra condition of a chained rule: it must hold for the value the rule's own operator matched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainCondition {
    pub target: ChainTarget,
    /// One of the operators that can be a condition ([`OperatorKind::in_chains`]).
    pub operator: OperatorKind,
    pub pattern: String,
    /// As a rule's `setting`: the name of a setting whose value replaces `pattern` when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setting: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub transforms: Vec<Transform>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub negate: bool,
}

/// What a chain condition reads: the matched value, a capture group, a text built from capture groups and
/// request headers (`|${capture:0}|`, the shape of CRS's `setvar:tx.x=|%{tx.0}|`), or another variable of the
/// request (`REQUEST_HEADERS:Referer`, `REQUEST_METHOD`), which holds when any of its values satisfies it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum ChainTarget {
    MatchedValue,
    Capture(u16),
    Template(String),
    Variable {
        variable: Variable,
        /// Only the values of this key (case-insensitive for header variables).
        key: Option<String>,
        /// `&` before the name: the number of values, in decimal, instead of the values.
        count: bool,
    },
}

/// A chain target of none of the shapes [`ChainTarget`] has (serde shows it as the field's error).
#[derive(Debug, thiserror::Error)]
#[error(
    "unknown chain target `{0}`, expected `matched_value`, `capture:N`, a text with `${{capture:N}}` or a variable \
     (`REQUEST_HEADERS:Referer`)"
)]
pub struct UnknownChainTarget(String);

impl TryFrom<String> for ChainTarget {
    type Error = UnknownChainTarget;

    fn try_from(s: String) -> Result<Self, UnknownChainTarget> {
        if s == "matched_value" {
            return Ok(ChainTarget::MatchedValue);
        }
        if s.contains("${") {
            return Ok(ChainTarget::Template(s));
        }
        let (count, variable) = match s.strip_prefix('&') {
            Some(rest) => (true, rest),
            None => (false, s.as_str()),
        };
        let (name, key) = match variable.split_once(':') {
            Some((name, key)) => (name, Some(key.to_owned())),
            None => (variable, None),
        };
        if let Some(variable) = Variable::parse(name) {
            return Ok(ChainTarget::Variable {
                variable,
                key,
                count,
            });
        }
        match s.strip_prefix("capture:").and_then(|n| n.parse().ok()) {
            Some(n) => Ok(ChainTarget::Capture(n)),
            None => Err(UnknownChainTarget(s)),
        }
    }
}

impl From<ChainTarget> for String {
    fn from(t: ChainTarget) -> String {
        match t {
            ChainTarget::MatchedValue => "matched_value".to_owned(),
            ChainTarget::Capture(n) => format!("capture:{n}"),
            ChainTarget::Template(text) => text,
            ChainTarget::Variable {
                variable,
                key,
                count,
            } => format!(
                "{}{}{}",
                if count { "&" } else { "" },
                variable.name(),
                key.map(|key| format!(":{key}")).unwrap_or_default()
            ),
        }
    }
}
