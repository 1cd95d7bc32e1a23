//! Arrow upload benchmark (being written).

fn main() {}
