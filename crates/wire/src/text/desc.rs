//! The layouts the text form walks: one type-erased [`StructDesc`] per
//! payload struct, which opcodes are N fixed records, and the value kind of
//! each field (with the two state records whose value kind depends on the
//! state named beside it).
//!
//! In: a `Dp2Struct` type or an [`Opcode`]. Out: its field table. Both
//! halves of the language (`disasm` and `asm`) read fields only through
//! these, so a field is printed and parsed with the same kind.

use crate::ddi_enum::ValueKind;
use crate::names;
use crate::structs::*;
use crate::Opcode;

/// The layout of one payload struct, type-erased.
#[derive(Debug, Clone, Copy)]
pub struct StructDesc {
    /// DDK name.
    pub name: &'static str,
    /// Size in bytes.
    pub size: usize,
    /// Fields.
    pub fields: &'static [Field],
}

/// The descriptor of `T`.
pub fn desc<T: Dp2Struct>() -> StructDesc {
    StructDesc {
        name: T::DDK_NAME,
        size: T::SIZE,
        fields: T::FIELDS,
    }
}

/// For opcodes whose payload is exactly N fixed-size records: the record.
pub fn fixed_record(op: Opcode) -> Option<StructDesc> {
    use Opcode as O;
    Some(match op {
        O::Points => desc::<Dp2Points>(),
        O::IndexedLineList => desc::<Dp2IndexedLineList>(),
        O::IndexedTriangleList => desc::<Dp2IndexedTriangleList>(),
        O::RenderState => desc::<Dp2RenderState>(),
        O::TextureStageState => desc::<Dp2TextureStageState>(),
        O::ViewportInfo => desc::<Dp2ViewportInfo>(),
        O::WInfo => desc::<Dp2WInfo>(),
        O::SetPalette => desc::<Dp2SetPalette>(),
        O::ZRange => desc::<Dp2ZRange>(),
        O::SetMaterial => desc::<Dp2SetMaterial>(),
        O::CreateLight => desc::<Dp2CreateLight>(),
        O::SetTransform | O::MultiplyTransform => desc::<Dp2SetTransform>(),
        O::Ext => desc::<Dp2Ext>(),
        O::TexBlt => desc::<Dp2TexBlt>(),
        O::StateSet => desc::<Dp2StateSet>(),
        O::SetPriority => desc::<Dp2SetPriority>(),
        O::SetRenderTarget => desc::<Dp2SetRenderTarget>(),
        O::SetTexLod => desc::<Dp2SetTexLod>(),
        O::SetClipPlane => desc::<Dp2SetClipPlane>(),
        O::DeleteVertexShader
        | O::SetVertexShader
        | O::DeleteVertexShaderDecl
        | O::SetVertexShaderDecl
        | O::DeleteVertexShaderFunc
        | O::SetVertexShaderFunc => desc::<Dp2VertexShader>(),
        O::SetStreamSource => desc::<Dp2SetStreamSource>(),
        O::SetStreamSourceUm => desc::<Dp2SetStreamSourceUm>(),
        O::SetIndices => desc::<Dp2SetIndices>(),
        O::DrawPrimitive => desc::<Dp2DrawPrimitive>(),
        O::DrawIndexedPrimitive => desc::<Dp2DrawIndexedPrimitive>(),
        O::DeletePixelShader | O::SetPixelShader => desc::<Dp2PixelShader>(),
        O::ClippedTriangleFan => desc::<Dp2ClippedTriangleFan>(),
        O::DrawPrimitive2 => desc::<Dp2DrawPrimitive2>(),
        O::DrawIndexedPrimitive2 => desc::<Dp2DrawIndexedPrimitive2>(),
        O::VolumeBlt => desc::<Dp2VolumeBlt>(),
        O::BufferBlt => desc::<Dp2BufferBlt>(),
        O::AddDirtyRect => desc::<Dp2AddDirtyRect>(),
        O::AddDirtyBox => desc::<Dp2AddDirtyBox>(),
        O::SetScissorRect => desc::<Rect>(),
        O::SetStreamSource2 => desc::<Dp2SetStreamSource2>(),
        O::Blt | O::SurfaceBlt => desc::<Dp2Blt>(),
        O::ColorFill => desc::<Dp2ColorFill>(),
        O::CreateQuery => desc::<Dp2CreateQuery>(),
        O::SetRenderTarget2 => desc::<Dp2SetRenderTarget2>(),
        O::SetDepthStencil => desc::<Dp2SetDepthStencil>(),
        O::GenerateMipSubLevels => desc::<Dp2GenerateMipSubLevels>(),
        O::DeleteQuery => desc::<Dp2DeleteQuery>(),
        O::IssueQuery => desc::<Dp2IssueQuery>(),
        O::SetStreamSourceFreq => desc::<Dp2SetStreamSourceFreq>(),
        O::ComposeRects => desc::<Dp2ComposeRects>(),
        _ => return None,
    })
}

/// The value kind of a field, with the two state records whose value's
/// meaning depends on which state it is.
pub(super) fn field_kind(d: &StructDesc, f: &Field, bytes: &[u8]) -> ValueKind {
    let sibling = |name: &str| {
        d.fields
            .iter()
            .find(|g| g.name == name)
            .and_then(|g| g.read(bytes))
    };
    match (d.name, f.name) {
        ("D3DHAL_DP2RENDERSTATE", "dwState") => {
            sibling("RenderState").map_or(f.kind, names::render_state_value_kind)
        }
        ("D3DHAL_DP2TEXTURESTAGESTATE", "dwValue") => {
            sibling("TSState").map_or(f.kind, names::texture_stage_value_kind)
        }
        _ => f.kind,
    }
}
