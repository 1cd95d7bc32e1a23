//! [`WgpuError`]: an error wgpu reported (validation, out of memory, internal), kept as the
//! source of a [`GpuError`](crate::device::GpuError).

use std::fmt;
use std::sync::Arc;

/// An error wgpu reported inside one of gpudata's error scopes. Its message is wgpu's chain of
/// causes on one line (`In Device::create_buffer, label = 'gpudata': ...`), so it has no further
/// [`source`](std::error::Error::source); [`wgpu_error`](Self::wgpu_error) is wgpu's error
/// itself.
///
/// Cheap to clone (shared). Two are equal when they are of the same kind with the same message.
#[derive(Clone)]
pub struct WgpuError(Arc<wgpu::Error>);

impl WgpuError {
    pub(crate) fn new(error: wgpu::Error) -> WgpuError {
        WgpuError(Arc::new(error))
    }

    /// The error as wgpu reported it.
    #[must_use]
    pub fn wgpu_error(&self) -> &wgpu::Error {
        &self.0
    }

    fn kind(&self) -> u8 {
        match *self.0 {
            wgpu::Error::OutOfMemory { .. } => 0,
            wgpu::Error::Validation { .. } => 1,
            wgpu::Error::Internal { .. } => 2,
        }
    }
}

impl From<wgpu::Error> for WgpuError {
    fn from(error: wgpu::Error) -> WgpuError {
        WgpuError::new(error)
    }
}

impl fmt::Display for WgpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // wgpu's own Display is a multi-line tree ("Validation Error\n\nCaused by:\n  ...") or a
        // bare "Out of Memory"; its source chain says the same on one line.
        let mut cause = std::error::Error::source(&*self.0);
        if cause.is_none() {
            return f.write_str(self.0.to_string().trim());
        }
        let mut first = true;
        while let Some(error) = cause {
            if !first {
                f.write_str(": ")?;
            }
            first = false;
            f.write_str(error.to_string().trim())?;
            cause = error.source();
        }
        Ok(())
    }
}

impl fmt::Debug for WgpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl std::error::Error for WgpuError {}

impl PartialEq for WgpuError {
    fn eq(&self, other: &WgpuError) -> bool {
        self.kind() == other.kind() && self.to_string() == other.to_string()
    }
}

impl Eq for WgpuError {}
