//! Any string through every format parser: no panic, and what parses displays back to itself.
#![no_main]

use gpudata::{GpuVectorFormat, ShaderType, StepMode, StructLayout, VertexFormat};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|s: &str| {
    if let Ok(f) = s.parse::<VertexFormat>() {
        assert_eq!(f.as_str(), s);
        assert_eq!(VertexFormat::from_name(s), Some(f));
        assert_eq!(f.byte_length(), f.data_type().byte_length() * u64::from(f.components()));
    }
    if let Ok(f) = s.parse::<GpuVectorFormat>() {
        assert_eq!(f.to_string(), s);
    }
    if let Ok(t) = s.parse::<ShaderType>() {
        // Aliases display in the long form, which parses to the same type.
        assert_eq!(t.to_string().parse::<ShaderType>().ok(), Some(t));
    }
    if let Ok(l) = s.parse::<StructLayout>() {
        assert_eq!(l.as_str(), s);
    }
    if let Ok(m) = s.parse::<StepMode>() {
        assert_eq!(m.as_str(), s);
    }
});
