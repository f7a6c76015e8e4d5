//! Assembly text → IR.
use crate::error::{ErrorKind, ShaderError};
use crate::ir::Shader;

/// Assembles Direct3D shader assembly.
pub fn assemble(_text: &str) -> Result<Shader, ShaderError> {
    Err(ShaderError::new(ErrorKind::Empty, 0))
}
