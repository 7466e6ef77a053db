//! The fence every request passes before anything else runs: a plain function of the peer
//! address, the headers, the method and the launch's token, so tests can drive it with any
//! peer (a LAN address) without a second network.
//!
//! 1. the peer must be loopback (`127.0.0.1`, `::1`, `::ffff:127.0.0.1`), as the original;
//! 2. `Host` must be the name and port the server printed (`127.0.0.1:PORT` or
//!    `localhost:PORT`): a DNS-rebinding page reaches us under its own name;
//! 3. an `Origin`, when sent, must be the server's own;
//! 4. a request that changes something (any method but GET and HEAD) carries the per-launch
//!    token, from the `trilogy_token` cookie (the page) or the `x-trilogy-token` header
//!    (scripts).

use std::net::IpAddr;

use axum::http::{HeaderMap, Method, header};

use super::{Said, says};

/// Name of the cookie that carries the token.
pub const COOKIE: &str = "trilogy_token";
/// Header that carries the token for non-browser clients.
pub const TOKEN_HEADER: &str = "x-trilogy-token";

/// Why a request was refused (always 403).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    NotLoopback,
    Host,
    Origin,
    Token,
}

impl Refusal {
    /// The `{ error }` text: the original's for a foreign peer, ours for the rest.
    pub(crate) fn message(self, port: u16) -> Said {
        match self {
            Refusal::NotLoopback => says("仅允许本机访问", "only this machine may connect"),
            Refusal::Host => says(
                format!("仅允许本机访问：Host 必须是 127.0.0.1:{port} 或 localhost:{port}"),
                format!(
                    "only this machine may connect: Host must be 127.0.0.1:{port} or localhost:{port}"
                ),
            ),
            Refusal::Origin => says(
                "仅允许本机访问：拒绝来自其他网站的请求",
                "only this machine may connect: requests from other sites are refused",
            ),
            Refusal::Token => says(
                "缺少或错误的令牌：请用 trilogy serve 打印的地址打开面板（脚本请发送 x-trilogy-token 头）",
                "missing or wrong token: open the panel with the address trilogy serve printed \
                 (scripts send the x-trilogy-token header)",
            ),
        }
    }
}

