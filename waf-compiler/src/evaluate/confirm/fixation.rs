//! Session fixation: an attacker gets a victim's browser to send a session id of the attacker's choosing, by a
//! link to the site or a form on another site that posts to it. CRS flags any parameter named as a session id
//! (`session_id`, `PHPSESSID`...) with another site's Referer or none. Most such parameters are nothing of the
//! kind: an analytics script reporting its own `session_id` to its collector from the page that embeds it, a
//! payment provider's return link, a mobile app's API call. What tells them apart is how the request came:
//! - a browser says, in `Sec-Fetch-Mode`, whether a request is a navigation (`navigate`: a link, a form, a
//!   redirect) or a script's or subresource's request (`cors`, `no-cors`, `same-origin`); a script on another
//!   site cannot read or set the site's cookies through its own requests, so only a navigation is a vector;
//! - a navigation inside a frame (`Sec-Fetch-Dest: iframe`: a payment provider's buttons or form embedded in a
//!   shop's checkout page, with the shop's Referer) is a third-party request as a subresource is: browsers
//!   store no cookie of the default `SameSite=Lax` from a cross-site frame's response, and Firefox and Safari
//!   keep what a frame may store apart from the site's own (partitioned by the top-level site), so the frame
//!   fixes no session of the site's own pages any more than an image could; a link or a form that opens a
//!   page or a window (`document`) is the vector;
//! - a JSON body is sent by scripts alone (no link or form sends one), so a session id in it is no vector;
//! - a form a browser posts names the page it came from: every browser sends `Origin` on a `POST` (`null` when
//!   the page asks for no referrer), so a request of another method than `GET` or `HEAD` with neither `Origin`
//!   nor `Referer` is an app's, an SDK's or a server's call (a mobile app's API, a payment SDK's analytics), not
//!   a browser a victim was steered with (a browser too old to send `Origin`, Internet Explorer, is the cost);
//! - where `Sec-Fetch-Mode` is missing (Safari before 16.4, in-app web views, recorded traffic), a navigation
//!   still asks for a page: every browser's `Accept` for a document names `text/html` (or XHTML). A request that
//!   asks for anything else (`*/*`, JSON, an image) or says `X-Requested-With: XMLHttpRequest` is a script's.
//!   A WebSocket handshake (`Upgrade: websocket`) is a script's too, whatever it sends of the rest: no link or
//!   form opens one (browsers that send fetch metadata on it say `Sec-Fetch-Mode: websocket`).
//!
//! - a request with an `Authorization` a script or an app sets (`Bearer`, an API key's scheme) is theirs: a
//!   browser adds only the credentials of HTTP authentication on its own (Basic, Digest, Negotiate, NTLM).
//!
//! A client that sends neither (no `Accept` at all) is given no such credit.

use super::Confirmation;

/// Whether the parameter named `name` can have come through a link or a form the victim was sent to, by the
/// request's `method` and `headers`.
pub fn vector(name: &[u8], method: &str, headers: &[(&str, &[u8])]) -> Confirmation {
    let header = |name: &str| {
        headers
            .iter()
            .find(|(header, _)| header.eq_ignore_ascii_case(name))
            .map(|(_, value)| *value)
    };
    let fetch_mode = header("sec-fetch-mode");
    let asks_for_a_page = |accept: &[u8]| {
        let accept = accept.to_ascii_lowercase();
        memchr::memmem::find(&accept, b"text/html").is_some()
            || memchr::memmem::find(&accept, b"application/xhtml+xml").is_some()
    };
    let refused = |reason: &str| Confirmation {
        confirmed: false,
        reason: reason.to_owned(),
    };
    if name.starts_with(b"json.") {
        return refused("a session id in a JSON body, which no link or form sends");
    }
    let navigation_method = ["GET", "HEAD"]
        .iter()
        .any(|navigation| method.eq_ignore_ascii_case(navigation));
    if !navigation_method && header("origin").is_none() && header("referer").is_none() {
        return refused(
            "a request no browser sent (no Origin or Referer on a POST): an app's or a server's, not a victim's",
        );
    }
    // The destinations of a navigation that embeds the page in another (`frame` and `iframe`; `embed` and
    // `object` when those load a document; `fencedframe`).
    let framed = header("sec-fetch-dest").is_some_and(|dest| {
        [
            b"iframe".as_slice(),
            b"frame",
            b"embed",
            b"object",
            b"fencedframe",
        ]
        .iter()
        .any(|frame| dest.eq_ignore_ascii_case(frame))
    });
    let by_script = header("x-requested-with")
        .is_some_and(|value| value.eq_ignore_ascii_case(b"XMLHttpRequest"))
        || header("upgrade").is_some_and(|value| value.eq_ignore_ascii_case(b"websocket"))
        || header("authorization").is_some_and(|value| !is_browsers_own_credential(value));
    match fetch_mode {
        Some(mode) if !mode.eq_ignore_ascii_case(b"navigate") => refused(
            "a script's or subresource's request (Sec-Fetch-Mode), not a navigation a link or a form causes",
        ),
        Some(_) if framed => refused(
            "a navigation inside a frame (Sec-Fetch-Dest), whose cookies are a third party's, not the site's",
        ),
        None if by_script || header("accept").is_some_and(|accept| !asks_for_a_page(accept)) => {
            refused(
                "a request that asks for no page (Accept, X-Requested-With, Upgrade): a script's, not a navigation",
            )
        }
        _ => Confirmation {
            confirmed: true,
            reason: "a session id in a navigation's query or form".to_owned(),
        },
    }
}

