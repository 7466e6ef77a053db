//! What people and agents do with the user memory (`workspace::user` is the scope itself):
//! its lines written or proposed, shown, and carried in every session-start block (`block`),
//! never in the copies of the block written into committed files.

mod block;
mod ops;

pub use block::{Part, notice, part, room};
pub use ops::{Shown, ShownSection, add, check, record, show};
