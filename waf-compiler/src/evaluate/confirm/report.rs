//! Reports quote code. A page whose Content Security Policy has `'report-sample'` makes the browser report the
//! first 40 characters of the script or style it blocked (CSP 3, "Report a violation"): in
//! `csp-report.script-sample` of an `application/csp-report` body (CSP 2's `report-uri`), in `body.sample` of
//! each report of an `application/reports+json` array (the Reporting API's `report-to`). Browser extensions that
//! inject scripts make such reports on every page, and their samples are JavaScript by definition. Error
//! trackers' events quote the code of each frame of a stack trace (Sentry's `context_line`, Rollbar's and
//! Bugsnag's `code`, Honeybadger's `source`) with its file, function and local variables, and say what the program
//! threw and did before: the exception's class and message, its stack as the runtime printed it, the breadcrumbs
//! (console messages, requests made, elements clicked). Their SDKs post them to the tracker, its webhooks and a
//! site's own tunnel pass them on. OpenTelemetry's exporters post, as OTLP/JSON or protobuf, the spans and logs a
//! program recorded (the statements it sent its database, the URLs it fetched, the exceptions it caught).

use super::Request;

/// The media types of browsers' violation reports.
const REPORT_TYPES: [&[u8]; 2] = [b"application/csp-report", b"application/reports+json"];

/// Whether the value named `request.name` is the code sample of a browser's violation report, or what an error
/// report or a telemetry export quotes of the program that sent it.
pub fn is_code_sample(request: Request<'_>) -> bool {
    is_violation_sample(request)
        || is_protobuf_export(request)
        || is_ingested_record(request)
        || request.name.strip_prefix(b"json.").is_some_and(|path| {
            let parts: Vec<&[u8]> = path.split(|&b| b == b'.').collect();
            is_stack_frame_field(&parts) || is_error_field(&parts) || is_telemetry_record(&parts)
        })
}

/// Members of a stack trace's frame that quote the code or name where it ran, by the error trackers' protocols:
/// Sentry's (`context_line`, `pre_context`, `post_context`, `abs_path`, `vars`...), Rollbar's (`code`,
/// `context.pre`, `locals`), Bugsnag's and Airbrake's (`code`, `file`, `method`), Honeybadger's (`source`).
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
    b"locals",
    b"argspec",
];

/// Whether the JSON member path `parts` (after `json.`) is a [`FRAME_FIELDS`] member of a numbered frame of a
/// stack trace: `...stacktrace.frames.2.context_line` (Sentry, Rollbar's `trace.frames`),
/// `...stacktrace.0.code.118` (Bugsnag), `...backtrace.3.source.7` (Honeybadger, Airbrake).
fn is_stack_frame_field(parts: &[&[u8]]) -> bool {
    parts.windows(3).any(|w| {
        matches!(w[0], b"frames" | b"stacktrace" | b"backtrace")
            && !w[1].is_empty()
            && w[1].iter().all(u8::is_ascii_digit)
            && FRAME_FIELDS.contains(&w[2])
    })
}

/// Members of an exception that say what was thrown, by the error trackers' protocols: Sentry's
/// `exception.values.0.value` and `type`, Bugsnag's `exceptions.0.errorClass` and `message`, Rollbar's
/// `trace.exception.class` and `description`, Crashlytics' `exception.reason`.
const EXCEPTION_FIELDS: &[&[u8]] = &[
    b"value",
    b"type",
    b"module",
    b"message",
    b"errorClass",
    b"errorMessage",
    b"class",
    b"description",
    b"reason",
    b"name",
];

/// Names of a stack trace a runtime printed as one string (JavaScript's `Error.stack`, Java's
/// `printStackTrace`).
const STACK_FIELDS: &[&[u8]] = &[b"stack", b"stacktrace", b"stack_trace", b"backtrace"];

