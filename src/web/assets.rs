//! The page, its assets and its icon, compiled into the binary (the panel works offline), and
//! the token hand-over: the printed URL's `?token=` becomes an HttpOnly SameSite=Strict cookie
//! and the browser is sent on to `/trilogy/` without it, keeping the rest of the address (a
//! link's `root` and `tab`).

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::fence::{COOKIE, same_token};

const INDEX: &str = include_str!("../../templates/panel/index.html");
const SCRIPT: &str = include_str!("../../templates/panel/panel.js");
const CARDS: &str = include_str!("../../templates/panel/cards.js");
const STYLE: &str = include_str!("../../templates/panel/panel.css");
const ICON: &str = include_str!("../../templates/panel/icon.svg");

/// The asset at `/trilogy/<name>`, if it is one.
pub fn asset(name: &str) -> Option<Response> {
    let (body, mime) = match name {
        "" | "index.html" => (INDEX, "text/html; charset=utf-8"),
        "panel.js" => (SCRIPT, "text/javascript; charset=utf-8"),
        "cards.js" => (CARDS, "text/javascript; charset=utf-8"),
        "panel.css" => (STYLE, "text/css; charset=utf-8"),
        "icon.svg" => (ICON, "image/svg+xml"),
        _ => return None,
    };
    Some(
        (
            StatusCode::OK,
            [
                (header::CONTENT_TYPE, mime),
                (header::CACHE_CONTROL, "no-store"),
                (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
                (header::REFERRER_POLICY, "no-referrer"),
            ],
            body,
        )
            .into_response(),
    )
}

/// `GET /favicon.ico`, which browsers ask for by themselves: the panel's icon (an SVG, which
/// every browser the panel supports draws from this address too).
pub fn favicon() -> Response {
    asset("icon.svg").unwrap_or_else(|| StatusCode::NOT_FOUND.into_response())
}

/// A redirect to `to`.
pub fn redirect(to: &str) -> Response {
    let mut r = StatusCode::SEE_OTHER.into_response();
    if let Ok(v) = HeaderValue::from_str(to) {
        r.headers_mut().insert(header::LOCATION, v);
    }
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// The `token` of a query string.
pub fn query_token(query: Option<&str>) -> Option<String> {
    let q = query?;
    q.split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == "token")
        .map(|(_, v)| v.to_string())
}

/// `query` without its `token` parameters, the others as they were written and in their order.
fn without_token(query: Option<&str>) -> String {
    (query.unwrap_or("").split('&'))
        .filter(|kv| !kv.is_empty() && kv.split('=').next() != Some("token"))
        .collect::<Vec<_>>()
        .join("&")
}

/// `GET /trilogy/?token=…`: with the launch's token, set the cookie and redirect to the page
/// without it (the token leaves the address bar and the history), keeping the rest of the
/// query, so a link's `root` and `tab` survive the hand-over; without it, the page.
pub fn page(query: Option<&str>, token: &str) -> Response {
    match query_token(query) {
        Some(t) if same_token(&t, token) => {
            let rest = without_token(query);
            let to = match rest.is_empty() {
                true => "/trilogy/".to_string(),
                false => format!("/trilogy/?{rest}"),
            };
            let mut r = redirect(&to);
            let cookie = format!("{COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/trilogy");
            if let Ok(v) = HeaderValue::from_str(&cookie) {
                r.headers_mut().insert(header::SET_COOKIE, v);
            }
            r
        }
        _ => asset("").unwrap_or_else(|| StatusCode::NOT_FOUND.into_response()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hand_over_keeps_everything_but_the_token() {
        assert_eq!(without_token(None), "");
        assert_eq!(without_token(Some("token=abc")), "");
        assert_eq!(
            without_token(Some("token=abc&root=%2Fw%2Fa&tab=archive")),
            "root=%2Fw%2Fa&tab=archive"
        );
        assert_eq!(
            without_token(Some("root=%2Fw&token=abc&tab=agent&token=x")),
            "root=%2Fw&tab=agent"
        );
        // a parameter merely starting with the word is kept
        assert_eq!(without_token(Some("tokens=1&token=a")), "tokens=1");
    }

    #[test]
    fn the_hand_over_redirects_to_the_place_the_link_named() {
        let r = page(Some("token=t0k&root=%2Fw&tab=archive"), "t0k");
        assert_eq!(r.status(), StatusCode::SEE_OTHER);
        assert_eq!(
            r.headers()[header::LOCATION],
            "/trilogy/?root=%2Fw&tab=archive"
        );
        let r = page(Some("token=t0k"), "t0k");
        assert_eq!(r.headers()[header::LOCATION], "/trilogy/");
        // a wrong token is no hand-over: the page itself
        assert_eq!(
            page(Some("token=bad&tab=x"), "t0k").status(),
            StatusCode::OK
        );
    }
}
