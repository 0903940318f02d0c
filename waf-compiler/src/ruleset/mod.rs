//! [`CompiledRuleSet`]: the one type the proxy holds. Built from rule directories, immutable afterwards,
//! `Send + Sync`, so it is shared behind an `Arc` and swapped whole on reload.

pub mod artifact;

use crate::compile::load::{LoadError, parse_rules, scan_dir};
use crate::compile::prefilter::{Prefilter, PrefilterError};
use crate::compile::{Chains, CompileOptions, CompiledRule, compile_rule};
use crate::evaluate::exclusion::Exclusions;
use crate::evaluate::verdict::{RuleMatch, Verdict};
use crate::evaluate::{self, Observer, Rules, Scratch, Silent};
use crate::regex_engine::{EnginePlan, Planner, RegexSource};
use crate::request::{HttpRequest, HttpResponse};
use crate::rule::{Phase, Rule};
use artifact::ArtifactError;
use sha2::{Digest, Sha256};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// A compiled, ready-to-evaluate rule set.
#[derive(Debug)]
pub struct CompiledRuleSet {
    /// Every valid rule, sorted by id; those above the paranoia level are kept (for `rulec explain`) but skipped.
    rules: Vec<CompiledRule>,
    chains: Chains,
    paranoia_level: u8,
    source_hash: String,
    /// How the regexes were compiled (the artifact records the DFA budget).
    plan: EnginePlan,
    /// Selects the rules that may match each value; `None` runs every rule on every value.
    prefilter: Option<Prefilter>,
    /// Whether evaluation remembers results across requests ([`crate::evaluate::memo`]); on by default.
    value_memo: bool,
    /// Whether hits of the injection families are confirmed before they score ([`crate::evaluate::confirm`]);
    /// on by default.
    confirm: bool,
    /// How many rules run (at or below the paranoia level): fixed at construction, asked on every request.
    active: usize,
}

/// What loading produced: the rules that loaded, and an error for each problem (broken files are skipped).
#[derive(Debug)]
pub struct LoadOutcome {
    pub ruleset: CompiledRuleSet,
    pub errors: Vec<LoadError>,
}

/// One rule file's contents (or why it could not be read), under the name errors should use.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub path: PathBuf,
    /// The path relative to its rule directory: what the source hash covers, so it is the same on every machine.
    pub relative: PathBuf,
    pub text: Result<String, SourceError>,
}

/// Why a rule file has no text to load. (`Arc`: a [`SourceFile`] is cloned, an I/O error cannot be.)
#[derive(Debug, Clone, thiserror::Error)]
pub enum SourceError {
    #[error("cannot read file: {0}")]
    Unreadable(std::sync::Arc<std::io::Error>),
    #[error("file is not UTF-8")]
    NotUtf8,
    /// Rules the caller generated (the proxy's per-domain rules) could not be written out as text.
    #[error("cannot write the rules as text: {0}")]
    Unwritable(std::sync::Arc<serde_json::Error>),
}

/// Every `.yaml`/`.yml` file below `dirs` (recursively), read, with the errors of unreadable directories: what
/// [`CompiledRuleSet::load_dirs`] compiles. A caller with rules from elsewhere (the proxy's per-domain rules in its
/// configuration) adds them and calls [`CompiledRuleSet::from_sources`].
pub fn read_dirs<P: AsRef<Path>>(dirs: &[P]) -> (Vec<SourceFile>, Vec<LoadError>) {
    let mut sources = Vec::new();
    let mut errors = Vec::new();
    for dir in dirs {
        let dir = dir.as_ref();
        let (files, mut scan_errors) = scan_dir(dir);
        errors.append(&mut scan_errors);
        for path in files {
            let text = std::fs::read(&path)
                .map_err(|e| SourceError::Unreadable(e.into()))
                .and_then(|bytes| String::from_utf8(bytes).map_err(|_| SourceError::NotUtf8));
            let relative = path.strip_prefix(dir).unwrap_or(&path).to_owned();
            sources.push(SourceFile {
                path,
                relative,
                text,
            });
        }
    }
    (sources, errors)
}

