//! The compiled artifact: a rule set written by `rulec compile` and loaded by the proxy without compiling a regex.
//!
//! ```text
//! magic "WAFRULES" (8 bytes) | format version (u32 LE) | payload length (u64 LE) | SHA-256 of the payload (32)
//! payload: bincode 2 (standard config) of { header, rules as JSON, per rule its regexes (dense DFA bytes or lazy),
//!          the transform chains (so chain ids are those the prefilter was built with), the literal prefilter }
//! ```
//!
//! This module is the one place that reads and writes those bytes, and it checks everything before trusting it:
//! the magic, the version, every length, the checksum, then the decoded payload. Dense DFAs are validated by
//! `DFA::from_bytes` (never the unchecked variant), and the rules go through the same validation as rules read
//! from YAML ([`compile_rule`]), with their regex engines taken from the artifact instead of being built.
//!
//! The rules are stored as JSON text inside the payload: the rule model's serde attributes
//! (`skip_serializing_if`, defaults) describe YAML, and bincode, which is not self-describing, cannot read back
//! a struct that skipped a field. JSON for the ~100 rules of the shipped set parses in well under a millisecond;
//! the DFAs, which are most of the bytes, are raw byte strings.
//!
//! DFA tables are written little-endian; a big-endian host refuses them as corrupt (`from_bytes` checks).
//!
//! An artifact may also be stored gzip-compressed (`rulec compile --compress`): the whole file above as one gzip
//! stream, recognised by its magic and inflated (at most [`MAX_ARTIFACT_SIZE`]) before the checks. Lazy artifacts
//! compress about 4x (the whole CRS: 1.07 MB to 275 KB), which is what lets it travel in a Kubernetes ConfigMap.

use crate::compile::prefilter::{Prefilter, PrefilterError};
use crate::compile::{ChainOutOfOrder, Chains, CompiledRule, FieldError, compile_rule};
use crate::regex_engine::{EnginePlan, RegexEngine, RegexError, RegexSource, StoredRegexError};
use crate::rule::{Rule, Transform};
use crate::ruleset::CompiledRuleSet;
use crate::transform::{UnicodeMap, UnknownCodePage};
use regex_automata::dfa::{Automaton, StartKind, dense, regex::Regex as DenseRegex};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::io::{Read, Write};
use std::path::Path;

/// The first eight bytes of every artifact.
pub const MAGIC: [u8; 8] = *b"WAFRULES";

/// Bumped whenever the payload's layout changes: a reader refuses any other version.
/// (1: rules, DFAs; 2: the transform chains and the literal prefilter; 3: the prefilter's byte gates; 4: the
/// Unicode code page; 5: each rule's source file, the rules' setting conditions (`when`), chain operators,
/// variables and the `anomaly_threshold` operator.)
pub const FORMAT_VERSION: u32 = 5;

/// The version of the compiler that writes (and alone may read) an artifact: the DFAs' semantics depend on the
/// engine that built them, so an artifact from another version is refused and must be recompiled.
pub const COMPILER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Largest artifact read: 1 GiB. The shipped rules at paranoia level 4 make about 20 MB; the cap leaves 50x
/// headroom and stops a wrong path (a disk image, a log) from being read whole into memory.
pub const MAX_ARTIFACT_SIZE: u64 = 1 << 30;

/// Magic, version, payload length, checksum: the payload starts at this offset.
pub const PREAMBLE_LEN: usize = 8 + 4 + 8 + 32;

/// Why an artifact was refused.
#[derive(Debug, thiserror::Error)]
pub enum ArtifactError {
    #[error("cannot read {path}: {message}")]
    Io { path: String, message: String },
    #[error("not a rule artifact (no WAFRULES magic): is this the file `rulec compile -o` wrote?")]
    Foreign,
    #[error("truncated artifact: {0}")]
    Truncated(Truncation),
    #[error("corrupt artifact: {0}")]
    Corrupt(#[from] Corruption),
    #[error(
        "artifact format {found} is newer than this build reads ({FORMAT_VERSION}): upgrade, or recompile the rules with this version's `rulec compile`"
    )]
    NewerFormat { found: u32 },
    #[error(
        "artifact format {found} is older than this build reads ({FORMAT_VERSION}): recompile the rules with `rulec compile`"
    )]
    OlderFormat { found: u32 },
    #[error(
        "artifact compiled by waf-compiler {found}, this is {COMPILER_VERSION}: recompile the rules with this version's `rulec compile`"
    )]
    OtherCompiler { found: String },
    #[error("artifact larger than {MAX_ARTIFACT_SIZE} bytes")]
    TooLarge,
}

