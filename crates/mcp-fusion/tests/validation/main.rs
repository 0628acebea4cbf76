//! Argument validation against JSON Schema (wire contract §4), keyword by
//! keyword: every test asserts the exact field lines (path and message) a
//! schema gives for some arguments (`lines`), and how they render.

mod lines;
use fusion_test_support::library as support;

mod arrays;
mod enums;
mod generated;
mod numbers;
mod objects;
mod rendering;
mod schemas;
mod strings;
mod types;
mod unions;