impl CompiledRuleSet {
    /// Loads every `.yaml`/`.yml` file below `dirs` (recursively). A broken file is skipped and reported; the rest
    /// loads.
    pub fn load_dirs<P: AsRef<Path>>(dirs: &[P], opts: &CompileOptions) -> LoadOutcome {
        Self::load_dirs_with(dirs, opts, EnginePlan::Lazy)
    }

    /// [`CompiledRuleSet::load_dirs`], compiling regexes by `plan` (dense DFAs take seconds to build: `rulec
    /// compile` asks for them, the proxy's YAML reload does not).
    pub fn load_dirs_with<P: AsRef<Path>>(
        dirs: &[P],
        opts: &CompileOptions,
        plan: EnginePlan,
    ) -> LoadOutcome {
        let (sources, mut errors) = read_dirs(dirs);
        let mut outcome = Self::from_sources_with(&sources, opts, plan);
        errors.append(&mut outcome.errors);
        outcome.errors = errors;
        outcome
    }

    /// Compiles rule files already in memory (the loader's core; also used by tests and the fuzzer).
    pub fn from_sources(sources: &[SourceFile], opts: &CompileOptions) -> LoadOutcome {
        Self::from_sources_with(sources, opts, EnginePlan::Lazy)
    }

    /// [`CompiledRuleSet::from_sources`], compiling regexes by `plan`.
    pub fn from_sources_with(
        sources: &[SourceFile],
        opts: &CompileOptions,
        plan: EnginePlan,
    ) -> LoadOutcome {
        let mut planner = Planner {
            plan,
            paranoia_level: opts.paranoia_level,
        };
        let mut hasher = Sha256::new();
        let mut errors = Vec::new();
        let mut chains = Chains::new(opts.unicode_map);
        let mut rules: Vec<CompiledRule> = Vec::new();
        let mut owner: HashMap<u32, PathBuf> = HashMap::new();
        // The settings in force: those configured, else the defaults given for them.
        let mut in_force = opts.default_settings.clone();
        in_force.extend(opts.settings.iter().map(|(k, v)| (k.clone(), v.clone())));
        let mut settings_read: HashSet<String> = HashSet::new();
        for source in sources {
            hash_source(&mut hasher, source);
            let text = match &source.text {
                Ok(text) => text,
                Err(error) => {
                    errors.push(LoadError::file(&source.path, error.to_string()));
                    continue;
                }
            };
            match compile_file(
                &source.path,
                text,
                &in_force,
                &mut settings_read,
                &mut chains,
                &owner,
                &mut planner,
            ) {
                Ok(compiled) => {
                    for mut rule in compiled {
                        owner.insert(rule.rule.id, source.path.clone());
                        rule.file = source.relative.display().to_string();
                        rules.push(rule);
                    }
                }
                Err(mut file_errors) => errors.append(&mut file_errors),
            }
        }
        hash_options(&mut hasher, opts, &in_force, &settings_read);
        // A misspelt name would silently change nothing: say so.
        errors.extend(
            opts.settings
                .keys()
                .filter(|name| !settings_read.contains(*name))
                .map(|name| {
                    LoadError::file(
                        Path::new("settings"),
                        format!("setting `{name}` is read by no loaded rule"),
                    )
                }),
        );
        rules.sort_by_key(|r| r.rule.id);
        let prefilter = Prefilter::build(&rules, &chains, opts.paranoia_level);
        let mut ruleset = CompiledRuleSet::from_parts(
            rules,
            chains,
            opts.paranoia_level,
            hex::encode(hasher.finalize()),
            plan,
        );
        // Built from these very rules, so it fits; were it refused, evaluation without it is still correct.
        let _ = ruleset.set_prefilter(Some(prefilter));
        LoadOutcome { ruleset, errors }
    }