/// Where an artifact ends too early.
#[derive(Debug, thiserror::Error)]
pub enum Truncation {
    #[error("{len} bytes, shorter than the {PREAMBLE_LEN}-byte preamble")]
    Preamble { len: usize },
    #[error("the payload has {have} of its {length} bytes")]
    Payload { have: usize, length: u64 },
}

/// What in an artifact is damaged or contradicts itself.
#[derive(Debug, thiserror::Error)]
pub enum Corruption {
    #[error("gzip-compressed, but it does not inflate: {0}")]
    Inflate(std::io::Error),
    #[error("{extra} bytes after the {length}-byte payload")]
    TrailingBytes { extra: u64, length: u64 },
    #[error("checksum mismatch (the file was altered or damaged)")]
    Checksum,
    #[error("payload does not decode: {0}")]
    Payload(bincode::error::DecodeError),
    #[error("payload decodes to {used} of its {len} bytes")]
    PayloadLength { used: usize, len: usize },
    #[error("rules do not decode: {0}")]
    Rules(serde_json::Error),
    #[error("{rules} rules but regexes for {regexes} and files for {files}")]
    Counts {
        rules: usize,
        regexes: usize,
        files: usize,
    },
    #[error("{0}")]
    CodePage(#[from] UnknownCodePage),
    #[error("{0}")]
    Chains(#[from] ChainOutOfOrder),
    #[error("rule {id} out of order or repeated")]
    RuleOrder { id: u32 },
    #[error("rule {id}: {}", field_list(.errors))]
    Rule { id: u32, errors: Vec<FieldError> },
    #[error("rule {id}: more stored regexes than the rule has")]
    ExtraRegexes { id: u32 },
    #[error("the rules use transform chains that were not stored")]
    MissingChains,
    #[error("{0}")]
    Prefilter(#[from] PrefilterError),
}

/// `field: message` of each error, `; `-separated.
fn field_list(errors: &[FieldError]) -> String {
    let detail: Vec<String> = errors
        .iter()
        .map(|e| format!("{}: {}", e.field, e.message))
        .collect();
    detail.join("; ")
}

/// Why a rule set could not be serialized (never the rules' fault: what was compiled serializes).
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("the rules as JSON: {0}")]
    Rules(#[from] serde_json::Error),
    #[error("the payload: {0}")]
    Encode(#[from] bincode::error::EncodeError),
}

/// What the artifact says about itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub compiler_version: String,
    /// [`CompiledRuleSet::source_hash`]: the source files and the paranoia level.
    pub source_hash: String,
    pub paranoia_level: u8,
    /// The code page of the Unicode map `url_decode_uni` was compiled with (`None`: no map). Honoured on load: the
    /// rule set evaluates as it was compiled and tested; the proxy refuses an artifact whose code page is not the
    /// configured one.
    pub unicode_code_page: Option<u32>,
    /// The dense DFA budget per DFA in bytes; 0 when every regex is lazy.
    pub dfa_size_limit: u64,
    /// Seconds since the Unix epoch.
    pub created_at: u64,
}

#[derive(Serialize, Deserialize)]
struct Payload<'a> {
    header: Header,
    #[serde(borrow)]
    rules_json: &'a str,
    /// Each rule's file, relative to its rule directory ([`CompiledRule::file`]).
    files: Vec<String>,
    #[serde(borrow)]
    regexes: Vec<Vec<StoredRegex<'a>>>,
    /// [`Chains::all`]: loading interns them first, so every id is the one the prefilter refers to.
    chains: Vec<Vec<Transform>>,
    /// Checked against the rule set on load ([`CompiledRuleSet::set_prefilter`]).
    prefilter: Option<Prefilter>,
}

#[derive(Serialize, Deserialize)]
struct StoredRegex<'a> {
    /// Capture groups including group 0 (a dense DFA cannot tell; conditions are validated against it).
    groups: u32,
    #[serde(borrow)]
    dense: Option<StoredDense<'a>>,
}

#[derive(Serialize, Deserialize)]
struct StoredDense<'a> {
    #[serde(borrow)]
    forward: Bytes<'a>,
    #[serde(borrow)]
    reverse: Bytes<'a>,
}

