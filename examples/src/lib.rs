//! Shared code of the host tools (`agui-replay`, `agui-chat`, ...).

pub mod flags;
pub mod headers;
pub mod interrupts;
pub mod json_out;
pub mod proto_encode;
pub mod tool_command;
pub mod transcript;
