"""The package version (kept equal to the Rust crate's version; a test checks it)."""

__version__ = "0.1.0"