/// A byte string written as one length and the bytes (serde writes `&[u8]` element by element otherwise),
/// read back borrowed from the payload.
struct Bytes<'a>(&'a [u8]);

impl Serialize for Bytes<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Bytes<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        <&'de [u8]>::deserialize(d).map(Bytes)
    }
}

/// The payload may not claim more memory than the file has bytes (bincode checks each length against it).
fn bincode_config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<{ MAX_ARTIFACT_SIZE as usize }>()
}

/// An artifact's header and the rule set it holds.
#[derive(Debug)]
pub struct Artifact {
    pub header: Header,
    pub ruleset: CompiledRuleSet,
}

/// Serializes `ruleset` (as built, with its DFAs) into artifact bytes.
pub fn write(ruleset: &CompiledRuleSet) -> Result<Vec<u8>, WriteError> {
    let rules: Vec<&Rule> = ruleset.rules().map(|r| &r.rule).collect();
    let rules_json = serde_json::to_string(&rules)?;
    let bytes = |dfa: &dense::DFA<Vec<u32>>| {
        let (bytes, pad) = dfa.to_bytes_little_endian();
        bytes[pad..].to_vec()
    };
    // Per rule, per regex: its group count and, when dense, the forward and reverse DFA bytes.
    type Owned = (u32, Option<(Vec<u8>, Vec<u8>)>);
    let owned: Vec<Vec<Owned>> = ruleset
        .rules()
        .map(|rule| {
            rule.regexes()
                .iter()
                .map(|re| {
                    let groups = u32::try_from(re.group_count()).unwrap_or(u32::MAX);
                    let dense = re.dense().map(|d| (bytes(d.forward()), bytes(d.reverse())));
                    (groups, dense)
                })
                .collect()
        })
        .collect();
    let regexes = owned
        .iter()
        .map(|rule| {
            rule.iter()
                .map(|(groups, dense)| StoredRegex {
                    groups: *groups,
                    dense: dense.as_ref().map(|(f, r)| StoredDense {
                        forward: Bytes(f),
                        reverse: Bytes(r),
                    }),
                })
                .collect()
        })
        .collect();
    let payload = Payload {
        header: Header {
            compiler_version: COMPILER_VERSION.to_owned(),
            source_hash: ruleset.source_hash().to_owned(),
            paranoia_level: ruleset.paranoia_level(),
            unicode_code_page: ruleset.chains().unicode_map().code_page(),
            dfa_size_limit: match ruleset.engine_plan() {
                EnginePlan::Lazy => 0,
                EnginePlan::Dense { size_limit } => size_limit as u64,
            },
            created_at: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        },
        rules_json: &rules_json,
        files: ruleset.rules().map(|r| r.file.clone()).collect(),
        regexes,
        chains: ruleset.chains().all().to_vec(),
        prefilter: ruleset.prefilter().cloned(),
    };
    let body = bincode::serde::encode_to_vec(&payload, bincode_config())?;
    Ok(seal(&body))
}

/// Puts the preamble (magic, this format version, length, checksum) before `payload`. Tests and the fuzzer use
/// it to hand the loader crafted payloads that get past the checksum.
pub fn seal(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(PREAMBLE_LEN + payload.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&Sha256::digest(payload));
    out.extend_from_slice(payload);
    out
}