    /// A rule set from rules compiled elsewhere (the artifact loader); `rules` must be sorted by id. It has no
    /// prefilter until [`CompiledRuleSet::set_prefilter`] gives it one.
    pub(crate) fn from_parts(
        rules: Vec<CompiledRule>,
        chains: Chains,
        paranoia_level: u8,
        source_hash: String,
        plan: EnginePlan,
    ) -> CompiledRuleSet {
        let active = count_active(&rules, paranoia_level);
        CompiledRuleSet {
            rules,
            chains,
            paranoia_level,
            source_hash,
            plan,
            prefilter: None,
            value_memo: true,
            confirm: true,
            active,
        }
    }

    /// Loads a compiled artifact file (see [`crate::ruleset::artifact`]); refuses a foreign, truncated, corrupt,
    /// other-version file with the matching [`ArtifactError`].
    pub fn from_artifact_file(path: &Path) -> Result<CompiledRuleSet, ArtifactError> {
        artifact::read_file(path).map(|a| a.ruleset)
    }

    /// Loads compiled artifact bytes.
    pub fn from_artifact(bytes: &[u8]) -> Result<CompiledRuleSet, ArtifactError> {
        artifact::read(bytes).map(|a| a.ruleset)
    }

    /// The artifact bytes of this rule set, with the DFAs it was compiled with.
    pub fn to_artifact(&self) -> Result<Vec<u8>, artifact::WriteError> {
        artifact::write(self)
    }

    /// How the regexes were compiled.
    pub fn engine_plan(&self) -> EnginePlan {
        self.plan
    }

    /// Evaluates a request: every matching rule at or below the paranoia level.
    pub fn evaluate(&self, request: &HttpRequest<'_>) -> Verdict {
        self.evaluate_observed(request, &mut Silent)
    }

    /// [`CompiledRuleSet::evaluate`], with rules not run on some values of the request ([`Exclusions`]: a
    /// domain's `excluded_variables`).
    pub fn evaluate_excluding(
        &self,
        request: &HttpRequest<'_>,
        excluded: Exclusions<'_>,
    ) -> Verdict {
        self.evaluate_in_thread_cache(request, excluded, &mut Silent)
    }

    /// [`CompiledRuleSet::evaluate`], reporting every inspected value to `observer`.
    pub fn evaluate_observed<O: Observer>(
        &self,
        request: &HttpRequest<'_>,
        observer: &mut O,
    ) -> Verdict {
        self.evaluate_in_thread_cache(request, Exclusions::default(), observer)
    }

    fn evaluate_in_thread_cache<O: Observer>(
        &self,
        request: &HttpRequest<'_>,
        excluded: Exclusions<'_>,
        observer: &mut O,
    ) -> Verdict {
        with_scratch(|cache| self.evaluate_excluding_with(request, excluded, cache, observer))
    }

    /// Evaluates the answer to `request`: every matching response rule (`phase: response`) at or below the
    /// paranoia level. Its [`Verdict::settle`] takes the outbound threshold
    /// ([`crate::DEFAULT_OUTBOUND_ANOMALY_THRESHOLD`] by default).
    pub fn evaluate_response(
        &self,
        request: &HttpRequest<'_>,
        response: &HttpResponse<'_>,
    ) -> Verdict {
        with_scratch(|cache| {
            evaluate::evaluate_response(
                &self.as_rules(Exclusions::default()),
                request,
                response,
                cache,
                &mut Silent,
            )
        })
    }

    /// Whether any response rule runs at the paranoia level: without one, the proxy need not inspect answers.
    pub fn has_response_rules(&self) -> bool {
        self.rules
            .iter()
            .any(|r| r.rule.phase == Phase::Response && r.runs_at(self.paranoia_level))
    }

    /// The logging phase (CRS's correlation, 980170): the `anomaly_report` rules that run, reported when the
    /// transaction scored at all, inbound (the request's verdict) plus outbound (the response's, when it was
    /// inspected), as CRS reports at its default reporting level (4).
    pub fn correlate(&self, inbound: &Verdict, outbound: Option<&Verdict>) -> Vec<RuleMatch> {
        self.correlate_scores(
            inbound.anomaly_score(),
            outbound.map_or(0, Verdict::anomaly_score),
        )
    }

