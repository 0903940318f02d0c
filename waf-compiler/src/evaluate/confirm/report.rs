//! Reports quote code. A page whose Content Security Policy has `'report-sample'` makes the browser report the
//! first 40 characters of the script or style it blocked (CSP 3, "Report a violation"): in
//! `csp-report.script-sample` of an `application/csp-report` body (CSP 2's `report-uri`), in `body.sample` of
//! each report of an `application/reports+json` array (the Reporting API's `report-to`). Browser extensions that
//! inject scripts make such reports on every page, and their samples are JavaScript by definition. Error
//! trackers' events quote the code of each frame of a stack trace (Sentry's `context_line`, Rollbar's and
//! Bugsnag's `code`, Honeybadger's `source`) with its file, function and local variables: their SDKs post them
//! to the tracker, its webhooks and a site's own tunnel pass them on.

use super::Request;

/// The media types of browsers' violation reports.
const REPORT_TYPES: [&[u8]; 2] = [b"application/csp-report", b"application/reports+json"];

/// Whether the value named `request.name` is the code sample of a browser's violation report or what an error
/// report says of a frame of a stack trace.
pub fn is_code_sample(request: Request<'_>) -> bool {
    is_violation_sample(request) || is_stack_frame_field(request.name)
}

/// Members of a stack trace's frame that quote the code or name where it ran, by the error trackers' protocols:
/// Sentry's (`context_line`, `pre_context`, `post_context`, `abs_path`, `vars`...), Rollbar's (`code`,
/// `context.pre`), Bugsnag's and Airbrake's (`code`, `file`, `method`), Honeybadger's (`source`).
const FRAME_FIELDS: &[&[u8]] = &[
    b"context_line",
    b"pre_context",
    b"post_context",
    b"code",
    b"source",
    b"context",
    b"filename",
    b"abs_path",
    b"file",
    b"module",
    b"function",
    b"raw_function",
    b"method",
    b"symbol",
    b"package",
    b"vars",
];

/// Whether the JSON member `name` is a [`FRAME_FIELDS`] member of a numbered frame of a stack trace:
/// `...stacktrace.frames.2.context_line` (Sentry, Rollbar's `trace.frames`), `...stacktrace.0.code.118`
/// (Bugsnag), `...backtrace.3.source.7` (Honeybadger, Airbrake).
fn is_stack_frame_field(name: &[u8]) -> bool {
    let Some(path) = name.strip_prefix(b"json.") else {
        return false;
    };
    let parts: Vec<&[u8]> = path.split(|&b| b == b'.').collect();
    parts.windows(3).any(|w| {
        matches!(w[0], b"frames" | b"stacktrace" | b"backtrace")
            && !w[1].is_empty()
            && w[1].iter().all(u8::is_ascii_digit)
            && FRAME_FIELDS.contains(&w[2])
    })
}

/// Whether the value named `request.name` is the code sample of a browser's violation report.
fn is_violation_sample(request: Request<'_>) -> bool {
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
            ..Request::default()
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

    #[test]
    fn the_code_of_stack_frames() {
        for name in [
            "json.data.event.exception.values.0.stacktrace.frames.2.context_line",
            "json.exception.values.0.stacktrace.frames.0.pre_context.1",
            "json.data.body.trace.frames.4.code",
            "json.events.0.exceptions.0.stacktrace.0.code.118",
            "json.error.backtrace.3.source.7",
            "json.stacktrace.frames.1.vars.request",
        ] {
            assert!(is_stack_frame_field(name.as_bytes()), "{name}");
        }
        for name in [
            "json.frames.code",
            "json.stacktrace.frames.x.context_line",
            "json.stacktrace.frames.0.lineno_note",
            "stacktrace.frames.0.context_line",
        ] {
            assert!(!is_stack_frame_field(name.as_bytes()), "{name}");
        }
    }
}
