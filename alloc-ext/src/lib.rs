//! agui-alloc: see README.
#![no_std]
#![forbid(unsafe_code)]
extern crate alloc;
pub mod patch;
pub mod model;
pub mod event;
pub mod reduce;
pub mod hooks;
pub mod partial;
