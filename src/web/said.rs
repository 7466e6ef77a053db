//! What the API says, in the workspace's language: every message the endpoints write is
//! given in Chinese and in English ([`says`]), and the answer carries the one of the workspace
//! the request names (its `lang`), else the one of the workspace `serve` ran in. Messages that
//! come from `ops` are already English and stay so in both.

use crate::model::Lang;

/// One message in both of the panel's languages (boxed: it rides in every `Err` the
/// endpoints return, which stays small).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Said(Box<(String, String)>);

/// A message written in Chinese and in English.
pub(crate) fn says(zh: impl Into<String>, en: impl Into<String>) -> Said {
    Said(Box::new((zh.into(), en.into())))
}

impl Said {
    /// The text for `lang`.
    pub fn text(self, lang: Lang) -> String {
        let (zh, en) = *self.0;
        match lang {
            Lang::Zh => zh,
            Lang::En => en,
        }
    }
}

/// A text that reads the same in both (an error from `ops`, already English).
impl From<String> for Said {
    fn from(s: String) -> Said {
        says(s.clone(), s)
    }
}

impl From<&str> for Said {
    fn from(s: &str) -> Said {
        says(s, s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_read_in_the_language_asked() {
        let m = says("缺少 root 参数", "missing the root parameter");
        assert_eq!(m.clone().text(Lang::Zh), "缺少 root 参数");
        assert_eq!(m.text(Lang::En), "missing the root parameter");
        assert_eq!(Said::from("same").text(Lang::En), "same");
    }
}
