//! Browsers' violation reports quote code. A page whose Content Security Policy has `'report-sample'` makes the
//! browser report the first 40 characters of the script or style it blocked (CSP 3, "Report a violation"): in
//! `csp-report.script-sample` of an `application/csp-report` body (CSP 2's `report-uri`), in `body.sample` of
//! each report of an `application/reports+json` array (the Reporting API's `report-to`). Browser extensions that
//! inject scripts make such reports on every page, and their samples are JavaScript by definition.

use super::Request;

/// The media types of browsers' violation reports.
const REPORT_TYPES: [&[u8]; 2] = [b"application/csp-report", b"application/reports+json"];

/// Whether the value named `request.name` is the code sample of a browser's violation report.
pub fn is_code_sample(request: Request<'_>) -> bool {
    let is_report = request.headers.iter().any(|(name, value)| {
        name.eq_ignore_ascii_case("content-type") && {
            let media = value.split(|&b| b == b';').next().unwrap_or_default();
            REPORT_TYPES
                .iter()
                .any(|report| media.trim_ascii().eq_ignore_ascii_case(report))
        }
    });
    is_report && is_sample_name(request.name)
}

/// `json.csp-report.script-sample`, or `json.<index>.body.sample` of a report in an array (`json.body.sample` for
/// a report sent alone).
fn is_sample_name(name: &[u8]) -> bool {
    if name == b"json.csp-report.script-sample" || name == b"json.body.sample" {
        return true;
    }
    name.strip_prefix(b"json.")
        .and_then(|rest| rest.strip_suffix(b".body.sample"))
        .is_some_and(|index| !index.is_empty() && index.iter().all(u8::is_ascii_digit))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(content_type: &str, name: &str) -> bool {
        let headers = [("Content-Type", content_type.as_bytes())];
        is_code_sample(Request {
            headers: &headers,
            name: name.as_bytes(),
            cookie: false,
        })
    }

    #[test]
    fn the_samples_of_violation_reports() {
        assert!(sample(
            "application/csp-report",
            "json.csp-report.script-sample"
        ));
        assert!(sample("application/reports+json", "json.0.body.sample"));
        assert!(sample(
            "application/reports+json; charset=utf-8",
            "json.12.body.sample"
        ));
        assert!(!sample("application/json", "json.csp-report.script-sample"));
        assert!(!sample(
            "application/csp-report",
            "json.csp-report.document-uri"
        ));
        assert!(!sample("application/reports+json", "json.x.body.sample"));
    }
}