/// True for the loopback addresses the original accepted, and the rest of 127.0.0.0/8.
pub fn is_loopback(peer: IpAddr) -> bool {
    match peer {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => {
            v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}

/// The token a request carries: header first, then the cookie.
pub fn token_of(headers: &HeaderMap) -> Option<String> {
    if let Some(v) = headers.get(TOKEN_HEADER).and_then(|v| v.to_str().ok()) {
        return Some(v.trim().to_string());
    }
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v.trim().to_string())
}

/// Compare without stopping at the first differing byte.
pub fn same_token(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// The hosts a request may name.
fn hosts(port: u16) -> [String; 2] {
    [format!("127.0.0.1:{port}"), format!("localhost:{port}")]
}

/// Pass or refuse a request.
pub fn check(
    peer: IpAddr,
    headers: &HeaderMap,
    method: &Method,
    port: u16,
    token: &str,
) -> Result<(), Refusal> {
    if !is_loopback(peer) {
        return Err(Refusal::NotLoopback);
    }
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
    let allowed = hosts(port);
    if !host.is_some_and(|h| allowed.iter().any(|a| a.eq_ignore_ascii_case(h.trim()))) {
        return Err(Refusal::Host);
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let ok = origin.to_str().ok().is_some_and(|o| {
            allowed
                .iter()
                .any(|a| o.trim().eq_ignore_ascii_case(&format!("http://{a}")))
        });
        if !ok {
            return Err(Refusal::Origin);
        }
    }
    if !matches!(*method, Method::GET | Method::HEAD)
        && !token_of(headers).is_some_and(|t| same_token(&t, token))
    {
        return Err(Refusal::Token);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    const PORT: u16 = 4321;
    const TOKEN: &str = "abcdef0123456789";

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn local() -> IpAddr {
        "127.0.0.1".parse().unwrap()
    }

    #[test]
    fn a_peer_on_the_network_is_refused_with_the_original_text() {
        let h = headers(&[("host", "127.0.0.1:4321")]);
        for peer in ["192.168.1.50", "10.0.0.2", "::ffff:192.168.1.50", "fe80::1"] {
            let got = check(peer.parse().unwrap(), &h, &Method::GET, PORT, TOKEN);
            assert_eq!(got, Err(Refusal::NotLoopback), "{peer}");
        }
        assert_eq!(
            Refusal::NotLoopback
                .message(PORT)
                .text(crate::model::Lang::Zh),
            "仅允许本机访问"
        );
        for peer in ["127.0.0.1", "::1", "::ffff:127.0.0.1"] {
            assert_eq!(
                check(peer.parse().unwrap(), &h, &Method::GET, PORT, TOKEN),
                Ok(()),
                "{peer}"
            );
        }
    }

    #[test]
    fn a_foreign_or_missing_host_is_refused() {
        for host in [
            "evil.example:4321",
            "127.0.0.1:80",
            "127.0.0.1",
            "localhost:1234",
        ] {
            let h = headers(&[("host", host)]);
            assert_eq!(
                check(local(), &h, &Method::GET, PORT, TOKEN),
                Err(Refusal::Host),
                "{host}"
            );
        }
        assert_eq!(
            check(local(), &HeaderMap::new(), &Method::GET, PORT, TOKEN),
            Err(Refusal::Host)
        );
        let h = headers(&[("host", "localhost:4321")]);
        assert_eq!(check(local(), &h, &Method::GET, PORT, TOKEN), Ok(()));
    }

    #[test]
    fn a_cross_site_origin_is_refused_and_our_own_passes() {
        let post = |origin: Option<&str>| {
            let mut pairs = vec![("host", "127.0.0.1:4321"), ("x-trilogy-token", TOKEN)];
            if let Some(o) = origin {
                pairs.push(("origin", o));
            }
            check(local(), &headers(&pairs), &Method::POST, PORT, TOKEN)
        };
        assert_eq!(post(Some("http://evil.example")), Err(Refusal::Origin));
        assert_eq!(post(Some("null")), Err(Refusal::Origin));
        assert_eq!(post(Some("http://127.0.0.1:9999")), Err(Refusal::Origin));
        assert_eq!(post(Some("http://127.0.0.1:4321")), Ok(()));
        assert_eq!(post(Some("http://localhost:4321")), Ok(()));
        assert_eq!(post(None), Ok(()));
    }

    #[test]
    fn a_post_needs_the_token_from_header_or_cookie() {
        let host = ("host", "127.0.0.1:4321");
        let go = |pairs: &[(&'static str, &str)]| {
            check(local(), &headers(pairs), &Method::POST, PORT, TOKEN)
        };
        assert_eq!(go(&[host]), Err(Refusal::Token));
        assert_eq!(
            go(&[host, ("x-trilogy-token", "abcdef0123456788")]),
            Err(Refusal::Token)
        );
        assert_eq!(
            go(&[host, ("cookie", "trilogy_token=nope")]),
            Err(Refusal::Token)
        );
        assert_eq!(go(&[host, ("x-trilogy-token", TOKEN)]), Ok(()));
        let cookie = format!("a=b; trilogy_token={TOKEN}; c=d");
        assert_eq!(go(&[host, ("cookie", &cookie)]), Ok(()));
        // reading needs no token
        assert_eq!(
            check(local(), &headers(&[host]), &Method::GET, PORT, TOKEN),
            Ok(())
        );
        // every other method changes something
        assert_eq!(
            check(local(), &headers(&[host]), &Method::PUT, PORT, TOKEN),
            Err(Refusal::Token)
        );
    }
}
