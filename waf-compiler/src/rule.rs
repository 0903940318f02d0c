//! The rule model: what a YAML rule says, as plain serde types.
//!
//! These types are the contract of `docs/rule-format.md`. They carry no compiled state, so other tools (the CRS
//! converter) can build them and write YAML with any serde serializer; [`crate::compile`] turns them into something
//! that runs. Validation that serde cannot express (a regex that does not compile, a capture group that does not
//! exist) happens at compile time and is reported with the same file/rule/field context as a parse error.

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

/// What a match does: `deny` blocks the request, `log` only reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Deny,
    Log,
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Action::Deny => "deny",
            Action::Log => "log",
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OperatorKind {
    #[default]
    Regex,
    Contains,
    StartsWith,
    DetectorSqli,
    DetectorXss,
}

impl OperatorKind {
    /// Whether the operator takes a `pattern` (the detectors take none).
    pub fn takes_pattern(self) -> bool {
        !matches!(self, OperatorKind::DetectorSqli | OperatorKind::DetectorXss)
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
}

impl Transform {
    pub const ALL: [Transform; 12] = [
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
}

impl Variable {
    pub const COUNT: usize = 22;
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
            Variable::Headers | Variable::RequestHeaders | Variable::RequestHeadersNames
        )
    }

    fn parse(name: &str) -> Option<Variable> {
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
}

impl VariableSpec {
    /// The whole collection, not narrowed.
    pub fn all(variable: Variable) -> Self {
        VariableSpec {
            variable,
            names: Vec::new(),
            exclude: Vec::new(),
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
    },
}

impl TryFrom<VariableSpecRepr> for VariableSpec {
    type Error = String;

    fn try_from(repr: VariableSpecRepr) -> Result<Self, String> {
        let (kind, names, exclude) = match repr {
            VariableSpecRepr::Name(name) => (name, Vec::new(), Vec::new()),
            VariableSpecRepr::Full {
                kind,
                names,
                exclude,
            } => (kind, names, exclude),
        };
        let variable = Variable::parse(&kind).ok_or_else(|| {
            let known: Vec<&str> = Variable::ALL.iter().map(|v| v.name()).collect();
            format!(
                "unknown variable `{kind}`, expected one of {}",
                known.join(", ")
            )
        })?;
        Ok(VariableSpec {
            variable,
            names,
            exclude,
        })
    }
}

impl From<VariableSpec> for VariableSpecRepr {
    fn from(spec: VariableSpec) -> Self {
        if spec.names.is_empty() && spec.exclude.is_empty() {
            VariableSpecRepr::Name(spec.variable.name().to_owned())
        } else {
            VariableSpecRepr::Full {
                kind: spec.variable.name().to_owned(),
                names: spec.names,
                exclude: spec.exclude,
            }
        }
    }
}

/// One extra condition of a chained rule: it must hold for the value the rule's own operator matched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainCondition {
    pub target: ChainTarget,
    pub operator: ChainOperator,
    pub pattern: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub transforms: Vec<Transform>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub negate: bool,
}

/// What a chain condition reads: the matched value, or a capture group of the rule's regex.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum ChainTarget {
    MatchedValue,
    Capture(u16),
}

impl TryFrom<String> for ChainTarget {
    type Error = String;

    fn try_from(s: String) -> Result<Self, String> {
        if s == "matched_value" {
            return Ok(ChainTarget::MatchedValue);
        }
        s.strip_prefix("capture:")
            .and_then(|n| n.parse().ok())
            .map(ChainTarget::Capture)
            .ok_or_else(|| {
                format!("unknown chain target `{s}`, expected `matched_value` or `capture:N`")
            })
    }
}

impl From<ChainTarget> for String {
    fn from(t: ChainTarget) -> String {
        match t {
            ChainTarget::MatchedValue => "matched_value".to_owned(),
            ChainTarget::Capture(n) => format!("capture:{n}"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChainOperator {
    Regex,
    Contains,
    StartsWith,
    Equals,
}
