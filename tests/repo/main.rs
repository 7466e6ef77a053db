//! The repository's own shape: functions a reader holds in one sitting, the layer map of `src/`
//! holds, `cargo package` ships what the binary needs, and every test file belongs to a suite.

mod code_shape;
mod layers;
mod package;
mod suite_layout;
