//! IR → assembly text.
use crate::ir::Shader;

/// Disassembles a shader.
pub fn disassemble(_shader: &Shader) -> String {
    String::new()
}
