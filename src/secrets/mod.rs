//! Recognise credentials in text: memory files are committed to git and injected into every
//! session, so a secret written there leaks twice. A checkpoint holding one is refused; one
//! written into a file by hand is kept (nothing is lost) but reported, and kept out of the
//! search index and the session-start block until the person removes it.
//!
//! Pure: no I/O. The text is normalised before matching (invisible format characters removed,
//! full-width and other compatibility forms folded) so light obfuscation does not get
//! through, and findings are located in the text as written. The families are in `rules`;
//! what tells a real value from a placeholder or a name is in `entropy`; a private key is a
//! finding over every line of its block (`block`).

mod block;
mod entropy;
mod normalize;
mod prefilter;
mod rules;
#[cfg(test)]
mod tests;

use std::sync::OnceLock;

use regex::{Regex, RegexSet};

use rules::{Check, KEY_BEGIN, KEY_END, MIN_ASSIGNED, RULES};

/// A credential found in some input text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What it looks like ("a private key block", "an AWS access key id", …).
    pub kind: &'static str,
    /// 1-based line and column (in characters) inside the text, as written.
    pub line: usize,
    pub column: usize,
    /// The match with its middle masked, safe to print.
    pub masked: String,
}

struct Compiled {
    /// Every rule, then the disguise characters: one pass tells clean text apart, and which
    /// rules can match otherwise.
    set: RegexSet,
    /// Each rule on its own, compiled the first time its pattern is seen to match.
    each: Vec<OnceLock<Regex>>,
    patterns: Vec<String>,
}

fn compiled() -> &'static Compiled {
    static C: OnceLock<Compiled> = OnceLock::new();
    C.get_or_init(|| {
        // ASCII word boundaries: a Unicode `\b` would both misjudge CJK neighbours and keep
        // the fast engines from running on non-ASCII text
        let patterns: Vec<String> = RULES
            .iter()
            .map(|r| r.pattern.replace(r"\b", r"(?-u:\b)"))
            .collect();
        let all = patterns
            .iter()
            .map(String::as_str)
            .chain([normalize::DISGUISE]);
        Compiled {
            set: RegexSet::new(all).expect("secret patterns are valid regexes"),
            each: RULES.iter().map(|_| OnceLock::new()).collect(),
            patterns,
        }
    })
}

impl Compiled {
    fn rule(&self, i: usize) -> &Regex {
        self.each[i].get_or_init(|| {
            Regex::new(&self.patterns[i]).expect("secret patterns are valid regexes")
        })
    }
}

fn mask(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() <= 8 {
        return "…".to_string();
    }
    let head: String = chars[..4].iter().collect();
    let tail: String = chars[chars.len() - 2..].iter().collect();
    format!("{head}…{tail}")
}

fn passes(check: Check, secret: &str) -> bool {
    match check {
        Check::Always => true,
        Check::Real => !entropy::is_placeholder(secret),
        Check::Random(bits) => {
            !entropy::is_placeholder(secret) && entropy::looks_random(secret, bits)
        }
        Check::AwsSecret => {
            let has = |f: fn(&u8) -> bool| secret.as_bytes().iter().any(f);
            has(u8::is_ascii_uppercase)
                && has(u8::is_ascii_lowercase)
                && has(u8::is_ascii_digit)
                && !entropy::is_placeholder(secret)
                && !entropy::is_camel_name(secret)
                && entropy::entropy(secret) >= 4.3
        }
        Check::Password => !entropy::is_placeholder_value(secret),
        // a value without a digit is far more often a name (`token: InMemoryTokenStore`) than
        // a generated secret
        Check::Assigned => {
            secret.chars().count() >= MIN_ASSIGNED
                && secret.bytes().any(|b| b.is_ascii_digit())
                && !entropy::is_placeholder_value(secret)
                && !entropy::names_itself(secret)
                && !entropy::is_camel_name(secret)
                && !entropy::is_code_path(secret)
                && !secret.starts_with(['/', '.', '~'])
                && !secret.contains("://")
                && !secret.contains(['(', ')', '[', ']', '{', '}'])
                && entropy::looks_random(secret, 3.3)
        }
    }
}

