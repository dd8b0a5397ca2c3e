//! Shared code of the host tools (`agui-replay`, `agui-chat`, ...).

pub mod json_out;
pub mod transcript;
