//! The repository's own shape: the layer map of `src/` holds, `cargo package` ships what the
//! binary needs, and every test file belongs to a suite.

mod layers;
mod package;
mod suite_layout;