/// A URL password that is a well-known default of a service on this machine
/// (`postgres://postgres:postgres@localhost`, `amqp://guest:guest@127.0.0.1`): what every
/// quick-start and compose file holds, and no secret.
fn local_default(check: Check, caps: &regex::Captures) -> bool {
    const DEFAULTS: [&str; 8] = [
        "postgres", "password", "root", "guest", "admin", "secret", "example", "test",
    ];
    let (Check::Password, Some(u), Some(p), Some(h)) =
        (check, caps.name("u"), caps.name("s"), caps.name("h"))
    else {
        return false;
    };
    let host = h
        .as_str()
        .rsplit('@')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    let local = host == "localhost"
        || host.starts_with("127.")
        || host == "0.0.0.0"
        || host == "[::1]"
        || host == "host.docker.internal";
    let (u, p) = (u.as_str(), p.as_str());
    local && (p.eq_ignore_ascii_case(u) || DEFAULTS.iter().any(|d| p.eq_ignore_ascii_case(d)))
}

/// Every credential in `text`, in order; overlapping matches are reported once, by the
/// most specific rule.
pub fn find_all(text: &str) -> Vec<Finding> {
    located(text).into_iter().map(|(_, f)| f).collect()
}

/// `text` with every credential in it replaced by its masked form (what recall shows of a
/// transcript line).
pub fn masked(text: &str) -> String {
    let found = located(text);
    if found.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (range, f) in found {
        if range.start < at || range.end > text.len() {
            continue;
        }
        out.push_str(&text[at..range.start]);
        out.push_str(&f.masked);
        at = range.end;
    }
    out.push_str(&text[at..]);
    out
}

/// [`find_all`], each finding with the bytes of `text` it covers.
fn located(text: &str) -> Vec<(std::ops::Range<usize>, Finding)> {
    if !prefilter::may_hold(text) {
        return Vec::new();
    }
    let c = compiled();
    let mut hits = c.set.matches(text);
    if !hits.matched_any() {
        return Vec::new();
    }
    let norm = normalize::normalize(text);
    let hay: &str = &norm.text;
    if hay != text {
        hits = c.set.matches(hay);
    }
    // (start, rule, end, masked) in the normalised text
    let mut spans: Vec<(usize, usize, usize, String)> = Vec::new();
    for i in hits.iter().filter(|i| *i < RULES.len()) {
        for caps in c.rule(i).captures_iter(hay) {
            let Some(m) = caps.name("s").or_else(|| caps.get(0)) else {
                continue;
            };
            if passes(RULES[i].check, m.as_str()) && !local_default(RULES[i].check, &caps) {
                // a key's marker line stands for its whole block, every line of it masked
                let (start, end) = match i {
                    KEY_BEGIN => (m.start(), block::end_of(hay, m.end())),
                    KEY_END => (block::start_of(hay, m.start()), m.end()),
                    _ => (m.start(), m.end()),
                };
                spans.push((start, i, end, mask(m.as_str())));
            }
        }
    }
    spans.sort_unstable();
    let mut out = Vec::new();
    let mut covered = 0;
    let mut prev_line_end = (0, 1); // (byte offset of a line start, its number)
    for (start, i, end, masked) in spans {
        if start < covered {
            continue;
        }
        covered = end;
        let at = norm.original(start);
        let until = match end >= hay.len() {
            true => text.len(),
            false => norm.original(end).max(at),
        };
        // count lines from the last finding on: findings come in order
        let (from, mut line) = prev_line_end;
        line += text[from..at].matches('\n').count();
        let line_start = text[..at].rfind('\n').map_or(0, |p| p + 1);
        prev_line_end = (line_start, line);
        let f = Finding {
            kind: RULES[i].kind,
            line,
            column: text[line_start..at].chars().count() + 1,
            masked,
        };
        out.push((at..until, f));
    }
    out
}

/// The first credential-looking match in `text`, if any.
pub fn find(text: &str) -> Option<Finding> {
    find_all(text).into_iter().next()
}

/// Text written under a heading: an entry, a PROJECT or USER section. The records are the
/// model's; this is all of them a scan needs.
pub trait Headed {
    fn heading(&self) -> &str;
    fn body(&self) -> &str;
}

impl<T: Headed + ?Sized> Headed for &T {
    fn heading(&self) -> &str {
        (**self).heading()
    }
    fn body(&self) -> &str {
        (**self).body()
    }
}

/// The first credential in an entry or section (heading, then body).
pub fn in_record(r: &impl Headed) -> Option<Finding> {
    find(r.heading()).or_else(|| find(r.body()))
}