/// The `Authorization` schemes a browser sends on its own, on a navigation too: HTTP authentication it answered
/// a challenge for (Basic, Digest) and the integrated Windows authentication of an intranet (Negotiate, NTLM).
/// Any other (`Bearer` of OAuth 2.0, an API key's) is set by a script or an app on each of its requests: no link
/// or form carries one.
const BROWSER_SCHEMES: [&[u8]; 4] = [b"basic", b"digest", b"negotiate", b"ntlm"];

fn is_browsers_own_credential(value: &[u8]) -> bool {
    let scheme = super::credentials::scheme(value);
    BROWSER_SCHEMES
        .iter()
        .any(|known| scheme.eq_ignore_ascii_case(known))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_navigations_and_forms_carry_a_fixation() {
        let mode = |value: &'static [u8]| [("Sec-Fetch-Mode", value)];
        assert!(vector(b"phpsessid", "GET", &[]).confirmed);
        assert!(vector(b"session_id", "GET", &mode(b"navigate")).confirmed);
        assert!(!vector(b"session_id", "GET", &mode(b"no-cors")).confirmed);
        assert!(!vector(b"session_id", "GET", &mode(b"cors")).confirmed);
        assert!(!vector(b"json.session_id", "GET", &[]).confirmed);
        let accept = |value: &'static [u8]| [("Accept", value)];
        assert!(
            vector(
                b"sessionid",
                "GET",
                &accept(b"text/html,application/xhtml+xml,*/*;q=0.8")
            )
            .confirmed
        );
        assert!(!vector(b"sessionid", "GET", &accept(b"*/*")).confirmed);
        let authorization = |value: &'static [u8]| [("Authorization", value)];
        assert!(
            !vector(
                b"sessionId",
                "GET",
                &authorization(b"bearer eyJ0eXAi.eyJhdWQi.sFsy")
            )
            .confirmed
        );
        assert!(vector(b"sessionId", "GET", &authorization(b"Basic dXNlcjpwYXNz")).confirmed);
        assert!(
            !vector(
                b"session_id",
                "GET",
                &[("Upgrade", b"websocket".as_slice())]
            )
            .confirmed
        );
        assert!(
            !vector(
                b"sessionid",
                "GET",
                &accept(b"application/json, text/plain, */*")
            )
            .confirmed
        );
        assert!(
            !vector(
                b"sessionid",
                "GET",
                &[("X-Requested-With", b"XMLHttpRequest".as_slice())]
            )
            .confirmed
        );
        // Sec-Fetch-Mode, when sent, decides.
        let navigation = [
            ("Sec-Fetch-Mode", b"navigate".as_slice()),
            ("Accept", b"*/*"),
        ];
        assert!(vector(b"sessionid", "GET", &navigation).confirmed);
        let framed = |dest: &'static [u8]| {
            vector(
                b"sessionID",
                "GET",
                &[
                    ("Sec-Fetch-Mode", b"navigate".as_slice()),
                    ("Sec-Fetch-Dest", dest),
                ],
            )
            .confirmed
        };
        assert!(!framed(b"iframe"));
        assert!(!framed(b"frame"));
        assert!(framed(b"document"));
    }

    #[test]
    fn a_post_without_origin_or_referer_is_no_browser_form() {
        let form = [(
            "Content-Type",
            b"application/x-www-form-urlencoded".as_slice(),
        )];
        assert!(!vector(b"session_id", "POST", &form).confirmed);
        assert!(!vector(b"session_id", "put", &form).confirmed);
        // A browser's form names its page, even a page that sends no referrer.
        let from = |header: &'static str, value: &'static [u8]| {
            vector(b"session_id", "POST", &[form[0], (header, value)]).confirmed
        };
        assert!(from("Origin", b"null"));
        assert!(from("Origin", b"https://attacker.example"));
        assert!(from("Referer", b"https://attacker.example/page"));
        // A link carries neither.
        let page = [("Accept", b"text/html,*/*;q=0.8".as_slice())];
        assert!(vector(b"session_id", "GET", &page).confirmed);
        assert!(vector(b"session_id", "HEAD", &page).confirmed);
    }
}
