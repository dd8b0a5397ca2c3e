//! agui-alloc: see README.
#![no_std]
#![forbid(unsafe_code)]
extern crate alloc;
pub mod client;
pub mod event;
pub mod hooks;
mod index;
pub mod model;
pub mod partial;
pub mod patch;
pub mod reduce;
pub mod size;
pub mod value;
