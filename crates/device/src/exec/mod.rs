//! Executing one decoded DP2 command against a context.
//!
//! In: a [`Command`] the walker decoded, the context, the driver's surfaces
//! and renderer, and the call's data (flags, vertex source, lpdwRStates).
//! Out: the command's effect, or an error that leaves **no** effect: every
//! handler validates all of its records (handles, indices, ranges, enum
//! values) before it changes anything, so a failing command never takes
//! partial effect (prefix semantics).
//!
//! Rendering goes through the GPU: the executor keeps DP2 state in
//! [`crate::state::DeviceState`] (the UMD sends what changed as register
//! writes), turns vertex formats into
//! [`VertexLayout`](softhal_pipeline::VertexLayout), and primitive opcodes
//! into [`DrawCall`](softhal_pipeline::DrawCall)s, after checking every
//! vertex index and range against the data that exists.
//!
//! [`Exec::execute`] sends each opcode to its family's module:
//! * `state`: RENDERSTATE, TEXTURESTAGESTATE, transforms, viewport, lights,
//!   material, clip planes, scissor, bound shaders and their constants, all
//!   written through one `StateWriter`;
//! * `stream`: SETVERTEXSHADER(DECL), SETSTREAMSOURCE*, SETINDICES, and
//!   reading vertex data from the streams;
//! * `draw`: the DX6 primitives and DX8 stream draws, lowered into GPU
//!   packets;
//! * `patch`: DRAWRECTPATCH / DRAWTRIPATCH and the patch cache;
//! * `resource`: render targets, CLEAR, blts, palettes, SETTEXLOD,
//!   priorities, dirty rects, convolution kernels;
//! * `objects`: creating and deleting shaders, declarations and queries;
//! * `query`: ISSUEQUERY and its responses;
//! * `stateset`: STATESET (the blocks themselves are [`crate::stateblock`]).

mod draw;
mod objects;
mod patch;
mod query;
mod resource;
mod state;
mod stateset;
mod stream;

pub use stream::layout_from_fvf;

use crate::context::Context;
use crate::error::{DeviceError, Result};
use crate::handle::Slab;
use crate::resource::{Resource, SurfaceKind};
use softhal_wire::Command;

use crate::dp2::{D3DHALDP2_EXECUTEBUFFER as EXECUTEBUFFER, D3DHALDP2_USERMEMVERTICES as USERMEM};

/// The parts of the DP2 call the executor needs.
pub(crate) struct Call<'c> {
    pub flags: u32,
    pub fvf: u32,
    pub user: Option<&'c [u8]>,
    pub vertex_surface: u32,
    pub vertex_offset: u32,
    pub vertex_length: u32,
    pub rstates: Option<&'c mut [u32; 256]>,
}

/// The executor of one DP2 call.
pub(crate) struct Exec<'x, 'c> {
    /// The GPU (kernel side and the UMD's command buffer).
    pub gpu: &'x mut crate::umd::Gpu,
    /// The device context handle (selects the GPU context).
    pub ctx_h: u32,
    pub surfaces: &'x mut Slab<Resource>,
    pub ctx: &'x mut Context,
    pub call: &'x mut Call<'c>,
}

/// The error for an opcode no family executes (the decoder knows every
/// DDI opcode; this is the answer to one added later).
fn unsupported_opcode() -> DeviceError {
    DeviceError::Unsupported("opcode")
}

/// The kind of surface `h` (an error for a bad handle).
fn kind_of(surfaces: &Slab<Resource>, h: u32) -> Result<SurfaceKind> {
    Ok(surfaces.get(h)?.desc.kind)
}