/// Writes `bytes` to `path` atomically: a temporary file beside it, synced, then renamed over it, so a proxy
/// watching `path` never reads a half-written artifact.
pub fn write_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("the output path names no file"))?;
    let tmp = dir.join(format!(
        ".{}.tmp-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Reads an artifact file (at most [`MAX_ARTIFACT_SIZE`] bytes) and loads it.
pub fn read_file(path: &Path) -> Result<Artifact, ArtifactError> {
    let io = |e: std::io::Error| ArtifactError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    let file = std::fs::File::open(path).map_err(io)?;
    // Sized from the metadata so a large artifact is read without reallocating (the cap still holds if the
    // file grows meanwhile).
    let expected = file
        .metadata()
        .map_or(0, |m| m.len())
        .min(MAX_ARTIFACT_SIZE + 1);
    let mut bytes = Vec::with_capacity(usize::try_from(expected).unwrap_or(0));
    file.take(MAX_ARTIFACT_SIZE + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_ARTIFACT_SIZE {
        return Err(ArtifactError::TooLarge);
    }
    read(&bytes)
}

/// The first two bytes of a gzip stream (RFC 1952).
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// `sealed` (an artifact as [`seal`] makes it) as one gzip stream.
pub fn compress(sealed: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    // Writing to a Vec cannot fail.
    let _ = gz.write_all(sealed);
    gz.finish().unwrap_or_default()
}

/// The artifact in `bytes`: itself, or inflated when it is gzip-compressed.
fn unwrapped(bytes: &[u8]) -> Result<Cow<'_, [u8]>, ArtifactError> {
    if !bytes.starts_with(&GZIP_MAGIC) {
        return Ok(Cow::Borrowed(bytes));
    }
    let mut inflated = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .take(MAX_ARTIFACT_SIZE + 1)
        .read_to_end(&mut inflated)
        .map_err(Corruption::Inflate)?;
    if inflated.len() as u64 > MAX_ARTIFACT_SIZE {
        return Err(ArtifactError::TooLarge);
    }
    Ok(Cow::Owned(inflated))
}

/// Checks the preamble and returns the payload.
fn payload(bytes: &[u8]) -> Result<&[u8], ArtifactError> {
    let magic_len = bytes.len().min(MAGIC.len());
    if bytes[..magic_len] != MAGIC[..magic_len] {
        return Err(ArtifactError::Foreign);
    }
    let field = |at: usize, len: usize| {
        bytes
            .get(at..at + len)
            .ok_or(ArtifactError::Truncated(Truncation::Preamble {
                len: bytes.len(),
            }))
    };
    let mut version = [0; 4];
    version.copy_from_slice(field(8, 4)?);
    let version = u32::from_le_bytes(version);
    if version > FORMAT_VERSION {
        return Err(ArtifactError::NewerFormat { found: version });
    }
    if version < FORMAT_VERSION {
        return Err(ArtifactError::OlderFormat { found: version });
    }
    let mut length = [0; 8];
    length.copy_from_slice(field(12, 8)?);
    let length = u64::from_le_bytes(length);
    let checksum = field(20, 32)?;
    let body = &bytes[PREAMBLE_LEN..];
    if (body.len() as u64) < length {
        return Err(ArtifactError::Truncated(Truncation::Payload {
            have: body.len(),
            length,
        }));
    }
    if body.len() as u64 > length {
        return Err(Corruption::TrailingBytes {
            extra: body.len() as u64 - length,
            length,
        }
        .into());
    }
    if Sha256::digest(body).as_slice() != checksum {
        return Err(Corruption::Checksum.into());
    }
    Ok(body)
}

/// Reads only the header (for `rulec inspect` and reports), after the same checks as [`read`].
pub fn read_header(bytes: &[u8]) -> Result<Header, ArtifactError> {
    let bytes = unwrapped(bytes)?;
    decode(payload(&bytes)?).map(|p| p.header)
}

fn decode(body: &[u8]) -> Result<Payload<'_>, ArtifactError> {
    let (payload, used): (Payload<'_>, usize) =
        bincode::serde::borrow_decode_from_slice(body, bincode_config())
            .map_err(Corruption::Payload)?;
    if used != body.len() {
        return Err(Corruption::PayloadLength {
            used,
            len: body.len(),
        }
        .into());
    }
    if payload.header.compiler_version != COMPILER_VERSION {
        return Err(ArtifactError::OtherCompiler {
            found: payload.header.compiler_version.clone(),
        });
    }
    Ok(payload)
}

/// Loads artifact bytes. No regex is compiled for a rule whose DFAs are stored; lazy regexes are built now,
/// except those of rules above the paranoia level (they never run; built on first use by `rulec explain`).
pub fn read(bytes: &[u8]) -> Result<Artifact, ArtifactError> {
    let bytes = unwrapped(bytes)?;
    let payload = decode(payload(&bytes)?)?;
    let rules: Vec<Rule> = serde_json::from_str(payload.rules_json).map_err(Corruption::Rules)?;
    if rules.len() != payload.regexes.len() || rules.len() != payload.files.len() {
        return Err(Corruption::Counts {
            rules: rules.len(),
            regexes: payload.regexes.len(),
            files: payload.files.len(),
        }
        .into());
    }
    let unicode_map =
        UnicodeMap::for_code_page(payload.header.unicode_code_page).map_err(Corruption::from)?;
    let mut chains = Chains::from_list(&payload.chains, unicode_map).map_err(Corruption::from)?;
    let mut compiled: Vec<CompiledRule> = Vec::with_capacity(rules.len());
    let mut scratch = Vec::new();
    for ((rule, stored), file) in rules.iter().zip(&payload.regexes).zip(&payload.files) {
        if compiled.last().is_some_and(|last| last.rule.id >= rule.id) {
            return Err(Corruption::RuleOrder { id: rule.id }.into());
        }
        let mut source = StoredSource {
            stored: stored.iter(),
            paranoia_level: payload.header.paranoia_level,
            scratch: &mut scratch,
        };
        let mut compiled_rule =
            compile_rule(rule, &mut chains, &mut source).map_err(|errors| Corruption::Rule {
                id: rule.id,
                errors,
            })?;
        if source.stored.next().is_some() {
            return Err(Corruption::ExtraRegexes { id: rule.id }.into());
        }
        compiled_rule.file.clone_from(file);
        compiled.push(compiled_rule);
    }
    if chains.len() != payload.chains.len() {
        return Err(Corruption::MissingChains.into());
    }
    let plan = match payload.header.dfa_size_limit {
        0 => EnginePlan::Lazy,
        limit => EnginePlan::Dense {
            size_limit: usize::try_from(limit).unwrap_or(usize::MAX),
        },
    };
    let mut ruleset = CompiledRuleSet::from_parts(
        compiled,
        chains,
        payload.header.paranoia_level,
        payload.header.source_hash.clone(),
        plan,
    );
    ruleset
        .set_prefilter(payload.prefilter)
        .map_err(Corruption::from)?;
    Ok(Artifact {
        header: payload.header,
        ruleset,
    })
}

/// Hands [`compile_rule`] the regexes of one rule from the artifact, in order.
struct StoredSource<'p, 's> {
    stored: std::slice::Iter<'p, StoredRegex<'p>>,
    paranoia_level: u8,
    scratch: &'s mut Vec<u8>,
}

impl RegexSource for StoredSource<'_, '_> {
    fn regex(&mut self, pattern: &str, paranoia_level: u8) -> Result<RegexEngine, RegexError> {
        let stored = self.stored.next().ok_or(StoredRegexError::Missing)?;
        let dense = match &stored.dense {
            Some(d) => Some(Box::new(DenseRegex::builder().build_from_dfas(
                load_dfa(d.forward.0, StartKind::Unanchored, self.scratch)?,
                load_dfa(d.reverse.0, StartKind::Anchored, self.scratch)?,
            ))),
            None => None,
        };
        RegexEngine::from_parts(
            crate::regex_engine::pcre_byte_escapes(pattern),
            stored.groups as usize,
            dense,
            paranoia_level > self.paranoia_level,
        )
    }
}

/// Validates one serialized DFA and copies it out. `from_bytes` needs 4-byte aligned input, which a position
/// inside the payload is not, so the bytes go through an aligned scratch buffer first. The start kind is
/// checked because a DFA built for another role would make the search fail.
fn load_dfa(
    bytes: &[u8],
    starts: StartKind,
    scratch: &mut Vec<u8>,
) -> Result<dense::DFA<Vec<u32>>, StoredRegexError> {
    // Reserve first: the buffer does not move afterwards, so the padding computed from its address holds, and
    // only the padding and the DFA are written (no zeroing of the whole buffer).
    scratch.clear();
    scratch.reserve(bytes.len() + 3);
    let pad = scratch.as_ptr().align_offset(4);
    if pad > 3 {
        return Err(StoredRegexError::Alignment);
    }
    scratch.resize(pad, 0);
    scratch.extend_from_slice(bytes);
    let aligned = &scratch[pad..];
    let (dfa, used) =
        dense::DFA::from_bytes(aligned).map_err(|e| StoredRegexError::Dfa(e.to_string()))?;
    if used != bytes.len() {
        return Err(StoredRegexError::TrailingBytes(bytes.len() - used));
    }
    let fits = match starts {
        StartKind::Anchored => dfa.start_kind() == StartKind::Anchored,
        _ => dfa.start_kind() != StartKind::Anchored,
    };
    if !fits || dfa.pattern_len() != 1 {
        return Err(StoredRegexError::WrongRole);
    }
    Ok(dfa.to_owned())
}
