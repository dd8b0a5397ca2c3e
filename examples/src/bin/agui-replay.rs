//! agui-replay (work in progress).
fn main() {}
