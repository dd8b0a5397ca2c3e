//! agui-alloc: see README.
#![no_std]
#![forbid(unsafe_code)]
extern crate alloc;
pub mod client;
pub mod conversation;
pub mod event;
pub mod hooks;
#[cfg(feature = "http")]
pub mod http;
pub mod model;
pub mod partial;
pub mod patch;
pub mod reduce;
