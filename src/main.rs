//! The `trilogy` binary: everything happens in `trilogy::cli`.

fn main() {
    std::process::exit(trilogy::cli::run().code());
}
