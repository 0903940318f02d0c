//! Conversion of OWASP CRS (ModSecurity `SecRule`) rule files into our rule format.
//!
//! CRS releases keep coming, so the converted rules in `crs-942/` are not maintained by hand: they
//! are this converter's output (`rulec import-crs FILE -o DIR`), and a test keeps them in sync.
//! The work is split in three steps, each testable alone:
//! [`secrule`] parses the ModSecurity syntax, [`convert`] maps it onto our format and records what
//! it cannot express, and [`yaml`] writes the result. Patterns are copied verbatim: the engine reads
//! them with PCRE's semantics (see `operator/regex.rs`).
//!
//! One CRS file becomes one YAML file with a `rules:` list: operators enable, disable and diff CRS
//! by file, a new CRS release then shows up as one reviewable diff, and the upstream copyright
//! notice is carried once, at the top.

pub mod convert;
pub mod secrule;
pub mod yaml;

use std::fmt;
use std::path::{Path, PathBuf};

/// The result of converting one CRS file.
#[derive(Debug)]
pub struct Import {
    /// Name of the YAML file: the CRS file's name with `.yaml` for `.conf`.
    pub file_name: String,
    pub yaml: String,
    pub rule_count: usize,
    /// Everything the conversion could not express, one line each, naming rule id and construct.
    pub warnings: Vec<String>,
}

/// Converts the text of one CRS file named `source_name`, with nothing to read besides it.
pub fn import(source: &str, source_name: &str) -> Result<Import, secrule::ParseError> {
    import_with(source, source_name, &convert::Context::default())
}

/// Converts the text of one CRS file named `source_name`, reading `.data` files and 901's defaults through
/// `context`.
pub fn import_with(
    source: &str,
    source_name: &str,
    context: &convert::Context<'_>,
) -> Result<Import, secrule::ParseError> {
    let directives = secrule::parse(source)?;
    let converted = convert::convert_with(&directives, context);
    let mut warnings: Vec<String> = converted
        .warnings
        .iter()
        .map(|w| match w.rule_id {
            Some(id) => format!("{source_name}:{}: rule {id}: {}", w.line, w.message),
            None => format!("{source_name}:{}: {}", w.line, w.message),
        })
        .collect();
    for rule in &converted.rules {
        warnings.extend(
            rule.warnings
                .iter()
                .map(|w| format!("{source_name}: rule {}: {w}", rule.rule.id)),
        );
    }
    let stem = source_name.strip_suffix(".conf").unwrap_or(source_name);
    Ok(Import {
        file_name: format!("{stem}.yaml"),
        yaml: yaml::write(&converted, source_name, &leading_notice(source)),
        rule_count: converted.rules.len(),
        warnings,
    })
}

/// The comment block a CRS file starts with: its copyright and licence notice.
fn leading_notice(source: &str) -> String {
    source
        .lines()
        .take_while(|line| line.starts_with('#'))
        .map(|line| format!("{line}\n"))
        .collect()
}

/// Why `import_file` failed.
#[derive(Debug)]
pub enum ImportError {
    Read(PathBuf, std::io::Error),
    Parse(PathBuf, secrule::ParseError),
    Write(PathBuf, std::io::Error),
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::Read(path, e) => write!(f, "cannot read {}: {e}", path.display()),
            ImportError::Parse(path, e) => write!(f, "{}: {e}", path.display()),
            ImportError::Write(path, e) => write!(f, "cannot write {}: {e}", path.display()),
        }
    }
}

impl std::error::Error for ImportError {}

/// The CRS file that sets the transaction variables' defaults, read from beside the file being converted.
const INITIALIZATION_FILE: &str = "REQUEST-901-INITIALIZATION.conf";

/// Converts the CRS file at `source` and writes the YAML into `out_dir` (created if missing).
/// `@pmFromFile`'s `.data` files and the initialization file (for `%{tx.*}` defaults) are read from
/// `source`'s directory. Returns the import with the path written in `file_name`'s place.
pub fn import_file(source: &Path, out_dir: &Path) -> Result<(Import, PathBuf), ImportError> {
    let text =
        std::fs::read_to_string(source).map_err(|e| ImportError::Read(source.to_path_buf(), e))?;
    let name = source
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "rules.conf".to_string());
    let dir = source.parent().unwrap_or(Path::new("."));
    let initialization = dir.join(INITIALIZATION_FILE);
    let (tx_defaults, settings) = match std::fs::read_to_string(&initialization) {
        Ok(init) => {
            let directives =
                secrule::parse(&init).map_err(|e| ImportError::Parse(initialization.clone(), e))?;
            (
                convert::tx_defaults(&directives),
                convert::crs_settings(&directives),
            )
        }
        // Without it, macros stay unresolved and each is reported.
        Err(_) => Default::default(),
    };
    let read_data = |data_name: &str| {
        // A data file is named, never a path: a rule file cannot make the importer read elsewhere.
        if data_name.contains(['/', '\\']) || data_name.starts_with('.') {
            return Err(convert::DataFileError::NotAPlainName);
        }
        let path = dir.join(data_name);
        std::fs::read_to_string(&path)
            .map_err(|source| convert::DataFileError::Unreadable { path, source })
    };
    let context = convert::Context {
        data_file: Some(&read_data),
        tx_defaults,
        settings,
    };
    let import = import_with(&text, &name, &context)
        .map_err(|e| ImportError::Parse(source.to_path_buf(), e))?;
    std::fs::create_dir_all(out_dir).map_err(|e| ImportError::Write(out_dir.to_path_buf(), e))?;
    let target = out_dir.join(&import.file_name);
    std::fs::write(&target, &import.yaml).map_err(|e| ImportError::Write(target.clone(), e))?;
    Ok((import, target))
}