    /// [`CompiledRuleSet::correlate`] from the scores alone: what the proxy has left of a transaction once its
    /// answer is on its way.
    pub fn correlate_scores(&self, inbound: u32, outbound: u32) -> Vec<RuleMatch> {
        if inbound.saturating_add(outbound) == 0 {
            return Vec::new();
        }
        self.correlation_rules()
            .map(|r| RuleMatch::correlation(&r.rule, inbound, outbound))
            .collect()
    }

    /// The ids of the logging phase's `anomaly_report` rules that run (CRS 980170): the rules
    /// [`CompiledRuleSet::correlate_scores`] reports with, without their messages (the proxy writes its own line
    /// and asks once, at load).
    pub fn correlation_rule_ids(&self) -> Vec<u32> {
        self.correlation_rules().map(|r| r.rule.id).collect()
    }

    /// The logging phase's rules that run at the set's paranoia level.
    fn correlation_rules(&self) -> impl Iterator<Item = &CompiledRule> {
        self.rules
            .iter()
            .filter(|r| r.rule.phase == Phase::Logging && r.runs_at(self.paranoia_level))
    }

    /// The rules as evaluation sees them.
    fn as_rules<'r>(&'r self, excluded: Exclusions<'r>) -> Rules<'r> {
        Rules {
            rules: &self.rules,
            chains: &self.chains,
            paranoia_level: self.paranoia_level,
            prefilter: self.prefilter.as_ref(),
            memo: self.value_memo,
            confirm: self.confirm,
            excluded,
        }
    }
}

/// Runs `f` with this thread's scratch, cleared (or a fresh one when the thread's is in use).
fn with_scratch<R>(f: impl FnOnce(&mut Scratch) -> R) -> R {
    {
        thread_local! {
            // The slot tables of the last request on this thread, cleared and reused: allocating them afresh was
            // a measurable share of a small request's time. What stays allocated is one slot table (a few dozen
            // bytes per value and chain) the size of the largest request seen; the values themselves are freed.
            static CACHE: RefCell<Scratch> = RefCell::new(Scratch::default());
        }
        CACHE.with(|cache| match cache.try_borrow_mut() {
            Ok(mut cache) => {
                cache.clear();
                f(&mut cache)
            }
            // An observer that evaluates another request from inside this one gets a cache of its own.
            Err(_) => f(&mut Scratch::default()),
        })
    }
}

impl CompiledRuleSet {
    /// [`CompiledRuleSet::evaluate_observed`] with a caller-provided cache of transformed values (which must be
    /// fresh for each request); tests use it to see what was computed.
    pub fn evaluate_with<O: Observer>(
        &self,
        request: &HttpRequest<'_>,
        cache: &mut Scratch,
        observer: &mut O,
    ) -> Verdict {
        self.evaluate_excluding_with(request, Exclusions::default(), cache, observer)
    }

    fn evaluate_excluding_with<O: Observer>(
        &self,
        request: &HttpRequest<'_>,
        excluded: Exclusions<'_>,
        cache: &mut Scratch,
        observer: &mut O,
    ) -> Verdict {
        evaluate::evaluate(&self.as_rules(excluded), request, cache, observer)
    }

    /// The literal prefilter in use, if any (built at load for the rule set's paranoia level).
    pub fn prefilter(&self) -> Option<&Prefilter> {
        self.prefilter.as_ref()
    }

    /// Replaces the prefilter (`None` turns it off, so results can be compared); one stored in an artifact must
    /// have been built for this rule set.
    pub fn set_prefilter(
        &mut self,
        mut prefilter: Option<Prefilter>,
    ) -> Result<(), PrefilterError> {
        if let Some(p) = &mut prefilter {
            p.attach(&self.rules, &self.chains)?;
        }
        self.prefilter = prefilter;
        Ok(())
    }

