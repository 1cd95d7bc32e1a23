//! Arbitrary JSON text as a struct format: no panic, and what is accepted re-serializes to JSON
//! that parses to the same format.
#![no_main]

use gpudata::GpuDataStructFormat;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(format) = serde_json::from_str::<GpuDataStructFormat>(text) {
        let again = serde_json::to_string(&format).expect("formats serialize");
        let back: GpuDataStructFormat = serde_json::from_str(&again).expect("own JSON parses");
        assert_eq!(back, format);
    }
});