/// Whether the JSON member path `parts` is what an error report says of the error: an [`EXCEPTION_FIELDS`]
/// member inside an `exception` or `exceptions` member (`exception.values.0.value`, `exceptions.0.errorClass`),
/// a [`STACK_FIELDS`] member inside a member named for an error or an exception (`error.stack`,
/// `raw_error.stack`), or a breadcrumb's ([`is_breadcrumb_field`]: the console lines, requests and clicks before
/// the error).
fn is_error_field(parts: &[&[u8]]) -> bool {
    let Some((leaf, path)) = parts.split_last() else {
        return false;
    };
    let inside = |test: fn(&[u8]) -> bool| path.iter().any(|part| test(part));
    is_breadcrumb_field(parts)
        || (EXCEPTION_FIELDS.contains(leaf)
            && inside(|part| matches!(part, b"exception" | b"exceptions")))
        || (STACK_FIELDS.contains(leaf)
            && inside(|part| {
                let part = part.to_ascii_lowercase();
                [b"error".as_slice(), b"exception"]
                    .iter()
                    .any(|word| part.windows(word.len()).any(|w| w == *word))
            }))
}

/// Members of a breadcrumb, by the error trackers' protocols: Sentry's `message`, `category` and `data`,
/// Bugsnag's `name`, `type` and `metaData`.
const BREADCRUMB_FIELDS: &[&[u8]] = &[
    b"message",
    b"category",
    b"type",
    b"level",
    b"name",
    b"data",
    b"metaData",
];

/// Whether the JSON member path `parts` is a [`BREADCRUMB_FIELDS`] member of a numbered breadcrumb, or inside
/// one (`breadcrumbs.3.message`, Sentry's `breadcrumbs.values.3.data.url`, Bugsnag's `breadcrumbs.1.metaData.url`):
/// a navigation trail's `breadcrumbs.0.title` in a page's settings is none.
fn is_breadcrumb_field(parts: &[&[u8]]) -> bool {
    let Some(at) = parts.iter().position(|part| *part == b"breadcrumbs") else {
        return false;
    };
    let rest = &parts[at + 1..];
    let rest = rest.strip_prefix(&[b"values".as_slice()]).unwrap_or(rest);
    matches!(rest, [index, field, ..] if index.iter().all(u8::is_ascii_digit) && !index.is_empty() && BREADCRUMB_FIELDS.contains(field))
}

/// Whether the JSON member path `parts` is inside an OTLP/JSON export, OpenTelemetry's spans, logs or metrics
/// (`resourceSpans.0.scopeSpans.0.spans.3.attributes.2.value.stringValue`).
fn is_telemetry_record(parts: &[&[u8]]) -> bool {
    matches!(
        parts.first(),
        Some(&(b"resourceSpans" | b"resourceLogs" | b"resourceMetrics"))
    )
}

/// The paths OTLP/HTTP exports are posted to (OpenTelemetry's protocol fixes them), under a collector's root or
/// a vendor's prefix (`/otlp/v1/traces`).
const EXPORT_PATHS: [&str; 3] = ["/v1/traces", "/v1/logs", "/v1/metrics"];

/// Whether the value is a string of an OTLP export in protobuf (`application/x-protobuf` posted to one of
/// [`EXPORT_PATHS`]): its fields have no names, and every string is what the program recorded, as in the JSON
/// encoding ([`is_telemetry_record`]).
fn is_protobuf_export(request: Request<'_>) -> bool {
    request.name.is_empty()
        && EXPORT_PATHS
            .iter()
            .any(|export| request.path().ends_with(export))
        && is_labelled(request, &[b"application/x-protobuf"])
}

/// The paths of Splunk's HTTP Event Collector: events as JSON, raw log lines, each also under its version.
const COLLECTOR_PATHS: [&str; 3] = [
    "/services/collector",
    "/services/collector/event",
    "/services/collector/raw",
];

/// Rollbar's item API, one item or a batch.
const ITEM_PATHS: [&str; 2] = ["/api/1/item/", "/api/1/item_batch"];

/// Whether the request is posted to a log or error collector whose protocol fixes both its path and the
/// credential it sends, so that every value in it is what a program recorded: Splunk's HTTP Event Collector
/// (`Authorization: Splunk <token>`: log lines and events with the files they came from, `/var/log/...`, the
/// request objects and paths a logger printed), Rollbar's items (`X-Rollbar-Access-Token`: the error, its frames
/// and the server's `root`).
fn is_ingested_record(request: Request<'_>) -> bool {
    let path = request.path();
    let path = path.strip_suffix("/1.0").unwrap_or(path);
    let collector = COLLECTOR_PATHS.iter().any(|known| path.ends_with(known))
        && request
            .header("authorization")
            .is_some_and(|value| super::credentials::scheme(value).eq_ignore_ascii_case(b"Splunk"));
    let items = ITEM_PATHS.iter().any(|known| path.ends_with(known))
        && request.header("x-rollbar-access-token").is_some();
    collector || items
}

