//! Regression tests, each named after the bug it pins.

use crate::common;

use std::io::Read;
use std::process::Stdio;

use common::{Ws, headings, text};

mod archiving;
mod edits;
mod stores;
