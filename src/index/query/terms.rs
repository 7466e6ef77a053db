//! A query's terms: its words (code names and their parts, stemmed English), its CJK pairs,
//! its single CJK characters and those that stand alone, and which of them are its subject
//! (question and function words dropped while others remain). Pure text work; it never
//! touches the index.

use crate::index::terms;
use crate::index::tokenizer::{is_cjk, lone_cjk};

/// A query's terms, by what they can do (see the module header).
pub(super) struct Terms {
    /// Every term in query order: the phrase bonus.
    pub(super) ordered: Vec<String>,
    /// Words and CJK pairs, each once: one of them makes a hit.
    pub(super) strong: Vec<String>,
    /// Single CJK characters, each once: they add to a hit's score.
    pub(super) chars: Vec<String>,
    /// The characters the query holds by themselves, each once: weak hits.
    pub(super) lone: Vec<String>,
}

impl Terms {
    pub(super) fn of(text: &str) -> Terms {
        let ordered = terms(text);
        let (mut strong, mut chars) = (Vec::new(), Vec::new());
        for t in &ordered {
            let mut cs = t.chars();
            let single = matches!((cs.next(), cs.next()), (Some(c), None) if is_cjk(c));
            push_new(if single { &mut chars } else { &mut strong }, t);
        }
        // question and function words weigh nothing while the query has other words: "what
        // did we decide about the backoff" is searched as "decide backoff"
        if strong.iter().any(|t| !is_stopword(t)) {
            strong.retain(|t| !is_stopword(t));
            chars.retain(|t| !is_stopword(t));
        }
        let mut lone = Vec::new();
        for c in lone_cjk(text) {
            for t in terms(c) {
                push_new(&mut lone, &t);
            }
        }
        Terms {
            ordered,
            strong,
            chars,
            lone,
        }
    }
}

/// The words and CJK pairs of `text` that carry its subject, each once, in order: no question
/// or function words, no single CJK characters (what a query is ranked by).
pub fn subject_terms(text: &str) -> Vec<String> {
    Terms::of(text)
        .strong
        .into_iter()
        .filter(|t| !is_stopword(t))
        .collect()
}

/// English and Chinese words that carry no subject: question words, pronouns, articles,
/// auxiliaries, prepositions (tokens are lowercase; Chinese ones are characters and pairs).
const STOPWORDS: &[&str] = &[
    "a", "about", "an", "and", "any", "are", "as", "at", "be", "been", "by", "can", "could", "did",
    "do", "does", "for", "from", "had", "has", "have", "how", "i", "if", "in", "into", "is", "it",
    "its", "me", "my", "of", "on", "or", "our", "should", "so", "some", "that", "the", "then",
    "there", "these", "this", "those", "to", "us", "was", "we", "were", "what", "when", "where",
    "which", "who", "why", "will", "with", "would", "you", "的", "了", "吗", "呢", "是", "在",
    "我们", "什么", "怎么", "怎样", "如何", "哪里", "哪个", "哪些", "为什", "为何", "是否", "这个",
    "那个", "有没",
];

/// Chinese characters that only ever carry grammar or ask (particles, question words): a pair
/// holding one (`点的`, `改了`, `在哪`) spans a word boundary and names no subject.
const FUNCTION_CHARS: &[char] = &[
    '的', '了', '吗', '呢', '吧', '啊', '呀', '哪', '么', '什', '怎',
];

fn is_stopword(t: &str) -> bool {
    STOPWORDS.contains(&t)
        || (t.chars().count() == 2 && t.chars().any(|c| FUNCTION_CHARS.contains(&c)))
}

fn push_new(v: &mut Vec<String>, t: &str) {
    if !v.iter().any(|x| x == t) {
        v.push(t.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_terms_are_words_pairs_characters_and_lone_characters() {
        let t = Terms::of("boot 重复 锁");
        assert_eq!(t.strong, ["boot", "重复"]);
        assert_eq!(t.chars, ["重", "复", "锁"]);
        assert_eq!(t.lone, ["锁"], "only 锁 stands by itself");
        assert_eq!(t.ordered, ["boot", "重", "重复", "复", "锁"]);
    }
}
