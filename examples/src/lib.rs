//! Shared code of the host tools (`agui-replay`, `agui-chat`, ...).

pub mod transcript;