/// Whether the request's `Content-Type` names one of `media_types` (its parameters aside).
fn is_labelled(request: Request<'_>, media_types: &[&[u8]]) -> bool {
    request.headers.iter().any(|(name, value)| {
        name.eq_ignore_ascii_case("content-type") && {
            let media = value
                .split(|&b| b == b';')
                .next()
                .unwrap_or_default()
                .trim_ascii();
            media_types
                .iter()
                .any(|known| media.eq_ignore_ascii_case(known))
        }
    })
}

/// Whether the value named `request.name` is the code sample of a browser's violation report.
fn is_violation_sample(request: Request<'_>) -> bool {
    is_labelled(request, &REPORT_TYPES) && is_sample_name(request.name)
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

    fn reported(name: &str) -> bool {
        is_code_sample(Request {
            name: name.as_bytes(),
            ..Request::default()
        })
    }

    #[test]
    fn what_error_reports_and_telemetry_say_of_the_program() {
        for name in [
            "json.exception.values.0.value",
            "json.events.0.exceptions.0.errorClass",
            "json.data.body.trace.exception.message",
            "json.events.0.breadcrumbs.2.name",
            "json.breadcrumbs.values.4.data.url",
            "json.data.notifier.diagnostic.raw_error.stack",
            "json.error.stack",
            "json.data.body.trace.frames.1.locals.request",
            "json.resourceSpans.0.scopeSpans.0.spans.0.attributes.2.value.stringValue",
            "json.resourceLogs.0.scopeLogs.0.logRecords.0.body.stringValue",
        ] {
            assert!(reported(name), "{name}");
        }
        for name in [
            "json.comment",
            "json.stack",
            "json.exception",
            "json.order.exception.note",
            "json.page.breadcrumbs.0.title",
            "json.breadcrumbs.label",
            "json.tech.stack",
            "breadcrumbs.0.name",
            "json.data.resourceSpans",
        ] {
            assert!(!reported(name), "{name}");
        }
    }

    #[test]
    fn the_strings_of_a_protobuf_export() {
        let export = |target: &str, content_type: &str, name: &str| {
            let headers = [("Content-Type", content_type.as_bytes())];
            is_code_sample(Request {
                target,
                headers: &headers,
                name: name.as_bytes(),
                ..Request::default()
            })
        };
        assert!(export("/v1/traces", "application/x-protobuf", ""));
        assert!(export("/otlp/v1/logs", "application/x-protobuf", ""));
        assert!(!export("/v1/traces", "application/x-protobuf", "q"));
        assert!(!export("/v1/orders", "application/x-protobuf", ""));
        assert!(!export("/v1/traces", "text/plain", ""));
    }

    #[test]
    fn what_collectors_ingest() {
        let posted = |target: &str, header: (&str, &str)| {
            let headers = [
                ("Content-Type", b"application/json".as_slice()),
                (header.0, header.1.as_bytes()),
            ];
            is_code_sample(Request {
                target,
                headers: &headers,
                name: b"json.source",
                ..Request::default()
            })
        };
        assert!(posted(
            "/services/collector/event",
            ("Authorization", "Splunk 6d0f2c1e-99b1")
        ));
        assert!(posted(
            "/services/collector/raw/1.0?channel=x",
            ("Authorization", "splunk abc")
        ));
        assert!(posted(
            "/api/1/item/",
            ("X-Rollbar-Access-Token", "84a88dc6")
        ));
        assert!(!posted(
            "/services/collector/event",
            ("Authorization", "Bearer abc")
        ));
        assert!(!posted("/services/orders", ("Authorization", "Splunk abc")));
        assert!(!posted("/api/1/item/", ("Authorization", "Bearer abc")));
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
            assert!(reported(name), "{name}");
        }
        for name in [
            "json.frames.code",
            "json.stacktrace.frames.x.context_line",
            "json.stacktrace.frames.0.lineno_note",
            "stacktrace.frames.0.context_line",
        ] {
            assert!(!reported(name), "{name}");
        }
    }
}
