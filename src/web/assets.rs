//! The page and its three assets, compiled into the binary (the panel works offline), and the
//! token hand-over: the printed URL's `?token=` becomes an HttpOnly SameSite=Strict cookie and
//! the browser is sent on to `/trilogy/` without it.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::fence::{COOKIE, same_token};

const INDEX: &str = include_str!("../../templates/panel/index.html");
const SCRIPT: &str = include_str!("../../templates/panel/panel.js");
const CARDS: &str = include_str!("../../templates/panel/cards.js");
const STYLE: &str = include_str!("../../templates/panel/panel.css");

/// The asset at `/trilogy/<name>`, if it is one.
pub fn asset(name: &str) -> Option<Response> {
    let (body, mime) = match name {
        "" | "index.html" => (INDEX, "text/html; charset=utf-8"),
        "panel.js" => (SCRIPT, "text/javascript; charset=utf-8"),
        "cards.js" => (CARDS, "text/javascript; charset=utf-8"),
        "panel.css" => (STYLE, "text/css; charset=utf-8"),
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

/// `GET /trilogy/?token=…`: with the launch's token, set the cookie and redirect to the bare
/// page (the token leaves the address bar and the history); without it, the page.
pub fn page(query: Option<&str>, token: &str) -> Response {
    match query_token(query) {
        Some(t) if same_token(&t, token) => {
            let mut r = redirect("/trilogy/");
            let cookie = format!("{COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/trilogy");
            if let Ok(v) = HeaderValue::from_str(&cookie) {
                r.headers_mut().insert(header::SET_COOKIE, v);
            }
            r
        }
        _ => asset("").unwrap_or_else(|| StatusCode::NOT_FOUND.into_response()),
    }
}