impl<'c> Exec<'_, 'c> {
    /// Executes one command: each opcode family in its own module.
    pub fn execute(&mut self, cmd: &Command<'c>) -> Result<()> {
        use Command as C;
        match *cmd {
            C::RenderState(_)
            | C::TextureStageState(_)
            | C::ViewportInfo(_)
            | C::ZRange(_)
            | C::WInfo(_)
            | C::SetMaterial(_)
            | C::CreateLight(_)
            | C::SetLight(_)
            | C::SetTransform(_)
            | C::MultiplyTransform(_)
            | C::SetClipPlane(_)
            | C::SetScissorRect(_)
            | C::SetVertexShaderFunc(_)
            | C::SetPixelShader(_)
            | C::SetVertexShaderConst(_)
            | C::SetVertexShaderConstI(_)
            | C::SetVertexShaderConstB(_)
            | C::SetPixelShaderConst(_)
            | C::SetPixelShaderConstI(_)
            | C::SetPixelShaderConstB(_) => self.state_command(cmd),
            C::SetVertexShader(_)
            | C::SetVertexShaderDecl(_)
            | C::SetStreamSource(_)
            | C::SetStreamSource2(_)
            | C::SetStreamSourceUm(_)
            | C::SetStreamSourceFreq(_)
            | C::SetIndices(_) => self.stream_command(cmd),
            C::Points(_)
            | C::LineList { .. }
            | C::LineStrip { .. }
            | C::TriangleList { .. }
            | C::TriangleStrip { .. }
            | C::TriangleFan { .. }
            | C::IndexedLineList(_)
            | C::IndexedTriangleList(_)
            | C::IndexedTriangleList2 { .. }
            | C::IndexedLineList2 { .. }
            | C::IndexedLineStrip { .. }
            | C::IndexedTriangleStrip { .. }
            | C::IndexedTriangleFan { .. }
            | C::TriangleFanImm { .. }
            | C::LineListImm { .. }
            | C::DrawPrimitive(_)
            | C::DrawPrimitive2(_)
            | C::ClippedTriangleFan(_)
            | C::DrawIndexedPrimitive(_)
            | C::DrawIndexedPrimitive2(_) => self.draw_command(cmd),
            C::DrawRectPatch(recs) => self.rect_patches(recs),
            C::DrawTriPatch(recs) => self.tri_patches(recs),
            C::SetRenderTarget(_)
            | C::SetRenderTarget2(_)
            | C::SetDepthStencil(_)
            | C::Clear { .. }
            | C::BufferBlt(_)
            | C::TexBlt(_)
            | C::VolumeBlt(_)
            | C::Blt(_)
            | C::SurfaceBlt(_)
            | C::ColorFill(_)
            | C::GenerateMipSubLevels(_)
            | C::SetTexLod(_)
            | C::SetPriority(_)
            | C::AddDirtyRect(_)
            | C::AddDirtyBox(_)
            | C::SetPalette(_)
            | C::UpdatePalette { .. }
            | C::SetConvolutionKernelMono(_) => self.resource_command(cmd),
            C::CreateVertexShader(_)
            | C::DeleteVertexShader(_)
            | C::CreateVertexShaderDecl(_)
            | C::DeleteVertexShaderDecl(_)
            | C::CreateVertexShaderFunc(_)
            | C::DeleteVertexShaderFunc(_)
            | C::CreatePixelShader(_)
            | C::DeletePixelShader(_)
            | C::CreateQuery(_)
            | C::DeleteQuery(_) => self.object_command(cmd),
            C::IssueQuery(recs) => self.issue_queries(recs),
            C::StateSet(recs) => self.state_sets(recs),
            C::Ext(recs) => {
                self.ctx.stats.ext_tokens =
                    self.ctx.stats.ext_tokens.saturating_add(recs.len() as u64);
                Ok(())
            }
            C::ComposeRects(_) => Err(DeviceError::Unsupported("D3DDP2OP_COMPOSERECTS")),
            C::Reserved0 { .. } => Err(DeviceError::Unsupported(
                "D3DDP2OP_RESERVED0 is never sent to a driver",
            )),
            C::ResponseQuery(_) | C::ResponseContinue { .. } => Err(DeviceError::Unsupported(
                "response records are written by the driver, never parsed",
            )),
            C::Unknown { opcode } => Err(DeviceError::UnknownCommand { opcode }),
            _ => Err(unsupported_opcode()),
        }
    }

    /// Fails unless surface `h` exists and is of `kind`.
    fn check_kind(&self, h: u32, kind: SurfaceKind) -> Result<()> {
        let k = kind_of(self.surfaces, h)?;
        if k != kind {
            return Err(DeviceError::WrongKind {
                handle: h,
                expected: kind.name(),
                actual: k.name(),
            });
        }
        Ok(())
    }

    /// A colour render target: a render target or a texture with
    /// render-target usage.
    fn check_color_target(&self, h: u32) -> Result<()> {
        let r = self.surfaces.get(h)?;
        if !r.is_color_target() {
            return Err(r.wrong(h, SurfaceKind::RenderTarget.name()));
        }
        Ok(())
    }
}
