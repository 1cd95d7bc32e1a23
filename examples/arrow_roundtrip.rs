//! Arrow IPC round trip through the GPU (being written).

fn main() {}
