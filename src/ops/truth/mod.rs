//! Memory that stays true: what keeps two live answers to one question out of the memory.
//!
//! `topic`: a decision may name its topic (`主题：…` / `Topic: …`, a field line of the entry, so
//! it travels with the file); one topic has one live decision. A new one on a topic that
//! already has a live decision must supersede it; two live ones that arrive by a hand edit or
//! a merge are kept and reported, and the next decision on that topic is refused until a
//! person settles them.
//!
//! `similar`: a decision without a topic that nearly repeats a live one is recorded with a
//! warning naming it.
//!
//! `review`: decisions and sections may carry a review date; what has come due is listed by
//! `trilogy due`, counted by `status` and shown in the session-start block.
//!
//! `notice`: what a live session is told when memory changed under it, with the content.
//!
//! `retire`: a person marks an entry as no longer true; agents only propose it, in `notes`.

pub mod due;
pub mod notice;
pub mod retire;
pub mod similar;
pub mod topic;
