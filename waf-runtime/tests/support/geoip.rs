//! GeoIP databases for the tests: MaxMind-format files written with the Python writer of the test virtualenv.
use super::*;

/// `$TEST_PYTHON` (the test virtualenv of `.ci/install`), or `None` after reporting why not.
pub fn python_with_mmdb_writer() -> Option<PathBuf> {
    let python = std::env::var_os("TEST_PYTHON").map(PathBuf::from);
    let usable = python.as_ref().is_some_and(|p| {
        Command::new(p)
            .args(["-c", "import mmdb_writer, netaddr"])
            .status()
            .is_ok_and(|s| s.success())
    });
    if usable {
        return python;
    }
    let why =
        "TEST_PYTHON is not a Python with mmdb-writer (see .ci/install and .ci/requirements.txt)";
    assert!(
        !std::env::var("REQUIRE_EXTERNAL_TESTS").is_ok_and(|v| v == "1"),
        "REQUIRE_EXTERNAL_TESTS=1 but {why}"
    );
    eprintln!("SKIPPED: {why}");
    None
}

/// Writes a MaxMind-format database mapping each network to a `country.iso_code` (IPv6 tree, IPv4 inside it as
/// real GeoIP2 databases do), with the Python writer.
pub fn write_mmdb(python: &Path, path: &Path, networks: &[(&str, &str)]) {
    let entries: Vec<String> = networks
        .iter()
        .map(|(net, code)| format!("({net:?}, {code:?})"))
        .collect();
    let script = format!(
        "import sys\nfrom netaddr import IPSet\nfrom mmdb_writer import MMDBWriter\n\
         w = MMDBWriter(ip_version=6, ipv4_compatible=True, database_type='GeoLite2-Country')\n\
         for net, code in [{}]:\n    w.insert_network(IPSet([net]), {{'country': {{'iso_code': code}}}})\n\
         w.to_db_file(sys.argv[1])\n",
        entries.join(", ")
    );
    let tmp = path.with_extension("tmp");
    let out = Command::new(python)
        .args(["-c", &script])
        .arg(&tmp)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::rename(tmp, path).unwrap();
}
