//! TEST DOUBLE of Dynamo's Rust C API (`lib/bindings/c`, library
//! `dynamo_llm_capi`). It exports the same C symbols as two generations of
//! the real library, with deterministic behaviour and extra
//! `dynamo_double_*` hooks for tests. It is used by tests only and is never
//! shipped: see README.md.
//!
//! Every exported function validates its pointers and never panics, so no
//! unwinding can cross the FFI boundary (release builds abort on panic).

#![allow(non_camel_case_types, clippy::missing_safety_doc, clippy::too_many_arguments)]

mod common;
mod control;
mod json;
pub mod pipeline;
pub mod routers;