    /// The value in force of the setting `name` (`allowed_methods`) as the rules that read it carry it: the
    /// configured value, else the site policy's, else the rule's own pattern. None when no loaded rule reads it
    /// (the operator removed the rule that enforces it).
    pub fn setting(&self, name: &str) -> Option<&str> {
        self.rules.iter().find_map(|compiled| {
            let rule = &compiled.rule;
            (rule.setting.as_deref() == Some(name))
                .then_some(rule.pattern.as_deref())
                .flatten()
                .or_else(|| {
                    rule.chain
                        .iter()
                        .find(|condition| condition.setting.as_deref() == Some(name))
                        .map(|condition| condition.pattern.as_str())
                })
        })
    }

    /// Whether a rule with this id is loaded (at any paranoia level).
    pub fn has_rule(&self, id: u32) -> bool {
        self.rules.binary_search_by_key(&id, |r| r.rule.id).is_ok()
    }

    /// Takes the rules with these ids out of the set, as ModSecurity's `SecRuleRemoveById`: the operator's way to
    /// silence a rule that misfires on their application (for example CRS 911100, which refuses PUT and DELETE)
    /// without editing generated rule files. Works the same on a set loaded from YAML or from an artifact. The
    /// prefilter is rebuilt for the rules that remain (so the memo of earlier requests starts afresh) and the
    /// source hash covers the removal. Returns the ids that matched no loaded rule (a typo, most likely).
    pub fn disable_rules(&mut self, ids: &[u32]) -> Vec<u32> {
        if ids.is_empty() {
            return Vec::new();
        }
        let wanted: HashSet<u32> = ids.iter().copied().collect();
        let loaded: HashSet<u32> = self.rules.iter().map(|r| r.rule.id).collect();
        let mut unknown: Vec<u32> = wanted.difference(&loaded).copied().collect();
        unknown.sort_unstable();
        self.rules.retain(|r| !wanted.contains(&r.rule.id));
        let paranoia_level = self.paranoia_level;
        self.active = count_active(&self.rules, paranoia_level);
        let mut removed: Vec<u32> = wanted.intersection(&loaded).copied().collect();
        removed.sort_unstable();
        let mut hasher = Sha256::new();
        hasher.update(self.source_hash.as_bytes());
        hasher.update(b"\0disabled_rules\0");
        for id in &removed {
            hasher.update(id.to_le_bytes());
        }
        self.source_hash = hex::encode(hasher.finalize());
        let prefilter = Prefilter::build(&self.rules, &self.chains, paranoia_level);
        // Built from these very rules, so it fits; were it refused, evaluation without it is still correct.
        let _ = self.set_prefilter(Some(prefilter));
        unknown
    }

    /// Turns the memo of results across requests ([`crate::evaluate::memo`]) on or off: the verdicts are the same either
    /// way; off, every request pays for all of its values (benchmarks of the cold path, parity tests).
    pub fn set_value_memo(&mut self, on: bool) {
        self.value_memo = on;
    }

    /// Turns semantic confirmation ([`crate::evaluate::confirm`]) on or off: off, every hit scores in full, as in
    /// ModSecurity.
    pub fn set_confirm(&mut self, on: bool) {
        self.confirm = on;
    }

    /// Number of rules that run (at or below the paranoia level).
    pub fn rule_count(&self) -> usize {
        self.active
    }

    /// Every loaded rule, including those above the paranoia level, by id.
    pub fn rules(&self) -> impl Iterator<Item = &CompiledRule> {
        self.rules.iter()
    }

    pub fn paranoia_level(&self) -> u8 {
        self.paranoia_level
    }

    /// The distinct transform chains (index = chain id of [`CompiledRule::chain`]).
    pub fn chains(&self) -> &Chains {
        &self.chains
    }

    /// Hex SHA-256 of the source files (relative path and contents, in load order) and of what else changes what
    /// the rules match: the paranoia level, the settings they read, the Unicode map.
    pub fn source_hash(&self) -> &str {
        &self.source_hash
    }
}

