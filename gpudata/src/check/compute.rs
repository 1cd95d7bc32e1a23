//! A compute entry point's workgroup size, read from the shader, and the workgroup count a
//! dispatch of N invocations needs: [`Shader::workgroup_size`] and [`Shader::workgroups`], so
//! `dispatch_workgroups` takes no size typed twice (once in `@workgroup_size`, once in Rust).

use naga::ShaderStage;

use super::error::ShaderCheckError;
use super::shader::Shader;

impl Shader {
    /// The `@workgroup_size` of compute entry point `entry`, `[x, y, z]` (sizes left out are 1).
    ///
    /// # Errors
    /// [`ShaderCheckError::MissingComputeEntryPoint`] when the shader has no `@compute` function
    /// of that name; [`ShaderCheckError::OverrideWorkgroupSize`] when its size is an `override`
    /// constant (the pipeline's constants settle it, not the shader).
    pub fn workgroup_size(&self, entry: &str) -> Result<[u32; 3], ShaderCheckError> {
        let ep = self
            .module()
            .entry_points
            .iter()
            .find(|ep| ep.name == entry && ep.stage == ShaderStage::Compute)
            .ok_or_else(|| ShaderCheckError::MissingComputeEntryPoint {
                name: entry.to_owned(),
            })?;
        if ep
            .workgroup_size_overrides
            .is_some_and(|sizes| sizes.iter().any(Option::is_some))
        {
            return Err(ShaderCheckError::OverrideWorkgroupSize {
                name: entry.to_owned(),
            });
        }
        Ok(ep.workgroup_size)
    }

    /// The workgroups to dispatch so that `entry` runs at least `invocations` invocations along
    /// x: `[invocations.div_ceil(x), 1, 1]` for its `@workgroup_size(x, ..)`, what
    /// `dispatch_workgroups` takes (the shader skips the invocations past the last item). Under
    /// the device's `limits` ([`Gpu::limits`](crate::Gpu::limits)).
    ///
    /// ```
    /// use gpudata::check::Shader;
    ///
    /// let shader = Shader::parse("@compute @workgroup_size(64) fn step() {}")?;
    /// let [x, y, z] = shader.workgroups("step", 1000, &wgpu::Limits::default())?;
    /// assert_eq!((x, y, z), (16, 1, 1));
    /// # Ok::<(), gpudata::check::ShaderCheckError>(())
    /// ```
    ///
    /// # Errors
    /// As [`workgroup_size`](Self::workgroup_size); [`ShaderCheckError::TooManyWorkgroups`]
    /// past `limits.max_compute_workgroups_per_dimension`.
    pub fn workgroups(
        &self,
        entry: &str,
        invocations: u32,
        limits: &wgpu::Limits,
    ) -> Result<[u32; 3], ShaderCheckError> {
        let [size, _, _] = self.workgroup_size(entry)?;
        // A zero size is invalid WGSL; counted as 1, it cannot divide by zero.
        let workgroups = invocations.div_ceil(size.max(1));
        if workgroups > limits.max_compute_workgroups_per_dimension {
            return Err(ShaderCheckError::TooManyWorkgroups {
                entry: entry.to_owned(),
                invocations,
                workgroup_size: size,
                workgroups,
                limit: limits.max_compute_workgroups_per_dimension,
            });
        }
        Ok([workgroups, 1, 1])
    }
}