/// Adds to the rule set's hash what changes what the rules match besides their sources: the paranoia level, the
/// settings the rules read (a setting changes what its rules match, as a source change would), the Unicode map.
fn hash_options(
    hasher: &mut Sha256,
    opts: &CompileOptions,
    in_force: &BTreeMap<String, String>,
    settings_read: &HashSet<String>,
) {
    hasher.update(b"paranoia_level\0");
    hasher.update([opts.paranoia_level]);
    for (name, value) in in_force
        .iter()
        .filter(|(name, _)| settings_read.contains(*name))
    {
        hasher.update(b"setting\0");
        hasher.update(name.as_bytes());
        hasher.update(b"\0");
        hasher.update(value.as_bytes());
        hasher.update(b"\0");
    }
    if let Some(code_page) = opts.unicode_map.code_page() {
        hasher.update(b"unicode_code_page\0");
        hasher.update(code_page.to_le_bytes());
    }
}

fn hash_source(hasher: &mut Sha256, source: &SourceFile) {
    let path = source.relative.to_string_lossy();
    let text = source.text.as_deref().unwrap_or("");
    // Length-prefixed fields, so no two different inputs hash the same byte stream.
    for field in [path.as_bytes(), text.as_bytes()] {
        hasher.update((field.len() as u64).to_le_bytes());
        hasher.update(field);
    }
}

/// Parses and compiles one file; any error rejects the whole file.
/// How many of `rules` run at `paranoia_level`.
fn count_active(rules: &[CompiledRule], paranoia_level: u8) -> usize {
    rules.iter().filter(|r| r.runs_at(paranoia_level)).count()
}

fn compile_file(
    path: &Path,
    text: &str,
    settings: &BTreeMap<String, String>,
    settings_read: &mut HashSet<String>,
    chains: &mut Chains,
    owner: &HashMap<u32, PathBuf>,
    regexes: &mut dyn RegexSource,
) -> Result<Vec<CompiledRule>, Vec<LoadError>> {
    let mut parsed: Vec<Rule> = parse_rules(path, text)?;
    // A configured setting replaces the pattern of the rules that name it; the compiled rule (and an artifact
    // made from it) carries the value in force.
    let mut apply = |name: &Option<String>, pattern: &mut String| {
        if let Some(name) = name {
            settings_read.insert(name.clone());
            if let Some(value) = settings.get(name) {
                value.clone_into(pattern);
            }
        }
    };
    for rule in &mut parsed {
        if let Some(pattern) = &mut rule.pattern {
            apply(&rule.setting, pattern);
        }
        for condition in &mut rule.chain {
            apply(&condition.setting, &mut condition.pattern);
        }
    }
    for rule in &mut parsed {
        for condition in &mut rule.when {
            settings_read.insert(condition.setting.clone());
            if let Some(value) = settings.get(&condition.setting) {
                condition.default = Some(value.clone());
            }
        }
    }
    let mut errors = Vec::new();
    let mut compiled = Vec::new();
    let mut seen_here: HashSet<u32> = HashSet::new();
    for rule in &parsed {
        let error = |field: &str, message: String| LoadError {
            file: path.to_owned(),
            rule_id: Some(rule.id),
            field: Some(field.to_owned()),
            message,
        };
        if let Some(other) = owner.get(&rule.id) {
            errors.push(error(
                "id",
                format!("duplicate id: already defined in {}", other.display()),
            ));
        } else if !seen_here.insert(rule.id) {
            errors.push(error(
                "id",
                format!("duplicate id: defined twice in {}", path.display()),
            ));
        }
        match compile_rule(rule, chains, regexes) {
            Ok(c) => compiled.push(c),
            Err(field_errors) => {
                errors.extend(field_errors.into_iter().map(|e| error(&e.field, e.message)))
            }
        }
    }
    if errors.is_empty() {
        Ok(compiled)
    } else {
        Err(errors)
    }
}
